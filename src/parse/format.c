/* SPDX-License-Identifier: MIT */
/*
 * The pure grammar of event strings and sysfs files: format fields
 * ("config1:0-7,32-35"), term lists ("a=1,b,c=?"), numbers and modifiers
 * (":uk"). No I/O: every function is fuzzed. Input shown in messages:
 * pmu__show() (escape.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse/format.h"

const char *const pmu__config_words[4] = { "config", "config1", "config2", "config3" };

bool pmu__is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void pmu__trim(const char **s, size_t *len)
{
	while (*len && pmu__is_space(**s))
		(*s)++, (*len)--;
	while (*len && pmu__is_space((*s)[*len - 1]))
		(*len)--;
}

int pmu__hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* ---- format fields ---- */

/* A decimal bit number 0..63 at *p (< end). */
static int bitnum(const char **p, const char *end, unsigned *out)
{
	unsigned v = 0;
	const char *s = *p;

	if (s >= end || !isdigit((unsigned char)*s))
		return -EINVAL;
	while (s < end && isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 63)
			return -EINVAL;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int pmu__format_parse(const char *spec, size_t len, struct pmu__field *f)
{
	const char *p, *end;

	memset(f, 0, sizeof(*f));
	pmu__trim(&spec, &len);
	end = spec + len;
	if (len < 7 || memcmp(spec, "config", 6))
		return -EINVAL;
	p = spec + 6;
	if (*p >= '1' && *p <= '3')
		f->word = (unsigned)(*p++ - '0');
	if (p >= end || *p++ != ':')
		return -EINVAL;
	for (;;) {
		unsigned lo, hi;
		uint64_t m;

		if (bitnum(&p, end, &lo))
			return -EINVAL;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (bitnum(&p, end, &hi) || hi < lo)
				return -EINVAL;
		}
		m = (hi - lo == 63 ? ~0ull : ((1ull << (hi - lo + 1)) - 1)) << lo;
		if ((f->mask & m) || f->nr == PMU_FIELD_RANGES)
			return -EINVAL;	/* overlapping ranges, or too many */
		f->mask |= m;
		f->width += hi - lo + 1;
		f->r[f->nr].lo = (uint8_t)lo;
		f->r[f->nr].hi = (uint8_t)hi;
		f->nr++;
		if (p == end)
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

int pmu__field_put(const struct pmu__field *f, uint64_t val, uint64_t cfg[4])
{
	uint64_t w = cfg[f->word];

	if (f->width < 64 && (val >> f->width))
		return -ERANGE;
	for (unsigned i = 0; i < f->nr; i++) {
		unsigned n = f->r[i].hi - f->r[i].lo + 1;
		uint64_t m = n == 64 ? ~0ull : (1ull << n) - 1;

		w = (w & ~(m << f->r[i].lo)) | (val & m) << f->r[i].lo;
		val = n == 64 ? 0 : val >> n;
	}
	cfg[f->word] = w;
	return 0;
}

void pmu__field_str(const struct pmu__field *f, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s:", pmu__config_words[f->word & 3]);

	for (unsigned i = 0; i < f->nr && n >= 0 && (size_t)n < size; i++) {
		if (f->r[i].lo == f->r[i].hi)
			n += snprintf(buf + n, size - (size_t)n, "%s%u", i ? "," : "", f->r[i].lo);
		else
			n += snprintf(buf + n, size - (size_t)n, "%s%u-%u", i ? "," : "",
				      f->r[i].lo, f->r[i].hi);
	}
}

/* ---- modifiers ---- */

int pmu__mods_parse(const char *s, size_t len, struct pmu__mods *m)
{
	struct pmu__mods v = { 0 };

	if (m)
		*m = v;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case 'u': v.u = true; break;
		case 'k': v.k = true; break;
		case 'h': v.h = true; break;
		default: return 0;
		}
	}
	if (!len)
		return 0;
	v.given = true;
	if (m)
		*m = v;
	return 1;
}

size_t pmu__mods_split(const char *s, size_t len, struct pmu__mods *m)
{
	const char *colon = memrchr(s, ':', len);

	if (colon && pmu__mods_parse(colon + 1, len - (size_t)(colon - s) - 1, m))
		return (size_t)(colon - s);
	if (m)
		memset(m, 0, sizeof(*m));
	return len;
}

/* ---- term lists ---- */

static bool term_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

int pmu__term_next(const char **p, const char *end, struct pmu__term *t)
{
	const char *s = *p, *e, *eq = NULL;
	size_t len;

	if (!s)
		return 0;
	for (e = s; e < end && *e != ','; e++)
		if (*e == '=' && !eq)
			eq = e;
	*p = e < end ? e + 1 : NULL;
	len = (size_t)((eq ? eq : e) - s);
	pmu__trim(&s, &len);
	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!term_char(s[i]))
			return -EINVAL;
	t->name = s;
	t->nlen = len;
	t->val = NULL;
	t->vlen = 0;
	if (eq) {
		const char *v = eq + 1;
		size_t vlen = (size_t)(e - v);

		pmu__trim(&v, &vlen);
		if (!vlen)
			return -EINVAL;
		t->val = v;
		t->vlen = vlen;
	}
	return 1;
}

int pmu__term_value(const char *v, size_t len, uint64_t *out)
{
	uint64_t x = 0;
	size_t i = 0;

	if (len == 1 && v[0] == '?')
		return 1;
	if (len > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		for (i = 2; i < len; i++) {
			int d = pmu__hex_digit((unsigned char)v[i]);

			if (d < 0)
				return -EINVAL;
			if (x >> 60)
				return -ERANGE;
			x = x << 4 | (uint64_t)d;
		}
	} else {
		if (!len)
			return -EINVAL;
		for (; i < len; i++) {
			if (!isdigit((unsigned char)v[i]))
				return -EINVAL;
			if (x > (UINT64_MAX - (uint64_t)(v[i] - '0')) / 10)
				return -ERANGE;
			x = x * 10 + (uint64_t)(v[i] - '0');
		}
	}
	*out = x;
	return 0;
}
