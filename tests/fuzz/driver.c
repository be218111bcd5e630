// SPDX-License-Identifier: MIT
/*
 * driver.c: a small mutation fuzzer around a libFuzzer-style entry point,
 * LLVMFuzzerTestOneInput(), so that the targets in tests/fuzz/ run under
 * `make check` with gcc's ASan/UBSan and no fuzzing engine installed.
 *
 *	driver [-t SECONDS] [-s SEED] [-m MAXLEN] CORPUS_DIR...
 *	driver --write-corpus DIR   (targets that define fuzz_write_corpus())
 *
 * Every file of the corpus directories is replayed first; then, until the
 * time budget is spent, a corpus input (sometimes spliced with another) is
 * mutated with 1-8 of: bit flip, byte set (random or a boundary value),
 * truncation, insertion, deletion, duplication of a span, a 16/32-bit
 * boundary value written big- or little-endian; a target may add mutations
 * that know its format (fuzz_mutate). There is no coverage
 * feedback: this is a budgeted random walk around valid inputs. Before
 * each input runs, its length and a copy are kept, so that a sanitizer
 * report (ASan calls the death callback) saves it as crash-<seed>-<n>.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional: write the target's seed corpus into dir. 0 or -errno. */
int fuzz_write_corpus(const char *dir) __attribute__((weak));
/*
 * Optional: a mutation that knows the target's format, used for half of the
 * rounds: buf[0..len) (capacity cap) changed in place, its new length returned.
 */
size_t fuzz_mutate(uint8_t *buf, size_t len, size_t cap, uint64_t random) __attribute__((weak));
/* Optional: a few words on what the target saw, for the summary line. */
const char *fuzz_stats(void) __attribute__((weak));

#define MAX_FILES 4096
#define MAX_FILE (1u << 20)

struct input {
	uint8_t *data;
	size_t len;
};

static struct input corpus[MAX_FILES];
static size_t ncorpus;
static uint64_t rng_state;
static const uint8_t *cur_data;
static size_t cur_len;
static unsigned long long cur_n, run_seed;

/* xorshift64*: small, fast, reproducible from the printed seed. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* On a sanitizer report: keep the input that caused it. */
static void save_crash(void)
{
	char name[64];
	FILE *f;

	if (!cur_data)
		return;
	snprintf(name, sizeof(name), "crash-%llu-%llu", run_seed, cur_n);
	f = fopen(name, "wb");
	if (f) {
		fwrite(cur_data, 1, cur_len, f);
		fclose(f);
		fprintf(stderr, "fuzz: input saved as %s (%zu bytes)\n", name, cur_len);
	}
}

static void run_one(const uint8_t *data, size_t len)
{
	cur_data = data;
	cur_len = len;
	cur_n++;
	LLVMFuzzerTestOneInput(data, len);
	cur_data = NULL;
}

static int load_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE ||
	    ncorpus == MAX_FILES)
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	corpus[ncorpus].data = buf;
	corpus[ncorpus++].len = (size_t)st.st_size;
	return 0;
}

static int load_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return -errno;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rc = load_file(path);
	}
	closedir(d);
	return rc;
}

static const uint32_t boundary[] = {0,		1,	     0x7f,	  0x80,	      0xff,
				    0x100,	0x7fff,	     0x8000,	  0xffff,     0x10000,
				    0x7fffffff, 0x80000000u, 0xfffffff0u, 0xffffffffu};

/* One mutation of buf[0..*len) (capacity cap). */
static void mutate_once(uint8_t *buf, size_t *len, size_t cap)
{
	size_t n = *len, at = below(n), span;
	uint32_t v;
	int k;

	switch (below(8)) {
	case 0: /* bit flip */
		if (n)
			buf[at] ^= (uint8_t)(1u << below(8));
		break;
	case 1: /* byte set */
		if (n)
			buf[at] = below(2) ? (uint8_t)rnd() : (uint8_t)boundary[below(9)];
		break;
	case 2: /* truncate */
		*len = below(n + 1);
		break;
	case 3: /* insert random bytes */
		span = 1 + below(16);
		if (n + span > cap)
			break;
		at = below(n + 1);
		memmove(buf + at + span, buf + at, n - at);
		for (k = 0; k < (int)span; k++)
			buf[at + (size_t)k] = (uint8_t)rnd();
		*len = n + span;
		break;
	case 4: /* delete a span */
		if (!n)
			break;
		span = 1 + below(n - at < 32 ? n - at : 32);
		memmove(buf + at, buf + at + span, n - at - span);
		*len = n - span;
		break;
	case 5: /* duplicate a span */
		span = 1 + below(64);
		if (!n || at + span > n || n + span > cap)
			break;
		memmove(buf + at + 2 * span, buf + at + span, n - at - span);
		memcpy(buf + at + span, buf + at, span);
		*len = n + span;
		break;
	default: /* a boundary value, 16 or 32 bits, either byte order */
		v = boundary[below(sizeof(boundary) / sizeof(boundary[0]))];
		span = below(2) ? 2 : 4;
		if (n < span)
			break;
		at = below(n - span + 1);
		for (k = 0; k < (int)span; k++) {
			int shift = below(2) ? 8 * k : 8 * ((int)span - 1 - k);

			buf[at + (size_t)k] = (uint8_t)(v >> shift);
		}
		break;
	}
}

/* Build one mutated input into buf from the corpus. Returns its length. */
static size_t make_input(uint8_t *buf, size_t cap)
{
	const struct input *a = &corpus[below(ncorpus)];
	size_t len = a->len < cap ? a->len : cap;
	int i, rounds = 1 + (int)below(8);

	memcpy(buf, a->data, len);
	if (ncorpus > 1 && below(8) == 0) { /* splice: a's head, b's tail */
		const struct input *b = &corpus[below(ncorpus)];
		size_t head = below(len + 1), tail = below(b->len + 1);

		if (head + (b->len - tail) <= cap) {
			memcpy(buf + head, b->data + tail, b->len - tail);
			len = head + (b->len - tail);
		}
	}
	for (i = 0; i < rounds; i++) {
		if (fuzz_mutate && below(2))
			len = fuzz_mutate(buf, len, cap, rnd());
		else
			mutate_once(buf, &len, cap);
	}
	return len;
}

int main(int argc, char **argv)
{
	double budget = 5, t0, t;
	size_t maxlen = 0, largest = 0, cap, i;
	unsigned long long replayed, mutated = 0;
	uint8_t *buf;
	int a;

	if (argc == 3 && !strcmp(argv[1], "--write-corpus")) {
		if (!fuzz_write_corpus) {
			fprintf(stderr, "fuzz: this target has no corpus writer\n");
			return 2;
		}
		return fuzz_write_corpus(argv[2]) ? 1 : 0;
	}
#if !defined(__SANITIZE_ADDRESS__)
	if (!getenv("FUZZ_WITHOUT_SANITIZERS")) {
		printf("SKIP: built without ASan/UBSan (the compiler cannot link -fsanitize)\n");
		return 77;
	}
#else
	__sanitizer_set_death_callback(save_crash);
#endif
	run_seed = (unsigned long long)time(NULL);
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-t") && a + 1 < argc) {
			budget = atof(argv[++a]);
		} else if (!strcmp(argv[a], "-s") && a + 1 < argc) {
			run_seed = strtoull(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
			maxlen = strtoul(argv[++a], NULL, 0);
		} else if (load_dir(argv[a])) {
			fprintf(stderr, "fuzz: %s: cannot read the corpus\n", argv[a]);
			return 1;
		}
	}
	if (!ncorpus) {
		fprintf(stderr, "fuzz: an empty corpus\n");
		return 1;
	}
	rng_state = run_seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < ncorpus; i++) {
		run_one(corpus[i].data, corpus[i].len);
		if (corpus[i].len > largest)
			largest = corpus[i].len;
	}
	replayed = cur_n;
	/* Room to grow: twice the largest seed, at least 4 KiB (or -m). */
	cap = maxlen ? maxlen : 2 * largest > 4096 ? 2 * largest : 4096;
	buf = malloc(cap);
	if (!buf)
		return 1;
	t0 = now_s();
	t = t0;
	while (t - t0 < budget) {
		int k;

		for (k = 0; k < 64; k++) {
			size_t len = make_input(buf, cap);
			/* A copy of exactly len bytes, so ASan sees reads past its end. */
			uint8_t *in = malloc(len ? len : 1);

			if (!in)
				return 1;
			memcpy(in, buf, len);
			run_one(in, len);
			free(in);
			mutated++;
		}
		t = now_s();
	}
	printf("fuzz: seed %llu: %llu corpus inputs replayed, %llu mutated inputs in %.1f s "
	       "(%.0f/s)%s%s, no finding\n",
	       run_seed, replayed, mutated, t - t0, mutated / (t - t0 > 0 ? t - t0 : 1),
	       fuzz_stats ? "; " : "", fuzz_stats ? fuzz_stats() : "");
	free(buf);
	for (i = 0; i < ncorpus; i++)
		free(corpus[i].data);
	return 0;
}
