/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader (src/json.c) and the report schema on it, over any bytes:
 * a value or a refusal that names the input and its line, never a crash,
 * a leak or a read past the end. Values read write back and read again the
 * same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>

#include "report/report_read.h"

/* The refusal names the input: the reader's message (the library's), or the schema's (the tool's). */
static bool said(const char *msg)
{
	return !strncmp(msg, "in.json:", 8);
}

/* s[0..n) as a JSON string: bytes from 0x80 up as they are (the reader keeps them so). */
static void put_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == '"' || c == '\\')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* v as JSON again, numbers as they were written. */
static void put(FILE *f, const struct pmu__json *v)
{
	switch (v->type) {
	case PMU_JSON_NULL: fputs("null", f); break;
	case PMU_JSON_BOOL: fputs(v->b ? "true" : "false", f); break;
	case PMU_JSON_NUMBER: fputs(v->s, f); break;
	case PMU_JSON_STRING:
		put_str(f, v->s, v->len);
		break;
	case PMU_JSON_ARRAY:
	case PMU_JSON_OBJECT:
		fputc(v->type == PMU_JSON_ARRAY ? '[' : '{', f);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			if (v->type == PMU_JSON_OBJECT) {
				put_str(f, v->v[i].key, v->v[i].klen);
				fputc(':', f);
			}
			put(f, &v->v[i]);
		}
		fputc(v->type == PMU_JSON_ARRAY ? ']' : '}', f);
		break;
	}
}

static bool same(const struct pmu__json *a, const struct pmu__json *b)
{
	if (a->type != b->type || a->n != b->n || a->len != b->len || a->b != b->b ||
	    (a->s && memcmp(a->s, b->s, a->len)) || a->klen != b->klen || (a->key && memcmp(a->key, b->key, a->klen)))
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!same(&a->v[i], &b->v[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu__json *v, *w;
	struct pmu__rep r;
	char *buf = NULL;
	size_t len = 0;
	int e;

	e = pmu__json_parse("in.json", (const char *)data, size, &v);
	if (e < 0) {
		if ((e != -EINVAL && e != -ENOMEM) || !said(pmu_errmsg()) || v)
			abort();
	} else {
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			abort();
		put(f, v);
		fclose(f);
		if (pmu__json_parse("again.json", buf, len, &w) < 0 || !same(v, w))
			abort();
		pmu__json_free(w);
		free(buf);
		pmu__json_free(v);
	}
	e = pmu__rep_parse("in.json", (const char *)data, size, &r);
	if (e < 0) {
		if ((e != -EINVAL && e != -ENOMEM) || !said(pmu_errmsg()) || r.doc || r.reg || r.ev)
			abort();
		return 0;
	}
	for (unsigned i = 0; i < r.nreg; i++)
		if (!r.reg[i].name[0] || strlen(r.reg[i].name) > size)
			abort();
	pmu__rep_free(&r);
	return 0;
}
