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
#include <unistd.h>

#include "sysfs.h"

/* ---- the root ---- */

static char *root_set;	/* pmu__set_sysfs_root(): the tool's --sysfs, before any thread opens sets */

const char *pmu__sysfs_root(void)
{
	const char *r = root_set ? root_set : getenv("PMU_SYSFS_DEVICES");

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
 * Files under the root are untrusted: a FIFO or a device there must not
 * block or feed the reader forever, so it opens without blocking, refuses
 * anything but a regular file and reads at most size bytes.
 */
int pmu__read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
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

int pmu__dir_names(const char *path, bool (*keep)(const char *), char ***out, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	DIR *dir = opendir(path);

	*out = NULL;
	*n = 0;
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || !keep(e->d_name))
			continue;
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
	return 0;
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
	const char *env = getenv("PMU_TRACEFS");

	if (env && *env)
		return i == 0 ? env : NULL;
	return i < PMU_ARRAY_SIZE(roots) ? roots[i] : NULL;
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
	if (!sl || !nl || sl > 200 || nl > 200)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (i != sl && !(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-'))
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

const char *pmu__tracefs_problem(char *buf, size_t size)
{
	const char *root, *env = getenv("PMU_TRACEFS");
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
