/* SPDX-License-Identifier: MIT */
/*
 * The schema of the json reports report.c writes, checked on the tree
 * json.c reads (pmu report merge): every known field with its type, and
 * the figures consistent with each other.
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

#include "base/internal.h"
#include "base/escape.h"
#include "report/report_read.h"



/* A name taken from the file, fit for a message: escaped as text (escape.c), long ones cut. */
void pmu__rep_ctx_set(struct pmu__rep_ctx *c, const char *region, const struct pmu__json *tid)
{
	size_t k = 0, len, used;

	c->at[0] = '\0';
	if (!region)
		return;
	k = (size_t)snprintf(c->at, sizeof(c->at), "region \"");
	len = strlen(region);
	used = pmu__text_esc(c->at + k, 80 - k, region, len);
	k += strlen(c->at + k);
	if (used < len)
		k += (size_t)snprintf(c->at + k, sizeof(c->at) - k, "...");
	k += (size_t)snprintf(c->at + k, sizeof(c->at) - k, "\": ");
	if (tid)
		snprintf(c->at + k, sizeof(c->at) - k, "thread %.20s: ", tid->type == PMU_JSON_NUMBER ? tid->s : "?");
}

const char *const pmu__rep_type_names[] = {
	[PMU_JSON_NULL] = "null", [PMU_JSON_BOOL] = "a boolean", [PMU_JSON_NUMBER] = "a number",
	[PMU_JSON_STRING] = "a string", [PMU_JSON_ARRAY] = "an array", [PMU_JSON_OBJECT] = "an object",
};


int __attribute__((format(printf, 4, 5))) pmu__rep_bad(const struct pmu__rep_ctx *c, unsigned line, char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, 200, fmt, ap);
	va_end(ap);
	return pmu__err(-EINVAL, "%s:%u: %s%s", c->path, line, c->at, buf);
}

/* obj's member key of type t into *out; missing or of another type: refused. */
int pmu__rep_need(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, enum pmu__json_type t,
		const struct pmu__json **out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (!v)
		return BAD(c, obj, "\"%s\" is missing", key);
	if (v->type != t)
		return BAD(c, v, "\"%s\" is %s, not %s", key, pmu__rep_type_names[v->type], pmu__rep_type_names[t]);
	*out = v;
	return 0;
}

int pmu__rep_u128(const struct pmu__json *v, unsigned __int128 *out)
{
	*out = 0;
	if (!v || v->type != PMU_JSON_STRING || !v->len || strspn(v->s, "0123456789") != v->len)
		return -EINVAL;
	for (const char *p = v->s; *p; p++)
		if (__builtin_mul_overflow(*out, 10, out) || __builtin_add_overflow(*out, *p - '0', out))
			return -ERANGE;
	return 0;
}

int pmu__rep_need_u64(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, uint64_t *out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (!v)
		return BAD(c, obj, "\"%s\" is missing", key);
	if (!pmu__json_u64(v, out))
		return BAD(c, v, "\"%s\" is not a non-negative integer", key);
	return 0;
}

/* A string that names something: not empty, no NUL inside. */
int pmu__rep_need_name(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, const char **out)
{
	const struct pmu__json *v;
	int r = pmu__rep_need(c, obj, key, PMU_JSON_STRING, &v);

	if (r < 0)
		return r;
	if (!v->len || strlen(v->s) != v->len)
		return BAD(c, v, "\"%s\" is %s", key, v->len ? "a string with a NUL (\\u0000) in it" : "empty");
	*out = v->s;
	return 0;
}

/* An optional non-negative number: 0 absent or null, 1 read into *out, -EINVAL refused. */
int pmu__rep_opt_num(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char *key, const char *ev, double *out)
{
	const struct pmu__json *v = pmu__json_get(obj, key);

	if (v && ev) {
		if (v->type != PMU_JSON_OBJECT)
			return BAD(c, v, "\"%s\" is %s, not an object", key, pmu__rep_type_names[v->type]);
		v = pmu__json_get(v, ev);
	}
	if (!v || v->type == PMU_JSON_NULL)
		return 0;
	if (!pmu__json_double(v, out) || *out < 0)
		return ev ? BAD(c, v, "\"%s\" of \"%s\" is not a non-negative number", key, pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, ev)) :
			BAD(c, v, "\"%s\" is not a non-negative number", key);
	return 1;
}

/* calls, ns, ns_per_call and counts of a region or thread into d (calls, ns, counts). */
static int figures(const struct pmu__rep_ctx *c, const struct pmu__rep *r, const struct pmu__json *o, uint64_t *d)
{
	const struct pmu__json *counts, *npc, *m;
	double x;
	int e;

	if ((e = pmu__rep_need_u64(c, o, "calls", &d[0])) < 0 || (e = pmu__rep_need_u64(c, o, "ns", &d[1])) < 0)
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
	if ((e = pmu__rep_need(c, o, "counts", PMU_JSON_OBJECT, &counts)) < 0)
		return e;
	for (unsigned i = 0; i < r->nev; i++) {
		/* written in the order of "events" */
		const struct pmu__json *v = i < counts->n && !strcmp(counts->v[i].key, r->ev[i]) &&
			strlen(r->ev[i]) == counts->v[i].klen ? &counts->v[i] : pmu__json_get(counts, r->ev[i]);

		if (!v)
			return BAD(c, counts, "\"counts\" has no \"%s\", which \"events\" lists", pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, r->ev[i]));
		if (!pmu__json_u64(v, &d[2 + i]))
			return BAD(c, v, "\"counts\": \"%s\" is not a non-negative integer", pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, r->ev[i]));
	}
	/* every event is there and keys are unique: more keys are ones "events" lacks */
	for (size_t i = 0; counts->n > r->nev && i < counts->n; i++)
		for (unsigned k = 0;; k++) {
			if (k == r->nev)
				return pmu__rep_bad(c, counts->v[i].kline, (char[200]){ 0 },
					   "\"counts\" has \"%.64s\", which \"events\" does not list",
					   pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, counts->v[i].key));
			if (!strcmp(r->ev[k], counts->v[i].key) && strlen(counts->v[i].key) == counts->v[i].klen)
				break;
		}
	if ((m = pmu__json_get(o, "metrics")) && m->type != PMU_JSON_OBJECT)
		return BAD(c, m, "\"metrics\" is %s, not an object", pmu__rep_type_names[m->type]);
	return 0;
}

/* The optional per call spread of a region: used only when complete. */
static int ranges(const struct pmu__rep_ctx *c, const struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	int have, n = 0;

	have = pmu__rep_opt_num(c, o, "ns_min", NULL, &g->ns_min);
	n += have > 0;
	if (have < 0 || (have = pmu__rep_opt_num(c, o, "ns_max", NULL, &g->ns_max)) < 0)
		return -EINVAL;
	n += have > 0;
	if (n == 2 && g->ns_min > g->ns_max)
		return BAD(c, pmu__json_get(o, "ns_min"), "\"ns_min\" is more than \"ns_max\"");
	for (unsigned i = 0; i < r->nev; i++) {
		int a = pmu__rep_opt_num(c, o, "min", r->ev[i], &g->min[i]), b;

		if (a < 0 || (b = pmu__rep_opt_num(c, o, "max", r->ev[i], &g->max[i])) < 0)
			return -EINVAL;
		if (a > 0 && b > 0 && g->min[i] > g->max[i])
			return BAD(c, pmu__json_get(o, "min"), "\"min\" of \"%s\" is more than its \"max\"",
					   pmu__report_esc((char[PMU_ESC_SIZE]){ 0 }, r->ev[i]));
		n += (a > 0) + (b > 0);
	}
	g->range = n == 2 + 2 * (int)r->nev;
	return 0;
}

static int threads(struct pmu__rep_ctx *c, const struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	const struct pmu__json *th, *v;
	uint64_t d[2 + r->nev], sum[2 + r->nev];
	int e;

	if ((e = pmu__rep_need(c, o, "threads", PMU_JSON_ARRAY, &th)) < 0)
		return e;
	memset(sum, 0, sizeof(sum));
	for (size_t k = 0; k < th->n; k++) {
		const struct pmu__json *t = &th->v[k];
		uint64_t tid;

		pmu__rep_ctx_set(c, g->name, NULL);
		if (t->type != PMU_JSON_OBJECT)
			return BAD(c, t, "a thread is %s, not an object", pmu__rep_type_names[t->type]);
		if ((e = pmu__rep_need_u64(c, t, "tid", &tid)) < 0)
			return e;
		pmu__rep_ctx_set(c, g->name, pmu__json_get(t, "tid"));
		if ((e = pmu__rep_need(c, t, "name", PMU_JSON_STRING, &v)) < 0 ||
		    (e = pmu__rep_need(c, t, "exited", PMU_JSON_BOOL, &v)) < 0 || (e = figures(c, r, t, d)) < 0)
			return e;
		for (unsigned i = 0; i < 2 + r->nev; i++)
			if (__builtin_add_overflow(sum[i], d[i], &sum[i]))
				return BAD(c, t, "the threads' figures overflow 64 bits");
	}
	pmu__rep_ctx_set(c, g->name, NULL);
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

static int region(struct pmu__rep_ctx *c, struct pmu__rep *r, const struct pmu__json *o, struct pmu__rep_region *g)
{
	uint64_t d[2 + r->nev];
	int e;

	pmu__rep_ctx_set(c, NULL, NULL);
	if (o->type != PMU_JSON_OBJECT)
		return BAD(c, o, "a region is %s, not an object", pmu__rep_type_names[o->type]);
	if ((e = pmu__rep_need_name(c, o, "name", &g->name)) < 0)
		return e;
	g->line = o->line;
	pmu__rep_ctx_set(c, g->name, NULL);
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
	if ((e = ranges(c, r, o, g)) < 0 || (e = threads(c, r, o, g)) < 0 || (e = pmu__rep_dist(c, o, &g->dist)) < 0)
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
static int unique_regions(struct pmu__rep_ctx *c, const struct pmu__rep *r)
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
			pmu__rep_ctx_set(c, s[i]->name, NULL);
			e = pmu__rep_bad(c, s[i]->line, (char[200]){ 0 }, "a second region of this name (the first on line %u)",
				s[i - 1]->line);
		}
	}
	free(s);
	return e;
}

int pmu__rep_library(const struct pmu__rep_ctx *c, const struct pmu__json *obj, const char **lib, unsigned *major,
		unsigned *minor, unsigned *patch)
{
	const struct pmu__json *v;
	int e, n = -1;

	if ((e = pmu__rep_need(c, obj, "library", PMU_JSON_STRING, &v)) < 0)
		return e;
	*lib = v->s;
	if (strncmp(v->s, "libpmu ", 7) || v->s[7] < '0' || v->s[7] > '9' ||
	    strspn(v->s + 7, "0123456789.") != v->len - 7 ||
	    sscanf(v->s, "libpmu %u.%u.%u%n", major, minor, patch, &n) != 3 || (size_t)n != v->len)
		return BAD(c, v, "\"library\" is \"%.64s\", not \"libpmu MAJOR.MINOR.PATCH\"", v->s);
	if (*major != PMU_VERSION_MAJOR)
		return BAD(c, v, "written by %.64s, another major version than this one's (%s): not read", v->s,
			   pmu_version());
	return 0;
}

static int check_report(struct pmu__rep *r)
{
	struct pmu__rep_ctx c = { r->path, "" };
	const struct pmu__json *top = r->doc, *v, *ev, *regs;
	uint64_t x;
	int e;

	if (top->type != PMU_JSON_OBJECT)
		return BAD(&c, top, "the report is %s, not an object", pmu__rep_type_names[top->type]);
	if ((e = pmu__rep_library(&c, top, &r->library, &r->major, &r->minor, &r->patch)) < 0)
		return e;
	if ((e = pmu__rep_need_u64(&c, top, "pid", &x)) < 0)
		return e;
	if (!x || x > 0x7fffffff)
		return BAD(&c, pmu__json_get(top, "pid"), "\"pid\" is not a process ID");
	r->pid = (long)x;
	if ((e = pmu__rep_need(&c, top, "hostname", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->hostname = v->s;
	v = pmu__json_get(top, "emulated");
	r->emulated = v && v->type == PMU_JSON_STRING ? v->s : NULL;
	if ((e = pmu__rep_need(&c, top, "command", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->command = v->s;
	if ((e = pmu__rep_need(&c, top, "start", PMU_JSON_STRING, &v)) < 0)
		return e;
	r->start = v->s;
	if ((e = pmu__rep_need_u64(&c, top, "start_ns", &r->start_ns)) < 0)
		return e;
	v = pmu__json_get(top, "compensated");
	r->comp = v ? v->type == PMU_JSON_OBJECT : -1;
	if ((e = pmu__rep_need(&c, top, "events", PMU_JSON_ARRAY, &ev)) < 0)
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
	if ((e = pmu__rep_need(&c, top, "regions", PMU_JSON_ARRAY, &regs)) < 0)
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
		pmu__rep_dist_free(r->reg[i].dist);
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

int pmu__rep_check(const char *path, struct pmu__json *doc, struct pmu__rep *r)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->doc = doc;
	return rep_done(r, 0);
}

int pmu__rep_read(const char *path, struct pmu__rep *r)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	return rep_done(r, pmu__json_load(path, &r->doc));
}

void pmu__rep_dist_free(struct pmu__rep_dist *d)
{
	for (unsigned i = 0; d && d->h && i <= d->n; i++)
		pmu__shist_free(&d->h[i]);
	if (d) {
		free(d->h);
		free(d->ev);
	}
	free(d);
}

/* Figure object fig's "buckets": [index, calls, then width - 2 sums] each, indices increasing, into h. */
static int buckets(const struct pmu__rep_ctx *c, const struct pmu__json *fig, const char *what, unsigned width,
		   struct pmu__shist *h)
{
	const struct pmu__json *b;
	uint64_t x;
	int e;

	if ((e = pmu__rep_need(c, fig, "buckets", PMU_JSON_ARRAY, &b)) < 0)
		return e;
	h->nts = width - 2;
	h->idx = malloc((b->n + 1) * sizeof(*h->idx));
	h->cnt = malloc((b->n + 1) * sizeof(*h->cnt));
	h->ts = malloc((b->n + 1) * (width - 2 + 1) * sizeof(*h->ts));
	if (!h->idx || !h->cnt || !h->ts)
		return pmu__err(-ENOMEM, "%s: out of memory", c->path);
	h->len = (unsigned)b->n;
	for (size_t k = 0; k < b->n; k++) {
		const struct pmu__json *v = &b->v[k];

		if (v->type != PMU_JSON_ARRAY || v->n != width)
			return BAD(c, v, "\"dist\": %s: bucket %zu is not an array of %u integers", what, k + 1, width);
		for (unsigned j = 0; j < width; j++) {
			if (!pmu__json_u64(&v->v[j], &x))
				return BAD(c, v, "\"dist\": %s: bucket %zu: item %u is not a non-negative integer", what,
					   k + 1, j + 1);
			if (j == 0 && (x >= PMU_HIST_BUCKETS || (k && x <= h->idx[k - 1])))
				return BAD(c, v, "\"dist\": %s: bucket %zu: index %llu is out of order or past %d", what,
					   k + 1, (unsigned long long)x, PMU_HIST_BUCKETS - 1);
			if (j == 1 && !x)
				return BAD(c, v, "\"dist\": %s: bucket %zu has no calls", what, k + 1);
			if (j == 0)
				h->idx[k] = (uint32_t)x;
			else if (j == 1)
				h->cnt[k] = x;
			else
				h->ts[(size_t)(j - 2) * b->n + k] = x;
		}
	}
	return 0;
}

/* The names of "events" into d. */
static int dist_events(const struct pmu__rep_ctx *c, const struct pmu__json *dist, struct pmu__rep_dist *d)
{
	const struct pmu__json *ev;
	int e;

	if ((e = pmu__rep_need(c, dist, "events", PMU_JSON_ARRAY, &ev)) < 0)
		return e;
	if (ev->n > PMU_REP_EVENTS)
		return BAD(c, ev, "\"dist\": \"events\" has %zu events (at most %d)", ev->n, PMU_REP_EVENTS);
	d->n = (unsigned)ev->n;
	d->ev = calloc(d->n + 1, sizeof(*d->ev));
	d->h = calloc(d->n + 1, sizeof(*d->h));
	if (!d->ev || !d->h)
		return pmu__err(-ENOMEM, "%s: out of memory", c->path);
	for (unsigned i = 0; i < d->n; i++) {
		if (ev->v[i].type != PMU_JSON_STRING || !ev->v[i].len || strlen(ev->v[i].s) != ev->v[i].len)
			return BAD(c, &ev->v[i], "\"dist\": \"events\": item %u is not an event name", i + 1);
		d->ev[i] = ev->v[i].s;
	}
	return 0;
}

static int dist_read(const struct pmu__rep_ctx *c, const struct pmu__json *dist, struct pmu__rep_dist *d)
{
	const struct pmu__json *v, *fig;
	uint64_t np;
	int e;

	if ((e = pmu__rep_need(c, dist, "scheme", PMU_JSON_STRING, &v)) < 0)
		return e;
	if (strcmp(v->s, PMU_HIST_SCHEME))
		return BAD(c, v, "\"dist\": histograms of scheme \"%.32s\"; this pmu reads \"" PMU_HIST_SCHEME "\"", v->s);
	d->nproc = 1;
	if ((v = pmu__json_get(dist, "processes")) && !(pmu__json_u64(v, &np) && np && np < 1u << 30))
		return BAD(c, v, "\"dist\": \"processes\" is not a count of processes");
	if (v)
		d->nproc = (unsigned)np;
	if ((e = dist_events(c, dist, d)) < 0 || (e = pmu__rep_need(c, dist, "ns", PMU_JSON_OBJECT, &fig)) < 0 ||
	    (e = buckets(c, fig, "ns", 3 + d->n, &d->h[0])) < 0)
		return e;
	for (unsigned i = 0; i < d->n; i++) {
		if ((e = pmu__rep_need(c, dist, d->ev[i], PMU_JSON_OBJECT, &fig)) < 0 ||
		    (e = buckets(c, fig, d->ev[i], 2, &d->h[1 + i])) < 0)
			return e;
		if (pmu__shist_total(&d->h[1 + i]) != pmu__shist_total(&d->h[0]))
			return BAD(c, fig, "\"dist\": %.64s: %llu calls, ns's %llu", d->ev[i],
				   (unsigned long long)pmu__shist_total(&d->h[1 + i]),
				   (unsigned long long)pmu__shist_total(&d->h[0]));
	}
	return 0;
}

int pmu__rep_dist(const struct pmu__rep_ctx *c, const struct pmu__json *o, struct pmu__rep_dist **out)
{
	const struct pmu__json *dist = pmu__json_get(o, "dist");
	int e;

	*out = NULL;
	if (!dist || dist->type == PMU_JSON_NULL)
		return 0;
	if (dist->type != PMU_JSON_OBJECT)
		return BAD(c, dist, "\"dist\" is %s, not an object", pmu__rep_type_names[dist->type]);
	if (!(*out = calloc(1, sizeof(**out))))
		return pmu__err(-ENOMEM, "%s: out of memory", c->path);
	if ((e = dist_read(c, dist, *out)) < 0) {
		pmu__rep_dist_free(*out);
		*out = NULL;
	}
	return e;
}
