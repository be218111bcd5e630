// SPDX-License-Identifier: MIT
/*
 * test_provenance.c: the provenance block's builder (common/base/provenance.c):
 * the command line quoted as a shell reads it back and cut at a word, ISO 8601
 * UTC with milliseconds, the monotonic -> Unix conversion, the UUID's version
 * and variant bits, the window's span widened by several windows, drives and
 * ports read from a sysfs tree ("not readable" where a file is missing, each
 * added once), and the JSON block printed through the report.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "provenance.h"
#include "timing.h"

static void test_quote(void)
{
	char *plain[] = {"nvme_read_bw", "--disks", "/dev/nvme0n1,/dev/nvme1n1", "-D", "20"};
	char *odd[] = {"tool", "it's", "a b", "", "$HOME", "x\ny"};
	char *argv[64], buf[64];
	int i;

	CHECK(prov_quote_args(buf, sizeof(buf), 5, plain));
	CHECK_STR(buf, "nvme_read_bw --disks /dev/nvme0n1,/dev/nvme1n1 -D 20");
	CHECK(prov_quote_args(buf, sizeof(buf), 6, odd));
	CHECK_STR(buf, "tool 'it'\\''s' 'a b' '' '$HOME' 'x\ny'");
	/* too long: cut after a whole word, marked */
	for (i = 0; i < 64; i++)
		argv[i] = "abcdefgh";
	CHECK(!prov_quote_args(buf, sizeof(buf), 64, argv));
	CHECK_STR(buf, "abcdefgh abcdefgh abcdefgh abcdefgh abcdefgh abcdefgh ...");
	CHECK(strlen(buf) < sizeof(buf));
	/* a single word longer than the room: only the mark */
	argv[0] = "a-very-long-word-that-does-not-fit-in-the-buffer-of-the-test-at-all";
	CHECK(!prov_quote_args(buf, sizeof(buf), 1, argv));
	CHECK_STR(buf, " ...");
}

static void test_time(void)
{
	char b[40];

	CHECK_STR(prov_iso8601(0, b, sizeof(b)), "1970-01-01T00:00:00.000Z");
	CHECK_STR(prov_iso8601(1769940003.25, b, sizeof(b)), "2026-02-01T10:00:03.250Z");
	CHECK_STR(prov_iso8601(1769940003.9999, b, sizeof(b)), "2026-02-01T10:00:03.999Z");
	CHECK_STR(prov_iso8601(NAN, b, sizeof(b)), "");
	CHECK_STR(prov_iso8601(1e12, b, sizeof(b)), ""); /* past year 9999 */
	/* 3 s before "now" on the monotonic clock is 3 s before now on the wall */
	CHECK(fabs(prov_wall_of(7000000000ULL, 10000000000ULL, 1769940003.0) - 1769940000.0) <
	      1e-6);
	CHECK(fabs(prov_wall_of(12500000000ULL, 10000000000ULL, 1769940003.0) - 1769940005.5) <
	      1e-6);
}

static void test_uuid(void)
{
	uint8_t b[16];
	char s[40];
	int i;

	memset(b, 0xff, sizeof(b));
	prov_uuid_format(b, s);
	CHECK_STR(s, "ffffffff-ffff-4fff-bfff-ffffffffffff");
	for (i = 0; i < 16; i++)
		b[i] = (uint8_t)i;
	prov_uuid_format(b, s);
	CHECK_STR(s, "00010203-0405-4607-8809-0a0b0c0d0e0f");
}

static void test_span(void)
{
	static struct provenance p;
	char *argv[] = {"t"};
	uint64_t now = nbw_now_ns();
	double first;

	prov_init(&p, 1, argv);
	CHECK(isnan(p.start) && isnan(p.end));
	CHECK(p.host[0] && p.kernel[0]);
	CHECK_U64(strlen(p.run_id), 36);
	CHECK(p.run_id[14] == '4');
	prov_span(&p, 0, now); /* never opened: ignored */
	CHECK(isnan(p.start));
	prov_span(&p, now - 3000000000ULL, now - 2000000000ULL);
	first = p.start;
	CHECK(fabs((p.end - p.start) - 1.0) < 0.01);
	prov_span(&p, now - 1000000000ULL, now); /* a later window widens the end */
	CHECK(fabs(p.start - first) < 0.01);
	CHECK(fabs((p.end - p.start) - 3.0) < 0.01);
	prov_span(&p, now, now - 1); /* a close before its opening: ignored */
	CHECK(fabs((p.end - p.start) - 3.0) < 0.01);
	prov_span(NULL, now - 1, now); /* no block: nothing */
}

static void put(const char *dir, const char *name, const char *val)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static void test_sysfs(const char *root)
{
	static struct provenance p;
	char *argv[] = {"t"}, dir[512];
	int i;

	snprintf(dir, sizeof(dir), "%s/class", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/class/nvme", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/class/nvme/nvme0", root);
	mkdir(dir, 0755);
	put(dir, "model", "Fixture NVMe   \n");
	put(dir, "serial", "S3EVNX0K123456\n");
	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_0", root);
	mkdir(dir, 0755);
	put(dir, "fw_ver", "20.31.1014\n");
	put(dir, "board_id", "MT_0000000223\n");

	prov_init(&p, 1, argv);
	CHECK(!prov_add_nvme(&p, root, "/dev/nvme0n1", "nvme0"));
	CHECK(!prov_add_nvme(&p, root, "/dev/nvme0n1", "nvme0")); /* once per path */
	CHECK(!prov_add_nvme(&p, root, "", "nvme7"));		  /* no such controller */
	CHECK(!prov_add_target(&p, "/tmp/file.img", "file"));
	CHECK(!prov_add_rdma(&p, root, "mlx5_0", 1));
	CHECK(!prov_add_rdma(&p, root, "mlx5_0", 1));
	CHECK(!prov_add_rdma(&p, root, "rxe0", 1));
	CHECK_U64(p.ndrives, 3);
	CHECK_STR(p.drives[0].model, "Fixture NVMe");
	CHECK_STR(p.drives[0].serial, "S3EVNX0K123456");
	CHECK_STR(p.drives[0].firmware, PROV_NOT_READABLE);
	CHECK_STR(p.drives[1].controller, "nvme7");
	CHECK_STR(p.drives[1].serial, PROV_NOT_READABLE);
	CHECK_STR(p.drives[2].kind, "file");
	CHECK_STR(p.drives[2].model, "");
	CHECK_U64(p.nports, 2);
	CHECK_STR(p.ports[0].firmware, "20.31.1014");
	CHECK_STR(p.ports[0].board_id, "MT_0000000223");
	CHECK_STR(p.ports[1].firmware, PROV_NOT_READABLE);
	/* the block is bounded: the 65th drive is refused, not written past the end */
	for (i = p.ndrives; i < PROV_MAX_DRIVES; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/tmp/f%d", i);
		CHECK(!prov_add_target(&p, path, "file"));
	}
	CHECK(prov_add_target(&p, "/tmp/one-more", "file") < 0);
	CHECK_U64(p.ndrives, PROV_MAX_DRIVES);
}

/* The report's JSON without its layout (newlines, indentation, the space after a colon). */
static void compact(char *s)
{
	char *out = s;

	while (*s) {
		if (*s == '\n') {
			for (s++; *s == ' '; s++)
				;
			continue;
		}
		if (s[0] == ':' && s[1] == ' ') {
			*out++ = ':';
			s += 2;
			continue;
		}
		*out++ = *s++;
	}
	*out = '\0';
}

static void test_json(void)
{
	static struct provenance p;
	char *argv[] = {"nvme_read_bw", "--json"}, *buf = NULL;
	struct report r;
	size_t len = 0;
	uint64_t now = nbw_now_ns();
	FILE *f = open_memstream(&buf, &len);

	prov_init(&p, 2, argv);
	prov_add_target(&p, "/tmp/x", "file");
	prov_span(&p, now - 2000000000ULL, now - 1000000000ULL);
	report_init(&r, f, true, false);
	report_obj_begin(&r, NULL);
	prov_report(&r, &p);
	report_obj_end(&r);
	report_finish(&r);
	fclose(f);
	compact(buf);
	CHECK(strstr(buf, "\"provenance\":{\"format\":1,\"run_id\":\"") != NULL);
	CHECK(strstr(buf, "\"command\":\"nvme_read_bw --json\",\"command_complete\":true") != NULL);
	CHECK(strstr(buf, "\"window_measured\":true") != NULL);
	CHECK(strstr(buf, "\"start_unix_s\":17") != NULL || strstr(buf, "\"start_unix_s\":18"));
	CHECK(strstr(buf,
		     "{\"path\":\"/tmp/x\",\"controller\":null,\"kind\":\"file\",\"model\":null,"
		     "\"serial\":null,\"firmware\":null}") != NULL);
	CHECK(strstr(buf, "\"rdma_ports\":[]") != NULL);
	free(buf);

	/* text: the one header line, nothing in JSON's place */
	buf = NULL;
	f = open_memstream(&buf, &len);
	report_init(&r, f, false, false);
	prov_text_line(&r, &p);
	prov_report(&r, &p);
	fclose(f);
	CHECK(!strncmp(buf, " Host/date/kernel: ", 19));
	CHECK(strstr(buf, p.host) && strstr(buf, p.kernel));
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);
	free(buf);
}

int main(void)
{
	char root[] = "/tmp/test_provenance.XXXXXX", rm[64];

	test_quote();
	test_time();
	test_uuid();
	test_span();
	if (mkdtemp(root)) {
		test_sysfs(root);
		snprintf(rm, sizeof(rm), "rm -rf '%s'", root);
		if (system(rm) == -1)
			perror("rm");
	} else {
		CHECK(!"mkdtemp");
	}
	test_json();
	return check_done("test_provenance");
}
