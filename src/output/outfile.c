/* SPDX-License-Identifier: MIT */
/* Report files: written beside the name and renamed into place, never through a planted link. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "output/outfile.h"

/* A link to a stream is followed only when its owner is root or the caller (as /dev/stderr is root's). */
static bool link_trusted(const struct stat *lst)
{
	return lst->st_uid == 0 || lst->st_uid == geteuid();
}

static int fail(int r, const char *name)
{
	char shown[1024];

	pmu__text_esc(shown, sizeof(shown), name, strlen(name));
	return pmu__err(r, "%s: %s", shown, strerror(-r));
}

/* In place: a stream, or append. */
static int open_in_place(struct pmu__out *o, const char *name, int flags)
{
	int fd = open(name, O_WRONLY | O_CLOEXEC | O_NOCTTY | flags, 0666);

	if (fd < 0)
		return fail(-errno, name);
	o->f = fdopen(fd, (flags & O_APPEND) ? "a" : "w");
	if (!o->f) {
		int r = -errno;

		close(fd);
		return fail(r, name);
	}
	return 0;
}

int pmu__out_open(struct pmu__out *o, const char *name, bool append)
{
	char dir[4096];
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	struct stat lst, st;
	bool exists = lstat(name, &lst) == 0;
	mode_t mode = 0666;
	int fd = -1, r;

	o->f = NULL;
	o->dir = -1;
	o->tmp[0] = o->base[0] = '\0';
	if (!exists && errno != ENOENT)
		return fail(-errno, name);
	if (exists && S_ISLNK(lst.st_mode) && link_trusted(&lst) && stat(name, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode))
		return open_in_place(o, name, append ? O_APPEND : O_TRUNC);	/* /dev/stderr, a link to a FIFO */
	if (append)
		return open_in_place(o, name, O_APPEND | O_CREAT | O_NOFOLLOW);
	if (exists && S_ISDIR(lst.st_mode))
		return fail(-EISDIR, name);
	if (exists && !S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
		return open_in_place(o, name, O_TRUNC);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) + 9 > NAME_MAX)
		return fail(*base ? -ENAMETOOLONG : -EISDIR, name);
	if (exists && S_ISREG(lst.st_mode))
		mode = lst.st_mode & 0777;	/* a report written over keeps its permissions */
	if (slash && (size_t)(slash - name) >= sizeof(dir))
		return fail(-ENAMETOOLONG, name);
	if (slash) {
		memcpy(dir, name, (size_t)(slash - name));
		dir[slash - name] = '\0';
	}
	o->dir = open(!slash ? "." : slash == name ? "/" : dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dir < 0)
		return fail(-errno, name);
	snprintf(o->base, sizeof(o->base), "%s", base);
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(o->tmp, sizeof(o->tmp), ".%s.%06lx", base,
			 ((unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 12) ^ i * 2654435761u) & 0xffffff);
		/* O_EXCL: a name another user made in between is not ours */
		fd = openat(o->dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		r = -errno;
		close(o->dir);
		o->dir = -1;
		/* a directory that takes no new file (not ours, read-only, /proc): an existing file in place */
		if (exists && S_ISREG(lst.st_mode))
			return open_in_place(o, name, O_TRUNC | O_NOFOLLOW);
		pmu__text_esc(dir, sizeof(dir), name, strlen(name));
		return pmu__err(r, "%s: cannot create a file in its directory: %s", dir, strerror(-r));
	}
	if (mode != 0666)
		(void)fchmod(fd, mode);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		r = -errno;
		close(fd);
		unlinkat(o->dir, o->tmp, 0);
		close(o->dir);
		o->dir = -1;
		return fail(r, name);
	}
	return 0;
}

int pmu__out_close(struct pmu__out *o, bool ok)
{
	int r = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		r = errno ? -errno : -EIO;
	if (fclose(o->f) != 0 && !r)
		r = -errno;
	o->f = NULL;
	if (o->dir < 0)
		return r;
	if (ok && !r && renameat(o->dir, o->tmp, o->dir, o->base) != 0)
		r = -errno;
	if (!ok || r)
		unlinkat(o->dir, o->tmp, 0);
	close(o->dir);
	o->dir = -1;
	return r;
}

/* A cancel acted in a write: the file closed, its temporary removed. */
static void out_abort(void *o)
{
	pmu__out_close(o, false);
}

int pmu__out_write(const char *name, int (*fill)(FILE *f, void *arg), void *arg)
{
	struct pmu__out o;
	int cs = pmu__nocancel(), r = pmu__out_open(&o, name, false), rc;

	pmu__cancel_restore(cs);
	if (r < 0)
		return r;
	pthread_cleanup_push(out_abort, &o);
	r = fill(o.f, arg);
	pthread_cleanup_pop(0);
	cs = pmu__nocancel();
	rc = pmu__out_close(&o, r >= 0);
	pmu__cancel_restore(cs);
	if (r >= 0 && rc < 0)
		return fail(rc, name);
	return r < 0 ? pmu__out_err(r, name) : 0;
}

int pmu__out_err(int r, const char *name)
{
	char shown[1024];

	pmu__text_esc(shown, sizeof(shown), name, strlen(name));
	return pmu__err(r, "%s: %s", shown, pmu_errmsg());
}
