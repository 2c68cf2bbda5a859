/* SPDX-License-Identifier: MIT */
/*
 * The output escapers, one rule per format: text (tables and messages),
 * CSV and JSON, and exact numbers. Pure but for the stream written: no state.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

static const char hex[] = "0123456789abcdef";

/*
 * The length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 1 for ASCII; 0
 * when s does not start one.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* U+0080..U+009F, the C1 controls, in UTF-8. */
static bool utf8_c1(const unsigned char *s, size_t len)
{
	return len == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/* ---- text ---- */

/*
 * Text for a terminal, a table or a message: a name must neither end the
 * line nor drive the terminal. Valid UTF-8 is written as it is but for the
 * control characters (C0, DEL and C1: U+0080..U+009F), which are written as
 * \n, \t, \r or \xHH per byte, and so is every byte that is not UTF-8
 * (a raw 0x9b is CSI to an 8-bit terminal); \ is written \\, so that the
 * text reads back one way. The next unit of s[0..n) into out (16 bytes):
 * returns its length, with *used the bytes of s it took.
 */
static size_t text_unit(char out[16], const char *s, size_t n, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = utf8_len(u, n), k = 0;

	if (len > 1 && !utf8_c1(u, len)) {
		memcpy(out, s, len);
		*used = len;
		return len;
	}
	if (!len)
		len = 1;	/* not UTF-8: this byte escaped, the next one looked at anew */
	*used = len;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = u[i];
		char e = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c == '\\' ? '\\' : 0;

		if (e) {
			out[k++] = '\\';
			out[k++] = e;
		} else if (c < 0x20 || c >= 0x7f) {
			out[k++] = '\\';
			out[k++] = 'x';
			out[k++] = hex[c >> 4];
			out[k++] = hex[c & 15];
		} else {
			out[k++] = (char)c;
		}
	}
	return k;
}

size_t pmu__text_esc(char *buf, size_t size, const char *s, size_t len)
{
	size_t i = 0, k = 0;

	if (!size)
		return 0;
	while (i < len) {
		char u[16];
		size_t used, n = text_unit(u, s + i, len - i, &used);

		if (k + n >= size)
			break;
		memcpy(buf + k, u, n);
		k += n;
		i += used;
	}
	buf[k] = '\0';
	return i;
}

void pmu__text_str(FILE *f, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		char u[16];
		size_t used, n = text_unit(u, s, len, &used);

		fwrite(u, 1, n, f);
		s += used;
		len -= used;
	}
}

const char *pmu__show(struct pmu__shown *b, const char *s, size_t len)
{
	size_t n = 0;

	/* the first PMU_SHOW_MAX bytes, and the rest of a character cut there */
	while (n < len && n < PMU_SHOW_MAX) {
		size_t c = utf8_len((const unsigned char *)s + n, len - n);

		n += c ? c : 1;
	}
	pmu__text_esc(b->s, sizeof(b->s) - 3, s, n);
	if (len > n)
		strcat(b->s, "...");
	return b->s;
}

char *pmu__path_frame(char *b, const char *name)
{
	for (; *name; name++) {
		if (*name == ';') {
			memcpy(b, "\\x3b", 4);
			b += 4;
		} else {
			*b++ = *name;
		}
	}
	*b = '\0';
	return b;
}

const char *pmu__report_esc(char *buf, const char *s)
{
	pmu__text_esc(buf, PMU_ESC_SIZE, s, strlen(s));
	return buf;
}

/* ---- CSV ---- */

/*
 * RFC 4180: a field holding a comma, a quote, CR or LF is quoted, with its
 * quotes doubled; its bytes are written as they are, so that a name, a
 * newline in it too, reads back exactly.
 */
void pmu__report_csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- JSON and Prometheus: quoted strings ---- */

/*
 * s quoted, each unit (a UTF-8 character, or a byte that is not part of
 * one: n 0) written by the format's rule: " and \ as \" and \\ in both.
 */
static void quoted(FILE *f, const char *s, void (*unit)(FILE *f, const unsigned char *u, size_t n))
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s);

	fputc('"', f);
	while (len) {
		size_t n = utf8_len(u, len);

		if (n == 1 && (*u == '"' || *u == '\\'))
			fprintf(f, "\\%c", *u);
		else
			unit(f, u, n);
		n = n ? n : 1;
		u += n;
		len -= n;
	}
	fputc('"', f);
}

/*
 * JSON (RFC 8259), always valid UTF-8: the control characters (C0, DEL, C1)
 * as \u00XX, other UTF-8 as it is, and each byte that is not part of a
 * UTF-8 character as \ufffd, the replacement character.
 */
static void json_unit(FILE *f, const unsigned char *u, size_t n)
{
	if (n == 1 && (*u < 0x20 || *u == 0x7f))
		fprintf(f, "\\u%04x", *u);
	else if (utf8_c1(u, n))
		fprintf(f, "\\u%04x", u[1]);
	else if (n)
		fwrite(u, 1, n, f);
	else
		fputs("\\ufffd", f);
}

void pmu__json_str(FILE *f, const char *s)
{
	quoted(f, s, json_unit);
}

/*
 * A label value of the Prometheus text format: newline as \n (its only
 * other escape); other control characters, C1 and bytes that are not UTF-8
 * as U+FFFD itself, which its parser takes as it is.
 */
static void prom_unit(FILE *f, const unsigned char *u, size_t n)
{
	if (n == 1 && *u == '\n')
		fputs("\\n", f);
	else if (!n || (n == 1 && (*u < 0x20 || *u == 0x7f)) || utf8_c1(u, n))
		fputs("\xef\xbf\xbd", f);
	else
		fwrite(u, 1, n, f);
}

void pmu__prom_str(FILE *f, const char *s)
{
	quoted(f, s, prom_unit);
}

/* ---- HTML ---- */

/*
 * Text, escaped as for a terminal (control characters and bytes that are
 * not UTF-8 as \xHH), then & < > " ' as character references: valid in an
 * element's text and in a quoted attribute alike.
 */
void pmu__html_str(FILE *f, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		char u[16];
		size_t used, n = text_unit(u, s, len, &used);

		for (size_t i = 0; i < n; i++) {
			const char *ref = u[i] == '&' ? "&amp;" : u[i] == '<' ? "&lt;" : u[i] == '>' ? "&gt;" :
					  u[i] == '"' ? "&quot;" : u[i] == '\'' ? "&#39;" : NULL;

			if (ref)
				fputs(ref, f);
			else
				fputc(u[i], f);
		}
		s += used;
		len -= used;
	}
}

void pmu__put_exact(FILE *f, double x)
{
	char buf[40];

	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, x);
		if (p == 17 || strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}
