/* SPDX-License-Identifier: MIT */
/*
 * Reading JSON back: a strict RFC 8259 reader (recursive descent, bounded
 * depth and size) into a tree of values, each with its line and column;
 * report_read.c checks a report's schema on it.
 *
 * Bytes from 0x80 up are taken as they are, not checked as UTF-8: the
 * report writes region names as the program gave them, and its own files
 * must read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "parse/format.h"
#include "base/internal.h"
#include "parse/json.h"

struct parser {
	const char *name;	/* for messages: the file's path */
	const char *p, *end, *line_start;
	unsigned line, depth;
};

static unsigned col(const struct parser *ps)
{
	return (unsigned)(ps->p - ps->line_start) + 1;
}

#define SYNTAX(ps, ...) syntax(ps, (char[160]){ 0 }, __VA_ARGS__)

static int __attribute__((format(printf, 3, 4))) syntax(const struct parser *ps, char *buf, const char *fmt, ...)
{
	va_list ap;

	if (ps->p >= ps->end)
		return pmu__err(-EINVAL, "%s:%u: unexpected end of file (truncated?)", ps->name, ps->line);
	va_start(ap, fmt);
	vsnprintf(buf, 160, fmt, ap);
	va_end(ap);
	return pmu__err(-EINVAL, "%s:%u:%u: %s", ps->name, ps->line, col(ps), buf);
}

/* The next character, NUL at the end (the message then says the file ends). */
static char cur(const struct parser *ps)
{
	return ps->p < ps->end ? *ps->p : '\0';
}

static void skip_ws(struct parser *ps)
{
	for (; ps->p < ps->end; ps->p++) {
		if (*ps->p == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		} else if (*ps->p != ' ' && *ps->p != '\t' && *ps->p != '\r') {
			break;
		}
	}
}

/* A character as the message shows it. */
static const char *shown(char *buf, char c)
{
	unsigned char u = (unsigned char)c;

	if (u > 0x20 && u < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "0x%02x", u);
	return buf;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int d = pmu__hex_digit(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}

static size_t utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The string at ps->p (its '"'), decoded into a new buffer: *out, *len. */
static int parse_string(struct parser *ps, char **out, size_t *len)
{
	const char *s = ++ps->p;
	char *o, *buf, c[8];

	/* The decoded string is never longer than its source. */
	while (s < ps->end && *s != '"')
		s += *s == '\\' && s + 1 < ps->end ? 2 : 1;
	buf = o = malloc((size_t)(s - ps->p) + 1);
	if (!buf)
		return pmu__err(-ENOMEM, "%s: out of memory", ps->name);
	for (;;) {
		unsigned cp, lo;

		if (ps->p >= ps->end) {
			free(buf);
			return SYNTAX(ps, "unterminated string");
		}
		if (*ps->p == '"')
			break;
		if ((unsigned char)*ps->p < 0x20) {
			free(buf);
			return SYNTAX(ps, "control character %s in a string (must be escaped)", shown(c, *ps->p));
		}
		if (*ps->p != '\\') {
			*o++ = *ps->p++;
			continue;
		}
		if (++ps->p >= ps->end) {
			free(buf);
			return SYNTAX(ps, "unterminated string");
		}
		switch (*ps->p) {
		case '"': case '\\': case '/':
			*o++ = *ps->p++;
			continue;
		case 'b': *o++ = '\b'; ps->p++; continue;
		case 'f': *o++ = '\f'; ps->p++; continue;
		case 'n': *o++ = '\n'; ps->p++; continue;
		case 'r': *o++ = '\r'; ps->p++; continue;
		case 't': *o++ = '\t'; ps->p++; continue;
		case 'u':
			break;
		default:
			free(buf);
			ps->p--;
			return SYNTAX(ps, "invalid escape \\%s in a string", shown(c, ps->p[1]));
		}
		ps->p--;
		if (ps->end - ps->p < 6 || hex4(ps->p + 2, &cp) < 0) {
			free(buf);
			if (ps->end - ps->p < 6)
				ps->p = ps->end;
			return SYNTAX(ps, "\\u needs four hexadecimal digits");
		}
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			free(buf);
			return SYNTAX(ps, "\\u%04x: a low surrogate without a high one before it", cp);
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (ps->end - ps->p < 12 || ps->p[6] != '\\' || ps->p[7] != 'u' || hex4(ps->p + 8, &lo) < 0 ||
			    lo < 0xdc00 || lo > 0xdfff) {
				free(buf);
				if (ps->end - ps->p < 12)
					ps->p = ps->end;
				return SYNTAX(ps, "\\u%04x: a high surrogate without a low one (\\udc00 to \\udfff) "
					      "after it", cp);
			}
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			ps->p += 6;
		}
		ps->p += 6;
		o += utf8(o, cp);
	}
	ps->p++;
	*o = '\0';
	*out = buf;
	*len = (size_t)(o - buf);
	return 0;
}

static bool digit(const struct parser *ps, const char *s)
{
	return s < ps->end && *s >= '0' && *s <= '9';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *ps, struct pmu__json *v)
{
	const char *s = ps->p;

	if (*s == '-')
		s++;
	if (!digit(ps, s)) {
		ps->p = s;
		return SYNTAX(ps, "expected a digit in the number");
	}
	if (*s == '0' && digit(ps, s + 1)) {
		ps->p = s + 1;
		return SYNTAX(ps, "a number may not have a leading zero");
	}
	while (digit(ps, s))
		s++;
	if (s < ps->end && *s == '.') {
		if (!digit(ps, ++s)) {
			ps->p = s;
			return SYNTAX(ps, "expected a digit after the decimal point");
		}
		while (digit(ps, s))
			s++;
	}
	if (s < ps->end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < ps->end && (*s == '+' || *s == '-'))
			s++;
		if (!digit(ps, s)) {
			ps->p = s;
			return SYNTAX(ps, "expected a digit in the exponent");
		}
		while (digit(ps, s))
			s++;
	}
	v->type = PMU_JSON_NUMBER;
	v->len = (size_t)(s - ps->p);
	v->s = strndup(ps->p, v->len);
	if (!v->s)
		return pmu__err(-ENOMEM, "%s: out of memory", ps->name);
	ps->p = s;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct pmu__json *x = *(const struct pmu__json *const *)a, *y = *(const struct pmu__json *const *)b;
	int c = strcmp(x->key, y->key);

	/* members in the order read: the later one is the duplicate */
	return c ? c : (x > y) - (x < y);
}

/* A key given twice: refused, as readers disagree on which one counts. */
static int check_keys(struct parser *ps, const struct pmu__json *o)
{
	const struct pmu__json **k;
	int r = 0;

	if (o->n < 2)
		return 0;
	k = malloc(o->n * sizeof(*k));
	if (!k)
		return pmu__err(-ENOMEM, "%s: out of memory", ps->name);
	for (size_t i = 0; i < o->n; i++)
		k[i] = &o->v[i];
	qsort(k, o->n, sizeof(*k), by_key);
	for (size_t i = 1; i < o->n && !r; i++)
		if (!strcmp(k[i - 1]->key, k[i]->key))
			r = pmu__err(-EINVAL, "%s:%u: duplicate key \"%s\" (first on line %u)", ps->name, k[i]->kline,
				     pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, k[i]->key), k[i - 1]->kline);
	free(k);
	return r;
}

static int parse_value(struct parser *ps, struct pmu__json *v);

/* An array or object: its members into v->v, each parsed by parse_value. */
static int parse_members(struct parser *ps, struct pmu__json *v, bool obj)
{
	char close = obj ? '}' : ']', c[8];
	size_t cap = 0;
	int r;

	if (++ps->depth > PMU_JSON_DEPTH)
		return SYNTAX(ps, "nested deeper than %d levels", PMU_JSON_DEPTH);
	v->type = obj ? PMU_JSON_OBJECT : PMU_JSON_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		struct pmu__json *m;
		char *key = NULL;
		size_t klen = 0;
		unsigned kline = ps->line;

		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return SYNTAX(ps, "expected a string key, not %s", shown(c, cur(ps)));
			r = parse_string(ps, &key, &klen);
			if (r < 0)
				return r;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				r = SYNTAX(ps, "expected ':' after the key \"%.64s\"", key);
				free(key);
				return r;
			}
			ps->p++;
			skip_ws(ps);
		}
		if (v->n == cap) {
			size_t nc = cap ? 2 * cap : 4;
			struct pmu__json *nv = realloc(v->v, nc * sizeof(*nv));

			if (!nv) {
				free(key);
				return pmu__err(-ENOMEM, "%s: out of memory", ps->name);
			}
			v->v = nv;
			cap = nc;
		}
		m = &v->v[v->n++];
		memset(m, 0, sizeof(*m));
		m->key = key;
		m->klen = klen;
		m->kline = kline;
		r = parse_value(ps, m);
		if (r < 0)
			return r;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_ws(ps);
			continue;
		}
		if (ps->p < ps->end && *ps->p == close)
			break;
		return SYNTAX(ps, "expected ',' or '%c' after a value", close);
	}
	ps->p++;
	ps->depth--;
	return obj ? check_keys(ps, v) : 0;
}

static int parse_value(struct parser *ps, struct pmu__json *v)
{
	static const struct { const char *w; enum pmu__json_type t; bool b; } words[] = {
		{ "null", PMU_JSON_NULL, false }, { "true", PMU_JSON_BOOL, true }, { "false", PMU_JSON_BOOL, false },
	};
	char c[8];

	v->line = ps->line;
	v->col = col(ps);
	if (ps->p >= ps->end)
		return SYNTAX(ps, "expected a value");
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_members(ps, v, *ps->p == '{');
	case '"':
		v->type = PMU_JSON_STRING;
		return parse_string(ps, (char **)&v->s, &v->len);
	case '-':
	case '0' ... '9':
		return parse_number(ps, v);
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].w), left = (size_t)(ps->end - ps->p);

		if (!strncmp(ps->p, words[i].w, n < left ? n : left) && *ps->p == words[i].w[0]) {
			if (left < n) {
				ps->p = ps->end;
				return SYNTAX(ps, "expected a value");
			}
			v->type = words[i].t;
			v->b = words[i].b;
			ps->p += n;
			return 0;
		}
	}
	return SYNTAX(ps, "expected a value, not %s", shown(c, *ps->p));
}

static void free_members(struct pmu__json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free_members(&v->v[i]);
		free((char *)v->v[i].key);
	}
	if (v->type == PMU_JSON_STRING || v->type == PMU_JSON_NUMBER)
		free((char *)v->s);
	free(v->v);
}

void pmu__json_free(struct pmu__json *v)
{
	if (v) {
		free_members(v);
		free(v);
	}
}

int pmu__json_parse(const char *name, const char *buf, size_t len, struct pmu__json **out)
{
	struct parser ps = { name, buf, buf + len, buf, 1, 0 };
	struct pmu__json *v;
	char c[8];
	int r;

	*out = NULL;
	if (len > PMU_JSON_MAX)
		return pmu__err(-EFBIG, "%s: %zu bytes: too large (a report has at most %d MiB)", name, len,
				PMU_JSON_MAX >> 20);
	skip_ws(&ps);
	if (ps.p == ps.end)
		return pmu__err(-EINVAL, "%s: %s", name, len ? "no JSON value in the file (only white space)" :
				"empty file");
	v = calloc(1, sizeof(*v));
	if (!v)
		return pmu__err(-ENOMEM, "%s: out of memory", name);
	r = parse_value(&ps, v);
	if (r >= 0) {
		skip_ws(&ps);
		if (ps.p < ps.end)
			r = SYNTAX(&ps, "%s after the JSON value (trailing garbage)", shown(c, *ps.p));
	}
	if (r < 0) {
		pmu__json_free(v);
		return r;
	}
	*out = v;
	return 0;
}

int pmu__json_read(const char *path, char **out, size_t *outlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, r = 0;

	*out = NULL;
	*outlen = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pmu__err(-errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return pmu__err(-EISDIR, "%s: is a directory, not a report", path);
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap > PMU_JSON_MAX) {
				r = pmu__err(-EFBIG, "%s: too large (a report has at most %d MiB)", path,
					     PMU_JSON_MAX >> 20);
				break;
			}
			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				r = pmu__err(-ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = pmu__err(-errno, "%s: %s", path, strerror(errno));
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf ? buf : strdup("");
	*outlen = len;
	return *out ? 0 : pmu__err(-ENOMEM, "%s: out of memory", path);
}

int pmu__json_load(const char *path, struct pmu__json **out)
{
	char *buf;
	size_t len;
	int r = pmu__json_read(path, &buf, &len);

	*out = NULL;
	if (r == 0)
		r = pmu__json_parse(path, buf, len, out);
	free(buf);
	return r;
}

const struct pmu__json *pmu__json_get(const struct pmu__json *obj, const char *key)
{
	if (!obj || obj->type != PMU_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->v[i].key, key) && strlen(key) == obj->v[i].klen)
			return &obj->v[i];
	return NULL;
}

bool pmu__json_u64(const struct pmu__json *v, uint64_t *out)
{
	uint64_t x = 0;

	if (!v || v->type != PMU_JSON_NUMBER || v->s[0] == '-')
		return false;
	for (const char *s = v->s; *s; s++) {
		if (*s < '0' || *s > '9' || __builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return false;
	}
	*out = x;
	return true;
}

bool pmu__json_double(const struct pmu__json *v, double *out)
{
	locale_t c;
	char *end;

	if (!v || v->type != PMU_JSON_NUMBER)
		return false;
	/* the number's text as C reads it, whatever the program's locale */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!c)
		return false;
	*out = strtod_l(v->s, &end, c);
	freelocale(c);
	return !*end && isfinite(*out);
}
