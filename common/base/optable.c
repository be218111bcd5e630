// SPDX-License-Identifier: MIT
/*
 * optable.c: what an option table prints: --help's option lines and the
 * listing (--options-table) the bash completion and the man-page check read
 * (cli.h), and an option's words (cli_words, cli_word_list). The parser is cli.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HELP_WIDTH 79  /* the last column a help line may fill */
#define HELP_COLUMN 25 /* where the text of an option starts */

/* An option's words: its own, or its table's (a row with words_of, such as --engine). */
const char *const *cli_words(const struct cli_opt *e)
{
	return e->words_of ? e->words_of() : e->words;
}

void cli_word_list(const char *const *words, char *buf, size_t len)
{
	size_t off = 0;
	int i, n = 0;

	if (len)
		buf[0] = 0;
	while (words && words[n])
		n++;
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0	     ? ""
					: i + 1 == n ? " or "
						     : ", ",
					words[i]);
}

/* Row e has a line of its own in --help (not: the listing, a name named on another's line). */
static bool has_line(const struct cli_opt *e)
{
	return e->type != CLI_T_LIST && !e->with;
}

/* A letter getopt takes as -x. */
static bool is_letter(int val)
{
	return val > 0 && val <= CHAR_MAX && isalnum(val);
}

/* " (not built)" when a word of e is not built, else "". */
static const char *unbuilt_note(const struct cli_spec *spec, const struct cli_opt *e)
{
	const char *const *words = cli_words(e);
	int w;

	for (w = 0; words && words[w] && spec->unbuilt; w++)
		if (spec->unbuilt(e, w))
			return " (not built)";
	return "";
}

/* The next "%s" or "%w" of help text h (another '%' stands as it is), or NULL. */
static const char *directive(const char *h)
{
	while ((h = strchr(h, '%')) && h[1] != 's' && h[1] != 'w')
		h++;
	return h;
}

/* Help text h into buf: "%s" the unbuilt note, "%w" the words ("a, b or c"). The length. */
static size_t help_text(const struct cli_spec *spec, const struct cli_opt *e, const char *h,
			char *buf, size_t len)
{
	char words[256];
	size_t off = 0;
	const char *p;

	buf[0] = 0;
	while ((p = directive(h)) && off < len) {
		if (p[1] == 'w')
			cli_word_list(cli_words(e), words, sizeof(words));
		off += (size_t)snprintf(buf + off, len - off, "%.*s%s", (int)(p - h), h,
					p[1] == 'w' ? words : unbuilt_note(spec, e));
		h = p + 2;
	}
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s", h);
	return off;
}

/* Row e's text: its help (help_text()), its default, the names that stand with it. */
static void row_text(const struct cli_spec *spec, const struct cli_opt *e, char *buf, size_t len)
{
	const struct cli_opt *w;
	size_t off, n = 0;

	off = help_text(spec, e, e->help ? e->help : "", buf, len);
	if (e->def && off < len)
		off += (size_t)snprintf(buf + off, len - off, " (default %s)", e->def);
	for (w = spec->opts; w->o.name && off < len; w++) {
		if (w->with != e->o.val || w == e || w->type == CLI_T_LIST)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s--%s", n++ ? ", " : "; ",
					w->o.name);
	}
	if (n && off < len)
		snprintf(buf + off, len - off, " too");
}

/* Print text from column col, wrapped at HELP_WIDTH with HELP_COLUMN's indent; '\n' breaks. */
static void wrap(const char *text, size_t col)
{
	const char *p = text, *end;
	size_t len;

	while (*p) {
		while (*p == ' ')
			p++;
		if (*p == '\n') {
			printf("\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
			p++;
			continue;
		}
		end = p + strcspn(p, " \n");
		len = (size_t)(end - p);
		if (!len)
			break;
		if (col > HELP_COLUMN && col + 1 + len > HELP_WIDTH) {
			printf("\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
		} else if (col > HELP_COLUMN) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)len, p);
		col += len;
		p = end;
	}
	putchar('\n');
}

/* "  -x, --name ARG" (or "      --name ARG"): its length. */
static size_t print_head(const struct cli_opt *e)
{
	const char *arg = e->type == CLI_T_ANSWER || e->type == CLI_T_NOTE ? NULL : e->arg;
	int n;

	if (is_letter(e->o.val))
		n = printf("  -%c, --%s", e->o.val, e->o.name);
	else
		n = printf("      --%s", e->o.name);
	if (arg)
		n += printf("%s%s", arg[0] == '[' && arg[1] == '=' ? "" : " ", arg);
	return (size_t)n;
}

void cli_help(const struct cli_spec *spec)
{
	const char *sect = NULL, *printed = NULL;
	const struct cli_opt *e;
	char text[1024];
	size_t col;

	for (e = spec->opts; e->o.name; e++) {
		if (e->sect)
			sect = e->sect;
		if (!has_line(e))
			continue;
		if (sect && sect != printed)
			printf("\n%s\n", sect);
		printed = sect;
		col = print_head(e);
		row_text(spec, e, text, sizeof(text));
		if (col + 1 > HELP_COLUMN) {
			printf("\n%*s", HELP_COLUMN, "");
		} else {
			printf("%*s", (int)(HELP_COLUMN - col), "");
		}
		wrap(text, HELP_COLUMN);
	}
}

/* The choices of row e for the listing: its words, comma-separated, or "". */
static void choices(const struct cli_opt *e, char *buf, size_t len)
{
	const char *const *words = cli_words(e);
	size_t off = 0;
	int w;

	buf[0] = 0;
	for (w = 0; words && words[w] && off < len; w++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", w ? "," : "", words[w]);
}

void cli_list(const struct cli_spec *spec, FILE *out)
{
	static const char *const args[] = {"none", "required", "optional"};
	const struct cli_opt *e;
	char words[256];
	int has;

	for (e = spec->opts; e->o.name; e++) {
		if (e->type == CLI_T_LIST)
			continue;
		has = e->type == CLI_T_ANSWER || e->type == CLI_T_NOTE ? no_argument : e->o.has_arg;
		/* "--sweep-threads [LIST]": the value may be the next word, as a required one */
		if (has == optional_argument && !(e->arg && !strncmp(e->arg, "[=", 2)))
			has = required_argument;
		choices(e, words, sizeof(words));
		fprintf(out, "--%s %s ", e->o.name, args[has]);
		if (is_letter(e->o.val))
			fprintf(out, "-%c", e->o.val);
		else
			fputc('-', out);
		fprintf(out, "%s%s\n", words[0] ? " " : "", words);
	}
}
