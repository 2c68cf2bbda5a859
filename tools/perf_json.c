/* SPDX-License-Identifier: MIT */
/* perf's event and metric JSON files, read at run time: see perf_json.h. */
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

#include "json.h"
#include "perf_json.h"
#include "tool_err.h"

/* An event of the files: its name and the terms it opens with, or why it cannot be. */
struct pj_event {
	char *name;
	char *spec;
	char *why;
};

static struct {
	char **paths;		/* --perf-json's, in order */
	size_t npaths;
	bool loaded, files;
	struct tool_metric *m;
	size_t nm;
	struct pj_event *ev;
	size_t nev;
	struct pj_event *std;	/* arm64's architected events (ArchStdEvent) */
	size_t nstd;
	char **files_read;	/* names kept for the metrics' file field */
	size_t nfiles;
	char source[PATH_MAX + 512];
} pj;

int tool_perf_json_option(const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	char **p;

	if (!strncmp(a, "--perf-json=", 12))
		v = a + 12;
	else if (!strcmp(a, "--perf-json")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "pmu %s: --perf-json needs a directory or a JSON file\n", cmd);
			return -1;
		}
		v = argv[++*i];
	} else
		return 0;
	if (!*v) {
		fprintf(stderr, "pmu %s: --perf-json needs a directory or a JSON file\n", cmd);
		return -1;
	}
	p = realloc(pj.paths, (pj.npaths + 1) * sizeof(*p));
	if (!p) {
		fprintf(stderr, "pmu %s: out of memory\n", cmd);
		return -1;
	}
	pj.paths = p;
	pj.paths[pj.npaths++] = (char *)v;
	return 1;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *str(const struct pmu__json *o, const char *key)
{
	const struct pmu__json *v = pmu__json_get(o, key);

	return v && v->type == PMU_JSON_STRING ? v->s : NULL;
}

/* A JSON string field holding a number ("0x3c", "1"), as perf's files write them; -1 when absent. */
static long long num(const struct pmu__json *o, const char *key, bool *bad)
{
	const char *s = str(o, key);
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

static const char *core_name(bool arm)
{
	core_term("event");
	return have_core ? core.name : arm ? "armv8_pmuv3_0" : "cpu";
}

static char *lower(const char *s)
{
	char *l = strdup(s);

	for (char *p = l; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

static const struct pj_event *find_in(const struct pj_event *ev, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(ev[i].name) == len && !strncasecmp(ev[i].name, name, len))
			return &ev[i];
	return NULL;
}

/* An event of the model's files, else an architected one (arm64 names those in metrics too). */
static const struct pj_event *find_event(const char *name, size_t len)
{
	const struct pj_event *e = find_in(pj.ev, pj.nev, name, len);

	return e ? e : find_in(pj.std, pj.nstd, name, len);
}

/* perf's jevents.py: the counting terms of an event (period and precision do not count). */
static int event_spec(const struct pmu__json *o, bool arm, char **spec, char **why)
{
	static const struct { const char *key, *term; } fields[] = {
		{ "AnyThread", "any" }, { "CounterMask", "cmask" }, { "EdgeDetect", "edge" }, { "Edge", "edge" },
		{ "FCMask", "fc_mask" }, { "Invert", "inv" }, { "PortMask", "ch_mask" }, { "UMask", "umask" },
	};
	const char *std = str(o, "ArchStdEvent"), *name = str(o, "EventName") ? str(o, "EventName") : std;
	const char *unit = str(o, "Unit");
	const char *msr = str(o, "MSRIndex"), *msrv = str(o, "MSRValue"), *pmu;
	char buf[512], pmubuf[80];
	bool bad = false;
	long long code = num(o, "EventCode", &bad), ext = num(o, "ExtSel", &bad), cfg = num(o, "ConfigCode", &bad);
	int len;

	*spec = *why = NULL;
	if (std && code < 0) {
		const struct pj_event *s = find_in(pj.std, pj.nstd, std, strlen(std));

		if (!s)
			return asprintf(why, "ArchStdEvent %s: not among arch/arm64's events", std) < 0 ? -ENOMEM : 0;
		if (s->why)
			return (*why = strdup(s->why)) ? 0 : -ENOMEM;
		return (*spec = strdup(s->spec)) ? 0 : -ENOMEM;
	}
	if (unit && strcasecmp(unit, "cpu") && strcasecmp(unit, "cpu_core") && strcasecmp(unit, "cpu_atom")) {
		/* perf's uncore names: "iMC" is uncore_imc */
		char *l = lower(unit);

		if (!l)
			return -ENOMEM;
		snprintf(pmubuf, sizeof(pmubuf), "%s%s", strncmp(l, "uncore_", 7) && !arm ? "uncore_" : "", l);
		free(l);
		pmu = pmubuf;
	} else
		pmu = core_name(arm);
	if (bad)
		return asprintf(why, "%s: a number field that is not a number", name) < 0 ? -ENOMEM : 0;
	if (code < 0)	/* jevents.py's default: the fixed counters have none */
		code = 0;
	if (ext > 0)
		code |= ext << 8;
	len = cfg >= 0 ? snprintf(buf, sizeof(buf), "%s/config=0x%llx", pmu, cfg)
		       : snprintf(buf, sizeof(buf), "%s/event=0x%llx", pmu, code);
	for (size_t k = 0; k < PMU_ARRAY_SIZE(fields); k++) {
		const char *v = str(o, fields[k].key);

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

static int add_event(struct pj_event **ev, size_t *n, const struct pmu__json *o, bool arm)
{
	struct pj_event *e = realloc(*ev, (*n + 1) * sizeof(**ev));
	int r;

	if (!e)
		return tool_err(-ENOMEM, "out of memory");
	*ev = e;
	e += *n;
	e->name = strdup(str(o, "EventName") ? str(o, "EventName") : str(o, "ArchStdEvent"));
	r = event_spec(o, arm, &e->spec, &e->why);
	if (!e->name || r < 0) {
		free(e->name);
		free(e->spec);
		free(e->why);
		return tool_err(-ENOMEM, "out of memory");
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
			if (asprintf(&e->spec, "%s/%s/", core_name(false), fixed[k].terms) < 0)
				e->spec = NULL;
		}
	(*n)++;
	return 0;
}

static void metric_free(struct tool_metric *m)
{
	free((char *)m->d.name);
	free((char *)m->d.expr);
	free((char *)m->d.groups);
	free((char *)m->d.scale_unit);
	free((char *)m->d.desc);
	pmu__expr_free(m->e);
	free(m->why);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_metric(const struct pmu__json *o, const char *file)
{
	struct tool_metric *m = realloc(pj.m, (pj.nm + 1) * sizeof(*m));
	const char *expr = str(o, "MetricExpr"), *name = str(o, "MetricName");

	if (!m)
		return tool_err(-ENOMEM, "out of memory");
	pj.m = m;
	m += pj.nm;
	memset(m, 0, sizeof(*m));
	m->d.name = strdup(name);
	m->d.expr = dup_or_null(expr);
	m->d.groups = dup_or_null(str(o, "MetricGroup"));
	m->d.scale_unit = dup_or_null(str(o, "ScaleUnit"));
	m->d.desc = dup_or_null(str(o, "BriefDescription"));
	m->file = file;
	if (!m->d.name || (expr && !m->d.expr)) {
		metric_free(m);
		return tool_err(-ENOMEM, "out of memory");
	}
	pj.nm++;
	return 0;
}

/* One JSON list: its events onto ev, its metrics onto pj.m. */
static int load_file(const char *path, struct pj_event **ev, size_t *nev, bool arm)
{
	struct pmu__json *root;
	char *keep, **f;
	int r = pmu__json_load(path, &root);

	if (r < 0)
		return r;
	if (root->type != PMU_JSON_ARRAY) {
		pmu__json_free(root);
		return tool_err(-EINVAL, "%s: not a JSON list of perf events and metrics", path);
	}
	keep = strdup(path);
	f = keep ? realloc(pj.files_read, (pj.nfiles + 1) * sizeof(*f)) : NULL;
	if (!f) {
		free(keep);
		pmu__json_free(root);
		return tool_err(-ENOMEM, "out of memory");
	}
	pj.files_read = f;
	pj.files_read[pj.nfiles++] = keep;
	for (size_t i = 0; r == 0 && i < root->n; i++) {
		const struct pmu__json *o = &root->v[i];

		if (o->type != PMU_JSON_OBJECT)
			r = tool_err(-EINVAL, "%s:%u:%u: not an object", path, o->line, o->col);
		else if (str(o, "MetricName"))
			r = add_metric(o, keep);
		else if (str(o, "EventName") || str(o, "ArchStdEvent"))
			r = add_event(ev, nev, o, arm);
	}
	pmu__json_free(root);
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json of dir, in name order (as perf's jevents walks it). */
static int load_dir_files(const char *dir, struct pj_event **ev, size_t *nev, bool arm)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, path[PATH_MAX];
	size_t n = 0;
	int r = 0;

	if (!d)
		return tool_err(-errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **p;

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!is_file(path))
			continue;
		p = realloc(names, (n + 1) * sizeof(*p));
		if (!p || !(p[n] = strdup(de->d_name))) {
			free(p ? p : names);
			closedir(d);
			return tool_err(-ENOMEM, "out of memory");
		}
		names = p;
		n++;
	}
	closedir(d);
	if (!n)
		return tool_err(-ENOENT, "%s: no .json file (not perf's pmu-events tree, nor a model directory of it)",
				dir);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (r == 0)
			r = load_file(path, ev, nev, arm);
		free(names[i]);
	}
	free(names);
	return r;
}

/* This CPU's identifier as perf writes it: x86 "GenuineIntel-6-8F-8", arm64 "0x00000000410fd0c0". */
static int cpu_id(bool arm, char *buf, size_t size)
{
	char line[256], vendor[64] = "";
	long fam = -1, model = -1, step = -1;
	FILE *f;

	if (arm) {
		char midr[64];
		unsigned long long v;

		if (pmu__read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr,
				   sizeof(midr)) < 0)
			return tool_err(-ENOENT, "no MIDR (/sys/devices/system/cpu/cpu0/regs/identification/midr_el1)");
		v = strtoull(midr, NULL, 0);
		v &= ~((0xfULL << 20) | 0xfULL);	/* variant and revision, as perf */
		snprintf(buf, size, "0x%016llx", v);
		return 0;
	}
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return tool_err(-errno, "/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && !(vendor[0] && fam >= 0 && model >= 0 && step >= 0)) {
		char *c = strchr(line, ':');

		if (!c)
			continue;
		if (!strncmp(line, "vendor_id", 9))
			sscanf(c + 1, " %63s", vendor);
		else if (!strncmp(line, "cpu family", 10))
			fam = strtol(c + 1, NULL, 10);
		else if (!strncmp(line, "model", 5) && line + 5 + strspn(line + 5, " \t") == c)
			model = strtol(c + 1, NULL, 10);
		else if (!strncmp(line, "stepping", 8))
			step = strtol(c + 1, NULL, 10);
	}
	fclose(f);
	if (!vendor[0] || fam < 0 || model < 0)
		return tool_err(-ENOENT, "/proc/cpuinfo: no vendor_id, cpu family and model");
	snprintf(buf, size, "%s-%ld-%lX-%lX", vendor, fam, model, step < 0 ? 0 : step);
	return 0;
}

/* perf's strcmp_cpuid_str: the map's regex matches the whole id (without stepping unless the map has one). */
static bool cpuid_match(const char *map, const char *id, bool arm)
{
	regex_t re;
	regmatch_t m[1];
	size_t want = strlen(id);
	bool ok;

	if (arm)
		return !strcasecmp(map, id);
	if (regcomp(&re, map, REG_EXTENDED) != 0)
		return false;
	ok = !regexec(&re, id, 1, m, 0) && m[0].rm_so == 0;
	regfree(&re);
	if (!ok)
		return false;
	if (strchr(map, '-') && strchr(strchr(map, '-') + 1, '-') && !strchr(strchr(strchr(map, '-') + 1, '-') + 1, '-'))
		want = (size_t)(strrchr(id, '-') - id);	/* vendor-family-model: stepping left out */
	return (size_t)(m[0].rm_eo - m[0].rm_so) == want;
}

/* An arch/<arch> directory (with mapfile.csv): the running CPU's model directory into model. */
static int pick_model(const char *archdir, bool arm, char *model, size_t size)
{
	char path[PATH_MAX], line[1024], id[96];
	FILE *f;
	int r = cpu_id(arm, id, sizeof(id));

	if (r < 0)
		return tool_err(r, "%s: the running CPU's directory cannot be picked: %s (name the model directory)",
				archdir, tool_errmsg());
	snprintf(path, sizeof(path), "%s/mapfile.csv", archdir);
	f = fopen(path, "re");
	if (!f)
		return tool_err(-errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *cols[4] = { 0 }, *p = line;

		if (line[0] == '#' || !strncmp(line, "Family-model", 12))
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		for (int k = 0; k < 4 && p; k++) {
			cols[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (!cols[2] || (cols[3] && strcmp(cols[3], "core")) || !cpuid_match(cols[0], id, arm))
			continue;
		fclose(f);
		snprintf(model, size, "%s/%s", archdir, cols[2]);
		return 0;
	}
	fclose(f);
	return tool_err(-ENOENT, "%s: this CPU (%s) is not in its mapfile.csv (name a model directory, "
			"e.g. %s/<model>)", archdir, id, archdir);
}

/* The arch directory above a model directory (the one with mapfile.csv), for arm64's ArchStdEvent. */
static bool arch_above(const char *dir, char *out, size_t size)
{
	char p[PATH_MAX], m[PATH_MAX + 16];

	if (!realpath(dir, p))
		return false;
	for (int up = 0; up < 4; up++) {
		char *s = strrchr(p, '/');

		snprintf(m, sizeof(m), "%s/mapfile.csv", p);
		if (up && is_file(m)) {
			snprintf(out, size, "%s", p);
			return true;
		}
		if (!s || s == p)
			return false;
		*s = '\0';
	}
	return false;
}

static bool arm_machine(const char *dir)
{
	struct utsname u;

	if (dir && strstr(dir, "/arm64"))
		return true;
	if (dir && strstr(dir, "/x86"))
		return false;
	return uname(&u) == 0 && !strcmp(u.machine, "aarch64");
}

static int load_path(const char *path)
{
	char arch[PATH_MAX], model[PATH_MAX + 256], m[PATH_MAX + 32];
	bool arm;
	int r;

	if (!is_dir(path)) {
		if (!is_file(path))
			return tool_err(-ENOENT, "--perf-json %s: no such directory or file", path);
		return load_file(path, &pj.ev, &pj.nev, arm_machine(NULL));
	}
	/* pmu-events, pmu-events/arch, arch/<arch> (with mapfile.csv), or a model directory */
	arm = arm_machine(NULL);
	arch[0] = '\0';
	for (int k = 0; k < 3 && !arch[0]; k++) {
		snprintf(m, sizeof(m), "%s%s/mapfile.csv", path, k == 0 ? "" : k == 1 ? (arm ? "/arm64" : "/x86") :
			 (arm ? "/arch/arm64" : "/arch/x86"));
		if (is_file(m))
			snprintf(arch, sizeof(arch), "%.*s", (int)(strlen(m) - 12), m);
	}
	if (arch[0]) {
		arm = arm_machine(arch);
		if ((r = pick_model(arch, arm, model, sizeof(model))) < 0)
			return r;
	} else {
		snprintf(model, sizeof(model), "%s", path);
		arm = arch_above(path, arch, sizeof(arch)) ? arm_machine(arch) : arm_machine(path);
		if (!arch_above(path, arch, sizeof(arch)))
			arch[0] = '\0';
	}
	if (arm && arch[0] && !pj.nstd)	/* the architected events, for ArchStdEvent */
		if ((r = load_dir_files(arch, &pj.std, &pj.nstd, true)) < 0)
			return r;
	snprintf(pj.source, sizeof(pj.source), "%s", model);
	return load_dir_files(model, &pj.ev, &pj.nev, arm);
}

/* The core PMU's sysfs events that perf's metrics name without a PMU (Intel's topdown, Linux 5.9+). */
static const char *const sysfs_core[] = {
	"slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound", "topdown-be-bound",
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat", "topdown-mem-bound",
	"topdown-total-slots", "topdown-slots-issued", "topdown-slots-retired", "topdown-fetch-bubbles",
	"topdown-recovery-bubbles", NULL
};

static bool is_sysfs_core(const char *id, size_t len)
{
	for (const char *const *p = sysfs_core; *p; p++)
		if (strlen(*p) == len && !strncasecmp(*p, id, len))
			return true;
	return false;
}

/* Why metric m cannot be offered: its expression does not parse or names nothing known. */
static char *refusal(struct tool_metric *m)
{
	char *why = NULL;

	if (!m->d.expr)
		return strdup("no MetricExpr");
	if (pmu__expr_parse(m->d.expr, &m->e) < 0) {
		m->e = NULL;
		return asprintf(&why, "%s", pmu_errmsg()) < 0 ? NULL : why;
	}
	for (unsigned i = 0; i < pmu__expr_nids(m->e); i++) {
		const char *id = pmu__expr_id(m->e, i);
		size_t len = strcspn(id, ":");
		const struct pj_event *e = find_event(id, len);
		struct perf_event_attr attr = { .size = sizeof(attr) };

		if (tool_metric_find(id) || !strcmp(id, "duration_time") || strchr(id, '@') || strchr(id, '/') ||
		    is_sysfs_core(id, len))
			continue;
		if (e && e->why) {
			if (asprintf(&why, "its event %s: %s", id, e->why) < 0)
				why = NULL;
			break;
		}
		if (!e && pmu_event_attr(id, &attr) < 0) {
			if (asprintf(&why, "'%s' names no event of the files, no metric and no event known here", id) < 0)
				why = NULL;
			break;
		}
	}
	if (why) {
		pmu__expr_free(m->e);
		m->e = NULL;
	}
	return why;
}

static struct tool_metric builtin[32];
static size_t nbuiltin;

int tool_metrics_load(void)
{
	const char *env = secure_getenv("PMU_PERF_JSON");
	int r = 0;

	if (pj.loaded)
		return 0;
	pj.loaded = true;
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		if (!copy)
			return tool_err(-ENOMEM, "out of memory");
		for (char *p = strtok_r(copy, ":", &save); p && r == 0; p = strtok_r(NULL, ":", &save)) {
			r = load_path(p);
			if (r < 0)
				tool_err(r, "PMU_PERF_JSON: %s", tool_errmsg());
		}
		free(copy);
		pj.files = true;
	}
	for (size_t i = 0; r == 0 && i < pj.npaths; i++) {
		r = load_path(pj.paths[i]);
		pj.files = true;
	}
	if (r < 0)
		return r;
	if (pj.files) {
		if (pj.npaths + (env && *env) > 1)
			snprintf(pj.source, sizeof(pj.source), "%s", env && *env ? env : pj.paths[0]);
		for (size_t i = 0; i < pj.nm; i++)
			pj.m[i].why = NULL;
		for (size_t i = 0; i < pj.nm; i++)
			pj.m[i].why = refusal(&pj.m[i]);
		return 0;
	}
	snprintf(pj.source, sizeof(pj.source), "built in");
	for (unsigned i = 0; i < pmu__metric_ndefs + pmu__metric_ntopdown && i < PMU_ARRAY_SIZE(builtin); i++) {
		builtin[i].d = i < pmu__metric_ndefs ? pmu__metric_defs[i] : pmu__metric_topdown[i - pmu__metric_ndefs];
		if (pmu__expr_parse(builtin[i].d.expr, &builtin[i].e) < 0)
			builtin[i].why = strdup(pmu_errmsg());
		nbuiltin++;
	}
	return 0;
}

bool tool_metrics_from_files(void)
{
	return pj.files;
}

const char *tool_metrics_source(void)
{
	return pj.source;
}

const struct tool_metric *tool_metrics(size_t *n)
{
	*n = pj.files ? pj.nm : nbuiltin;
	return pj.files ? pj.m : builtin;
}

const struct tool_metric *tool_metric_find(const char *name)
{
	size_t n;
	const struct tool_metric *m = tool_metrics(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(m[i].d.name, name))
			return &m[i];
	return NULL;
}

const struct pmu__expr *tool_metric_ref(void *ctx, const char *id)
{
	const struct tool_metric *m = tool_metric_find(id);

	(void)ctx;
	return m ? m->e : NULL;
}

char *tool_metric_event(const char *id)
{
	size_t len = strcspn(id, ":");
	const struct pj_event *e = find_event(id, len);
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *s;
	int rc;

	if (e && e->why) {
		tool_err(-EINVAL, "%s: %s", id, e->why);
		return NULL;
	}
	if (e) {
		/* a modifier after the name goes after the terms: cpu/event=0x3c/k */
		if (asprintf(&s, "%s%s", e->spec, id[len] ? id + len + 1 : "") < 0)
			s = NULL;
	} else if (pj.files && is_sysfs_core(id, len) && (rc = pmu_event_attr(id, &attr)) < 0 && rc != -ENOMEM) {
		/* not a name of this machine's core PMU: in its own spelling, for the open to say why */
		if (asprintf(&s, "%s/%.*s/%s", core_name(false), (int)len, id, id[len] ? id + len + 1 : "") < 0)
			s = NULL;
	} else if ((s = strdup(id)) && strchr(s, '@')) {
		/* perf's pmu@event,terms@ */
		for (char *p = s; *p; p++)
			if (*p == '@')
				*p = '/';
	}
	if (!s)
		tool_err(-ENOMEM, "out of memory");
	return s;
}

/* A file of /sys/devices/system/cpu holding a number. */
static bool cpu_sys_num(const char *file, long *v)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", file);
	if (pmu__read_file(path, buf, sizeof(buf)) < 0)
		return false;
	*v = strtol(buf, NULL, 0);
	return true;
}

/* Distinct values of a topology file over the online CPUs (cores: per package and die). */
static double distinct(const char *what)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), seen[1024], ns = 0;

	for (long c = 0; c < ncpu && c < 1024; c++) {
		char f[128];
		long v, pkg = 0, die = 0;

		snprintf(f, sizeof(f), "cpu%ld/topology/%s", c, what);
		if (!cpu_sys_num(f, &v))
			continue;
		if (!strcmp(what, "core_id")) {
			snprintf(f, sizeof(f), "cpu%ld/topology/physical_package_id", c);
			cpu_sys_num(f, &pkg);
			snprintf(f, sizeof(f), "cpu%ld/topology/die_id", c);
			cpu_sys_num(f, &die);
			v = v | pkg << 40 | die << 32;
		}
		long k = 0;

		while (k < ns && seen[k] != v)
			k++;
		if (k == ns)
			seen[ns++] = v;
	}
	return ns ? (double)ns : 1;
}

static bool system_wide;

void tool_metric_system_wide(bool every_cpu)
{
	system_wide = every_cpu;
}

int tool_metric_literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	long v;

	(void)ctx;
	switch (lit) {
	case PMU_EXPR_SMT_ON:
		*out = cpu_sys_num("smt/active", &v) && v > 0;
		return 0;
	case PMU_EXPR_NUM_CPUS:
		*out = (double)sysconf(_SC_NPROCESSORS_ONLN);
		return 0;
	case PMU_EXPR_NUM_CORES:
		*out = distinct("core_id");
		return 0;
	case PMU_EXPR_NUM_DIES:
		*out = distinct("die_id");
		return 0;
	case PMU_EXPR_NUM_PACKAGES:
		*out = distinct("physical_package_id");
		return 0;
	case PMU_EXPR_CORE_WIDE:
		/* perf 6.1's core_wide(): counting every CPU (-a without -C), and then trivially without SMT */
		*out = system_wide;
		return 0;
	case PMU_EXPR_SLOTS: {
		char path[PATH_MAX], buf[64];

		core_term("event");
		if (have_core) {
			snprintf(path, sizeof(path), "%s/%s/caps/slots", pmu__sysfs_root(), core.name);
			if (pmu__read_file(path, buf, sizeof(buf)) >= 0 && (*out = strtod(buf, NULL)) > 0)
				return 0;
		}
		*out = NAN;	/* the evaluation says "#slots is not a number" */
		return 0;
	}
	case PMU_EXPR_SYSTEM_TSC_FREQ:
	default:
		*out = NAN;
		return 0;
	}
}

void tool_metrics_free(void)
{
	for (size_t i = 0; i < pj.nm; i++)
		metric_free(&pj.m[i]);
	for (size_t i = 0; i < nbuiltin; i++) {
		pmu__expr_free(builtin[i].e);
		free(builtin[i].why);
		builtin[i].e = NULL;
		builtin[i].why = NULL;
	}
	nbuiltin = 0;
	for (size_t i = 0; i < pj.nev; i++) {
		free(pj.ev[i].name);
		free(pj.ev[i].spec);
		free(pj.ev[i].why);
	}
	for (size_t i = 0; i < pj.nstd; i++) {
		free(pj.std[i].name);
		free(pj.std[i].spec);
		free(pj.std[i].why);
	}
	for (size_t i = 0; i < pj.nfiles; i++)
		free(pj.files_read[i]);
	free(pj.files_read);
	free(pj.m);
	free(pj.ev);
	free(pj.std);
	free(pj.paths);
	if (have_core > 0)
		pmu__desc_free(&core);
	memset(&pj, 0, sizeof(pj));
	have_core = -1;
}
