/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's metric expressions: the scanner, with flex's rule of the
 * longest match and ties to the earlier rule, as expr.l has them; and the
 * parser's messages.
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "parse/expr_int.h"

/* ---- messages ---- */

/* The expression as a message shows it: at most 60 bytes, control bytes as '?'. */
void pmu__expr_shown(const char *s, char *buf, size_t size)
{
	size_t n = 0, max = size - 4;

	for (; s[n] && n < max; n++)
		buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
	if (s[n])
		memcpy(buf + n, "...", 3), n += 3;
	buf[n] = '\0';
}

int pmu__expr_fail_at(int err, const char *s, size_t col, const char *fmt, ...)
{
	char what[256], text[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pmu__expr_shown(s, text, sizeof(text));
	return pmu__err(err, "expression \"%s\": column %zu: %s", text, col, what);
}

/* ---- the scanner: expr.l's rules, the longest match first, ties to the earlier rule ---- */



static const struct {
	const char *s;
	enum tok t;
} keywords[] = {
	{ "d_ratio", T_DRATIO }, { "max", T_MAX }, { "min", T_MIN },
	{ "if", T_IF }, { "else", T_ELSE }, { "source_count", T_SRC },
};



/* ASCII, whatever the program's locale */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool sym_char(char c)
{
	return is_alnum(c) || (c && strchr("_.:@?", c));
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* number: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t match_number(const char *s)
{
	size_t i = 0, d1, d2 = 0;
	bool dot = false;

	while (is_digit(s[i]))
		i++;
	d1 = i;
	if (s[i] == '.') {
		dot = true;
		i++;
		while (is_digit(s[i]))
			i++, d2++;
	}
	if (!d1 && !d2)
		return 0;
	if (!d1 && !dot)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1;

		if (s[j] == '-')
			j++;
		if (is_digit(s[j])) {
			while (is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* symbol: (\\[-,=]|[0-9a-zA-Z_.:@?]+)+ */
static size_t match_symbol(const char *s)
{
	size_t i = 0;

	for (;;) {
		if (s[i] && sym_char(s[i]))
			i++;
		else if (s[i] == '\\' && s[i + 1] && strchr("-,=", s[i + 1]))
			i += 2;
		else
			return i;
	}
}

/* literal: #[0-9a-zA-Z_.\-]+ */
static size_t match_literal(const char *s)
{
	size_t i = 1;

	if (s[0] != '#')
		return 0;
	while (s[i] && (is_alnum(s[i]) || strchr("_.-", s[i])))
		i++;
	return i > 1 ? i : 0;
}

int pmu__expr_fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (p->err)
		return p->err;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->err = pmu__expr_fail_at(-EINVAL, p->s, pos + 1, "%s", what);
	return p->err;
}

void pmu__expr_next(struct parser *p)
{
	const char *s = p->s;
	size_t at, best = 0, n;
	enum tok t = T_END;

	p->prev = p->tok;
	while (p->pos < p->len && is_space(s[p->pos]))
		p->pos++;
	at = p->pos;
	p->tok = (struct token){ .t = T_END, .pos = at };
	if (at >= p->len)
		return;
	if (strchr("|^&<>-+*/%(),", s[at])) {
		p->tok.t = T_OP;
		p->tok.c = s[at];
		p->tok.len = 1;
		p->pos++;
		return;
	}
	/* each rule's match, in expr.l's order: a later rule wins only by being longer */
	for (size_t k = 0; k < PMU_ARRAY_SIZE(keywords); k++) {
		n = strlen(keywords[k].s);
		if (!strncmp(s + at, keywords[k].s, n) && n > best)
			best = n, t = keywords[k].t;
	}
	if ((n = match_literal(s + at)) > best)
		best = n, t = T_LIT;
	if ((n = match_number(s + at)) > best)
		best = n, t = T_NUM;
	if ((n = match_symbol(s + at)) > best)
		best = n, t = T_ID;
	if (!best) {
		unsigned char c = (unsigned char)s[at];

		if (c == '\\')
			pmu__expr_fail(p, at, "'\\' escapes only '-', ',' and '=' in a name");
		else if (c == '#')
			pmu__expr_fail(p, at, "'#' without a literal's name");
		else if (c > 0x20 && c < 0x7f)
			pmu__expr_fail(p, at, "unexpected character '%c'", c);
		else
			pmu__expr_fail(p, at, "unexpected byte 0x%02x", c);
		p->tok.t = T_END;
		return;
	}
	p->tok.t = t;
	p->tok.len = best;
	p->pos = at + best;
}
