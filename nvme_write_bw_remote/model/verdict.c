// SPDX-License-Identifier: MIT
/* verdict.c: the words of a verdict on the data, one table (see verdict.h). */
#include <stddef.h>

#include "verdict.h"

static const struct {
	const char *name; /* JSON */
	const char *word; /* text */
} words[] = {
	[VERDICT_FAIL] = {"fail", "FAIL"},
	[VERDICT_PASS] = {"pass", "PASS"},
	[VERDICT_OFF] = {"off", "OFF"},
	[VERDICT_NONE] = {NULL, "incomplete"},
};

const char *verdict_name(enum verdict v)
{
	return (unsigned)v <= VERDICT_NONE ? words[v].name : NULL;
}

const char *verdict_word(enum verdict v)
{
	return words[(unsigned)v <= VERDICT_NONE ? v : VERDICT_NONE].word;
}
