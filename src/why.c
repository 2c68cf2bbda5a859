/* SPDX-License-Identifier: MIT */
/*
 * Why: which read path each counter takes and the reason, why an open
 * failed, and the system policy behind both. The architecture's rules come
 * from arch.h; the files they name are read by sysfs.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "set.h"
#include "sysfs.h"
#include "readpage.h"
#include "arch.h"

const char *pmu__type_blocker(const struct pmu__attr *a)
{
	switch (a->attr.type) {
	case PERF_TYPE_SOFTWARE: return "software event";
	case PERF_TYPE_TRACEPOINT: return "tracepoint event";
	case PERF_TYPE_BREAKPOINT: return "breakpoint event";
	}
	if (!strcmp(a->pmu, "software") || !strcmp(a->pmu, "tracepoint") || !strcmp(a->pmu, "breakpoint"))
		return "software event";
	return PMU_ARCH_EVENT_BLOCKER(&a->attr);
}

static bool is_core_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/* The event counting user space only: "task-clock:k" as task-clock:u, "cpu/event=1/k" as cpu/event=1/u. */
static const char *user_only(char *buf, size_t size, const char *name)
{
	const char *slash = strrchr(name, '/');
	size_t n = pmu__mods_split(name, strlen(name), NULL);

	if (slash && memchr(name, '/', (size_t)(slash - name))) {
		snprintf(buf, size, "%.*su", (int)(slash + 1 - name), name);
		return buf;
	}
	snprintf(buf, size, "%.*s:u", (int)n, name);
	return buf;
}

int pmu__open_error(int err, const char *name, const struct pmu__attr *a, unsigned group_size, pid_t pid)
{
	bool hw = !pmu__type_blocker(a);
	struct pmu__shown b;
	char u[sizeof(b) + 2];
	long paranoid;

	name = pmu__show(&b, name, strlen(name));	/* as written, escaped */
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (is_core_type(a->attr.type) && !pmu__have_core_pmu())
			return pmu__err(-ENODEV, "%s: no hardware PMU on this machine (a virtual machine "
					"without a virtual PMU?)", name);
		return pmu__err(-err, "%s: the %s PMU does not support this event (%s)", name, a->pmu,
				strerror(err));
	case EACCES:
	case EPERM:
		/* the usual cause at Debian's and the kernel's defaults: the kernel is counted */
		if (!a->attr.exclude_kernel && pmu__sysctl("kernel.perf_event_paranoid", &paranoid) &&
		    paranoid >= 2) {
			if (is_core_type(a->attr.type) || a->attr.type == PERF_TYPE_SOFTWARE)
				return pmu__err(-err, "%s: permission denied: kernel.perf_event_paranoid is %ld, "
						"and counting the kernel needs CAP_PERFMON or paranoid <= 1 (%s "
						"counts user space only)", name, paranoid, user_only(u, sizeof(u), name));
			/* uncore, msr, tracepoints: most cannot leave the kernel out */
			return pmu__err(-err, "%s: permission denied: kernel.perf_event_paranoid is %ld, and "
					"events of the %s PMU count the kernel too, which needs CAP_PERFMON or "
					"paranoid <= 1", name, paranoid, a->pmu);
		}
		if (pid > 0)
			return pmu__err(-err, "%s: permission denied counting task %d (it must be yours "
					"and traceable, or you need CAP_PERFMON)", name, (int)pid);
		return pmu__err(-err, "%s: permission denied; kernel.perf_event_paranoid is %ld "
				"(counting the kernel needs CAP_PERFMON or paranoid <= 1; "
				"any counting needs paranoid <= 2)", name,
				pmu__sysctl("kernel.perf_event_paranoid", &paranoid) ? paranoid : -1);
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

const char *pmu__user_read_blocker(struct pmu__perf_counter *k, const struct perf_event_mmap_page *pc,
				   const struct pmu__attr *a)
{
	bool cap = PMU_LD(pc, capabilities) & PMU_CAP_RDPMC;

#ifdef PMU_ARCH_USER_SYSCTL
	/* arm64 shows the sysctl at 0 as index 0, riscv as cap_user_rdpmc 0 */
	if (!cap || !PMU_LD(pc, index)) {
		long v;
		bool known = pmu__sysctl(PMU_ARCH_USER_SYSCTL, &v);

		if (known && v == 0)
			return PMU_ARCH_USER_SYSCTL " is 0 (sysctl " PMU_ARCH_USER_SYSCTL "=1 allows "
			       "user-space reads)";
		if (known && v != 1 && !cap) {
			snprintf(k->why_buf, sizeof(k->why_buf), PMU_ARCH_USER_SYSCTL " is %ld: %s", v,
				 PMU_ARCH_USER_SYSCTL_MEANING(v));
			return k->why_buf;
		}
#ifdef PMU_ARCH_USER_SYSCTL_SINCE
		if (!known && !cap)
			return "this kernel has no " PMU_ARCH_USER_SYSCTL ": " PMU_ARCH_USER_SYSCTL_SINCE;
#endif
	}
#endif
	if (cap)
		return NULL;
#ifdef PMU_ARCH_RDPMC_FILE
	char path[160];

	if (pmu__pmu_number(a->pmu, PMU_ARCH_RDPMC_FILE, path, sizeof(path)) == 0) {
		snprintf(k->why_buf, sizeof(k->why_buf), PMU_ARCH_RDPMC_FILE_OFF ": %.120s is 0 (write 1 "
			 "to it to allow user-space reads)", path);
		return k->why_buf;
	}
#else
	(void)k;
	(void)a;
#endif
	return "the PMU does not allow user-space reads (cap_user_rdpmc is 0)";
}

const char *pmu__set_blocker(const struct pmu_opts *o)
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

PMU_API int pmu_user_read(const struct pmu_set *set, unsigned i, const char **why)
{
	const struct pmu__cold *c;
	const char *w = NULL;
	unsigned k;

	if (why)
		*why = "";
	if (!set)
		return pmu__err(-EINVAL, "pmu_user_read: the set is NULL");
	c = pmu__cold(set);
	if (i >= c->nev)
		return pmu__err(-EINVAL, "pmu_user_read: event %u out of range (the set has %u)", i, c->nev);
	if (set->alive != PMU_ALIVE)
		w = "the set belongs to the parent process";
	for (k = 0; !w && k < c->nctr; k++) {
		if (c->ctr[k].event != i)
			continue;
		if (c->ctr[k].why)
			w = c->ctr[k].why;
		else if (!c->ctr[k].page)
			w = "the event's page is not mapped";
		else if (!PMU_LD(c->ctr[k].page, index))
			w = "the event is not on a hardware counter now (disabled, or multiplexed out)";
	}
	for (k = 0; !w && !set->direct && k < c->nctr; k++)
		if (c->ctr[k].why || !c->ctr[k].page)
			w = "another event of the set needs read(2), which reads the whole group";
	/* pmu_read() reads every event from user space or none */
	for (k = 0; !w && set->direct && k < c->nctr; k++)
		if (!PMU_LD(c->ctr[k].page, index))
			w = "another event of the set is not on a hardware counter now: read(2) reads the "
			    "whole group";
	if (!w && !set->direct)
		w = c->nctr != c->nev ? "the event counts on several PMUs, whose counters read(2) sums" :
		    "events of several hardware PMUs interleave in the list (name each PMU's events "
		    "together to read them from user space)";
	if (why)
		*why = w ? w : "read with a user-space instruction (" PMU_ARCH_NAME ")";
	return !w;
}
