/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's events: the -e lists split into events and {a,b} groups, a
 * group's modifier after its brace, each resolved before anything runs;
 * and their memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "stat.h"
#include "tool_err.h"

/* The user gave a modifier (the library's parser says), or a pmu/.../ form, whose modifiers we do not touch. */
static bool explicit_levels(const char *name)
{
	/* (a metric's event from perf's files opens as its terms: name is then not what opens) */
	size_t len = strlen(name);

	return strchr(name, '/') || pmu__mods_split(name, len, NULL) < len;
}

bool stat_group_levels(const struct ev *ev, unsigned i)
{
	for (unsigned k = i; k < i + ev[i].gsize; k++)
		if (ev[k].mod || explicit_levels(ev[k].spec ? ev[k].spec : ev[k].name))
			return true;
	return false;
}

void stat_group_close(struct ev *ev, unsigned i, unsigned units)
{
	for (unsigned u = 0; ev[i].per && u < units; u++) {
		pmu_close(ev[i].per[u].set);
		ev[i].per[u].set = NULL;
	}
	for (unsigned k = i; k < i + ev[i].gsize; k++)
		ev[k].set = NULL;
}

void stat_event_free(struct ev *e, unsigned units)
{
	if (e->per && !e->slot)
		stat_group_close(e, 0, units);
	else if (!e->per)
		pmu_close(e->set);
	free(e->per);
	free(e->name);
	free(e->spec);
	free(e->why);
	free(e->mod);
}

void stat_events_free(struct ev *ev, unsigned n, unsigned units)
{
	for (unsigned i = 0; i < n; i++)
		stat_event_free(&ev[i], units);
	free(ev);
}

enum { ADD_OPTIONAL = 1, ADD_SPLIT = 2 };	/* left out when it does not open; --no-merge */

static int add_event_spec(struct ev **ev, unsigned *n, const char *tok, size_t len, const char *mod, unsigned flags,
			  const char *spec_as);

/*
 * --no-merge: the event tok[0..len), which pe resolved onto the instances
 * of an uncore family (or a bare alias onto several uncore PMUs), onto ev
 * as one event per instance, named as perf names them: uncore_imc_0/.../.
 */
static int add_instances(struct ev **ev, unsigned *n, const char *tok, size_t len, const char *mod, unsigned flags,
			 const struct pmu__event *pe)
{
	const char *slash = memchr(tok, '/', len), *colon = memchr(tok, ':', len);
	size_t name = colon ? (size_t)(colon - tok) : len;
	int r = 0;

	for (unsigned i = 0; r == 0 && i < pe->n; i++) {
		char *one;

		if (slash)
			r = asprintf(&one, "%s%.*s", pe->a[i].pmu, (int)(tok + len - slash), slash);
		else
			r = asprintf(&one, "%s/%.*s/%.*s", pe->a[i].pmu, (int)name, tok, (int)(len - name - !!colon),
				     colon ? colon + 1 : "");
		if (r < 0)
			return tool_err(-ENOMEM, "out of memory");
		r = add_event_spec(ev, n, one, strlen(one), mod, flags & ~ADD_SPLIT, NULL);
		free(one);
	}
	return r;
}

/* One event onto ev, in a group with modifier mod or alone (mod NULL); it opens as spec when not NULL. */
static int add_event_spec(struct ev **ev, unsigned *n, const char *tok, size_t len, const char *mod, unsigned flags,
			  const char *spec_as)
{
	struct pmu__event pe;
	struct ev *g;
	char *spec;
	int r;

	if (pmu__grow(ev, *n, sizeof(**ev)) < 0)
		return tool_err(-ENOMEM, "out of memory");
	g = *ev + *n;
	memset(g, 0, sizeof(*g));
	g->gsize = 1;
	g->name = strndup(tok, len);
	g->mod = mod ? strdup(mod) : NULL;
	g->spec = spec_as ? strdup(spec_as) : NULL;
	if (spec_as) {
		tok = spec_as;
		len = strlen(spec_as);
	}
	if (!g->name || (mod && !g->mod) || (spec_as && !g->spec) ||
	    asprintf(&spec, "%.*s%s%s", (int)len, tok, mod ? ":" : "", mod ? mod : "") < 0) {
		stat_event_free(g, 0);
		return tool_err(-ENOMEM, "out of memory");
	}
	/* A name that does not resolve is the user's mistake: stop before running anything. */
	if (mod && explicit_levels(g->name))
		r = tool_err(-EINVAL, "not supported: '%s' in a group with modifier ':%s' (a modifier on both the "
			     "event and the group)", g->name, mod);
	else
		r = tool_err_lib(pmu__event_parse(spec, strlen(spec), &pe));
	free(spec);
	if (r < 0 || ((flags & ADD_SPLIT) && !spec_as && pe.n > 1 && !pe.a[0].alt)) {
		stat_event_free(g, 0);
		if (r == 0)	/* a hybrid machine's core PMUs (alt) take turns: their sum stays one line */
			return add_instances(ev, n, tok, len, mod, flags, &pe);
		return (flags & ADD_OPTIONAL) ? 0 : r;
	}
	snprintf(g->unit, sizeof(g->unit), "%s", pmu__attr_unit(&pe.a[0], &g->scale));
	g->optional = flags & ADD_OPTIONAL;
	(*n)++;
	return 0;
}

static int add_event(struct ev **ev, unsigned *n, const char *tok, size_t len, const char *mod, unsigned flags)
{
	return add_event_spec(ev, n, tok, len, mod, flags, NULL);
}

int stat_event_add(struct stat_run *r, const char *name, const char *spec)
{
	return add_event_spec(&r->ev, &r->n, name, strlen(name), NULL, 0, spec);
}

/* "{a,b}" or "{a,b}:mod" at *p onto ev as one group, *p past it: 0 or -errno, naming the group. */
static int add_group(struct ev **ev, unsigned *n, const char **p, unsigned flags)
{
	const char *s = *p, *close = strchr(s, '}'), *inner = strchr(s + 1, '{'), *end, *q, *tok;
	unsigned first = *n;
	char *body, *mod = NULL;
	size_t len;
	int r = 0;

	if (!close)
		return tool_err(-EINVAL, "'%s': group not closed with '}'", s);
	if (inner && inner < close)
		return tool_err(-EINVAL, "'%.*s': group not closed with '}' before the next '{' (groups do not nest)",
				(int)(close + 1 - s), s);
	end = close + 1;
	if (*end == ':') {
		len = strcspn(end + 1, ",");
		if (!len)
			return tool_err(-EINVAL, "'%.*s': no modifier after the group's ':'", (int)(end + 1 - s), s);
		mod = strndup(end + 1, len);
		if (!mod)
			return tool_err(-ENOMEM, "out of memory");
		end += 1 + len;
	}
	if (*end && *end != ',') {
		free(mod);
		return tool_err(-EINVAL, "'%.*s': a ',' or the end of the list must follow the group's '}'",
				(int)(end + strcspn(end, ",") - s), s);
	}
	body = strndup(s + 1, (size_t)(close - s - 1));
	if (!body) {
		free(mod);
		return tool_err(-ENOMEM, "out of memory");
	}
	if (!body[strspn(body, " \t")])
		r = tool_err(-EINVAL, "'%.*s': an empty group", (int)(end - s), s);
	for (q = body; r == 0 && q && (r = tool_err_lib(pmu__event_next(&q, &tok, &len))) > 0;)
		r = add_event(ev, n, tok, len, mod, flags);
	for (unsigned k = first; r >= 0 && k < *n; k++) {
		(*ev)[k].slot = k - first;
		(*ev)[k].gsize = *n - first;
	}
	free(body);
	free(mod);
	*p = *end ? end + 1 : NULL;
	return r < 0 ? r : 0;
}

/* Splits a comma-separated list, {groups} too, onto ev; -errno with a message on a bad list. */
static int add_events(struct ev **ev, unsigned *n, const char *list, unsigned flags)
{
	const char *p = list, *tok;
	size_t len;
	int r = 0;

	while (p && r >= 0) {
		p += strspn(p, " \t");
		if (*p == '{') {
			r = add_group(ev, n, &p, flags);
			continue;
		}
		r = tool_err_lib(pmu__event_next(&p, &tok, &len));
		if (r > 0 && (memchr(tok, '{', len) || memchr(tok, '}', len)))
			r = tool_err(-EINVAL, "'%.*s': a brace must enclose a group of events, as in "
				     "'{task-clock,page-faults}'", (int)len, tok);
		if (r > 0)
			r = add_event(ev, n, tok, len, NULL, flags);
	}
	return r;
}

int stat_events_resolve(struct stat_run *r)
{
	int rc;

	/* as perf stat: -M's events stand for the defaults */
	bool defaults = !r->events && !r->metrics && !r->topdown;

	unsigned split = r->no_merge ? ADD_SPLIT : 0;

	rc = r->events || defaults ? add_events(&r->ev, &r->n, r->events ? r->events : DEFAULT_EVENTS, split) : 0;
	if (rc == 0 && defaults)
		rc = add_events(&r->ev, &r->n, DEFAULT_HW, ADD_OPTIONAL | split);
	return rc;
}

int stat_events_ready(struct stat_run *r)
{
	int rc = 0;

	if (!r->n)
		rc = tool_err(-EINVAL, "\"%s\": no event named", r->events ? r->events : "");
	for (unsigned i = 0; rc == 0 && i < r->n; i++)
		if (!(r->ev[i].per = calloc(r->tg.n, sizeof(*r->ev[i].per))))
			rc = tool_err(-ENOMEM, "out of memory");
	return rc;
}

char *stat_group_spec(const struct ev *ev, unsigned i, const char *suffix)
{
	size_t len = 1;
	char *spec, *p;

	for (unsigned k = i; k < i + ev[i].gsize; k++)
		len += strlen(ev[k].spec ? ev[k].spec : ev[k].name) + 2 + (suffix ? strlen(suffix) : ev[k].mod ? strlen(ev[k].mod) + 1 : 0);
	spec = p = malloc(len);
	for (unsigned k = i; spec && k < i + ev[i].gsize; k++)
		p += sprintf(p, "%s%s%s%s%s", k > i ? "," : "", ev[k].spec ? ev[k].spec : ev[k].name, suffix ? suffix : "",
			     !suffix && ev[k].mod ? ":" : "", !suffix && ev[k].mod ? ev[k].mod : "");
	return spec;
}

void stat_events_reset(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];

		if (!e->slot)
			stat_group_close(r->ev, i, r->tg.n);
		free(e->why);
		e->why = NULL;
		e->counted = false;
		memset(&e->rd, 0, sizeof(e->rd));
	}
}
