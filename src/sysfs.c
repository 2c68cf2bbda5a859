/* SPDX-License-Identifier: MIT */
/*
 * Every file the library opens under /sys and /proc goes through here: the
 * sysfs root and its untrusted files and directories, the PMU list, tracefs
 * tracepoint ids, and the perf sysctls. What the PMUs' files mean (types,
 * the core-PMU rule, format terms, aliases) is pmus.c's.
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

#include "sysfs.h"

/* ---- the root ---- */

static char *root_set;	/* pmu__set_sysfs_root(): the tool's --sysfs, before any thread opens sets */

const char *pmu__sysfs_root(void)
{
	const char *r = root_set ? root_set : pmu__getenv("PMU_SYSFS_DEVICES");

	return r && *r ? r : "/sys/bus/event_source/devices";
}

void pmu__set_sysfs_root(const char *dir)
{
	free(root_set);
	root_set = dir ? strdup(dir) : NULL;
}

bool pmu__sysfs_is_own(void)
{
	return !strcmp(pmu__sysfs_root(), "/sys/bus/event_source/devices");
}

/* ---- files ---- */

bool pmu__name_ok(const char *s, size_t len)
{
	if (!len || len >= NAME_MAX || (s[0] == '.'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '/' || !isprint((unsigned char)s[i]))
			return false;
	return true;
}

int pmu__path(char *buf, size_t size, const char *a, const char *b)
{
	int n = b ? snprintf(buf, size, "%s/%s/%s", pmu__sysfs_root(), a, b)
		  : snprintf(buf, size, "%s/%s", pmu__sysfs_root(), a);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * The length of the root path is under when that root is a tree a user
 * named (--sysfs, PMU_SYSFS_DEVICES, PMU_TRACEFS), whose links are not the
 * kernel's; 0 for the system's own files, whose links are (sysfs's PMU
 * directories are links out of bus/event_source/devices).
 */
static size_t untrusted_root(const char *path)
{
	const char *roots[] = { pmu__sysfs_is_own() ? NULL : pmu__sysfs_root(), pmu__getenv("PMU_TRACEFS") };

	for (size_t i = 0; i < PMU_ARRAY_SIZE(roots); i++) {
		size_t n = roots[i] ? strlen(roots[i]) : 0;

		if (n && !strncmp(path, roots[i], n) && path[n] == '/')
			return n;
	}
	return 0;
}

#ifndef RESOLVE_BENEATH
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct pmu__open_how { uint64_t flags, mode, resolve; };

/* The directory holding rel's last part under the root dir, no link followed; its fd or -errno. */
static int open_parent(int dir, char *rel, char **last)
{
	char *slash = strrchr(rel, '/');
	struct pmu__open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				     .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd;

	*last = slash ? slash + 1 : rel;
	if (!slash) {
		fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	*slash = '\0';
	fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EINVAL || errno == EPERM)) {
		/* older kernels (or a seccomp filter): one component at a time, none a link */
		char *p = rel, *next;

		fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
		for (; fd >= 0 && p; p = next) {
			int sub;

			next = strchr(p, '/');
			if (next)
				*next++ = '\0';
			if (!*p || !strcmp(p, ".") || !strcmp(p, "..")) {
				close(fd);
				fd = -1;
				errno = EXDEV;
				break;
			}
			sub = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next)
				next[-1] = '/';
			close(fd);
			fd = sub;
		}
	}
	*slash = '/';
	return fd < 0 ? -errno : fd;
}

/*
 * Opens path for reading: under a user's tree no link is followed, and the
 * last part must be a regular file (or with dir a directory) before it is
 * opened, so that a device or FIFO there is never opened; opened, its type
 * is checked again. The fd or -errno (-PMU_ENOTREG for another type).
 */
static int open_untrusted(const char *path, bool dir)
{
	size_t n = untrusted_root(path);
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (dir ? O_DIRECTORY : 0);
	char rel[PATH_MAX], *last;
	struct stat st, st2;
	int root, parent, fd;

	if (!n) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	if (strlen(path + n + 1) >= sizeof(rel))
		return -ENAMETOOLONG;
	strcpy(rel, path + n + 1);
	{
		char rootpath[PATH_MAX];

		if (n >= sizeof(rootpath))
			return -ENAMETOOLONG;
		memcpy(rootpath, path, n);
		rootpath[n] = '\0';
		root = open(rootpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (root < 0)
		return -errno;
	parent = open_parent(root, rel, &last);
	close(root);
	if (parent < 0)
		return parent;
	if (!*last || !strcmp(last, ".") || !strcmp(last, "..")) {
		close(parent);
		return -ENOENT;
	}
	if (fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		fd = -errno;
		close(parent);
		return fd;
	}
	if (!(dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))) {
		close(parent);
		return S_ISDIR(st.st_mode) ? -EISDIR : dir ? -ENOTDIR : -PMU_ENOTREG;
	}
	fd = openat(parent, last, flags | O_NOFOLLOW);
	close(parent);
	if (fd < 0)
		return errno == ELOOP ? -PMU_ENOTREG : -errno;
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		return -PMU_ENOTREG;	/* replaced between the two looks */
	}
	return fd;
}

/*
 * Files under the root are untrusted: a FIFO or a device there must not
 * block or feed the reader forever, so it opens without blocking, refuses
 * anything but a regular file before reading and reads at most size bytes.
 */
int pmu__read_file(const char *path, char *buf, size_t size)
{
	int fd = open_untrusted(path, false);
	struct stat st;
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return (int)r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -PMU_ENOTREG;
	}
	while (n < size) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	r = r < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return (int)r;
	if (n == size)
		return -EFBIG;
	while (n && pmu__is_space(buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (memchr(buf, '\0', n))
		return -EINVAL;
	return (int)n;
}

int pmu__cmdline(char *buf, size_t size)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (n + 1 < size && ((r = read(fd, buf + n, size - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd);
	while (n && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return (int)n;
}

const char *pmu__file_error(int r)
{
	switch (r) {
	case -EFBIG: return "too long";
	case -EINVAL: return "binary: holds a NUL byte";
	case -PMU_ENOTREG: return "not a regular file";
	default: return strerror(-r);
	}
}

/* A file holding a number: true with *v set, false when absent or not a number. */
static bool read_number(const char *path, long *v)
{
	char buf[32], *end;
	int n = pmu__read_file(path, buf, sizeof(buf));

	if (n <= 0)
		return false;
	*v = strtol(buf, &end, 0);
	return !*end;
}

bool pmu__sysctl(const char *name, long *v)
{
	char path[128];
	size_t i, n = strlen(name);

	if (n + 11 > sizeof(path))
		return false;
	memcpy(path, "/proc/sys/", 10);
	for (i = 0; i <= n; i++)
		path[10 + i] = name[i] == '.' ? '/' : name[i];
	return read_number(path, v);
}

long pmu__pmu_number(const char *pmu, const char *file, char *path, size_t size)
{
	long v;

	return !pmu__path(path, size, pmu, file) && read_number(path, &v) && v >= 0 ? v : -1;
}

long pmu__pmu_type(const char *pmu)
{
	char path[PATH_MAX];

	return pmu__pmu_number(pmu, "type", path, sizeof(path));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmu__names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Entries of path that pass keep(), sorted; at most max of them: 1 when more were left out. */
static int dir_names(const char *path, bool (*keep)(const char *), size_t max, char ***out, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	int fd = open_untrusted(path, true), more = 0;
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);

	*out = NULL;
	*n = 0;
	if (fd < 0)
		return fd;
	if (!dir) {
		more = -errno;
		close(fd);
		return more;
	}
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || !keep(e->d_name))
			continue;
		if (*n == max) {
			more = 1;
			e = NULL;
			break;
		}
		if (*n == cap) {
			size_t c = cap ? cap * 2 : 32;
			char **p = realloc(v, c * sizeof(*v));

			if (!p)
				break;
			v = p;
			cap = c;
		}
		if (!(v[*n] = strdup(e->d_name)))
			break;
		(*n)++;
	}
	closedir(dir);
	if (e) {
		pmu__names_free(v, *n);
		*n = 0;
		return -ENOMEM;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	*out = v;
	return more;
}

int pmu__dir_names(const char *path, bool (*keep)(const char *), char ***out, size_t *n)
{
	return dir_names(path, keep, SIZE_MAX, out, n);
}

bool pmu__keep_all(const char *s)
{
	(void)s;
	return true;
}

bool pmu__exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int pmu__pmu_names(char ***names, size_t *n)
{
	char path[PATH_MAX];
	size_t k = 0;
	int r = pmu__dir_names(pmu__sysfs_root(), pmu__keep_all, names, n);

	if (r < 0)
		return r;
	/* only directories with a type file are PMUs */
	for (size_t i = 0; i < *n; i++) {
		if (pmu__path(path, sizeof(path), (*names)[i], "type") || access(path, F_OK)) {
			free((*names)[i]);
			continue;
		}
		(*names)[k++] = (*names)[i];
	}
	*n = k;
	return 0;
}

/* ---- tracepoints ---- */

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
		r = dir_names(path, tp_dir_ok, PMU_MAX_TRACEPOINTS, &subs, &ns);
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
		r = dir_names(path, tp_dir_ok, PMU_MAX_TRACEPOINTS, &evs, &ne);
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
