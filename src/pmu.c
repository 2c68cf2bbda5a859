/* SPDX-License-Identifier: MIT */
/*
 * Counter sets: open, read, close.
 *
 * A set is one mmap of two kinds of page. The first (the "hot" page, which
 * struct pmu_set points at) holds what a user-space read needs and is
 * MADV_WIPEONFORK: in a forked child it reads as zeros, so the child can never
 * take the user-space path on its parent's counters (the kernel does not copy
 * perf mappings into children) and no system call is spent on detecting it.
 * The pages after it ("cold") hold everything else and survive fork, so that a
 * child can still close its copies of the descriptors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "readpage.h"
#include "arch.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

#define PMU_MAX_COUNTERS 256
#define PMU_ALIVE 0x706d7531u	/* in the hot page: wiped to 0 in a forked child */

struct pmu_set {			/* the hot page */
	uint32_t direct;		/* counters (== events) when each may be read from user space, else 0 */
	uint32_t alive;			/* PMU_ALIVE; 0 in a forked child */
	uint32_t group_n;		/* events, when one read(2) of group_fd gives them in order; else 0 */
	int group_fd;
	uint64_t *group_buf;		/* group_size bytes */
	size_t group_size;
	struct perf_event_mmap_page *page[PMU_MAX_COUNTERS];
};

struct pmu__counter {
	int fd;
	unsigned event;			/* the user's event this counter adds to */
	const char *why;		/* why it is read through read(2), or NULL */
	uint64_t auto_long;
	char why_buf[192];		/* for a why that names a file */
};

struct pmu__group {
	int fd;				/* leader */
	unsigned first, n;		/* counters first..first+n-1 */
};

struct pmu__cold {			/* the page after the hot one */
	size_t map_size;
	pid_t owner;			/* checked with getpid() only without WIPEONFORK */
	bool wiped;			/* MADV_WIPEONFORK in force */
	unsigned nev, nctr, ngroups;
	struct pmu__counter *ctr;
	struct pmu__group *grp;
	char **names;
	struct pmu_reading *rd;		/* read(2): per counter, then per event */
	uint64_t *buf;			/* one group's read(2) */
	struct pmu__attr *attr;		/* per counter, kept for messages */
};

static size_t page_size(void)
{
	static size_t ps;	/* atomics: sets may be opened by several threads at once */
	size_t v = __atomic_load_n(&ps, __ATOMIC_RELAXED);

	if (!v) {
		v = (size_t)sysconf(_SC_PAGESIZE);
		__atomic_store_n(&ps, v, __ATOMIC_RELAXED);
	}
	return v;
}

static inline struct pmu__cold *cold(const struct pmu_set *set)
{
	return (struct pmu__cold *)((char *)set + page_size());
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* Reads a small sysfs or procfs file holding a number; -1 when absent. */
static long read_number(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 0);
}

/* A PMU for generic hardware events: "cpu", "cpu_core", ... or one with a cpus file (arm64), as perf has it. */
static bool have_core_pmu(void)
{
	DIR *d = opendir(pmu__sysfs_root());
	struct dirent *e;
	char path[512];
	bool core = false;

	while (d && !core && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s/cpus", pmu__sysfs_root(), e->d_name);
		core = !strcmp(e->d_name, "cpu") || !strncmp(e->d_name, "cpu_", 4) || access(path, F_OK) == 0;
	}
	if (d)
		closedir(d);
	return core;
}

static bool is_core_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

static const char *type_blocker(const struct pmu__attr *a)
{
	switch (a->attr.type) {
	case PERF_TYPE_SOFTWARE: return "software event";
	case PERF_TYPE_TRACEPOINT: return "tracepoint event";
	case PERF_TYPE_BREAKPOINT: return "breakpoint event";
	}
	if (!strcmp(a->pmu, "software") || !strcmp(a->pmu, "tracepoint") || !strcmp(a->pmu, "breakpoint"))
		return "software event";
	return NULL;
}

/* Explains a failed perf_event_open() of event name on PMU a for task pid. */
static int open_error(int err, const char *name, const struct pmu__attr *a, unsigned group_size, pid_t pid)
{
	bool hw = !type_blocker(a);

	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (is_core_type(a->attr.type) && !have_core_pmu())
			return pmu__err(-ENODEV, "%s: no hardware PMU on this machine (a virtual machine "
					"without a virtual PMU?)", name);
		return pmu__err(-err, "%s: the %s PMU does not support this event (%s)", name, a->pmu,
				strerror(err));
	case EACCES:
	case EPERM:
		if (pid > 0)
			return pmu__err(-err, "%s: permission denied counting task %d (it must be yours "
					"and traceable, or you need CAP_PERFMON)", name, (int)pid);
		return pmu__err(-err, "%s: permission denied; kernel.perf_event_paranoid is %ld "
				"(counting the kernel needs CAP_PERFMON or paranoid <= 1; "
				"any counting needs paranoid <= 2)", name,
				read_number("/proc/sys/kernel/perf_event_paranoid"));
	case EINVAL:
		if (group_size > 1 && hw)
			return pmu__err(-EINVAL, "%s: the kernel rejected the event in a group of %u "
					"(more events than the PMU has counters? open them in "
					"separate sets or with PMU_NO_GROUP)", name, group_size);
		return pmu__err(-EINVAL, "%s: the kernel rejected the event's attributes (unsupported "
				"modifier or config for the %s PMU?)", name, a->pmu);
	case EMFILE:
	case ENFILE:
		return pmu__err(-err, "%s: out of file descriptors (%s)", name, strerror(err));
	case EBUSY:
		return pmu__err(-EBUSY, "%s: the %s PMU is busy (used exclusively by someone else, "
				"e.g. the NMI watchdog?)", name, a->pmu);
	case ESRCH:
		return pmu__err(-ESRCH, "%s: no such task to count", name);
	default:
		return pmu__err(-err, "%s: perf_event_open failed: %s", name, strerror(err));
	}
}

/*
 * Why counter k of an enabled set cannot be read from user space, or NULL.
 * arm64 shows kernel.perf_user_access 0 as index 0, riscv as cap_user_rdpmc 0.
 */
static const char *user_read_blocker(struct pmu__counter *k, const struct perf_event_mmap_page *pc,
				     const struct pmu__attr *a)
{
	bool sysctl_arch = !strcmp(PMU_ARCH_NAME, "aarch64") || !strcmp(PMU_ARCH_NAME, "riscv64");
	bool cap = PMU_LD(pc, capabilities) & PMU_CAP_RDPMC;
	char path[512];

	if ((!cap || !PMU_LD(pc, index)) && sysctl_arch &&
	    read_number("/proc/sys/kernel/perf_user_access") == 0)
		return "kernel.perf_user_access is 0 (sysctl kernel.perf_user_access=1 allows "
		       "user-space reads)";
	if (cap)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/rdpmc", pmu__sysfs_root(), a->pmu);
	if (!strcmp(PMU_ARCH_NAME, "x86_64") && read_number(path) == 0) {
		snprintf(k->why_buf, sizeof(k->why_buf), "x86 rdpmc is disabled: %.120s is 0 (write 1 "
			 "to it to allow user-space reads)", path);
		return k->why_buf;
	}
	return "the PMU does not allow user-space reads (cap_user_rdpmc is 0)";
}

/* Why no counter of this set can be read from user space, or NULL. */
static const char *set_blocker(const struct pmu_opts *o)
{
	if (!PMU_ARCH_USER_READ)
		return "no user-space counter read on this architecture (" PMU_ARCH_NAME ")";
	if (o->flags & PMU_NO_USER_READ)
		return "PMU_NO_USER_READ was asked for";
	if (o->pid)
		return "the set counts another task";
	if (o->flags & PMU_INHERIT)
		return "inherited counts include children, which only read(2) sums";
	if (o->cpu >= 0)
		return "the set counts on a given CPU";
	return NULL;
}


static void close_counters(struct pmu_set *set)
{
	struct pmu__cold *c = cold(set);
	unsigned i;

	set->direct = 0;
	set->group_n = 0;
	for (i = 0; c->ctr && i < c->nctr; i++) {
		/* A forked child has no copy of the pages: unmapping could hit its own mappings. */
		if (set->alive == PMU_ALIVE && set->page[i])
			munmap(set->page[i], page_size());
		set->page[i] = NULL;
		if (c->ctr[i].fd >= 0)
			close(c->ctr[i].fd);
		c->ctr[i].fd = -1;
	}
}

static void free_set(struct pmu_set *set)
{
	struct pmu__cold *c = cold(set);
	unsigned i;

	close_counters(set);
	if (c->names)
		for (i = 0; i < c->nev; i++)
			free(c->names[i]);
	free(c->names);
	free(c->ctr);
	free(c->grp);
	free(c->rd);
	free(c->buf);
	free(c->attr);
	munmap(set, c->map_size);
}

PMU_API void pmu_close(struct pmu_set *set)
{
	if (set)
		free_set(set);
}

/* Parses events into c->attr / c->ctr / c->names. */
static int parse_events(struct pmu__cold *c, const char *events)
{
	const char *p = events, *tok;
	struct pmu__event ev;
	size_t len, cap_ev = 0;
	int r;

	while ((r = pmu__event_next(&p, &tok, &len)) > 0) {
		if (c->nev == cap_ev) {
			size_t n = cap_ev ? cap_ev * 2 : 8;
			char **names = realloc(c->names, n * sizeof(*names));

			if (!names)
				return pmu__err(-ENOMEM, "%s: out of memory", events);
			c->names = names;
			cap_ev = n;
		}
		r = pmu__event_parse(tok, len, &ev);
		if (r < 0)
			return r;
		if (c->nctr + ev.n > PMU_MAX_COUNTERS)
			return pmu__err(-E2BIG, "%.*s: more than %d counters in one set", (int)len, tok,
					PMU_MAX_COUNTERS);
		c->names[c->nev] = strndup(tok, len);
		if (!c->names[c->nev])
			return pmu__err(-ENOMEM, "%s: out of memory", events);
		for (unsigned k = 0; k < ev.n; k++) {
			c->attr[c->nctr] = ev.a[k];
			c->ctr[c->nctr].event = c->nev;
			c->ctr[c->nctr].fd = -1;
			c->ctr[c->nctr].auto_long = ev.a[k].auto_long;
			c->nctr++;
		}
		c->nev++;
	}
	if (r < 0)
		return r;
	if (!c->nev)
		return pmu__err(-EINVAL, "\"%s\": no event named", events);
	return 0;
}

/*
 * Puts counters into groups: one per hardware PMU, software-like events join
 * the first group (the kernel moves them into the hardware context).
 * Reorders c->ctr/c->attr so that each group's counters are contiguous.
 */
static int plan_groups(struct pmu__cold *c, unsigned flags)
{
	struct pmu__counter *ctr = malloc(c->nctr * sizeof(*ctr));
	struct pmu__attr *attr = malloc(c->nctr * sizeof(*attr));
	unsigned *gid = malloc(c->nctr * sizeof(*gid));
	const char **hw = malloc(c->nctr * sizeof(*hw));
	unsigned i, g, k = 0;

	c->grp = calloc(c->nctr, sizeof(*c->grp));
	if (!ctr || !attr || !gid || !hw || !c->grp) {
		free(ctr);
		free(attr);
		free(gid);
		free(hw);
		return pmu__err(-ENOMEM, "out of memory");
	}
	/* A group takes software events, and hardware events of one PMU (hw[g], NULL if none yet). */
	c->ngroups = 0;
	for (i = 0; i < c->nctr; i++) {
		const char *pmu = type_blocker(&c->attr[i]) ? NULL : c->attr[i].pmu;

		for (g = 0; g < c->ngroups && !(flags & PMU_NO_GROUP); g++)
			if (!pmu || !hw[g] || !strcmp(hw[g], pmu))
				break;
		if (g == c->ngroups || (flags & PMU_NO_GROUP)) {
			g = c->ngroups++;
			hw[g] = NULL;
		}
		if (pmu)
			hw[g] = pmu;
		gid[i] = g;
	}
	for (g = 0; g < c->ngroups; g++) {
		c->grp[g].first = k;
		for (i = 0; i < c->nctr; i++) {
			if (gid[i] != g)
				continue;
			ctr[k] = c->ctr[i];
			attr[k++] = c->attr[i];
		}
		c->grp[g].n = k - c->grp[g].first;
		c->grp[g].fd = -1;
	}
	free(c->ctr);
	free(c->attr);
	free(gid);
	free(hw);
	c->ctr = ctr;
	c->attr = attr;
	return 0;
}

/*
 * read(2) of a group of n: nr, enabled, running, values[nr]; of a single
 * counter (no PERF_FORMAT_GROUP, cheaper in the kernel): value, enabled, running.
 */
static size_t group_bytes(unsigned n)
{
	return (n > 1 ? 3 + n : 3) * sizeof(uint64_t);
}

static const uint64_t *group_values(const uint64_t *buf, unsigned n)
{
	return n > 1 ? buf + 3 : buf;
}

/* The common case of read(2): one group whose values are the events in order. */
static void plan_group_read(struct pmu_set *set)
{
	struct pmu__cold *c = cold(set);
	uint32_t i, n = c->ngroups == 1 && c->nctr == c->nev && c->wiped ? c->nctr : 0;

	for (i = 0; i < n; i++)
		if (c->ctr[i].event != i)
			n = 0;
	set->group_n = n;
	set->group_fd = c->grp[0].fd;
	set->group_buf = c->buf;
	set->group_size = group_bytes(n);
}

/*
 * Whether the PMU's event counters are 64-bit. The arm64 kernel takes a
 * 64-bit user-readable cycles event even where only the cycle counter is
 * 64-bit (Cortex-A72), and then cannot schedule a second one, or starves
 * later groups: ask once, with an event that needs an event counter
 * (INST_RETIRED), which such a PMU refuses with EOPNOTSUPP.
 */
static bool long_event_counters(const struct pmu__attr *a)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct { char pmu[PMU_PMU_NAME]; bool ok; } known[PMU_MAX_PMUS];
	static unsigned nknown;
	struct perf_event_attr p = { .size = sizeof(p), .config = 0x08, .config1 = a->attr.config1,
				     .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1 };
	char path[512];
	bool ok = true;
	unsigned i;
	int fd;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nknown && strcmp(known[i].pmu, a->pmu); i++)
		;
	if (i < nknown) {
		ok = known[i].ok;
	} else {
		snprintf(path, sizeof(path), "%s/%s/type", pmu__sysfs_root(), a->pmu);
		p.type = (uint32_t)read_number(path);
		fd = perf_event_open(&p, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ok = fd >= 0 || errno != EOPNOTSUPP;
		if (fd >= 0)
			close(fd);
		if (nknown < PMU_MAX_PMUS) {
			snprintf(known[nknown].pmu, sizeof(known[nknown].pmu), "%s", a->pmu);
			known[nknown++].ok = ok;
		}
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

static int open_counters(struct pmu_set *set, const struct pmu_opts *o)
{
	struct pmu__cold *c = cold(set);
	const char *blocker = set_blocker(o);
	unsigned g, i;

	for (g = 0; g < c->ngroups; g++) {
		struct pmu__group *gr = &c->grp[g];

		for (i = gr->first; i < gr->first + gr->n; i++) {
			struct perf_event_attr *at = &c->attr[i].attr;
			bool leader = i == gr->first;
			int fd;

			/*
			 * An enabled leader makes the kernel check that the whole
			 * group fits the PMU (arm64 skips disabled leaders, and
			 * the group would then never count): the set is reset
			 * and started again once complete.
			 */
			at->disabled = leader && (o->flags & PMU_ENABLE_ON_EXEC);
			at->inherit = !!(o->flags & PMU_INHERIT);
			at->enable_on_exec = leader && (o->flags & PMU_ENABLE_ON_EXEC);
			at->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
			if (gr->n > 1)
				at->read_format |= PERF_FORMAT_GROUP;
			if (c->ctr[i].auto_long && !long_event_counters(&c->attr[i])) {
				at->config1 &= ~c->ctr[i].auto_long;
				c->ctr[i].auto_long = 0;
			}
			for (;;) {
				fd = perf_event_open(at, o->pid, o->cpu, leader ? -1 : gr->fd,
						     PERF_FLAG_FD_CLOEXEC);
				if (fd >= 0 || errno != EOPNOTSUPP || !c->ctr[i].auto_long)
					break;
				/* The 64-bit counter the library asked for is not there: use 32 bits. */
				at->config1 &= ~c->ctr[i].auto_long;
				c->ctr[i].auto_long = 0;
			}
			if (fd < 0)
				return open_error(errno, c->names[c->ctr[i].event], &c->attr[i], gr->n, o->pid);
			c->ctr[i].fd = fd;
			if (leader)
				gr->fd = fd;
			c->ctr[i].why = type_blocker(&c->attr[i]);
			if (!c->ctr[i].why)
				c->ctr[i].why = blocker;
			if (!c->ctr[i].why && !c->wiped)
				c->ctr[i].why = "the kernel lacks MADV_WIPEONFORK (Linux 4.14), which keeps "
						"the user-space read safe across fork";
			if (c->ctr[i].why)
				continue;
			set->page[i] = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
			if (set->page[i] == MAP_FAILED) {
				set->page[i] = NULL;
				c->ctr[i].why = "the event's page could not be mapped";
			}
		}
	}
	plan_group_read(set);
	return 0;
}

PMU_API int pmu_open_opts(struct pmu_set **setp, const char *events, const struct pmu_opts *opts)
{
	struct pmu_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
	struct pmu_set *set;
	struct pmu__cold *c;
	size_t ps = page_size(), max_read;
	unsigned g;
	int r;

	if (!setp)
		return pmu__err(-EINVAL, "pmu_open: the set pointer is NULL");
	*setp = NULL;
	if (!events)
		return pmu__err(-EINVAL, "pmu_open: the event list is NULL");
	if (opts) {
		if (opts->size < sizeof(o) && opts->size != 0) {
			memcpy(&o, opts, opts->size);
		} else if (opts->size > sizeof(o)) {
			return pmu__err(-EINVAL, "pmu_open: struct pmu_opts of size %zu is newer than "
					"this library (%zu)", opts->size, sizeof(o));
		} else {
			o = *opts;
		}
		if (o.flags & ~(unsigned)(PMU_INHERIT | PMU_ENABLE_ON_EXEC | PMU_NO_GROUP |
					  PMU_DISABLED | PMU_NO_USER_READ | PMU_ON_CPU))
			return pmu__err(-EINVAL, "pmu_open: unknown flags 0x%x", o.flags);
		if (!(o.flags & PMU_ON_CPU))
			o.cpu = -1;
		else if (o.cpu < 0)
			return pmu__err(-EINVAL, "pmu_open: PMU_ON_CPU with cpu %d", o.cpu);
		if (o.pid == -1 && o.cpu < 0)
			return pmu__err(-EINVAL, "pmu_open: pid -1 (every task) needs PMU_ON_CPU and a cpu");
	}

	set = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (set == MAP_FAILED)
		return pmu__err(-errno, "pmu_open: cannot allocate the set: %s", strerror(errno));
	c = cold(set);
	c->map_size = 2 * ps;
	c->owner = getpid();
	c->wiped = madvise(set, ps, MADV_WIPEONFORK) == 0;
	set->alive = PMU_ALIVE;
	c->ctr = calloc(PMU_MAX_COUNTERS, sizeof(*c->ctr));
	c->attr = calloc(PMU_MAX_COUNTERS, sizeof(*c->attr));
	if (!c->ctr || !c->attr) {
		r = pmu__err(-ENOMEM, "pmu_open: out of memory");
		goto fail;
	}
	r = parse_events(c, events);
	if (r < 0)
		goto fail;
	r = plan_groups(c, o.flags);
	if (r < 0)
		goto fail;
	for (g = 0, max_read = 0; g < c->ngroups; g++)
		if (group_bytes(c->grp[g].n) > max_read)
			max_read = group_bytes(c->grp[g].n);
	c->buf = malloc(max_read);
	c->rd = malloc((c->nctr + c->nev) * sizeof(*c->rd));	/* per counter, then per event */
	if (!c->buf || !c->rd) {
		r = pmu__err(-ENOMEM, "pmu_open: out of memory");
		goto fail;
	}
	r = open_counters(set, &o);
	if (r < 0)
		goto fail;
	if (!(o.flags & PMU_ENABLE_ON_EXEC)) {
		/* Off and on again: siblings added to a running group count only once it is rescheduled. */
		r = pmu_disable(set);
		if (!r)
			r = pmu_reset(set);
		if (!r && !(o.flags & PMU_DISABLED))
			r = pmu_enable(set);
		if (r < 0)
			goto fail;
	}
	pmu__err_clear();
	*setp = set;
	return 0;
fail:
	free_set(set);
	return r;
}

PMU_API int pmu_open(struct pmu_set **set, const char *events)
{
	return pmu_open_opts(set, events, NULL);
}

/* The set may be used by this process: not a child's copy of its parent's. */
static int check_owner(const struct pmu_set *set, const char *what)
{
	if (likely(set->alive == PMU_ALIVE && (cold(set)->wiped || cold(set)->owner == getpid())))
		return 0;
	return pmu__err(-ECHILD, "%s: the set was opened by process %d; after fork the child must "
			"open sets of its own", what, (int)cold(set)->owner);
}

static int ioctl_groups(struct pmu_set *set, unsigned long req, const char *what)
{
	struct pmu__cold *c;
	unsigned g;
	int r;

	if (!set)
		return pmu__err(-EINVAL, "%s: the set is NULL", what);
	r = check_owner(set, what);
	if (r < 0)
		return r;
	c = cold(set);
	/*
	 * Enabling and disabling the leader starts and stops its whole group;
	 * doing it to every member (PERF_IOC_FLAG_GROUP) leaves siblings off
	 * for good on some kernels. A reset must reach every member.
	 */
	for (g = 0; g < c->ngroups; g++)
		if (ioctl(c->grp[g].fd, req, req == PERF_EVENT_IOC_RESET ? PERF_IOC_FLAG_GROUP : 0) < 0)
			return pmu__err(-errno, "%s: %s: %s", what, c->names[c->ctr[c->grp[g].first].event],
					strerror(errno));
	return 0;
}

/*
 * Once the counters run, their pages tell what the kernel allows: unmap the
 * ones it refuses. The set reads from user space without a call when every
 * counter remains and counter i is event i.
 */
static void settle_read_paths(struct pmu_set *set)
{
	struct pmu__cold *c = cold(set);
	uint32_t i, direct = c->nctr == c->nev ? c->nctr : 0;

	for (i = 0; i < c->nctr; i++) {
		if (set->page[i] && (c->ctr[i].why = user_read_blocker(&c->ctr[i], set->page[i], &c->attr[i]))) {
			munmap(set->page[i], page_size());
			set->page[i] = NULL;
		}
		if (!set->page[i] || c->ctr[i].event != i)
			direct = 0;
	}
	set->direct = direct;
}

PMU_API int pmu_enable(struct pmu_set *set)
{
	int r = ioctl_groups(set, PERF_EVENT_IOC_ENABLE, "pmu_enable");

	if (!r)
		settle_read_paths(set);
	return r;
}

PMU_API int pmu_disable(struct pmu_set *set)
{
	return ioctl_groups(set, PERF_EVENT_IOC_DISABLE, "pmu_disable");
}

PMU_API int pmu_reset(struct pmu_set *set)
{
	return ioctl_groups(set, PERF_EVENT_IOC_RESET, "pmu_reset");
}

PMU_API unsigned pmu_count(const struct pmu_set *set)
{
	return set ? cold(set)->nev : 0;
}

PMU_API const char *pmu_name(const struct pmu_set *set, unsigned i)
{
	return set && i < cold(set)->nev ? cold(set)->names[i] : NULL;
}

/* Every counter through read(2), one call per group, into c->rd. */
static int read_counters(struct pmu_set *set)
{
	struct pmu__cold *c = cold(set);
	uint64_t *b = c->buf;
	unsigned g, k;
	int r = check_owner(set, "pmu_read");

	if (r < 0)
		return r;
	for (g = 0; g < c->ngroups; g++) {
		const struct pmu__group *gr = &c->grp[g];
		size_t want = group_bytes(gr->n);
		ssize_t got = read(gr->fd, b, want);

		if (unlikely(got != (ssize_t)want)) {
			const char *name = c->names[c->ctr[gr->first].event];

			if (got < 0)
				return pmu__err(-errno, "%s: read: %s", name, strerror(errno));
			return pmu__err(-EIO, "%s: read returned %zd bytes, expected %zu", name, got, want);
		}
		for (k = 0; k < gr->n; k++)
			c->rd[gr->first + k] = (struct pmu_reading){ group_values(b, gr->n)[k], b[1], b[2] };
	}
	return 0;
}

/*
 * Per event: the sum of its counters (several only on hybrid machines, where
 * the thread runs on one core type at a time: running times add up, enabled
 * times overlap), then scaled once.
 */
static int read_slow(struct pmu_set *set, uint64_t *values, struct pmu_reading *out)
{
	struct pmu__cold *c = cold(set);
	struct pmu_reading *ev = out ? out : c->rd + c->nctr;
	unsigned i;
	int r = read_counters(set);

	if (r < 0)
		return r;
	memset(ev, 0, c->nev * sizeof(*ev));
	for (i = 0; i < c->nctr; i++) {
		const struct pmu_reading *rd = &c->rd[i];
		struct pmu_reading *e = &ev[c->ctr[i].event];

		e->value += rd->value;
		if (rd->enabled > e->enabled)
			e->enabled = rd->enabled;
		e->running += rd->running;
	}
	for (i = 0; values && i < c->nev; i++)
		values[i] = pmu__scale(ev[i].value, ev[i].enabled, ev[i].running);
	return 0;
}

/* Multiplexed events, or no set at all: times from the pages where possible, else read(2). */
static __attribute__((noinline)) int read_scaled(struct pmu_set *set, uint64_t *values,
						  struct pmu_reading *out)
{
	struct pmu__page_value v;
	uint32_t i;

	if (!set || !(values || out))
		return pmu__err(-EINVAL, "pmu_read: %s is NULL", set ? "values" : "the set");
	for (i = 0; i < set->direct; i++) {
		if (pmu__read_page(set->page[i], out ? PMU_READ_TIMES : PMU_READ_COUNT,
				   pmu__arch_rdpmc, pmu__arch_clock, &v))
			return read_slow(set, values, out);
		if (values)
			values[i] = pmu__scale(v.count, v.enabled, v.running);
		else
			out[i] = (struct pmu_reading){ v.count, v.enabled, v.running };
	}
	return set->direct ? 0 : read_slow(set, values, out);
}

/* Values of a multiplexed group, scaled: out of the way of read_group(). */
static __attribute__((noinline)) void scale_group(uint64_t *values, const uint64_t *v, uint32_t n,
						  uint64_t enabled, uint64_t running)
{
	for (uint32_t i = 0; i < n; i++)
		values[i] = pmu__scale(v[i], enabled, running);
}

/*
 * One read(2) of the set's only group, straight into the events: as lean as
 * a raw read. Fields are loaded after the call so that few registers live
 * across it. 0, or -1 when the read came short (read_slow() then says why).
 */
static inline int group_read(struct pmu_set *set)
{
	return read(set->group_fd, set->group_buf, set->group_size) == (ssize_t)set->group_size ? 0 : -1;
}


static __attribute__((noinline)) int read_group(struct pmu_set *set, uint64_t *values)
{
	const uint64_t *b, *v;
	uint32_t i, n;

	if (unlikely(group_read(set)))
		return read_slow(set, values, NULL);
	b = set->group_buf;
	v = group_values(b, set->group_n);
	n = set->group_n;
	if (likely(b[1] == b[2])) {
		for (i = 0; i < n; i++)
			values[i] = v[i];
	} else {
		scale_group(values, v, n, b[1], b[2]);
	}
	return 0;
}

static __attribute__((noinline)) int read_group_full(struct pmu_set *set, struct pmu_reading *out)
{
	const uint64_t *b, *v;
	uint32_t i;

	if (unlikely(group_read(set)))
		return read_slow(set, NULL, out);
	b = set->group_buf;
	v = group_values(b, set->group_n);
	for (i = 0; i < set->group_n; i++)
		out[i] = (struct pmu_reading){ v[i], b[1], b[2] };
	return 0;
}

/*
 * The hot path: no call, no stack frame, one user-space read per counter;
 * else one read(2) of the group. group_n and direct are 0 in a forked child
 * (the page is wiped): read_scaled() says so.
 */
PMU_API int pmu_read(struct pmu_set *set, uint64_t *values)
{
	struct perf_event_mmap_page *const *page;
	struct pmu__page_value v;
	uint64_t *out = values;
	uint32_t n;

	if (unlikely(!set || !values))
		goto other;
	n = set->direct;
	if (unlikely(!n)) {
		if (likely(set->group_n))
			return read_group(set, values);
		goto other;
	}
	page = set->page;
	do {
		if (unlikely(pmu__read_page(*page++, PMU_READ_FAST, pmu__arch_rdpmc, pmu__arch_clock, &v)))
			goto other;
		*out++ = v.count;
	} while (--n);
	return 0;
other:
	return read_scaled(set, values, NULL);
}

PMU_API int pmu_read_full(struct pmu_set *set, struct pmu_reading *out)
{
	if (!set || !out)
		return pmu__err(-EINVAL, "pmu_read_full: %s is NULL", set ? "out" : "the set");
	if (set->group_n && !set->direct)
		return read_group_full(set, out);
	return read_scaled(set, NULL, out);
}

PMU_API int pmu_user_read(const struct pmu_set *set, unsigned i, const char **why)
{
	const struct pmu__cold *c;
	const char *w = NULL;
	unsigned k;

	if (why)
		*why = "";
	if (!set)
		return pmu__err(-EINVAL, "pmu_user_read: the set is NULL");
	c = cold(set);
	if (i >= c->nev)
		return pmu__err(-EINVAL, "pmu_user_read: event %u out of range (the set has %u)", i, c->nev);
	if (set->alive != PMU_ALIVE)
		w = "the set belongs to the parent process";
	for (k = 0; !w && k < c->nctr; k++) {
		if (c->ctr[k].event != i)
			continue;
		if (c->ctr[k].why)
			w = c->ctr[k].why;
		else if (!set->page[k])
			w = "the event's page is not mapped";
		else if (!PMU_LD(set->page[k], index))
			w = "the event is not on a hardware counter now (disabled, or multiplexed out)";
	}
	for (k = 0; !w && !set->direct && k < c->nctr; k++)
		if (c->ctr[k].why || !set->page[k])
			w = "another event of the set needs read(2), which reads the whole group";
	if (!w && !set->direct)
		w = c->nctr != c->nev ? "the event counts on several PMUs, whose counters read(2) sums" :
		    "events of several hardware PMUs interleave in the list (name each PMU's events "
		    "together to read them from user space)";
	if (why)
		*why = w ? w : "read with a user-space instruction (" PMU_ARCH_NAME ")";
	return !w;
}

unsigned pmu__counters(const struct pmu_set *set)
{
	return set ? cold(set)->nctr : 0;
}

int pmu__counter(const struct pmu_set *set, unsigned i, int *fd,
		 const struct perf_event_mmap_page **page, unsigned *event)
{
	if (!set || i >= cold(set)->nctr)
		return -EINVAL;
	if (fd)
		*fd = cold(set)->ctr[i].fd;
	if (page)
		*page = set->page[i];
	if (event)
		*event = cold(set)->ctr[i].event;
	return 0;
}
