/* SPDX-License-Identifier: MIT */
/* pmu list: the events this machine knows, by PMU, as text or JSON. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "introspect.h"
#include "cmds.h"

struct out {
	const char *glob;
	const char *kind;	/* perf list's keywords (hw, sw, cache, pmu): only this kind */
	bool json;
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
 * One event. kind: hardware, cache, software, sysfs, libpfm. pmu may be NULL
 * (generic). encoding: what it means ("event=0x3c", "type=0 config=0x0").
 */
static void entry(struct out *o, const char *kind, const char *pmu, const char *name, const char *encoding,
		  const char *desc, const char *scale, const char *unit)
{
	char ev[512];

	if (!match(o, kind, pmu, name))
		return;
	if (pmu && !strcmp(kind, "sysfs"))
		snprintf(ev, sizeof(ev), "%s/%s/", pmu, name);
	else
		snprintf(ev, sizeof(ev), "%s", name);
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
		printf("  %-40s", ev);
		if (encoding)
			printf(" %s", encoding);
		if (scale && unit)
			printf(" (scale %s, unit %s)", scale, unit);
		else if (scale)
			printf(" (scale %s)", scale);
		else if (unit)
			printf(" (unit %s)", unit);
		if (desc && *desc)
			printf("%s%s", encoding ? "  " : " ", desc);
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
	entry(o, "libpfm", pmu, ev, NULL, desc, NULL, NULL);
}

static void list_pmu(struct out *o, struct pmu__desc *d, int json_pmus_only)
{
	char **names, buf[4096], scale[64], unit[64], spec[96], title[160];
	size_t n;

	if (pmu__desc_all(d) < 0) {
		fprintf(stderr, "pmu list: %s: out of memory reading its formats\n", d->name);
		o->status = 1;
	}
	if (!json_pmus_only)	/* malformed files: said on stderr, marked in the listing */
		for (unsigned i = 0; i < d->nfmt; i++)
			if (d->fmt[i].bad)
				fprintf(stderr, "pmu list: %s/%s/format/%s is malformed: '%s'\n", pmu__sysfs_root(),
					d->name, d->fmt[i].name, d->fmt[i].bad);

	if (json_pmus_only) {
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
		return;
	}
	snprintf(title, sizeof(title), "PMU %s (type %" PRIu32 "%s):", d->name, d->type, d->core ? ", core" : "");
	section(o, title);
	if (!o->json && d->nfmt && (!o->glob || match(o, "sysfs", d->name, ""))) {
		printf("%s%s\n  terms:", o->n ? "\n" : "", title);
		o->header_done = true;
		for (unsigned i = 0; i < d->nfmt; i++) {
			if (d->fmt[i].bad)
				printf(" %s=(malformed: %s)", d->fmt[i].name, d->fmt[i].bad);
			else {
				pmu__field_str(&d->fmt[i].f, spec, sizeof(spec));
				printf(" %s=%s", d->fmt[i].name, spec);
			}
		}
		putchar('\n');
		o->n++;
	}
	if (pmu__alias_names(d->name, &names, &n) < 0) {
		fprintf(stderr, "pmu list: %s: out of memory listing its events\n", d->name);
		o->status = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char canon[256];
		int r = pmu__alias_read(d->name, names[i], strlen(names[i]), buf, sizeof(buf), canon, sizeof(canon));
		bool sc = pmu__alias_extra(d->name, names[i], "scale", scale, sizeof(scale)) > 0;
		bool un = pmu__alias_extra(d->name, names[i], "unit", unit, sizeof(unit)) > 0;

		if (r < 0)
			fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
		if (r == -ENOMEM)
			o->status = 1;
		entry(o, "sysfs", d->name, names[i], r > 0 ? buf : "(malformed)", NULL, sc ? scale : NULL,
		      un ? unit : NULL);
	}
	pmu__err_clear();
	pmu__names_free(names, n);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu list [--json] [--sysfs DIR] [GLOB]\n"
		"  The events this machine knows, by PMU: generic hardware, cache and software\n"
		"  names, sysfs PMU aliases and terms, and libpfm4 names when built with it.\n"
		"  GLOB filters by name, by PMU (cpu, cpu/) or by pmu/name/ (case ignored);\n"
		"  perf list's keywords hw, sw, cache and pmu list one kind of event.\n");
	return f == stdout ? 0 : 2;
}

int cmd_list(int argc, char **argv)
{
	struct out o = { 0 };
	struct pmu__desc core[PMU_MAX_PMUS];
	char cores[PMU_MAX_PMUS * (PMU_PMU_NAME + 2)] = "", enc[128], name[80], **pmus;
	size_t npmu = 0;
	int ncore, r;
	uint64_t cfg;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			o.json = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
		else if ((r = tool_sysfs_option("list", argc, argv, &i)) != 0) {
			if (r < 0)
				return 2;
		} else if (argv[i][0] == '-' || o.glob)
			return usage(stderr);
		else
			o.glob = argv[i];
	}
	for (size_t k = 0; o.glob && k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (!strcmp(o.glob, keywords[k].word))
			o.kind = keywords[k].kind;
	if (o.glob && (!strcmp(o.glob, "tracepoint") || !strcmp(o.glob, "tracepoints"))) {
		fprintf(stderr, "pmu list: tracepoints are not listed; each directory SUBSYS/NAME under the "
			"tracefs events/ directory (/sys/kernel/tracing/events) opens as SUBSYS:NAME\n");
		return 1;
	}
	ncore = pmu__core_pmus(core);
	if (ncore < 0) {
		fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
		if (ncore == -ENOMEM)
			o.status = 1;
		ncore = 0;
	}
	for (int i = 0, q = 0; i < ncore; i++) {
		size_t l = strnlen(core[i].name, PMU_PMU_NAME - 1);

		if (i)
			memcpy(cores + q, ", ", 2), q += 2;
		memcpy(cores + q, core[i].name, l);
		q += (int)l;
		cores[q] = '\0';
	}
	if (o.json)
		printf("{\n  \"sysfs\": ");
	if (o.json)
		pmu__json_str(stdout, pmu__sysfs_root());
	if (o.json)
		printf(",\n  \"events\": [");

	section(&o, ncore > 1 ? "hardware events (one counter per core PMU, summed):" : "hardware events:");
	for (size_t i = 0; i < pmu__n_hw_names; i++) {
		snprintf(enc, sizeof(enc), "type=0 config=0x%" PRIx64, pmu__hw_names[i].id);
		entry(&o, "hardware", NULL, pmu__hw_names[i].name, enc, pmu__hw_names[i].desc, NULL, NULL);
	}
	section(&o, "hardware cache events:");
	for (unsigned i = 0; pmu__cache_name(i, name, sizeof(name), &cfg); i++) {
		snprintf(enc, sizeof(enc), "type=3 config=0x%" PRIx64, cfg);
		entry(&o, "cache", NULL, name, enc, NULL, NULL, NULL);
	}
	section(&o, "software events:");
	for (size_t i = 0; i < pmu__n_sw_names; i++) {
		snprintf(enc, sizeof(enc), "type=1 config=0x%" PRIx64, pmu__sw_names[i].id);
		entry(&o, "software", NULL, pmu__sw_names[i].name, enc, pmu__sw_names[i].desc, NULL, NULL);
	}
	section(&o, "raw events:");
	entry(&o, "raw", NULL, "rNNNN", "type=4 config=0xNNNN", "raw event code for the core PMU", NULL, NULL);

	if ((r = pmu__pmu_names(&pmus, &npmu)) < 0) {
		fprintf(stderr, "pmu list: %s: %s\n", pmu__sysfs_root(), strerror(-r));
		npmu = 0;
		o.status = 1;
	}
	for (size_t i = 0; i < npmu; i++) {
		struct pmu__desc d;

		if (pmu__desc_load(pmus[i], strlen(pmus[i]), &d) < 0) {
			fprintf(stderr, "pmu list: %s\n", pmu_errmsg());
			continue;
		}
		list_pmu(&o, &d, 0);
		pmu__desc_free(&d);
	}
	if (pmu__sysfs_is_own())
		pmu__pfm_list(pfm_cb, &o);	/* libpfm4 knows this CPU, not a sysfs copy's */
	if (o.json) {
		/* the PMUs with their terms */
		unsigned nev = o.n;

		printf("\n  ],\n  \"pmus\": [");
		o.n = 0;
		for (size_t i = 0; i < npmu; i++) {
			struct pmu__desc d;

			if (pmu__desc_load(pmus[i], strlen(pmus[i]), &d) < 0)
				continue;
			if (!o.glob || match(&o, "sysfs", d.name, ""))
				list_pmu(&o, &d, 1);
			pmu__desc_free(&d);
		}
		printf("\n  ],\n  \"core_pmus\": [");
		for (int i = 0; i < ncore; i++) {
			printf("%s", i ? ", " : "");
			pmu__json_str(stdout, core[i].name);
		}
		printf("]\n}\n");
		o.n = nev;
	} else if (ncore > 1 && !o.glob) {
		printf("\nGeneric hardware and cache events count on every core PMU (%s) and are summed;\n"
		       "name one PMU to count on it alone, e.g. %s/cycles/.\n", cores, core[0].name);
	}
	pmu__names_free(pmus, npmu);
	for (int i = 0; i < ncore; i++)
		pmu__desc_free(&core[i]);
	if (!o.n && o.glob) {
		fprintf(stderr, "pmu list: no event matches '%s'\n", o.glob);
		return 1;
	}
	return o.status;
}
