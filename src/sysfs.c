/* SPDX-License-Identifier: MIT */
/*
 * Every file the library reads under /sys and /proc: the PMUs of the sysfs
 * root (types, format fields, event aliases, the core-PMU rule), tracefs
 * tracepoint ids, and the perf sysctls.
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

static int cmp_fmt(const void *a, const void *b)
{
	return strcmp(((const struct pmu__format *)a)->name, ((const struct pmu__format *)b)->name);
}

void pmu__desc_free(struct pmu__desc *d)
{
	for (unsigned i = 0; i < d->nfmt; i++) {
		free(d->fmt[i].name);
		free(d->fmt[i].bad);
	}
	free(d->fmt);
	d->fmt = NULL;
	d->nfmt = d->cap = 0;
	d->all = false;
}

/* perf's rule: cpu, cpum_cf, armv8_* and PMUs with a cpus file count the CPU's own work. */
static bool is_core(const char *name)
{
	char path[PATH_MAX];

	if (!strcmp(name, "cpu") || !strcmp(name, "cpum_cf") || !strcmp(name, "cpu_core") ||
	    !strcmp(name, "cpu_atom") || !strncmp(name, "armv8_", 6) || !strncmp(name, "armv7_", 6))
		return true;
	return !pmu__path(path, sizeof(path), name, "cpus") && access(path, F_OK) == 0;
}

/* Reads format/<file> into f (bad set when malformed). 0, -ENOENT, -ENOMEM. */
static int load_format(const struct pmu__desc *d, const char *file, struct pmu__format *f)
{
	char path[PATH_MAX], buf[256];
	int r = -ENAMETOOLONG;

	memset(f, 0, sizeof(*f));
	if (snprintf(path, sizeof(path), "%s/%s/format/%s", pmu__sysfs_root(), d->name, file) < (int)sizeof(path))
		r = pmu__read_file(path, buf, sizeof(buf));
	if (r == -ENOENT || r == -ENOTDIR || r == -EISDIR)
		return -ENOENT;
	if (!(f->name = strdup(file)))
		return -ENOMEM;
	if (r < 0 || pmu__format_parse(buf, (size_t)r, &f->f) < 0) {
		struct pmu__shown b;

		/* escaped once here: listings and messages show it as is */
		f->bad = strdup(r >= 0 ? pmu__show(&b, buf, (size_t)r) : pmu__file_error(r));
		if (!f->bad) {
			free(f->name);
			return -ENOMEM;
		}
	}
	return 0;
}

int pmu__desc_all(struct pmu__desc *d)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int r = 0;

	if (d->all)
		return 0;
	pmu__desc_free(d);
	d->all = true;
	if (pmu__path(path, sizeof(path), d->name, "format") || !(dir = opendir(path)))
		return 0;	/* a PMU without terms (software, tracepoint) */
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (d->nfmt == d->cap) {
			unsigned n = d->cap ? d->cap * 2 : 16;
			void *p = n > 4096 ? NULL : realloc(d->fmt, n * sizeof(*d->fmt));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			d->fmt = p;
			d->cap = n;
		}
		r = load_format(d, e->d_name, &d->fmt[d->nfmt]);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		d->nfmt++;
	}
	closedir(dir);
	if (d->nfmt)
		qsort(d->fmt, d->nfmt, sizeof(*d->fmt), cmp_fmt);
	return r;
}

int pmu__desc_load(const char *name, size_t len, struct pmu__desc *d)
{
	char path[PATH_MAX], buf[64], *end;
	struct pmu__shown b;
	unsigned long t;
	int r;

	memset(d, 0, sizeof(*d));
	if (!pmu__name_ok(name, len) || len >= sizeof(d->name))
		return -ENOENT;
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	if (pmu__path(path, sizeof(path), d->name, "type"))
		return -ENOENT;
	r = pmu__read_file(path, buf, sizeof(buf));
	if (r == -ENOENT || r == -ENOTDIR)
		return -ENOENT;
	if (r < 0)
		return pmu__err(r == -EFBIG || r == -PMU_ENOTREG ? -EINVAL : r, "%s: cannot read the PMU type: %s",
				path, pmu__file_error(r));
	errno = 0;
	t = strtoul(buf, &end, 0);
	if (!r || *end || errno || t > UINT32_MAX || buf[0] == '-')
		return pmu__err(-EINVAL, "%s: malformed PMU type '%s' (expected a number)", path,
				pmu__show(&b, buf, (size_t)r));
	d->type = (uint32_t)t;
	d->core = is_core(d->name);
	return 0;
}

struct pmu__format *pmu__desc_format(struct pmu__desc *d, const char *name, size_t len)
{
	char file[NAME_MAX + 1];
	int r;

	for (unsigned i = 0; i < d->nfmt; i++)
		if (!strncmp(d->fmt[i].name, name, len) && !d->fmt[i].name[len])
			return &d->fmt[i];
	errno = ENOENT;
	if (d->all || !pmu__name_ok(name, len) || len > NAME_MAX)
		return NULL;
	if (!d->fmt) {
		/* fixed room: pointers handed out stay valid */
		d->fmt = calloc(PMU_LAZY_FORMATS, sizeof(*d->fmt));
		if (!d->fmt) {
			errno = ENOMEM;
			return NULL;
		}
		d->cap = PMU_LAZY_FORMATS;
	}
	memcpy(file, name, len);
	file[len] = '\0';
	if (d->nfmt == d->cap) {
		/* full: but a term that is not there is still unknown, not a limit */
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s/format/%s", pmu__sysfs_root(), d->name, file) <
			    (int)sizeof(path) && access(path, F_OK) == 0)
			errno = ENOSPC;
		return NULL;
	}
	if ((r = load_format(d, file, &d->fmt[d->nfmt])) < 0) {
		errno = -r;
		return NULL;
	}
	return &d->fmt[d->nfmt++];
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

/* Entries of a directory that pass keep(), sorted. */
static int dir_names(const char *path, bool (*keep)(const char *), char ***out, size_t *n)
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

static bool keep_all(const char *s)
{
	(void)s;
	return true;
}

int pmu__pmu_names(char ***names, size_t *n)
{
	char path[PATH_MAX];
	size_t k = 0;
	int r = dir_names(pmu__sysfs_root(), keep_all, names, n);

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

static int cmp_type(const void *a, const void *b)
{
	const struct pmu__desc *x = a, *y = b;

	return x->type < y->type ? -1 : x->type > y->type;
}

int pmu__core_pmus(struct pmu__desc *d)
{
	char **names;
	size_t n;
	int k = 0, r;

	r = dir_names(pmu__sysfs_root(), keep_all, &names, &n);
	if (r == -ENOMEM)
		return pmu__err(r, "out of memory listing the PMUs of %s", pmu__sysfs_root());
	if (r < 0)
		return 0;	/* no sysfs: no core PMU known */
	for (size_t i = 0; i < n; i++) {
		if (!is_core(names[i]))
			continue;
		if (k == PMU_MAX_PMUS) {
			/* never count on some of them silently */
			char path[PATH_MAX];

			if (pmu__path(path, sizeof(path), names[i], "type") || access(path, F_OK))
				continue;
			r = pmu__err(-E2BIG, "%s: more than %d core PMUs (%s is one more); libpmu counts on at "
				     "most %d: name one PMU (pmu/event/)", pmu__sysfs_root(), PMU_MAX_PMUS,
				     names[i], PMU_MAX_PMUS);
			break;
		}
		r = pmu__desc_load(names[i], strlen(names[i]), &d[k]);
		if (r == -ENOENT) {
			r = 0;
			continue;	/* no type file: not a PMU */
		}
		if (r < 0)
			break;
		k++;
	}
	pmu__names_free(names, n);
	if (r < 0) {
		while (k > 0)
			pmu__desc_free(&d[--k]);
		return r;
	}
	qsort(d, (size_t)k, sizeof(*d), cmp_type);
	return k;
}

bool pmu__have_core_pmu(void)
{
	struct pmu__desc d[PMU_MAX_PMUS];
	int n = pmu__core_pmus(d);

	for (int i = 0; i < n; i++)
		pmu__desc_free(&d[i]);
	return n != 0;	/* a malformed one is there too */
}

/* ---- aliases ---- */

static bool is_alias_file(const char *s)
{
	static const char *const extra[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(s);

	for (size_t i = 0; i < PMU_ARRAY_SIZE(extra); i++) {
		size_t k = strlen(extra[i]);

		if (n > k && !strcmp(s + n - k, extra[i]))
			return false;
	}
	return true;
}

int pmu__alias_names(const char *pmu, char ***names, size_t *n)
{
	char path[PATH_MAX];
	int r;

	*names = NULL;
	*n = 0;
	if (pmu__path(path, sizeof(path), pmu, "events"))
		return 0;
	r = dir_names(path, is_alias_file, names, n);
	return r == -ENOMEM ? r : 0;
}

static int read_alias(const char *pmu, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r;

	if (snprintf(path, sizeof(path), "%s/%s/events/%s", pmu__sysfs_root(), pmu, file) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	r = pmu__read_file(path, buf, size);
	if (r == -EFBIG || r == -EINVAL || r == -PMU_ENOTREG)
		return pmu__err(-EINVAL, "%s: malformed event alias (%s)", path, pmu__file_error(r));
	if (r < 0 && r != -ENOENT)
		return pmu__err(r, "%s: cannot read: %s", path, strerror(-r));
	return r;
}

int pmu__alias_read(const char *pmu, const char *name, size_t len, char *buf, size_t size,
		    char *canon, size_t csize)
{
	char path[PATH_MAX], **names;
	size_t n;
	int r;

	if (!pmu__name_ok(name, len) || len >= csize)
		return 0;
	memcpy(canon, name, len);
	canon[len] = '\0';
	if (!is_alias_file(canon))
		return 0;
	/* exact name first: no directory scan */
	r = read_alias(pmu, canon, buf, size);
	if (r >= 0)
		return 1;
	if (r != -ENOENT)
		return r;
	if (pmu__path(path, sizeof(path), pmu, "events"))
		return 0;
	if ((r = dir_names(path, is_alias_file, &names, &n)) < 0)
		return r == -ENOMEM ? pmu__err(r, "out of memory listing %s", path) : 0;
	r = 0;
	for (size_t i = 0; i < n; i++) {
		if (strlen(names[i]) != len || strncasecmp(names[i], name, len))
			continue;
		snprintf(canon, csize, "%s", names[i]);
		r = read_alias(pmu, canon, buf, size);
		r = r == -ENOENT ? 0 : r < 0 ? r : 1;
		break;
	}
	pmu__names_free(names, n);
	return r;
}

int pmu__alias_extra(const char *pmu, const char *alias, const char *what, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s/events/%s.%s", pmu__sysfs_root(), pmu, alias, what) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return pmu__read_file(path, buf, size);
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

const char *pmu__tracefs_problem(void)
{
	static __thread char buf[PATH_MAX + 128];
	const char *root, *env = getenv("PMU_TRACEFS");
	char path[PATH_MAX];

	for (unsigned i = 0; (root = tracefs_root(i)); i++) {
		snprintf(path, sizeof(path), "%s/events", root);
		if (access(path, F_OK) && errno != EACCES)
			continue;
		if (!access(path, R_OK | X_OK))
			return "";
		snprintf(buf, sizeof(buf), "tracefs is mounted but %s is not readable by this user "
			 "(reading tracepoints needs root or a tracing group)", path);
		return buf;
	}
	if (env && *env) {
		snprintf(buf, sizeof(buf), "PMU_TRACEFS=%.*s has no events directory", PATH_MAX, env);
		return buf;
	}
	return "tracepoints need tracefs (mount -t tracefs nodev /sys/kernel/tracing)";
}
