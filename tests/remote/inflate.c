// SPDX-License-Identifier: MIT
/*
 * inflate.c: a source that claims more than it wrote. Wrapped around the
 * source's RESULT encoder (ld --wrap=ctrl_encode_result, tests/remote/
 * inflate_remote: the tool with the fake fabric, as fake_remote), it
 * multiplies the RESULT's bytes, and those of each of its drives and rails
 * so that they still add up, by $NBW_INFLATE (an integer, 2 or more); the
 * window and everything else stay true. Without $NBW_INFLATE the RESULT
 * goes out unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"

int __real_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m);
int __wrap_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m);

int __wrap_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m)
{
	const char *env = getenv("NBW_INFLATE");
	unsigned long k = env ? strtoul(env, NULL, 10) : 0;
	struct ctrl_result r = *m;
	struct ctrl_drive *drives;
	struct ctrl_rail *rails;
	uint32_t i;
	int rc;

	if (k < 2)
		return __real_ctrl_encode_result(b, m);
	drives = calloc(m->ndrives + 1, sizeof(*drives));
	rails = calloc(m->nrails + 1, sizeof(*rails));
	if (!drives || !rails) {
		free(drives);
		free(rails);
		return __real_ctrl_encode_result(b, m);
	}
	r.bytes *= k;
	for (i = 0; i < m->ndrives; i++) {
		drives[i] = m->drives[i];
		drives[i].bytes *= k;
	}
	for (i = 0; i < m->nrails; i++) {
		rails[i] = m->rails[i];
		rails[i].bytes *= k;
	}
	r.drives = drives;
	r.rails = rails;
	rc = __real_ctrl_encode_result(b, &r);
	free(drives);
	free(rails);
	return rc;
}
