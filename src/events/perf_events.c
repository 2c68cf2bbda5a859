/* SPDX-License-Identifier: MIT */
/* The events of perf's JSON files in the core PMU's terms, as perf's jevents.py makes them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "parse/json.h"
#include "events/perf_cpu.h"
#include "events/perf_events.h"
#include "events/event.h"
#include "events/sysfs.h"

const char *pmu__pj_str(const struct pmu__json *o, const char *key)
{
	const struct pmu__json *v = pmu__json_get(o, key);

	return v && v->type == PMU_JSON_STRING ? v->s : NULL;
}

/* A JSON string field holding a number ("0x3c", "1"), as perf's files write them; -1 when absent. */
long long pmu__pj_num(const struct pmu__json *o, const char *key, bool *bad)
{
	const char *s = pmu__pj_str(o, key);
	char *end;
	long long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (end == s || (*end && *end != ',') || errno || v < 0)	/* "0xB7,0xBB": the first, as perf */
		*bad = true;
	return v;
}

/* The core PMU's name and whether it has term t (no core PMU here: every term is taken). */
static struct pmu__desc core;
static int have_core = -1;

static bool core_term(const char *t)
{
	if (have_core < 0) {
		struct pmu__desc d[PMU_MAX_PMUS];
		int n = pmu__core_pmus(d);

		have_core = n > 0;
		if (n > 0) {
			core = d[0];
			for (int i = 1; i < n; i++)
				pmu__desc_free(&d[i]);
			pmu__desc_all(&core);
		}
	}
	if (!have_core)
		return true;
	for (unsigned i = 0; i < core.nfmt; i++)
		if (!strcmp(core.fmt[i].name, t))
			return true;
	return false;
}

const char *pmu__pj_core_pmu(void)
{
	core_term("event");
	return have_core ? core.name : NULL;
}

const char *pmu__pj_core_name(bool arm)
{
	core_term("event");
	return have_core ? core.name : arm ? "armv8_pmuv3_0" : "cpu";
}

char *pmu__pj_lower(const char *s)
{
	char *l = strdup(s);

	for (char *p = l; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

const struct pj_event *pmu__pj_find_in(const struct pj_event *ev, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(ev[i].name) == len && !strncasecmp(ev[i].name, name, len))
			return &ev[i];
	return NULL;
}


/* perf's jevents.py: the counting terms of an event (period and precision do not count). */
static int event_spec(const struct pmu__json *o, bool arm, const struct pj_event *std_ev, size_t nstd,
		      char **spec, char **why)
{
	static const struct { const char *key, *term; } fields[] = {
		{ "AnyThread", "any" }, { "CounterMask", "cmask" }, { "EdgeDetect", "edge" }, { "Edge", "edge" },
		{ "FCMask", "fc_mask" }, { "Invert", "inv" }, { "PortMask", "ch_mask" }, { "UMask", "umask" },
	};
	const char *std = pmu__pj_str(o, "ArchStdEvent"), *name = pmu__pj_str(o, "EventName") ? pmu__pj_str(o, "EventName") : std;
	const char *unit = pmu__pj_str(o, "Unit");
	const char *msr = pmu__pj_str(o, "MSRIndex"), *msrv = pmu__pj_str(o, "MSRValue"), *pmu;
	char buf[512], pmubuf[80];
	bool bad = false;
	long long code = pmu__pj_num(o, "EventCode", &bad), ext = pmu__pj_num(o, "ExtSel", &bad), cfg = pmu__pj_num(o, "ConfigCode", &bad);
	int len;

	*spec = *why = NULL;
	if (std && code < 0) {
		const struct pj_event *s = pmu__pj_find_in(std_ev, nstd, std, strlen(std));

		if (!s)
			return asprintf(why, "ArchStdEvent %s: not among arch/arm64's events", std) < 0 ? -ENOMEM : 0;
		if (s->why)
			return (*why = strdup(s->why)) ? 0 : -ENOMEM;
		return (*spec = strdup(s->spec)) ? 0 : -ENOMEM;
	}
	if (unit && strcasecmp(unit, "cpu") && strcasecmp(unit, "cpu_core") && strcasecmp(unit, "cpu_atom")) {
		/* perf's uncore names: "iMC" is uncore_imc */
		char *l = pmu__pj_lower(unit);

		if (!l)
			return -ENOMEM;
		snprintf(pmubuf, sizeof(pmubuf), "%s%s", strncmp(l, "uncore_", 7) && !arm ? "uncore_" : "", l);
		free(l);
		pmu = pmubuf;
	} else
		pmu = pmu__pj_core_name(arm);
	if (bad)
		return asprintf(why, "%s: a number field that is not a number", name) < 0 ? -ENOMEM : 0;
	if (code < 0)	/* jevents.py's default: the fixed counters have none */
		code = 0;
	if (ext > 0)
		code |= ext << 8;
	len = cfg >= 0 ? snprintf(buf, sizeof(buf), "%s/config=0x%llx", pmu, cfg)
		       : snprintf(buf, sizeof(buf), "%s/event=0x%llx", pmu, code);
	for (size_t k = 0; k < PMU_ARRAY_SIZE(fields); k++) {
		const char *v = pmu__pj_str(o, fields[k].key);

		if (!v || !strcmp(v, "0") || !strcmp(v, "0x0") || !strcmp(v, "0x00"))
			continue;
		if (pmu == core.name && !core_term(fields[k].term))
			return asprintf(why, "%s: %s needs the term '%s', which %s/format does not have", name,
					fields[k].key, fields[k].term, pmu) < 0 ? -ENOMEM : 0;
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, ",%s=%s", fields[k].term, v);
	}
	if (msr && msrv && (size_t)len < sizeof(buf)) {
		long long idx = strtoll(msr, NULL, 0);
		const char *t = idx == 0x1a6 || idx == 0x1a7 ? "offcore_rsp" : idx == 0x3f6 ? "ldlat" :
				idx == 0x3f7 ? "frontend" : NULL;

		if (!t)
			return asprintf(why, "%s: MSRIndex %s names no term", name, msr) < 0 ? -ENOMEM : 0;
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, ",%s=%s", t, msrv);
	}
	if ((size_t)len + 2 > sizeof(buf))
		return asprintf(why, "%s: too many terms", name) < 0 ? -ENOMEM : 0;
	strcat(buf, "/");
	return (*spec = strdup(buf)) ? 0 : -ENOMEM;
}

int pmu__pj_add_event(struct pj_event **ev, size_t *n, const struct pmu__json *o, bool arm,
		 const struct pj_event *std, size_t nstd)
{
	struct pj_event *e;
	int r;

	if (pmu__grow(ev, *n, sizeof(**ev)) < 0)
		return pmu__err(-ENOMEM, "out of memory");
	e = *ev + *n;
	e->name = strdup(pmu__pj_str(o, "EventName") ? pmu__pj_str(o, "EventName") : pmu__pj_str(o, "ArchStdEvent"));
	r = event_spec(o, arm, std, nstd, &e->spec, &e->why);
	if (!e->name || r < 0) {
		free(e->name);
		free(e->spec);
		free(e->why);
		return pmu__err(-ENOMEM, "out of memory");
	}
	/* perf fixes the fixed counters' codes (jevents.py) */
	static const struct { const char *name, *terms; } fixed[] = {
		{ "inst_retired.any", "event=0xc0" }, { "inst_retired.any_p", "event=0xc0" },
		{ "cpu_clk_unhalted.ref", "event=0x0,umask=0x03" }, { "cpu_clk_unhalted.thread", "event=0x3c" },
		{ "cpu_clk_unhalted.core", "event=0x3c" }, { "cpu_clk_unhalted.thread_any", "event=0x3c,any=1" },
	};
	for (size_t k = 0; !arm && k < PMU_ARRAY_SIZE(fixed); k++)
		if (!strcasecmp(e->name, fixed[k].name)) {
			free(e->spec);
			free(e->why);
			e->why = NULL;
			if (asprintf(&e->spec, "%s/%s/", pmu__pj_core_name(false), fixed[k].terms) < 0)
				e->spec = NULL;
		}
	(*n)++;
	return 0;
}

bool pmu__pj_is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

void pmu__pj_events_free(void)
{
	if (have_core > 0)
		pmu__desc_free(&core);
	have_core = -1;
}
