/* SPDX-License-Identifier: MIT */
/*
 * Every file the library opens under /sys and /proc goes through here: the
 * sysfs root and its untrusted files and directories, the PMU list and the
 * perf sysctls; tracefs's files through its readers (tracefs.c). What the PMUs' files mean (types,
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

#include "events/sysfs.h"

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
static int read_file(const char *path, char *buf, size_t size)
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

int pmu__read_file(const char *path, char *buf, size_t size)
{
	return PMU_NOCANCEL(read_file(path, buf, size));
}

static int cmdline(char *buf, size_t size)
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

int pmu__cmdline(char *buf, size_t size)
{
	return PMU_NOCANCEL(cmdline(buf, size));
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

const char *pmu__pmu_cpumask(const char *pmu, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (pmu__path(path, sizeof(path), pmu, "cpumask") || pmu__read_file(path, buf, size) <= 0 ||
	    strspn(buf, "0123456789,-") != strlen(buf))
		return NULL;
	return buf;
}

unsigned pmu__pmu_cpus(const char *pmu, int *cpus, unsigned max)
{
	char buf[1024], *p;
	unsigned n = 0;

	if (!pmu__pmu_cpumask(pmu, buf, sizeof(buf)))
		return 0;
	for (p = buf; *p && n < max; p += *p == ',') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && a >= 0 && a <= INT_MAX && n < max; a++)
			cpus[n++] = (int)a;
		if (*p && *p != ',')
			return 0;	/* not a CPU list after all */
	}
	return n;
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

/* Entries of path that pass keep(), sorted; at most max of them: 1 when more were left out. */
int pmu__dir_names_max(const char *path, bool (*keep)(const char *), size_t max, char ***out, size_t *n)
{
	return PMU_NOCANCEL(dir_names(path, keep, max, out, n));
}

int pmu__dir_names(const char *path, bool (*keep)(const char *), char ***out, size_t *n)
{
	return pmu__dir_names_max(path, keep, SIZE_MAX, out, n);
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
