// SPDX-License-Identifier: MIT
/* test_parse.c: the size / duration / count / list grammar of common/base/parse.c. */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "parse.h"

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int rc = parse_size(s, &v);

	if (rc)
		fprintf(stderr, "parse_size(\"%s\") = %d\n", s, rc);
	CHECK(rc == 0);
	CHECK_U64(v, want);
}

static void size_bad(const char *s, int want_rc)
{
	uint64_t v = 12345;

	CHECK(parse_size(s, &v) == want_rc);
	CHECK_U64(v, 12345); /* untouched on error */
}

static void dur_ok(const char *s, double want)
{
	double v = -1;

	CHECK(parse_duration(s, &v) == 0);
	CHECK(fabs(v - want) < 1e-9);
}

int main(void)
{
	char buf[64], list[64];
	char *items[4];
	unsigned long n;

	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("512B", 512);
	size_ok("1K", 1024);
	size_ok("1k", 1024);
	size_ok("1KiB", 1024);
	size_ok("1KB", 1000);
	size_ok("1M", 1ULL << 20);
	size_ok("1MiB", 1ULL << 20);
	size_ok("1mib", 1ULL << 20);
	size_ok("1MB", 1000000);
	size_ok("1mb", 1000000);
	size_ok("16G", 1ULL << 34);
	size_ok("3GB", 3000000000ULL);
	size_ok("2T", 2ULL << 40);
	size_ok("1P", 1ULL << 50);
	size_ok("18446744073709551615", UINT64_MAX);
	size_bad("", -EINVAL);
	size_bad("M", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad(" 1", -EINVAL);
	size_bad("1 M", -EINVAL);
	size_bad("1.5G", -EINVAL);
	size_bad("1X", -EINVAL);
	size_bad("1MiBx", -EINVAL);
	size_bad("1iB", -EINVAL);
	size_bad("1Mb2", -EINVAL);
	size_bad("18446744073709551616", -ERANGE);
	size_bad("16384P", -ERANGE);
	size_bad("99999999999999999999999", -ERANGE);
	CHECK(parse_size(NULL, &(uint64_t){0}) == -EINVAL);

	dur_ok("20", 20);
	dur_ok("0", 0);
	dur_ok("0.5", 0.5);
	dur_ok("2s", 2);
	dur_ok("500ms", 0.5);
	dur_ok("2m", 120);
	dur_ok("1h", 3600);
	CHECK(parse_duration("", &(double){0}) == -EINVAL);
	CHECK(parse_duration("-1", &(double){0}) == -EINVAL);
	CHECK(parse_duration("abc", &(double){0}) == -EINVAL);
	CHECK(parse_duration("5x", &(double){0}) == -EINVAL);
	CHECK(parse_duration("nan", &(double){0}) == -EINVAL);
	CHECK(parse_duration("inf", &(double){0}) == -EINVAL);
	/* Decimal only: no exponent, no hex float (a size is never "1e3" or "0x1p10"). */
	CHECK(parse_duration("1e9", &(double){0}) == -EINVAL);
	CHECK(parse_duration("1e400", &(double){0}) == -EINVAL);
	CHECK(parse_duration("0x1p-2", &(double){0}) == -EINVAL);
	CHECK(parse_duration(".", &(double){0}) == -EINVAL);
	CHECK(parse_duration("1.2.3", &(double){0}) == -EINVAL);
	dur_ok(".5", 0.5);
	dur_ok("1.", 1);
	CHECK(parse_duration("31622401", &(double){0}) == -ERANGE); /* 366 days + 1 s */
	CHECK(parse_duration("8785h", &(double){0}) == -ERANGE);
	CHECK(parse_duration("99999999999999999999999999999999999999999999999999999999999999999999",
			     &(double){0}) == -ERANGE);

	CHECK(parse_uint("12", 1, 100, &n) == 0 && n == 12);
	CHECK(parse_uint("0", 1, 100, &n) == -ERANGE);
	CHECK(parse_uint("101", 1, 100, &n) == -ERANGE);
	CHECK(parse_uint("1a", 1, 100, &n) == -EINVAL);
	CHECK(parse_uint("", 1, 100, &n) == -EINVAL);
	CHECK(parse_uint("-3", 0, 100, &n) == -EINVAL);

	snprintf(list, sizeof(list), "a,bb,c");
	CHECK(parse_list(list, items, 4) == 3);
	CHECK_STR(items[0], "a");
	CHECK_STR(items[1], "bb");
	CHECK_STR(items[2], "c");
	snprintf(list, sizeof(list), "a,,c");
	CHECK(parse_list(list, items, 4) == -EINVAL);
	snprintf(list, sizeof(list), "a,");
	CHECK(parse_list(list, items, 4) == -EINVAL);
	snprintf(list, sizeof(list), "a,b,c,d,e");
	CHECK(parse_list(list, items, 4) == -E2BIG);
	snprintf(list, sizeof(list), "%s", "");
	CHECK(parse_list(list, items, 4) == -EINVAL);

	CHECK_STR(format_size(1 << 20, buf, sizeof(buf)), "1MiB");
	CHECK_STR(format_size(4096, buf, sizeof(buf)), "4KiB");
	CHECK_STR(format_size(1ULL << 34, buf, sizeof(buf)), "16GiB");
	CHECK_STR(format_size(1000, buf, sizeof(buf)), "1000B");
	CHECK_STR(format_size(1500000, buf, sizeof(buf)), "1.43MiB");

	return check_done("test_parse");
}
