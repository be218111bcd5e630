// SPDX-License-Identifier: MIT
/*
 * fuzz_pcidump.c: fuzz target for the dump path of nvme_link_probe: the
 * line checker (pcidump_check) and, for what it accepts, the whole reader
 * (pcitree_load through libpci's dump method, the relations, VF matching,
 * role inference) and a path walk from every function.
 *
 * What the checker accepts, libpci must read without an error of its own: a
 * libpci error there means the checker let through a line libpci chokes on
 * (-EIO from pcitree_load), and the target aborts so that the driver keeps
 * the input.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcidump.h"
#include "pcitree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *fuzz_stats(void);
size_t fuzz_mutate(uint8_t *buf, size_t len, size_t cap, uint64_t random);

static int memfd = -1;
static char memfd_path[64];
static unsigned long long n_checked, n_read, n_fns;

const char *fuzz_stats(void)
{
	static char s[128];

	snprintf(s, sizeof(s), "%llu passed the checker, %llu read by libpci (%llu functions)",
		 n_checked, n_read, n_fns);
	return s;
}

static void walk_all(const struct pcitree *t)
{
	struct pcie_path p;
	int i;

	for (i = 0; i < t->n; i++) {
		const struct pcie_fn *f = pcitree_find(t, t->fn[i].bdf);

		if (!f || strcmp(f->bdf, t->fn[i].bdf)) {
			fprintf(stderr, "fuzz_pcidump: pcitree_find lost %s\n", t->fn[i].bdf);
			abort();
		}
		pcitree_path(t, f, "device", false, &p);
		pcitree_usable_ceiling(t, f->bdf);
	}
}

/* Replace buf[at..at+old) by rep[0..n) within cap. Returns the new length. */
static size_t splice_in(uint8_t *buf, size_t len, size_t cap, size_t at, size_t old,
			const char *rep, size_t n)
{
	if (len - old + n > cap)
		return len;
	memmove(buf + at + n, buf + at + old, len - at - old);
	memcpy(buf + at, rep, n);
	return len - old + n;
}

/*
 * Dump-aware mutations, so that many inputs still pass the checker and reach
 * libpci and the decoders with odd values: a hex digit changed (capability
 * pointers, SR-IOV counts, bus numbers), an offset replaced by a boundary
 * one, a line duplicated or deleted.
 */
size_t fuzz_mutate(uint8_t *buf, size_t len, size_t cap, uint64_t r)
{
	static const char *const offs[] = {"00",       "0e",	   "18",      "34",  "40",
					   "100",      "140",	   "ff0",     "fff", "1000",
					   "7ffffff0", "80000000", "fffffff0"};
	static const char hex[] = "0123456789abcdef";
	size_t at, end, k;

	if (!len)
		return len;
	at = (size_t)(r >> 8) % len;
	switch (r & 3) {
	case 0: /* another hex digit */
		for (k = 0; k < len; k++, at = (at + 1) % len)
			if (isxdigit(buf[at])) {
				buf[at] = (uint8_t)hex[(r >> 40) & 15];
				break;
			}
		return len;
	default:
		break;
	}
	while (at > 0 && buf[at - 1] != '\n')
		at--;
	for (end = at; end < len && buf[end] != '\n'; end++)
		;
	if (end < len)
		end++;
	if ((r & 3) == 1) { /* a boundary offset for a data line */
		const char *o = offs[(r >> 40) % (sizeof(offs) / sizeof(offs[0]))];
		const uint8_t *colon = memchr(buf + at, ':', end - at);

		if (colon && colon - (buf + at) <= 8 && colon + 1 < buf + end && colon[1] == ' ')
			return splice_in(buf, len, cap, at, (size_t)(colon - (buf + at)), o,
					 strlen(o));
		return len;
	}
	if ((r & 3) == 2) /* duplicate the line */
		return splice_in(buf, len, cap, end, 0, (const char *)buf + at, end - at);
	return splice_in(buf, len, cap, at, end - at, "", 0); /* delete it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcidump_err e;
	struct pcitree t;
	char err[512];
	int rc;

	if (pcidump_check((const char *)data, size, &e))
		return 0;
	n_checked++;
	if (memfd < 0) {
		memfd = memfd_create("fuzz-pcidump", MFD_CLOEXEC);
		if (memfd < 0) {
			perror("fuzz_pcidump: memfd_create");
			exit(1);
		}
		snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_pcidump: memfd");
		exit(1);
	}
	rc = pcitree_load(&t, NULL, memfd_path, err, sizeof(err));
	if (rc == -EIO) {
		fprintf(stderr, "fuzz_pcidump: the checker accepted what libpci rejects: %s\n",
			err);
		abort();
	}
	if (!rc) {
		n_read++;
		n_fns += (unsigned long long)t.n;
		walk_all(&t);
		pcitree_free(&t);
	}
	return 0;
}
