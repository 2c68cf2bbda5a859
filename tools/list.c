/* SPDX-License-Identifier: MIT */
/* pmu list: the events this machine knows, by PMU, as text or JSON. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "cmds.h"
#include "events/perf_json.h"
#include "tool_err.h"

/* --available opens each of at most this many tracepoints (some 40 ms each), else one per subsystem */
#define PMU_PROBE_TRACEPOINTS 32

struct out {
	const char *glob;
	const char *kind;	/* perf list's keywords (hw, sw, cache, pmu, tracepoint): only this kind */
	bool json;
	bool available;		/* --available: only what opens for this thread */
	bool verbose;		/* -v: with --available, what was left out and why */
	bool have_core;		/* a core PMU: raw events open */
	unsigned left_out;	/* --available: events that did not open */
	bool said;		/* why a kind of event is missing, said on stderr */
	bool tp_share;		/* --available, many tracepoints: one that opens stands for its subsystem */
	char tp_ok[256];	/* the subsystem of the last tracepoint that opened */
	unsigned n;		/* entries printed */
	const char *section;	/* text: header printed before the first entry of a section */
	bool header_done;
	char pfm_pmu[64], pfm_title[96];
	int status;		/* 1 when the listing is incomplete (said on stderr) */
};

/* perf list's keywords, and the kind of entry each lists. */
static const struct {
	const char *word, *kind;
} keywords[] = {
	{ "hw", "hardware" }, { "hardware", "hardware" }, { "sw", "software" }, { "software", "software" },
	{ "cache", "cache" }, { "hwcache", "cache" }, { "pmu", "sysfs" },
	{ "tracepoint", "tracepoint" }, { "tracepoints", "tracepoint" },
};

static bool match(const struct out *o, const char *kind, const char *pmu, const char *name)
{
	char full[512];
	size_t gl;

	if (o->kind)
		return !strcmp(kind, o->kind);
	if (!o->glob)
		return true;
	if (!fnmatch(o->glob, name, FNM_CASEFOLD))
		return true;
	if (!strcmp(kind, "tracepoint")) {
		/* "sched:*" as perf list; "sched" or "sched_switch" alone too */
		const char *colon = strchr(name, ':');

		snprintf(full, sizeof(full), "%.*s", (int)(colon - name), name);
		return !fnmatch(o->glob, colon + 1, FNM_CASEFOLD) || !fnmatch(o->glob, full, FNM_CASEFOLD);
	}
	if (pmu) {
		snprintf(full, sizeof(full), "%s/%s/", pmu, name);
		if (!fnmatch(o->glob, full, FNM_CASEFOLD) || !fnmatch(o->glob, pmu, FNM_CASEFOLD))
			return true;
		/* "cpu/" lists the whole PMU */
		gl = strlen(o->glob);
		if (gl > 1 && o->glob[gl - 1] == '/' && strlen(pmu) == gl - 1 && !strncmp(o->glob, pmu, gl - 1))
			return true;
	}
	return false;
}

static void section(struct out *o, const char *title)
{
	o->section = title;
	o->header_done = false;
}

/*
 * --available: whether ev opens for this thread, as pmu stat would open it
 * (disabled, read through read(2): nothing is mapped). -v says why not.
 */
static bool available(struct out *o, const char *kind, const char *ev)
{
	struct pmu_opts opts = { .size = sizeof(opts), .flags = PMU_DISABLED | PMU_NO_USER_READ };
	struct pmu_set *set;

	if (!o->available)
		return true;
	/*
	 * Closing a tracepoint costs the kernel an RCU grace period (some 40 ms),
	 * while the kernel's rules for counting one are its subsystem's (ftrace's
	 * own differ one by one): with many listed, after one tracepoint of a
	 * subsystem opened the others are taken as it. Failures are cheap.
	 */
	const char *colon = strchr(ev, ':');
	size_t sl = colon ? (size_t)(colon - ev) : 0;

	if (!strcmp(kind, "tracepoint") && o->tp_share && sl < sizeof(o->tp_ok) && strncmp(ev, "ftrace:", 7) &&
	    !strncmp(ev, o->tp_ok, sl) && !o->tp_ok[sl])
		return true;
	if (!strcmp(kind, "raw")) {	/* a pattern, not an event */
		if (o->have_core)
			return true;
		if (o->verbose)
			fprintf(stderr, "pmu list: not available: %s: no core PMU in sysfs (no hardware PMU)\n", ev);
	} else if (pmu_open_opts(&set, ev, &opts) == 0) {
		pmu_close(set);
		if (!strcmp(kind, "tracepoint") && sl < sizeof(o->tp_ok))
			snprintf(o->tp_ok, sizeof(o->tp_ok), "%.*s", (int)sl, ev);
		return true;
	} else if (o->verbose) {
		fprintf(stderr, "pmu list: not available: %s\n", pmu_errmsg());
	}
	o->left_out++;
	return false;
}

/*
 * One event. kind: hardware, cache, software, raw, sysfs, tracepoint,
 * libpfm. pmu may be NULL (generic). spelled: how it is written when not
 * its name (pmu/name/ for sysfs). encoding: what it means ("event=0x3c",
 * "type=0 config=0x0").
 */
static void entry(struct out *o, const char *kind, const char *pmu, const char *name, const char *spelled,
		  const char *encoding, const char *desc, const char *scale, const char *unit)
{
	char ev[512];

	if (!match(o, kind, pmu, name))
		return;
	if (spelled)
		snprintf(ev, sizeof(ev), "%s", spelled);
	else if (pmu && !strcmp(kind, "sysfs"))
		snprintf(ev, sizeof(ev), "%s/%s/", pmu, name);
	else
		snprintf(ev, sizeof(ev), "%s", name);
	if (!available(o, kind, ev))
		return;
	if (o->json) {
		printf("%s\n    {\"event\": ", o->n ? "," : "");
		pmu__json_str(stdout, ev);
		printf(", \"name\": ");
		pmu__json_str(stdout, name);
		printf(", \"kind\": \"%s\"", kind);
		if (pmu) {
			printf(", \"pmu\": ");
			pmu__json_str(stdout, pmu);
		}
		if (encoding) {
			printf(", \"encoding\": ");
			pmu__json_str(stdout, encoding);
		}
		if (desc && *desc) {
			printf(", \"description\": ");
			pmu__json_str(stdout, desc);
		}
		if (scale) {
			printf(", \"scale\": ");
			pmu__json_str(stdout, scale);
		}
		if (unit) {
			printf(", \"unit\": ");
			pmu__json_str(stdout, unit);
		}
		putchar('}');
	} else {
		if (!o->header_done) {
			printf("%s%s\n", o->n ? "\n" : "", o->section);
			o->header_done = true;
		}
		/* names and contents of sysfs files are their writer's: control characters shown, not sent */
		char shown[4 * sizeof(ev)];

		pmu__text_esc(shown, sizeof(shown), ev, strlen(ev));
		if (!strcmp(kind, "tracepoint")) {	/* perf list's line */
			printf("  %-50s [Tracepoint event]\n", shown);
			o->n++;
			return;
		}
		printf("  %-40s", shown);
		if (encoding) {
			putchar(' ');
			pmu__text_str(stdout, encoding);
		}
		if (scale || unit) {
			fputs(scale ? " (scale " : " (unit ", stdout);
			pmu__text_str(stdout, scale ? scale : unit);
			if (scale && unit) {
				fputs(", unit ", stdout);
				pmu__text_str(stdout, unit);
			}
			putchar(')');
		}
		if (desc && *desc) {
			fputs(encoding ? "  " : " ", stdout);
			pmu__text_str(stdout, desc);
		}
		putchar('\n');
	}
	o->n++;
}

static void pfm_cb(void *arg, const char *pmu, const char *ev, const char *desc)
{
	struct out *o = arg;

	if (strcmp(o->pfm_pmu, pmu)) {
		snprintf(o->pfm_pmu, sizeof(o->pfm_pmu), "%s", pmu);
		snprintf(o->pfm_title, sizeof(o->pfm_title), "libpfm4 events (%s):", pmu);
		section(o, o->pfm_title);
	}
	entry(o, "libpfm", pmu, ev, NULL, NULL, desc, NULL, NULL);
}

/* The json's "pmus" entry of d: its type and terms. */
static void pmu_terms_json(struct out *o, const struct pmu__desc *d)
{
	char spec[96];

	printf("%s\n    {\"name\": ", o->n ? "," : "");
	pmu__json_str(stdout, d->name);
	printf(", \"type\": %" PRIu32 ", \"core\": %s, \"terms\": {", d->type, d->core ? "true" : "false");
	for (unsigned i = 0; i < d->nfmt; i++) {
		printf("%s", i ? ", " : "");
		pmu__json_str(stdout, d->fmt[i].name);
		printf(": ");
		if (d->fmt[i].bad) {
			pmu__json_str(stdout, "malformed");
			continue;
		}
		pmu__field_str(&d->fmt[i].f, spec, sizeof(spec));
		pmu__json_str(stdout, spec);
	}
	printf("}}");
	o->n++;
}

/* The text header of PMU d, titled title: its terms, or what to write without any. */
static void pmu_terms_text(struct out *o, const struct pmu__desc *d, const char *title, bool named)
{
	char spec[96];

	printf("%s%s\n  terms:", o->n ? "\n" : "", title);
	o->header_done = true;
	for (unsigned i = 0; i < d->nfmt; i++) {
		if (d->fmt[i].bad) {
			printf(" %s=(malformed: %s)", d->fmt[i].name, d->fmt[i].bad);
		} else {
			pmu__field_str(&d->fmt[i].f, spec, sizeof(spec));
			printf(" %s=%s", d->fmt[i].name, spec);
		}
	}
	if (!d->nfmt)
		printf(" none (no format files; config, config1, config2, config3 take numbers)");
	putchar('\n');
	if (named && d->type == PERF_TYPE_TRACEPOINT)
		printf("  its events are the tracepoints, written SUBSYS:NAME: pmu list tracepoint\n");
	o->n++;
}

/* perf's software names in this PMU's spelling (software/task-clock/ is not one: perf refuses it). */
static void pmu_software(struct out *o, const struct pmu__desc *d)
{
	char spec[96], enc[96], title[160];

	for (size_t i = 0; d->type == PERF_TYPE_SOFTWARE && i < pmu__n_sw_names; i++) {
		const struct pmu__name_id *sw = &pmu__sw_names[i];

		if (i && sw->id == sw[-1].id)
			continue;	/* "faults" after "page-faults" */
		snprintf(spec, sizeof(spec), "%s/config=0x%" PRIx64 "/", d->name, sw->id);
		snprintf(enc, sizeof(enc), "type=%" PRIu32 " config=0x%" PRIx64, d->type, sw->id);
		snprintf(title, sizeof(title), "%s: %s", sw->name, sw->desc);
		entry(o, "sysfs", d->name, sw->name, spec, enc, title, NULL, NULL);
	}
}

/* The sysfs aliases of PMU d, with their scale and unit. */
/* d's aliases, shown under the PMU name shown (a family's: uncore_imc for uncore_imc_0). */
static void pmu_aliases(struct out *o, const struct pmu__desc *d, const char *shown)
{
	char **names, buf[4096], scale[64], unit[64], canon[256];
	size_t n;

	if (pmu__alias_names(d->name, &names, &n) < 0) {
		fprintf(stderr, "pmu list: %s: out of memory listing its events\n", d->name);
		o->status = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int r = pmu__alias_read(d->name, names[i], strlen(names[i]), buf, sizeof(buf), canon, sizeof(canon));
		bool sc = pmu__alias_extra(d->name, names[i], "scale", scale, sizeof(scale)) > 0;
		bool un = pmu__alias_extra(d->name, names[i], "unit", unit, sizeof(unit)) > 0;

		if (r < 0)
			fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
		if (r == -ENOMEM)
			o->status = 1;
		entry(o, "sysfs", shown, names[i], NULL, r > 0 ? buf : "(malformed)", NULL, sc ? scale : NULL,
		      un ? unit : NULL);
	}
	pmu__names_free(names, n);
}

/*
 * PMU d, or the family of n instances that d begins (uncore_imc for
 * uncore_imc_0 .. uncore_imc_N), listed once as perf names it.
 */
static void list_pmu(struct out *o, struct pmu__desc *d, int json_pmus_only, const char *last, size_t n)
{
	char title[160 + 2 * PMU_PMU_NAME], fam[PMU_PMU_NAME];
	bool named;

	if (pmu__desc_all(d) < 0) {
		fprintf(stderr, "pmu list: %s: out of memory reading its formats\n", d->name);
		o->status = 1;
	}
	if (json_pmus_only) {
		pmu_terms_json(o, d);
		return;
	}
	/* malformed files: said on stderr, marked in the listing */
	for (unsigned i = 0; i < d->nfmt; i++)
		if (d->fmt[i].bad)
			fprintf(stderr, "pmu list: %s/%s/format/%s is malformed: '%s'\n", pmu__sysfs_root(),
				d->name, d->fmt[i].name, d->fmt[i].bad);
	snprintf(fam, sizeof(fam), "%.*s", (int)(n > 1 ? strrchr(d->name, '_') - d->name : (long)strlen(d->name)),
		 d->name);
	if (n > 1)
		snprintf(title, sizeof(title), "PMU %s (%zu instances, %s to %s, counted together):", fam, n, d->name,
			 last);
	else
		snprintf(title, sizeof(title), "PMU %s (type %" PRIu32 "%s):", d->name, d->type, d->core ? ", core" : "");
	section(o, title);
	/* "software/": the PMU asked for by name, listed even without format files */
	named = o->glob && !o->kind && match(o, "sysfs", d->name, "");
	if (!o->json && (d->nfmt || named) && (!o->glob || match(o, "sysfs", d->name, "")))
		pmu_terms_text(o, d, title, named);
	if (named)
		pmu_software(o, d);
	pmu_aliases(o, d, fam);
}

/* How many PMUs from pmus[i] on are instances of one family (name_N, N a number), 1 for a PMU alone. */
static size_t family(char **pmus, size_t npmu, size_t i)
{
	const char *u = strrchr(pmus[i], '_');
	size_t len = u ? (size_t)(u - pmus[i]) : 0, n = 0;

	if (!u || !u[1] || strspn(u + 1, "0123456789") != strlen(u + 1))
		return 1;
	while (i + n < npmu && !strncmp(pmus[i + n], pmus[i], len + 1) &&
	       strspn(pmus[i + n] + len + 1, "0123456789") == strlen(pmus[i + n] + len + 1))
		n++;
	return n;
}

/* The tracepoints of tracefs; when they cannot be read and were asked for, says why. */
static void list_tracepoints(struct out *o)
{
	struct pmu__tracepoint *tp;
	char enc[64], why[PATH_MAX + 160];
	const char *problem;
	size_t n;
	int r = pmu__tracepoints(&tp, &n);

	if (r == -ENOMEM) {
		fprintf(stderr, "pmu list: out of memory listing the tracepoints\n");
		o->status = 1;
		o->said = true;
		return;
	}
	if (r == -EXDEV) {
		if (o->kind || (o->glob && strchr(o->glob, ':'))) {
			fprintf(stderr, "pmu list: with --sysfs, this machine's tracepoints are not listed "
				"(PMU_TRACEFS=DIR lists those of a copy of a tracefs directory)\n");
			o->said = true;
		}
		return;
	}
	if (r < 0) {
		/* said for the whole list and when asked, not for every other glob */
		if (!o->glob || o->kind || strchr(o->glob, ':')) {
			problem = pmu__tracefs_problem(why, sizeof(why));
			fprintf(stderr, "pmu list: tracepoints not listed: %s\n", *problem ? problem : strerror(-r));
			o->said = true;
		}
		return;
	}
	if (r > 0) {
		fprintf(stderr, "pmu list: more than %d tracepoints: the rest are left out\n", PMU_MAX_TRACEPOINTS);
		o->status = 1;
	}
	section(o, "tracepoint events:");
	for (size_t i = 0, k = 0; o->available && i < n; i++)
		o->tp_share = (k += match(o, "tracepoint", NULL, tp[i].name)) > PMU_PROBE_TRACEPOINTS;
	for (size_t i = 0; i < n; i++) {
		snprintf(enc, sizeof(enc), "type=%d config=0x%" PRIx64, PERF_TYPE_TRACEPOINT, tp[i].id);
		entry(o, "tracepoint", NULL, tp[i].name, NULL, enc, NULL, NULL, NULL);
	}
	pmu__tracepoints_free(tp, n);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu list [--json] [--available [-v]] [--sysfs DIR] [--perf-json PATH]... [GLOB]\n"
		"  The events this machine knows, by PMU: generic hardware, cache and software\n"
		"  names, sysfs PMU aliases and terms, tracepoints, and libpfm4 names when built\n"
		"  with it. GLOB filters by name, by PMU (cpu, cpu/), by pmu/name/ or by\n"
		"  tracepoint (sched:*, sched) (case ignored); perf list's keywords hw, sw,\n"
		"  cache, pmu and tracepoint list one kind of event.\n"
		"  --available  only the events that open for this thread here (each is opened\n"
		"               and closed); -v, --verbose says on stderr why each other one does not\n"
		"  metric, metricgroup  the metrics (libpmu's own, or with --perf-json PATH or\n"
		"               PMU_PERF_JSON=PATH[:PATH...] those of perf's files: a pmu-events\n"
		"               tree, a model directory or one JSON list) and their groups;\n"
		"               a metric that cannot be computed is listed with the reason\n");
	return f == stdout ? 0 : TOOL_USAGE;
}

/* The arguments into o: -1 to list, or an exit status (--help, a usage error). */
static int list_args(struct out *o, int argc, char **argv)
{
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			o->json = true;
		else if (!strcmp(argv[i], "--available"))
			o->available = true;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			o->verbose = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
		else if ((r = tool_sysfs_option("list", argc, argv, &i)) != 0 ||
			 (r = tool_perf_json_option("list", argc, argv, &i)) != 0) {
			if (r < 0)
				return TOOL_USAGE;
		} else if (argv[i][0] == '-' || !argv[i][0] || o->glob)
			return usage(stderr);
		else
			o->glob = argv[i];
	}
	for (size_t k = 0; o->glob && k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (!strcmp(o->glob, keywords[k].word))
			o->kind = keywords[k].kind;
	if (o->available && !pmu__sysfs_is_own()) {
		fprintf(stderr, "pmu list: --available opens events on this machine; it does not go with "
			"--sysfs (another machine's PMUs)\n");
		return TOOL_USAGE;
	}
	return -1;
}

/* perf's generic names: hardware, cache, software, and the raw form. */
static void list_generic(struct out *o, int ncore)
{
	char enc[128], name[80];
	uint64_t cfg;

	section(o, ncore > 1 ? "hardware events (one counter per core PMU, summed):" : "hardware events:");
	for (size_t i = 0; i < pmu__n_hw_names; i++) {
		snprintf(enc, sizeof(enc), "type=0 config=0x%" PRIx64, pmu__hw_names[i].id);
		entry(o, "hardware", NULL, pmu__hw_names[i].name, NULL, enc, pmu__hw_names[i].desc, NULL, NULL);
	}
	section(o, "hardware cache events:");
	for (unsigned i = 0; pmu__cache_name(i, name, sizeof(name), &cfg); i++) {
		snprintf(enc, sizeof(enc), "type=3 config=0x%" PRIx64, cfg);
		entry(o, "cache", NULL, name, NULL, enc, NULL, NULL, NULL);
	}
	section(o, "software events:");
	for (size_t i = 0; i < pmu__n_sw_names; i++) {
		snprintf(enc, sizeof(enc), "type=1 config=0x%" PRIx64, pmu__sw_names[i].id);
		entry(o, "software", NULL, pmu__sw_names[i].name, NULL, enc, pmu__sw_names[i].desc, NULL, NULL);
	}
	section(o, "raw events:");
	entry(o, "raw", NULL, "rNNNN", NULL, "type=4 config=0xNNNN", "raw event code for the core PMU", NULL, NULL);
}

/* Each sysfs PMU's events (terms: the json's "pmus" list instead). */
static void list_sysfs(struct out *o, char **pmus, size_t npmu, int terms)
{
	for (size_t i = 0, n; i < npmu; i += n) {
		struct pmu__desc d;

		n = terms ? 1 : family(pmus, npmu, i);
		if (pmu__desc_load(pmus[i], strlen(pmus[i]), &d) < 0) {
			if (!terms)
				fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
			continue;
		}
		if (!terms || !o->glob || match(o, "sysfs", d.name, ""))
			list_pmu(o, &d, terms, pmus[i + n - 1], n);
		pmu__desc_free(&d);
	}
}

/* The end: the json's PMUs, or a note on core PMUs summed. */
static void list_tail(struct out *o, char **pmus, size_t npmu, const struct pmu__desc *core, int ncore)
{
	char cores[PMU_MAX_PMUS * (PMU_PMU_NAME + 2)] = "";
	unsigned nev = o->n;

	if (!o->json) {
		if (ncore < 2 || o->glob)
			return;
		for (int i = 0; i < ncore; i++)
			snprintf(cores + strlen(cores), sizeof(cores) - strlen(cores), "%s%.*s", i ? ", " : "",
				 PMU_PMU_NAME - 1, core[i].name);
		printf("\nGeneric hardware and cache events count on every core PMU (%s) and are summed;\n"
		       "name one PMU to count on it alone, e.g. %s/cycles/.\n", cores, core[0].name);
		return;
	}
	printf("\n  ],\n  \"pmus\": [");
	o->n = 0;
	list_sysfs(o, pmus, npmu, 1);
	printf("\n  ],\n  \"core_pmus\": [");
	for (int i = 0; i < ncore; i++) {
		printf("%s", i ? ", " : "");
		pmu__json_str(stdout, core[i].name);
	}
	printf("]\n}\n");
	o->n = nev;
}

int cmd_list(int argc, char **argv)
{
	struct out o = { 0 };
	struct pmu__desc core[PMU_MAX_PMUS];
	char **pmus;
	size_t npmu = 0;
	int ncore, r;

	if ((r = list_args(&o, argc, argv)) >= 0)
		return r;
	if (o.glob && (!strcmp(o.glob, "metric") || !strcmp(o.glob, "metrics") || !strcmp(o.glob, "metricgroup") ||
		       !strcmp(o.glob, "metricgroups"))) {
		r = list_metrics(!strncmp(o.glob, "metricgroup", 11), o.json);
		pmu__pj_free();
		return r;
	}
	ncore = pmu__core_pmus(core);
	o.have_core = ncore > 0;
	if (ncore < 0) {
		fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
		if (ncore == -ENOMEM)
			o.status = 1;
		ncore = 0;
	}
	if (o.json) {
		printf("{\n  \"sysfs\": ");
		pmu__json_str(stdout, pmu__sysfs_root());
		printf(",\n  \"events\": [");
	}
	list_generic(&o, ncore);
	if ((r = pmu__pmu_names(&pmus, &npmu)) < 0) {
		fprintf(stderr, "pmu list: %s: %s\n", pmu__sysfs_root(), strerror(-r));
		npmu = 0;
		o.status = 1;
	}
	list_sysfs(&o, pmus, npmu, 0);
	if (!o.kind || !strcmp(o.kind, "tracepoint"))
		list_tracepoints(&o);
	if (pmu__sysfs_is_own())
		pmu__pfm_list(pfm_cb, &o);	/* libpfm4 knows this CPU, not a sysfs copy's */
	list_tail(&o, pmus, npmu, core, ncore);
	pmu__names_free(pmus, npmu);
	for (int i = 0; i < ncore; i++)
		pmu__desc_free(&core[i]);
	if (o.available && o.left_out)
		fprintf(stderr, "pmu list: %u event%s left out: %s\n", o.left_out, o.left_out == 1 ? "" : "s",
			o.verbose ? "they do not open here (above, why)" : "they do not open here (-v says why)");
	if (!o.n && (o.glob || o.available)) {
		if (!o.said && !o.left_out)
			fprintf(stderr, "pmu list: no event matches '%s'\n", o.glob);
		return 1;
	}
	return o.status;
}
