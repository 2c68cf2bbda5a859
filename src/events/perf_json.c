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

#include "parse/json.h"
#include "events/perf_cpu.h"
#include "events/perf_events.h"
#include "events/perf_json.h"


static struct {
	char **paths;		/* --perf-json's, in order */
	size_t npaths;
	bool loaded, files;
	struct pmu__pj_metric *m;
	size_t nm;
	struct pj_event *ev;
	size_t nev;
	struct pj_event *std;	/* arm64's architected events (ArchStdEvent) */
	size_t nstd;
	char **files_read;	/* names kept for the metrics' file field */
	size_t nfiles;
	char source[PATH_MAX + 512];
} pj;

int pmu__pj_add_path(const char *path)
{
	if (pmu__grow(&pj.paths, pj.npaths, sizeof(*pj.paths)) < 0 || !(pj.paths[pj.npaths] = strdup(path)))
		return pmu__err(-ENOMEM, "%s: out of memory", path);
	pj.npaths++;
	return 0;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}


/* An event of the model's files, else an architected one (arm64 names those in metrics too). */
static const struct pj_event *find_event(const char *name, size_t len)
{
	const struct pj_event *e = pmu__pj_find_in(pj.ev, pj.nev, name, len);

	return e ? e : pmu__pj_find_in(pj.std, pj.nstd, name, len);
}

static void metric_free(struct pmu__pj_metric *m)
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
	const char *expr = pmu__pj_str(o, "MetricExpr"), *name = pmu__pj_str(o, "MetricName");
	struct pmu__pj_metric *m;

	if (pmu__grow(&pj.m, pj.nm, sizeof(*pj.m)) < 0)
		return pmu__err(-ENOMEM, "out of memory");
	m = pj.m + pj.nm;
	memset(m, 0, sizeof(*m));
	m->d.name = strdup(name);
	m->d.expr = dup_or_null(expr);
	m->d.groups = dup_or_null(pmu__pj_str(o, "MetricGroup"));
	m->d.scale_unit = dup_or_null(pmu__pj_str(o, "ScaleUnit"));
	m->d.desc = dup_or_null(pmu__pj_str(o, "BriefDescription"));
	m->file = file;
	if (!m->d.name || (expr && !m->d.expr)) {
		metric_free(m);
		return pmu__err(-ENOMEM, "out of memory");
	}
	pj.nm++;
	return 0;
}

/* One JSON list: its events onto ev, its metrics onto pj.m. */
static int load_file(const char *path, struct pj_event **ev, size_t *nev, bool arm)
{
	struct pmu__json *root;
	char *keep;
	int r = pmu__json_load(path, &root);

	if (r < 0)
		return r;
	if (root->type != PMU_JSON_ARRAY) {
		pmu__json_free(root);
		return pmu__err(-EINVAL, "%s: not a JSON list of perf events and metrics", path);
	}
	keep = strdup(path);
	if (!keep || pmu__grow(&pj.files_read, pj.nfiles, sizeof(*pj.files_read)) < 0) {
		free(keep);
		pmu__json_free(root);
		return pmu__err(-ENOMEM, "out of memory");
	}
	pj.files_read[pj.nfiles++] = keep;
	for (size_t i = 0; r == 0 && i < root->n; i++) {
		const struct pmu__json *o = &root->v[i];

		if (o->type != PMU_JSON_OBJECT)
			r = pmu__err(-EINVAL, "%s:%u:%u: not an object", path, o->line, o->col);
		else if (pmu__pj_str(o, "MetricName"))
			r = add_metric(o, keep);
		else if (pmu__pj_str(o, "EventName") || pmu__pj_str(o, "ArchStdEvent"))
			r = pmu__pj_add_event(ev, nev, o, arm, pj.std, pj.nstd);
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
		return pmu__err(-errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!pmu__pj_is_file(path))
			continue;
		if (pmu__grow(&names, n, sizeof(*names)) < 0 || !(names[n] = strdup(de->d_name))) {
			while (n)
				free(names[--n]);
			free(names);
			closedir(d);
			return pmu__err(-ENOMEM, "out of memory");
		}
		n++;
	}
	closedir(d);
	if (!n)
		return pmu__err(-ENOENT, "%s: no .json file (not perf's pmu-events tree, nor a model directory of it)",
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

static int load_path(const char *path)
{
	char arch[PATH_MAX], model[PATH_MAX + 256], m[PATH_MAX + 32];
	bool arm;
	int r;

	if (!is_dir(path)) {
		if (!pmu__pj_is_file(path))
			return pmu__err(-ENOENT, "%s: no such directory or file", path);
		return load_file(path, &pj.ev, &pj.nev, pmu__pj_arm_machine(NULL));
	}
	/* pmu-events, pmu-events/arch, arch/<arch> (with mapfile.csv), or a model directory */
	arm = pmu__pj_arm_machine(NULL);
	arch[0] = '\0';
	for (int k = 0; k < 3 && !arch[0]; k++) {
		snprintf(m, sizeof(m), "%s%s/mapfile.csv", path, k == 0 ? "" : k == 1 ? (arm ? "/arm64" : "/x86") :
			 (arm ? "/arch/arm64" : "/arch/x86"));
		if (pmu__pj_is_file(m))
			snprintf(arch, sizeof(arch), "%.*s", (int)(strlen(m) - 12), m);
	}
	if (arch[0]) {
		arm = pmu__pj_arm_machine(arch);
		if ((r = pmu__pj_pick_model(arch, arm, model, sizeof(model))) < 0)
			return r;
	} else {
		snprintf(model, sizeof(model), "%s", path);
		arm = pmu__pj_arch_above(path, arch, sizeof(arch)) ? pmu__pj_arm_machine(arch) : pmu__pj_arm_machine(path);
		if (!pmu__pj_arch_above(path, arch, sizeof(arch)))
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
static char *refusal(struct pmu__pj_metric *m)
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

		if (pmu__pj_metric_find(id) || !strcmp(id, "duration_time") || strchr(id, '@') || strchr(id, '/') ||
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

static struct pmu__pj_metric builtin[32];
static size_t nbuiltin;

/* r, with the message it set after prefix. */
static int prefixed(int r, const char *prefix)
{
	return r < 0 ? pmu__err(r, "%s%s", prefix, pmu_errmsg()) : r;
}

int pmu__pj_load(void)
{
	const char *env = pmu__getenv("PMU_PERF_JSON");
	int r = 0;

	if (pj.loaded)
		return 0;
	pj.loaded = true;
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;

		if (!copy)
			return pmu__err(-ENOMEM, "out of memory");
		for (char *p = strtok_r(copy, ":", &save); p && r == 0; p = strtok_r(NULL, ":", &save)) {
			r = prefixed(load_path(p), "PMU_PERF_JSON: ");
		}
		free(copy);
		pj.files = true;
	}
	for (size_t i = 0; r == 0 && i < pj.npaths; i++) {
		r = prefixed(load_path(pj.paths[i]), "--perf-json ");
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

bool pmu__pj_from_files(void)
{
	return pj.files;
}

const char *pmu__pj_source(void)
{
	return pj.source;
}

const struct pmu__pj_metric *pmu__pj_metrics(size_t *n)
{
	*n = pj.files ? pj.nm : nbuiltin;
	return pj.files ? pj.m : builtin;
}

const struct pmu__pj_metric *pmu__pj_metric_find(const char *name)
{
	size_t n;
	const struct pmu__pj_metric *m = pmu__pj_metrics(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(m[i].d.name, name))
			return &m[i];
	return NULL;
}

const struct pmu__expr *pmu__pj_metric_ref(void *ctx, const char *id)
{
	const struct pmu__pj_metric *m = pmu__pj_metric_find(id);

	(void)ctx;
	return m ? m->e : NULL;
}

/*
 * The Arm ARM's common events that the built-in SBSA metrics name. The
 * kernel lists an armv8 PMU's common event only where PMCEID announces it,
 * yet opens any number (QEMU announces none of these and counts them 0).
 */
static const struct { const char *name; unsigned code; } arm_common[] = {
	{ "cpu_cycles", 0x11 }, { "op_retired", 0x3a }, { "op_spec", 0x3b },
	{ "stall_slot_backend", 0x3d }, { "stall_slot_frontend", 0x3e }, { "stall_slot", 0x3f },
};

int pmu__pj_arm_common_event(const char *id)
{
	size_t len = strcspn(id, ":");
	const char *core = pmu__pj_core_pmu();
	struct perf_event_attr attr = { .size = sizeof(attr) };

	if (!core || (strncmp(core, "armv8_", 6) && strncmp(core, "armv9_", 6)))
		return -1;
	for (size_t k = 0; k < PMU_ARRAY_SIZE(arm_common); k++) {
		char name[32];
		int rc;

		if (strlen(arm_common[k].name) != len || strncasecmp(arm_common[k].name, id, len))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)len, id);
		rc = pmu_event_attr(name, &attr);
		return rc < 0 && rc != -ENOMEM ? (int)arm_common[k].code : -1;
	}
	return -1;
}

char *pmu__pj_metric_event(const char *id)
{
	size_t len = strcspn(id, ":");
	const struct pj_event *e = find_event(id, len);
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *s;
	int rc, code;

	if (e && e->why) {
		pmu__err(-EINVAL, "%s: %s", id, e->why);
		errno = EINVAL;
		return NULL;
	}
	if (e) {
		/* a modifier after the name goes after the terms: cpu/event=0x3c/k */
		if (asprintf(&s, "%s%s", e->spec, id[len] ? id + len + 1 : "") < 0)
			s = NULL;
	} else if (pj.files && is_sysfs_core(id, len) && (rc = pmu_event_attr(id, &attr)) < 0 && rc != -ENOMEM) {
		/* not a name of this machine's core PMU: in its own spelling, for the open to say why */
		if (asprintf(&s, "%s/%.*s/%s", pmu__pj_core_name(false), (int)len, id, id[len] ? id + len + 1 : "") < 0)
			s = NULL;
	} else if (!strchr(id, '/') && !strchr(id, '@') && (code = pmu__pj_arm_common_event(id)) >= 0) {
		/* not in the armv8 PMU's events: raw, by its architected number (its levels as a name's, :uk in pmu stat) */
		if (asprintf(&s, "r%x%s", (unsigned)code, id + len) < 0)
			s = NULL;
	} else if ((s = strdup(id)) && strchr(s, '@')) {
		/* perf's pmu@event,terms@ */
		for (char *p = s; *p; p++)
			if (*p == '@')
				*p = '/';
	}
	if (!s) {
		pmu__err(-ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return s;
}

void pmu__pj_free(void)
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
	for (size_t i = 0; i < pj.npaths; i++)
		free(pj.paths[i]);
	free(pj.paths);
	pmu__pj_events_free();
	memset(&pj, 0, sizeof(pj));
}
