/* SPDX-License-Identifier: MIT */
/*
 * The output escapers, one rule per format: text (tables and messages),
 * CSV and JSON. Pure but for the stream written: no state.
 */
#include <string.h>

#include "escape.h"

static const char hex[] = "0123456789abcdef";

/* ---- text ---- */

/*
 * A name taken from the program must neither end the row nor drive a
 * terminal, so control characters are written as \n, \t, \r or \xHH (and
 * \ as \\, so that it reads back one way).
 */
static size_t text_unit(char out[4], unsigned char c)
{
	const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : NULL;

	if (e) {
		memcpy(out, e, 2);
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 15];
		return 4;
	}
	out[0] = (char)c;
	return 1;
}

size_t pmu__text_esc(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, k = 0;

	if (!size)
		return 0;
	for (i = 0; i < len; i++) {
		char u[4];
		size_t n = text_unit(u, (unsigned char)s[i]);

		if (k + n >= size)
			break;
		memcpy(buf + k, u, n);
		k += n;
	}
	buf[k] = '\0';
	return i;
}

void pmu__text_str(FILE *f, const char *s)
{
	char u[4];

	for (; *s; s++)
		fwrite(u, 1, text_unit(u, (unsigned char)*s), f);
}

const char *pmu__report_esc(char *buf, const char *s)
{
	pmu__text_esc(buf, PMU_ESC_SIZE, s, strlen(s));
	return buf;
}

/* ---- CSV ---- */

void pmu__report_csv_field(FILE *f, const char *raw)
{
	char buf[PMU_ESC_SIZE];
	const char *s = pmu__report_esc(buf, raw);

	if (!s[strcspn(s, ",\"")]) {
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

/* ---- JSON ---- */

void pmu__json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
