/* SPDX-License-Identifier: MIT */
/*
 * Reading JSON back: a strict RFC 8259 reader (recursive descent, bounded
 * depth and size) into a tree of values, each with its line and column, and
 * on it the schema of the reports report.c writes (pmu report merge).
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

#include "format.h"
#include "introspect.h"

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
				     k[i]->key, k[i - 1]->kline);
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

int pmu__json_load(const char *path, struct pmu__json **out)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, r = 0;

	*out = NULL;
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
	if (r >= 0)
		r = pmu__json_parse(path, buf ? buf : "", len, out);
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

/* ---- the schema of a json report ---- */

#define PMU_REP_EVENTS 1024	/* events a report may list: far more than a set opens */

/* What a message names: "region \"x\": thread 12: ", or "" at the top. */
struct ctx {
	const char *path;
	char at[160];
};

/* A name taken from the file, fit for a message: control characters as '?', long ones cut. */
static void ctx_set(struct ctx *c, const char *region, const struct pmu__json *tid)
{
	size_t k = 0;

	c->at[0] = '\0';
	if (!region)
		return;
	k = (size_t)snprintf(c->at, sizeof(c->at), "region \"");
	for (const char *s = region; *s && k < 80; s++)
		c->at[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	if (k >= 80 && region[k - 8])
		k += (size_t)snprintf(c->at + k, sizeof(c->at) - k, "...");
	k += (size_t)snprintf(c->at + k, sizeof(c->at) - k, "\": ");
	if (tid)
		snprintf(c->at + k, sizeof(c->at) - k, "thread %.20s: ", tid->type == PMU_JSON_NUMBER ? tid->s : "?");
}

static const char *const type_names[] = {
	[PMU_JSON_NULL] = "null", [PMU_JSON_BOOL] = "a boolean", [PMU_JSON_NUMBER] = "a number",
	[PMU_JSON_STRING] = "a string", [PMU_JSON_ARRAY] = "an array", [PMU_JSON_OBJECT] = "an object",
};

#define BAD(c, v, ...) bad(c, (v)->line, (char[200]){ 0 }, __VA_ARGS__)

static int __attribute__((format(printf, 4, 5))) bad(const struct ctx *c, unsigned line, char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, 200, fmt, ap);
	va_end(ap);
	return pmu__err(-EINVAL, "%s:%u: %s%s", c->path, line, c->at, buf);
}

/* obj's member key of type t into *out; missing or of another type: refused. */
static int need(const struct ctx *c, const struct pmu__json *obj, const char *key, enum pmu__json_type t,
		const struct pmu__json **out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (!v)
		return BAD(c, obj, "\"%s\" is missing", key);
	if (v->type != t)
		return BAD(c, v, "\"%s\" is %s, not %s", key, type_names[v->type], type_names[t]);
	*out = v;
	return 0;
}

static int need_u64(const struct ctx *c, const struct pmu__json *obj, const char *key, uint64_t *out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (!v)
		return BAD(c, obj, "\"%s\" is missing", key);
	if (!pmu__json_u64(v, out))
		return BAD(c, v, "\"%s\" is not a non-negative integer", key);
	return 0;
}

/* A string that names something: not empty, no NUL inside. */
static int need_name(const struct ctx *c, const struct pmu__json *obj, const char *key, const char **out)
{
	const struct pmu__json *v;
	int r = need(c, obj, key, PMU_JSON_STRING, &v);

	if (r < 0)
		return r;
	if (!v->len || strlen(v->s) != v->len)
		return BAD(c, v, "\"%s\" is %s", key, v->len ? "a string with a NUL (\\u0000) in it" : "empty");
	*out = v->s;
	return 0;
}

/* An optional non-negative number: 0 absent or null, 1 read into *out, -EINVAL refused. */
static int opt_num(const struct ctx *c, const struct pmu__json *obj, const char *key, const char *ev, double *out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (v && ev) {
		if (v->type != PMU_JSON_OBJECT)
			return BAD(c, v, "\"%s\" is %s, not an object", key, type_names[v->type]);
		v = pmu__json_get(v, ev);
	}
	if (!v || v->type == PMU_JSON_NULL)
		return 0;
	if (!pmu__json_double(v, out) || *out < 0)
		return ev ? BAD(c, v, "\"%s\" of \"%s\" is not a non-negative number", key, ev) :
			BAD(c, v, "\"%s\" is not a non-negative number", key);
	return 1;
}

/* calls, ns, ns_per_call and counts of a region or thread into d (calls, ns, counts). */
static int figures(const struct ctx *c, const struct pmu__rep *r, const struct pmu__json *o, uint64_t *d)
{
	const struct pmu__json *counts, *npc, *m;
	double x;
	int e;

	if ((e = need_u64(c, o, "calls", &d[0])) < 0 || (e = need_u64(c, o, "ns", &d[1])) < 0)
		return e;
	npc = pmu__json_get(o, "ns_per_call");
	if (!npc)
		return BAD(c, o, "\"ns_per_call\" is missing");
	if (d[0] && (!pmu__json_double(npc, &x) || x < 0))
		return BAD(c, npc, "\"ns_per_call\" is not a non-negative number");
	/* written with one decimal */
	if (d[0] && (x - (double)d[1] / (double)d[0] > 0.051 + 1e-9 * x ||
		     (double)d[1] / (double)d[0] - x > 0.051 + 1e-9 * x))
		return BAD(c, npc, "\"ns_per_call\" is %s, but \"ns\" / \"calls\" is %.1f (an edited file?)", npc->s,
			   (double)d[1] / (double)d[0]);
	if ((e = need(c, o, "counts", PMU_JSON_OBJECT, &counts)) < 0)
		return e;
	for (unsigned i = 0; i < r->nev; i++) {
		/* written in the order of "events" */
		const struct pmu__json *v = i < counts->n && !strcmp(counts->v[i].key, r->ev[i]) &&
			strlen(r->ev[i]) == counts->v[i].klen ? &counts->v[i] : pmu__json_get(counts, r->ev[i]);

		if (!v)
			return BAD(c, counts, "\"counts\" has no \"%s\", which \"events\" lists", r->ev[i]);
		if (!pmu__json_u64(v, &d[2 + i]))
			return BAD(c, v, "\"counts\": \"%s\" is not a non-negative integer", r->ev[i]);
	}
	/* every event is there and keys are unique: more keys are ones "events" lacks */
	for (size_t i = 0; counts->n > r->nev && i < counts->n; i++)
		for (unsigned k = 0;; k++) {
			if (k == r->nev)
				return bad(c, counts->v[i].kline, (char[200]){ 0 },
					   "\"counts\" has \"%.64s\", which \"events\" does not list", counts->v[i].key);
			if (!strcmp(r->ev[k], counts->v[i].key) && strlen(counts->v[i].key) == counts->v[i].klen)
				break;
		}
	if ((m = pmu__json_get(o, "metrics")) && m->type != PMU_JSON_OBJECT)
		return BAD(c, m, "\"metrics\" is %s, not an object", type_names[m->type]);
	return 0;
}

/* The optional per call spread of a region: used only when complete. */
static int ranges(const struct ctx *c, const struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	int have, n = 0;

	have = opt_num(c, o, "ns_min", NULL, &g->ns_min);
	n += have > 0;
	if (have < 0 || (have = opt_num(c, o, "ns_max", NULL, &g->ns_max)) < 0)
		return -EINVAL;
	n += have > 0;
	if (n == 2 && g->ns_min > g->ns_max)
		return BAD(c, pmu__json_get(o, "ns_min"), "\"ns_min\" is more than \"ns_max\"");
	for (unsigned i = 0; i < r->nev; i++) {
		int a = opt_num(c, o, "min", r->ev[i], &g->min[i]), b;

		if (a < 0 || (b = opt_num(c, o, "max", r->ev[i], &g->max[i])) < 0)
			return -EINVAL;
		if (a > 0 && b > 0 && g->min[i] > g->max[i])
			return BAD(c, pmu__json_get(o, "min"), "\"min\" of \"%s\" is more than its \"max\"", r->ev[i]);
		n += (a > 0) + (b > 0);
	}
	g->range = n == 2 + 2 * (int)r->nev;
	return 0;
}

static int threads(struct ctx *c, const struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	const struct pmu__json *th, *v;
	uint64_t d[2 + r->nev], sum[2 + r->nev];
	int e;

	if ((e = need(c, o, "threads", PMU_JSON_ARRAY, &th)) < 0)
		return e;
	memset(sum, 0, sizeof(sum));
	for (size_t k = 0; k < th->n; k++) {
		const struct pmu__json *t = &th->v[k];
		uint64_t tid;

		ctx_set(c, g->name, NULL);
		if (t->type != PMU_JSON_OBJECT)
			return BAD(c, t, "a thread is %s, not an object", type_names[t->type]);
		if ((e = need_u64(c, t, "tid", &tid)) < 0)
			return e;
		ctx_set(c, g->name, pmu__json_get(t, "tid"));
		if ((e = need(c, t, "name", PMU_JSON_STRING, &v)) < 0 ||
		    (e = need(c, t, "exited", PMU_JSON_BOOL, &v)) < 0 || (e = figures(c, r, t, d)) < 0)
			return e;
		for (unsigned i = 0; i < 2 + r->nev; i++)
			if (__builtin_add_overflow(sum[i], d[i], &sum[i]))
				return BAD(c, t, "the threads' figures overflow 64 bits");
	}
	ctx_set(c, g->name, NULL);
	if (!th->n)
		return BAD(c, th, "\"threads\" is empty");
	d[0] = g->calls;
	d[1] = g->ns;
	memcpy(d + 2, g->counts, r->nev * sizeof(*d));
	for (unsigned i = 0; i < 2 + r->nev; i++) {
		const char *key = i < 2 ? (i ? "ns" : "calls") : "counts";

		if (sum[i] != d[i])
			return BAD(c, pmu__json_get(o, key), "%s\"%s\" is %llu, but its threads' sum is %llu "
				   "(an edited file?)", i < 2 ? "" : "\"counts\": ", i < 2 ? key : r->ev[i - 2],
				   (unsigned long long)d[i], (unsigned long long)sum[i]);
	}
	return 0;
}

static int region(struct ctx *c, struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	uint64_t d[2 + r->nev];
	int e;

	ctx_set(c, NULL, NULL);
	if (o->type != PMU_JSON_OBJECT)
		return BAD(c, o, "a region is %s, not an object", type_names[o->type]);
	if ((e = need_name(c, o, "name", &g->name)) < 0)
		return e;
	g->line = o->line;
	ctx_set(c, g->name, NULL);
	g->counts = calloc(r->nev ? r->nev : 1, sizeof(*g->counts));
	g->min = calloc(r->nev ? r->nev : 1, sizeof(*g->min));
	g->max = calloc(r->nev ? r->nev : 1, sizeof(*g->max));
	if (!g->counts || !g->min || !g->max)
		return pmu__err(-ENOMEM, "%s: out of memory", c->path);
	if ((e = figures(c, r, o, d)) < 0)
		return e;
	g->calls = d[0];
	g->ns = d[1];
	memcpy(g->counts, d + 2, r->nev * sizeof(*d));
	if ((e = ranges(c, r, o, g)) < 0 || (e = threads(c, r, o, g)) < 0)
		return e;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct pmu__rep_region *x = *(const struct pmu__rep_region *const *)a;
	const struct pmu__rep_region *y = *(const struct pmu__rep_region *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

/* A name twice: sorted, as a report may have many. */
static int unique_regions(struct ctx *c, const struct pmu__rep *r)
{
	const struct pmu__rep_region **s = malloc((r->nreg ? r->nreg : 1) * sizeof(*s));
	int e = 0;

	if (!s)
		return pmu__err(-ENOMEM, "%s: out of memory", c->path);
	for (unsigned i = 0; i < r->nreg; i++)
		s[i] = &r->reg[i];
	qsort(s, r->nreg, sizeof(*s), by_name);
	for (unsigned i = 1; i < r->nreg && !e; i++) {
		if (!strcmp(s[i - 1]->name, s[i]->name)) {
			ctx_set(c, s[i]->name, NULL);
			e = bad(c, s[i]->line, (char[200]){ 0 }, "a second region of this name (the first on line %u)",
				s[i - 1]->line);
		}
	}
	free(s);
	return e;
}

static int check_report(struct pmu__rep *r)
{
	struct ctx c = { r->path, "" };
	const struct pmu__json *top = r->doc, *v, *ev, *regs;
	uint64_t x;
	int e, n;

	if (top->type != PMU_JSON_OBJECT)
		return BAD(&c, top, "the report is %s, not an object", type_names[top->type]);
	if ((e = need(&c, top, "library", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->library = v->s;
	n = -1;
	if (strncmp(v->s, "libpmu ", 7) || v->s[7] < '0' || v->s[7] > '9' ||
	    strspn(v->s + 7, "0123456789.") != v->len - 7 ||
	    sscanf(v->s, "libpmu %u.%u.%u%n", &r->major, &r->minor, &r->patch, &n) != 3 || (size_t)n != v->len)
		return BAD(&c, v, "\"library\" is \"%.64s\", not \"libpmu MAJOR.MINOR.PATCH\"", v->s);
	if (r->major != PMU_VERSION_MAJOR)
		return BAD(&c, v, "written by %.64s, another major version than this one's (%s): not read", v->s,
			   pmu_version());
	if ((e = need_u64(&c, top, "pid", &x)) < 0)
		return e;
	if (!x || x > 0x7fffffff)
		return BAD(&c, pmu__json_get(top, "pid"), "\"pid\" is not a process ID");
	r->pid = (long)x;
	if ((e = need(&c, top, "hostname", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->hostname = v->s;
	if ((e = need(&c, top, "command", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->command = v->s;
	if ((e = need(&c, top, "start", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->start = v->s;
	if ((e = need_u64(&c, top, "start_ns", &r->start_ns)) < 0)
		return e;
	if ((e = need(&c, top, "events", PMU_JSON_ARRAY, &ev)) < 0)
		return e;
	if (!ev->n || ev->n > PMU_REP_EVENTS)
		return BAD(&c, ev, "\"events\" has %zu events (1 to %d)", ev->n, PMU_REP_EVENTS);
	r->ev = calloc(ev->n, sizeof(*r->ev));
	if (!r->ev)
		return pmu__err(-ENOMEM, "%s: out of memory", r->path);
	for (size_t i = 0; i < ev->n; i++) {
		v = &ev->v[i];
		if (v->type != PMU_JSON_STRING || !v->len || strlen(v->s) != v->len)
			return BAD(&c, v, "\"events\": item %zu is not an event name", i + 1);
		for (unsigned k = 0; k < r->nev; k++)
			if (!strcmp(r->ev[k], v->s))
				return BAD(&c, v, "\"events\" has \"%.64s\" twice", v->s);
		r->ev[r->nev++] = v->s;
	}
	if ((e = need(&c, top, "regions", PMU_JSON_ARRAY, &regs)) < 0)
		return e;
	r->reg = calloc(regs->n ? regs->n : 1, sizeof(*r->reg));
	if (!r->reg)
		return pmu__err(-ENOMEM, "%s: out of memory", r->path);
	for (size_t i = 0; i < regs->n; i++) {
		r->nreg++;
		if ((e = region(&c, r, &regs->v[i], &r->reg[i])) < 0)
			return e;
	}
	return unique_regions(&c, r);
}

void pmu__rep_free(struct pmu__rep *r)
{
	for (unsigned i = 0; r->reg && i < r->nreg; i++) {
		free(r->reg[i].counts);
		free(r->reg[i].min);
		free(r->reg[i].max);
	}
	free(r->reg);
	free(r->ev);
	pmu__json_free(r->doc);
	memset(r, 0, sizeof(*r));
}

static int rep_done(struct pmu__rep *r, int e)
{
	if (e >= 0)
		e = check_report(r);
	if (e < 0)
		pmu__rep_free(r);
	return e;
}

int pmu__rep_parse(const char *name, const char *buf, size_t len, struct pmu__rep *r)
{
	memset(r, 0, sizeof(*r));
	r->path = name;
	return rep_done(r, pmu__json_parse(name, buf, len, &r->doc));
}

int pmu__rep_read(const char *path, struct pmu__rep *r)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	return rep_done(r, pmu__json_load(path, &r->doc));
}
