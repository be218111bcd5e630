/* SPDX-License-Identifier: MIT */
/*
 * verdict.h: the verdict on the data that landed, its words in one table
 * (verdict.c: the JSON's "verify" and the text's word, for every report and
 * message that names one) and the note the sink's checks of what landed write
 * it into (sink/verify.c), which its session keeps and its result copies.
 */
#ifndef NBW_VERDICT_H
#define NBW_VERDICT_H

/* The verdict on the data that landed; the first three are the wire values of DONE. */
enum verdict {
	VERDICT_FAIL = 0,
	VERDICT_PASS = 1,
	VERDICT_OFF = 2,
	VERDICT_NONE = 3, /* not reached: the run failed before */
};

/* A verdict and its words ("2 canary chunks match"; "" none). */
struct verdict_note {
	enum verdict verdict;
	char detail[256];
};

/* "pass", "fail", "off", or NULL (VERDICT_NONE): the JSON's "verify". */
const char *verdict_name(enum verdict v);
/* "PASS", "FAIL", "OFF", or "incomplete" (VERDICT_NONE): the text's. */
const char *verdict_word(enum verdict v);

#endif
