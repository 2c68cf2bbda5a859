/* SPDX-License-Identifier: MIT */
/*
 * Tracepoints through tracefs: a tracepoint's id for the resolver, the
 * list of them for pmu list, and what to do when tracefs is missing or
 * unreadable. The files are read with sysfs.c's bounded readers.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events/sysfs.h"

/* Where tracefs may be: $PMU_TRACEFS alone when set, else the system's two places. */
static const char *tracefs_root(unsigned i)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *env = pmu__getenv("PMU_TRACEFS");

	if (env && *env)
		return i == 0 ? env : NULL;
	return i < PMU_ARRAY_SIZE(roots) ? roots[i] : NULL;
}

/* One half of "subsys:name": what the kernel's tracepoint names are made of, and short. */
static bool tp_word_ok(const char *s, size_t len)
{
	if (!len || len > PMU_TRACEPOINT_WORD)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

static bool tp_dir_ok(const char *s)
{
	return tp_word_ok(s, strlen(s));
}

int pmu__tracepoint_id(const char *s, size_t len, uint64_t *id)
{
	const char *colon = memchr(s, ':', len), *root;
	char path[PATH_MAX], buf[32];
	size_t sl, nl;

	if (!colon)
		return 0;
	sl = (size_t)(colon - s);
	nl = len - sl - 1;
	if (!tp_word_ok(s, sl) || !tp_word_ok(colon + 1, nl))
		return 0;
	for (unsigned i = 0; (root = tracefs_root(i)); i++) {
		int r;

		snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/id", root, (int)sl, s, (int)nl,
			 colon + 1);
		r = pmu__read_file(path, buf, sizeof(buf));
		if (r == -EFBIG || r == -EINVAL || r == -PMU_ENOTREG)
			return pmu__err(-EINVAL, "%s: malformed tracepoint id (%s)", path, pmu__file_error(r));
		if (r < 0)
			continue;
		if (pmu__term_value(buf, (size_t)r, id))
			return pmu__err(-EINVAL, "%s: malformed tracepoint id '%s'", path, buf);
		return 1;
	}
	return 0;
}

bool pmu__tracefs_denied(void)
{
	char path[PATH_MAX];
	const char *root;

	for (unsigned i = 0; (root = tracefs_root(i)); i++) {
		snprintf(path, sizeof(path), "%s/events", root);
		if (access(path, F_OK) && errno != EACCES)
			continue;
		return access(path, R_OK | X_OK) != 0;
	}
	return false;
}

const char *pmu__tracefs_problem(char *buf, size_t size)
{
	const char *root, *env = pmu__getenv("PMU_TRACEFS");
	char path[PATH_MAX];

	for (unsigned i = 0; (root = tracefs_root(i)); i++) {
		snprintf(path, sizeof(path), "%s/events", root);
		if (access(path, F_OK) && errno != EACCES)
			continue;
		if (!access(path, R_OK | X_OK))
			return "";
		snprintf(buf, size, "tracefs is mounted but %s is not readable by this user "
			 "(reading tracepoints needs root or a tracing group)", path);
		return buf;
	}
	if (env && *env) {
		snprintf(buf, size, "PMU_TRACEFS=%.*s has no events directory", PATH_MAX, env);
		return buf;
	}
	return "tracepoints need tracefs (mount -t tracefs nodev /sys/kernel/tracing)";
}

/* events/SUBSYS/NAME/id as a number, or -errno. */
static int tracepoint_file_id(const char *root, const char *sub, const char *ev, uint64_t *id)
{
	char path[PATH_MAX], buf[32];
	int r, n = snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sub, ev);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = pmu__read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return pmu__term_value(buf, (size_t)r, id) ? -EINVAL : 0;
}

static int cmp_tracepoint(const void *a, const void *b)
{
	return strcmp(((const struct pmu__tracepoint *)a)->name, ((const struct pmu__tracepoint *)b)->name);
}

void pmu__tracepoints_free(struct pmu__tracepoint *tp, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tp[i].name);
	free(tp);
}

/* Appends sub:ev; -ENOMEM. */
static int tracepoint_add(struct pmu__tracepoint **v, size_t *n, size_t *cap, const char *sub, const char *ev,
			  uint64_t id)
{
	size_t ls = strlen(sub), le = strlen(ev);
	char *name;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct pmu__tracepoint *p = realloc(*v, c * sizeof(**v));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	if (!(name = malloc(ls + le + 2)))
		return -ENOMEM;
	memcpy(name, sub, ls);
	name[ls] = ':';
	memcpy(name + ls + 1, ev, le + 1);
	(*v)[*n].name = name;
	(*v)[(*n)++].id = id;
	return 0;
}

int pmu__tracepoints(struct pmu__tracepoint **out, size_t *n)
{
	const char *root, *env = pmu__getenv("PMU_TRACEFS");
	char path[PATH_MAX], **subs = NULL;
	struct pmu__tracepoint *v = NULL;
	size_t ns = 0, cap = 0;
	int r = -ENOENT, more;

	*out = NULL;
	*n = 0;
	/* a copy of another machine's PMUs: this machine's tracepoints are not that machine's */
	if (!pmu__sysfs_is_own() && !(env && *env))
		return -EXDEV;
	for (unsigned i = 0; (root = tracefs_root(i)); i++) {
		snprintf(path, sizeof(path), "%s/events", root);
		r = pmu__dir_names_max(path, tp_dir_ok, PMU_MAX_TRACEPOINTS, &subs, &ns);
		if (r != -ENOENT && r != -ENOTDIR)
			break;
	}
	if (r < 0)
		return r;
	more = r;
	for (size_t s = 0; s < ns && r >= 0; s++) {
		char **evs;
		size_t ne;
		uint64_t id;

		/* not a directory, or unreadable: no tracepoints there */
		snprintf(path, sizeof(path), "%s/events/%s", root, subs[s]);
		r = pmu__dir_names_max(path, tp_dir_ok, PMU_MAX_TRACEPOINTS, &evs, &ne);
		if (r < 0) {
			r = r == -ENOMEM ? r : 0;
			continue;
		}
		more |= r;
		for (size_t e = 0; e < ne && r >= 0; e++) {
			if (tracepoint_file_id(root, subs[s], evs[e], &id) < 0)
				continue;	/* no id (a directory of another kind) or a malformed one */
			if (*n == PMU_MAX_TRACEPOINTS) {
				more = 1;
				break;
			}
			r = tracepoint_add(&v, n, &cap, subs[s], evs[e], id);
		}
		pmu__names_free(evs, ne);
	}
	pmu__names_free(subs, ns);
	if (r < 0) {
		pmu__tracepoints_free(v, *n);
		*n = 0;
		return r;
	}
	/* perf list's order: the whole names, bytewise */
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_tracepoint);
	*out = v;
	return more;
}
