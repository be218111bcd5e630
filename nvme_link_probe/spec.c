// SPDX-License-Identifier: MIT
/*
 * spec.c: the site slot specification (--expect-file): reading its lines
 * ("slot-or-bdf gen width", # comments) and naming its bays. What each bay
 * delivers is judged in judge.c and printed in print.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bays.h"
#include "nbw.h"
#include "parse.h"
#include "spec.h"

static int spec_err(const struct site_spec *s, int line, const char *why, const char *tok)
{
	nbw_err("%s:%d: %s%s%s%s", s->file, line, why, tok ? " '" : "", tok ? tok : "",
		tok ? "'" : "");
	return NBW_EXIT_USAGE;
}

/* One non-blank line "KEY GEN WIDTH" (comment already cut) into b. */
static int spec_line(struct site_spec *s, char *text, int line, struct bay_spec *b)
{
	char *tok[4], *save = NULL;
	unsigned long gen;
	int k = 0, i;

	for (char *t = strtok_r(text, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
		if (k < 4)
			tok[k++] = t;
		else
			k++;
	if (k != 3)
		return spec_err(s, line,
				"expected 'slot-or-bdf gen width', found a different "
				"number of fields",
				NULL);
	memset(b, 0, sizeof(*b));
	b->line = line;
	if (strchr(tok[0], ':')) {
		if (pcie_bdf_normalise(tok[0], b->key))
			return spec_err(s, line, "not a PCI address", tok[0]);
		b->is_bdf = true;
	} else if (strlen(tok[0]) >= sizeof(b->key)) {
		return spec_err(s, line, "slot name too long", tok[0]);
	} else {
		snprintf(b->key, sizeof(b->key), "%s", tok[0]);
	}
	if (parse_uint(tok[1], 1, 6, &gen))
		return spec_err(s, line, "not a PCIe generation (1-6)", tok[1]);
	b->speed = pcie_speed_gts((unsigned)gen);
	if (pcie_parse_width(tok[2], &b->width))
		return spec_err(s, line, "not a PCIe link width (1 2 4 8 12 16 32)", tok[2]);
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->bay[i].key, b->key))
			return spec_err(s, line, "bay already specified on an earlier line",
					tok[0]);
	return 0;
}

int spec_load(const char *file, struct site_spec *s)
{
	char buf[512];
	int line = 0, rc = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->file = file;
	f = fopen(file, "r");
	if (!f) {
		nbw_err("%s: %s", file, strerror(errno));
		return NBW_EXIT_FAIL; /* well formed, missing on the machine */
	}
	s->bay = calloc(MAX_DEVS, sizeof(*s->bay));
	if (!s->bay) {
		fclose(f);
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	while (!rc && fgets(buf, sizeof(buf), f)) {
		char *hash = strchr(buf, '#'), *p;

		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			rc = spec_err(s, line, "line too long", NULL);
			break;
		}
		if (hash)
			*hash = 0;
		buf[strcspn(buf, "\n")] = 0;
		for (p = buf; *p && isspace((unsigned char)*p); p++)
			;
		if (!*p)
			continue;
		if (s->n >= MAX_DEVS)
			rc = spec_err(s, line, "too many bays", NULL);
		else if (!(rc = spec_line(s, p, line, &s->bay[s->n])))
			s->n++;
	}
	fclose(f);
	if (rc)
		spec_free(s);
	return rc;
}

void spec_free(struct site_spec *s)
{
	free(s->bay);
	*s = (struct site_spec){.file = s->file};
}

bool spec_names(const struct bay_spec *b, const struct probe_dev *p, bool by_number)
{
	if (b->is_bdf)
		return p->bdf[0] && !strcmp(b->key, p->bdf);
	return bays_slot_matches(p, b->key, by_number);
}

/* "slot 33" or "0000:01:00.0": the bay as the site file names it. */
const char *spec_bay_name(const struct bay_spec *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", b->is_bdf ? "" : "slot ", b->key);
	return buf;
}
