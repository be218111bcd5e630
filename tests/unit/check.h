/* SPDX-License-Identifier: MIT */
/* check.h: the few assertions the C unit tests use; each prints what it compared. */
#ifndef NBW_CHECK_H
#define NBW_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond)) {                                                                     \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);           \
		}                                                                                  \
	} while (0)

#define CHECK_U64(a, b)                                                                            \
	do {                                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
		check_count++;                                                                     \
		if (a_ != b_) {                                                                    \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s = %" PRIu64 ", expected %" PRIu64 "\n",   \
				__FILE__, __LINE__, #a, a_, b_);                                   \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		check_count++;                                                                     \
		if (strcmp(a_, b_)) {                                                              \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s = \"%s\", expected \"%s\"\n", __FILE__,   \
				__LINE__, #a, a_, b_);                                             \
		}                                                                                  \
	} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
