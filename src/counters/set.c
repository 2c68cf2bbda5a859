/* SPDX-License-Identifier: MIT */
/*
 * Counter sets' lifecycle: open the counters plan.c planned (with arm64's
 * 64-bit counters where the PMU has them), enable, disable, reset, close.
 * The layout is in set.h; reads are in read.c, reasons in why.c and open_error.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/set_ops.h"
#include "events/sysfs.h"
#include "counters/arch.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/*
 * Whether fd is still the perf descriptor the set opened: a program that
 * closed it (closing every descriptor it inherited, say) may have a file of
 * its own under that number now, which the library must not close.
 */
static bool is_ours(const struct pmu__cold *c, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == c->fd_dev && st.st_ino == c->fd_ino;
}

static void close_counters(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);
	unsigned i;

	set->direct = 0;
	set->group_n = 0;
	set->emu1 = NULL;
	pmu__set_settle_timed(set);
	for (i = 0; c->ctr && i < c->nctr; i++) {
		/* A forked child has no copy of the pages: unmapping could hit its own mappings. */
		if (set->alive == PMU_ALIVE && c->ctr[i].page)
			munmap(c->ctr[i].page, pmu__page_size());
		c->ctr[i].page = NULL;
		if (c->ctr[i].fd >= 0 && is_ours(c, c->ctr[i].fd))
			close(c->ctr[i].fd);
		c->ctr[i].fd = -1;
	}
}

static void free_set(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);
	unsigned i;

	close_counters(set);
	if (c->names)
		for (i = 0; i < c->nev; i++)
			free(c->names[i]);
	free(c->names);
	free(c->ctr);
	free(c->grp);
	free(c->attr);
	munmap(c, c->map_size);
}

/* Opening and closing run whole, a cancel deferred: one acting between two descriptors would leak the rest. */
PMU_API void pmu_close(struct pmu_set *set)
{
	int cs;

	if (!set)
		return;
	cs = pmu__nocancel();
	free_set(set);
	pmu__cancel_restore(cs);
}

#ifdef PMU_ARCH_LONG_PROBE_CONFIG
/*
 * Whether the PMU's event counters are 64-bit. The arm64 kernel takes a
 * 64-bit user-readable cycles event even where only the cycle counter is
 * 64-bit (Cortex-A72), and then cannot schedule a second one, or starves
 * later groups: ask once, with an event that needs an event counter, which
 * such a PMU refuses with EOPNOTSUPP.
 */
static bool long_event_counters(const struct pmu__attr *a)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct { char pmu[PMU_PMU_NAME]; bool ok; } known[PMU_MAX_PMUS];
	static unsigned nknown;
	struct perf_event_attr p = { .size = sizeof(p), .config = PMU_ARCH_LONG_PROBE_CONFIG,
				     .config1 = a->attr.config1, .disabled = 1, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	bool ok = true;
	unsigned i;
	int fd, cs = pmu__lock(&lock);

	for (i = 0; i < nknown && strcmp(known[i].pmu, a->pmu); i++)
		;
	if (i < nknown) {
		ok = known[i].ok;
	} else {
		p.type = (uint32_t)pmu__pmu_type(a->pmu);
		fd = perf_event_open(&p, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ok = fd >= 0 || errno != EOPNOTSUPP;
		if (fd >= 0)
			close(fd);
		if (nknown < PMU_MAX_PMUS) {
			snprintf(known[nknown].pmu, sizeof(known[nknown].pmu), "%s", a->pmu);
			known[nknown++].ok = ok;
		}
	}
	pmu__unlock(&lock, cs);
	return ok;
}
#else
static bool long_event_counters(const struct pmu__attr *a)
{
	(void)a;
	return true;	/* no architecture here narrows its counters */
}
#endif

/*
 * Counter i's attributes, in group gr, for options o: disabled, inherit and
 * enable_on_exec as the set is opened (never for a counter of one CPU's
 * tasks, PMU_SOCKET_WIDE), the read format of its group.
 */
static void counter_attr(struct pmu__cold *c, unsigned i, const struct pmu__group *gr, const struct pmu_opts *o)
{
	struct perf_event_attr *at = &c->attr[i].attr;
	bool leader = i == gr->first, task = c->ctr[i].cpu < 0;

	/*
	 * An enabled leader makes the kernel check that the whole group fits
	 * the PMU (arm64 skips disabled leaders, and the group would then never
	 * count): the set is reset and started again once complete. A group of
	 * one has nothing to check: opened disabled, it never runs (its times
	 * stay 0) until pmu_enable().
	 */
	at->disabled = leader && ((task && (o->flags & PMU_ENABLE_ON_EXEC)) ||
				  ((o->flags & PMU_DISABLED) && gr->n == 1));
	at->inherit = task && (o->flags & PMU_INHERIT);
	at->enable_on_exec = leader && task && (o->flags & PMU_ENABLE_ON_EXEC);
	at->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (gr->n > 1)
		at->read_format |= PERF_FORMAT_GROUP;
	/* The kernel takes user access only for events tied to a task (arm64: EINVAL). */
	if (o->pid == -1 || !task)
		at->config1 &= ~c->attr[i].auto_user;
	if (c->ctr[i].auto_long && !long_event_counters(&c->attr[i])) {
		at->config1 &= ~c->ctr[i].auto_long;
		c->ctr[i].auto_long = 0;
	}
}

static int open_counters(struct pmu_set *set, const struct pmu_opts *o)
{
	struct pmu__cold *c = pmu__cold(set);
	const char *blocker = pmu__set_blocker(o);
	unsigned g, i;

	for (g = 0; g < c->ngroups; g++) {
		struct pmu__group *gr = &c->grp[g];

		for (i = gr->first; i < gr->first + gr->n; i++) {
			struct perf_event_attr *at = &c->attr[i].attr;
			bool leader = i == gr->first, task = c->ctr[i].cpu < 0;
			int fd;

			if (c->ctr[i].emu.on) {	/* no descriptor: emulated.c reads it */
				c->ctr[i].why = pmu__emu_why();
				continue;
			}
			counter_attr(c, i, gr, o);
			for (;;) {
				fd = perf_event_open(at, task ? o->pid : -1, task ? o->cpu : c->ctr[i].cpu,
						     leader ? -1 : gr->fd, PERF_FLAG_FD_CLOEXEC);
				if (fd >= 0 || errno != EOPNOTSUPP || !c->ctr[i].auto_long)
					break;
				/* The 64-bit counter the library asked for is not there: use 32 bits. */
				at->config1 &= ~c->ctr[i].auto_long;
				c->ctr[i].auto_long = 0;
			}
			if (fd < 0)
				return pmu__open_error(errno, c->names[c->ctr[i].event], &c->attr[i], gr->n,
						       task ? o->pid : -1, task ? o->cpu : c->ctr[i].cpu);
			c->ctr[i].fd = fd;
			if (!c->fd_ino) {	/* every perf descriptor is the one anonymous inode */
				struct stat st;

				if (fstat(fd, &st) == 0) {
					c->fd_dev = st.st_dev;
					c->fd_ino = st.st_ino;
				}
			}
			if (leader)
				gr->fd = fd;
			c->ctr[i].why = task ? pmu__event_blocker(&c->attr[i]) :
					"a socket-wide counter (every task on one CPU, PMU_SOCKET_WIDE): read(2)";
			if (!c->ctr[i].why)
				c->ctr[i].why = blocker;
			if (!c->ctr[i].why && !c->wiped)
				c->ctr[i].why = "the kernel lacks MADV_WIPEONFORK (Linux 4.14), which keeps "
						"the user-space read safe across fork";
			if (c->ctr[i].why)
				continue;
			c->ctr[i].page = mmap(NULL, pmu__page_size(), PROT_READ, MAP_SHARED, fd, 0);
			if (c->ctr[i].page == MAP_FAILED) {
				c->ctr[i].page = NULL;
				c->ctr[i].why = "the event's page could not be mapped";
			}
		}
	}
	pmu__plan_group_read(set);
	pmu__plan_event_reads(set);
	return 0;
}

/* In the hot pages after ev[nev]: each event's read(2). Reads keep their buffers in their own frames (read.c). */
static void hot_layout(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);

	set->evr_tab = (struct pmu__evread *)(void *)&set->ev[c->nev];
	for (unsigned i = 0; i < c->nev; i++)
		set->ev[i].set = set;
}

static int open_opts(struct pmu_set **setp, const char *events, const struct pmu_opts *opts)
{
	struct pmu_opts o = { .size = sizeof(o), .pid = 0, .cpu = -1 };
	struct pmu_set *set;
	struct pmu__cold *c;
	size_t ps = pmu__page_size(), hot = pmu__hot_size();
	int r;

	if (!setp)
		return pmu__err(-EINVAL, "pmu_open: the set pointer is NULL");
	*setp = NULL;
	if (!events)
		return pmu__err(-EINVAL, "pmu_open: the event list is NULL");
	if (opts) {
		/* 0: what 0.4 documented as "the whole struct", its struct: its fields, never more */
		r = pmu__check_size("pmu_open", "struct pmu_opts", opts, opts->size ? opts->size : PMU_OPTS_SIZE_0_1,
				    PMU_OPTS_SIZE_0_1, sizeof(o), 1);
		if (r < 0)
			return r;
		/* The unused field (0.4's padding) is never read: old callers may have left anything there. */
		memcpy(&o, opts, PMU_OPTS_SIZE_0_1);
		o.size = sizeof(o);
		if (o.flags & ~(unsigned)(PMU_INHERIT | PMU_ENABLE_ON_EXEC | PMU_NO_GROUP |
					  PMU_DISABLED | PMU_NO_USER_READ | PMU_ON_CPU | PMU_SOCKET_WIDE))
			return pmu__err(-EINVAL, "pmu_open: unknown flags 0x%x", o.flags);
		if (!(o.flags & PMU_ON_CPU))
			o.cpu = -1;
		else if (o.cpu < 0)
			return pmu__err(-EINVAL, "pmu_open: PMU_ON_CPU with cpu %d", o.cpu);
		if (o.pid == -1 && o.cpu < 0)
			return pmu__err(-EINVAL, "pmu_open: pid -1 (every task) needs PMU_ON_CPU and a cpu");
	}

	c = mmap(NULL, ps + hot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return pmu__err(-errno, "pmu_open: cannot allocate the set: %s", strerror(errno));
	set = (struct pmu_set *)((char *)c + ps);
	c->map_size = hot + ps;
	c->owner = getpid();
	c->wiped = madvise(set, hot, MADV_WIPEONFORK) == 0;
	set->alive = PMU_ALIVE;
	r = pmu__parse_events(c, events);
	if (r == 0)
		r = pmu__emu_plan(c, &o);
	if (r < 0)
		goto fail;
	r = pmu__plan_cpus(c, o.flags);
	if (r == 0)
		r = pmu__plan_groups(c, o.flags);
	if (r < 0)
		goto fail;
	hot_layout(set);
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

/* errno as it was on success: sysfs files and kernel features probed on the way may be absent. */
PMU_API int pmu_open_opts(struct pmu_set **set, const char *events, const struct pmu_opts *opts)
{
	int saved = errno, cs = pmu__nocancel(), r = open_opts(set, events, opts);

	pmu__cancel_restore(cs);
	if (r == 0)
		errno = saved;
	return r;
}

PMU_API int pmu_open(struct pmu_set **set, const char *events)
{
	return pmu_open_opts(set, events, NULL);
}

/* An emulated counter's group: itself. */
static void emu_ioctl(struct pmu__emu_ctr *e, unsigned long req)
{
	if (req == PERF_EVENT_IOC_ENABLE)
		pmu__emu_enable(e);
	else if (req == PERF_EVENT_IOC_DISABLE)
		pmu__emu_disable(e);
	else
		pmu__emu_reset(e);
}

static int ioctl_groups(struct pmu_set *set, unsigned long req, const char *what)
{
	struct pmu__cold *c;
	unsigned g;
	int r;

	if (!set)
		return pmu__err(-EINVAL, "%s: the set is NULL", what);
	r = pmu__check_owner(set, what);
	if (r < 0)
		return r;
	c = pmu__cold(set);
	/*
	 * Enabling and disabling the leader starts and stops its whole group;
	 * doing it to every member (PERF_IOC_FLAG_GROUP) leaves siblings off
	 * for good on some kernels. A reset must reach every member.
	 */
	for (g = 0; g < c->ngroups; g++)
		if (c->ctr[c->grp[g].first].emu.on) {
			emu_ioctl(&c->ctr[c->grp[g].first].emu, req);
			pmu__set_settle_emu(set);
		} else if (ioctl(c->grp[g].fd, req, req == PERF_EVENT_IOC_RESET ? PERF_IOC_FLAG_GROUP : 0) < 0) {
			const char *name = c->names[c->ctr[c->grp[g].first].event];
			struct pmu__shown b;
			int err = errno;

			return pmu__err(-err, "%s: %s: %s", what, pmu__show(&b, name, strlen(name)), strerror(err));
		}
	return 0;
}

PMU_API int pmu_enable(struct pmu_set *set)
{
	int r = ioctl_groups(set, PERF_EVENT_IOC_ENABLE, "pmu_enable");

	if (!r) {
		pmu__cold(set)->enabled = true;
		pmu__settle_read_paths(set);
	}
	return r;
}

PMU_API int pmu_disable(struct pmu_set *set)
{
	int r = ioctl_groups(set, PERF_EVENT_IOC_DISABLE, "pmu_disable");

	if (!r)
		pmu__cold(set)->enabled = false;
	return r;
}

/*
 * A reset of a running counter publishes a page whose offset the kernel
 * computed from the raw count zero-extended (its last update), while the
 * documented read sign-extends: with 32-bit counters (arm64 without long)
 * every read is then 2^32 short until the counter is next started, which
 * sign-extends again. So a running set is stopped around its reset: the
 * start gives every read path a consistent page at once.
 */
PMU_API int pmu_reset(struct pmu_set *set)
{
	bool running = set && pmu__cold(set)->enabled;
	int r;

	if (running && (r = ioctl_groups(set, PERF_EVENT_IOC_DISABLE, "pmu_reset")) < 0)
		return r;
	r = ioctl_groups(set, PERF_EVENT_IOC_RESET, "pmu_reset");
	if (running) {
		int e = ioctl_groups(set, PERF_EVENT_IOC_ENABLE, "pmu_reset");

		r = r < 0 ? r : e;
	}
	return r;
}

PMU_API unsigned pmu_count(const struct pmu_set *set)
{
	if (!set) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_count: the set is NULL");
		return 0;
	}
	return pmu__cold(set)->nev;
}

PMU_API const char *pmu_name(const struct pmu_set *set, unsigned i)
{
	if (!set) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_name: the set is NULL");
		return NULL;
	}
	if (i >= pmu__cold(set)->nev) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_name: event %u out of range (the set has %u)", i, pmu__cold(set)->nev);
		return NULL;
	}
	return pmu__cold(set)->names[i];
}

/* Event i's first counter: an event's counters are alike (one per CPU of a socket-wide event). */
static const struct pmu__perf_counter *first_ctr(const struct pmu__cold *c, unsigned i)
{
	unsigned k = 0;

	while (k + 1 < c->nctr && c->ctr[k].event != i)
		k++;
	return &c->ctr[k];
}

PMU_API const char *pmu_unit(const struct pmu_set *set, unsigned i, double *scale)
{
	const struct pmu__cold *c;

	if (!set || !scale || i >= pmu__cold(set)->nev) {
		errno = EINVAL;
		if (set && scale)
			pmu__err(-EINVAL, "pmu_unit: event %u out of range (the set has %u)", i, pmu__cold(set)->nev);
		else
			pmu__err(-EINVAL, "pmu_unit: the %s is NULL", set ? "scale pointer" : "set");
		return NULL;
	}
	c = pmu__cold(set);
	return pmu__attr_unit(&c->attr[first_ctr(c, i) - c->ctr], scale);
}

bool pmu__set_event_socket(const struct pmu_set *set, unsigned i)
{
	const struct pmu__cold *c = pmu__cold(set);

	return c->nctr && first_ctr(c, i)->event == i && first_ctr(c, i)->cpu >= 0;
}

bool pmu__set_event_emulated(const struct pmu_set *set, unsigned i)
{
	const struct pmu__cold *c = pmu__cold(set);

	return c->nctr && first_ctr(c, i)->event == i && first_ctr(c, i)->emu.on;
}

PMU_API const struct pmu_counter *pmu_counter(struct pmu_set *set, unsigned i)
{
	if (!set) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_counter: the set is NULL");
		return NULL;
	}
	if (i >= pmu__cold(set)->nev) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_counter: event %u out of range (the set has %u)", i, pmu__cold(set)->nev);
		return NULL;
	}
	return &set->ev[i];
}
