// SPDX-License-Identifier: MIT
/*
 * report_demo [--json] [--gbits]: drives every call of common/base/report.h once,
 * with awkward values (quotes, control characters, NAN, nesting, empty
 * containers), so tests/report.sh can check the JSON with a real parser and
 * the text against the expected rendering.
 */
#include <math.h>
#include <string.h>

#include "report.h"

int main(int argc, char **argv)
{
	struct report r;
	bool json = false, gbits = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--gbits"))
			gbits = true;
	}
	report_init(&r, stdout, json, gbits);
	report_obj_begin(&r, NULL);
	report_str(&r, "tool", "tool=%s\n", "report_demo");
	report_str(&r, "tricky", "tricky=%s\n", "q\"b\\s/\n\t\x01 é");
	report_str(&r, "missing", "missing=%s|\n", NULL);
	report_str(&r, "missing_wide", "[%-6s]\n", NULL);
	report_u64(&r, "big", "big=%llu\n", UINT64_MAX);
	report_i64(&r, "neg", "neg=%lld\n", -42);
	report_double(&r, "pi", "pi=%.3f\n", 3.14159265);
	report_double(&r, "nan", "nan=[%6.2f%%]\n", NAN);
	report_bool(&r, "yes", "yes=%s\n", true);
	report_null(&r, "nothing", NULL);
	report_bw(&r, "gb_per_s", "bw=%.2f\n", 3.57e9);
	/* under 0.1: two significant digits, the column's width kept */
	report_bw(&r, "small_gb_per_s", "small=[%7.2f] GB/s\n", 4.2e6);
	report_bw(&r, "tenth_gb_per_s", "tenth=%.2f\n", 0.1e9);
	report_text(&r, "unit=%s\n", report_bw_unit(&r));
	report_double(&r, NULL, "textonly=%g\n", 7.0); /* no key in an object: text only */
	report_arr_begin(&r, "empty");
	report_arr_end(&r);
	report_obj_begin(&r, "empty_obj");
	report_obj_end(&r);
	report_arr_begin(&r, "rows");
	for (i = 0; i < 3; i++) {
		report_obj_begin(&r, NULL);
		report_u64(&r, "i", "row %llu", (unsigned long long)i);
		report_arr_begin(&r, "v");
		report_double(&r, NULL, " %g", i * 0.5);
		report_double(&r, NULL, NULL, i * 1.5);
		report_arr_end(&r);
		report_text(&r, "\n");
		report_obj_end(&r);
	}
	report_arr_end(&r);
	report_obj_end(&r);
	report_finish(&r);
	return 0;
}
