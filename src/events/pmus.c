/* SPDX-License-Identifier: MIT */
/*
 * The PMUs of the sysfs root as the resolver sees them: a PMU's type, the
 * core-PMU rule, its format terms (read one by one as terms are looked up,
 * or all at once for listings) and its event aliases. Every file is read
 * through sysfs.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "events/sysfs.h"

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
	return !pmu__path(path, sizeof(path), name, "cpus") && pmu__exists(path);
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
	char path[PATH_MAX], **names;
	size_t n;
	int r = 0;

	if (d->all)
		return 0;
	pmu__desc_free(d);
	d->all = true;
	if (pmu__path(path, sizeof(path), d->name, "format"))
		return 0;
	r = pmu__dir_names(path, pmu__keep_all, &names, &n);
	if (r < 0)
		return r == -ENOMEM ? r : 0;	/* a PMU without terms (software, tracepoint) */
	if (n > 4096)
		r = pmu__err(-E2BIG, "%s: %zu format terms, more than the 4096 a PMU may have here", path, n);
	else if (n && !(d->fmt = calloc(n, sizeof(*d->fmt))))
		r = -ENOMEM;
	d->cap = d->fmt ? (unsigned)n : 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		r = load_format(d, names[i], &d->fmt[d->nfmt]);
		if (r == -ENOENT)
			r = 0;
		else if (r == 0)
			d->nfmt++;
	}
	pmu__names_free(names, n);
	return r;	/* sorted by name, as the directory's names were */
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
			    (int)sizeof(path) && pmu__exists(path))
			errno = ENOSPC;
		return NULL;
	}
	if ((r = load_format(d, file, &d->fmt[d->nfmt])) < 0) {
		errno = -r;
		return NULL;
	}
	return &d->fmt[d->nfmt++];
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

	r = pmu__dir_names(pmu__sysfs_root(), pmu__keep_all, &names, &n);
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

			if (pmu__path(path, sizeof(path), names[i], "type") || !pmu__exists(path))
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
	r = pmu__dir_names(path, is_alias_file, names, n);
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
	if ((r = pmu__dir_names(path, is_alias_file, &names, &n)) < 0)
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
