/* SPDX-License-Identifier: MIT */
/*
 * Why a counter takes the read path it takes: which events, sets and pages
 * may be read from user space, and the reason when not (pmu_user_read()).
 * The architecture's rules come from arch.h; the files they name are read
 * by sysfs.c. (pmu check's table of that policy is the tool's: policy.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counters/set_ops.h"
#include "events/sysfs.h"
#include "counters/readpage.h"
#include "counters/arch.h"

/* Software, tracepoint and breakpoint events: the kernel keeps no counter for them. */
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

bool pmu__type_user_readable(const struct pmu__attr *a)
{
	return !type_blocker(a);
}

bool pmu__event_user_readable(const struct pmu__attr *a)
{
	return !type_blocker(a) && !PMU_ARCH_EVENT_NO_USER_READ(&a->attr);
}

const char *pmu__event_blocker(const struct pmu__attr *a)
{
	const char *w = type_blocker(a);

	if (!w && PMU_ARCH_EVENT_NO_USER_READ(&a->attr))
		w = PMU_ARCH_EVENT_WHY;
	return w;
}

const char *pmu__user_read_blocker(struct pmu__perf_counter *k, const struct perf_event_mmap_page *pc,
				   const struct pmu__attr *a)
{
	struct pmu_inl_value st = pmu__page_state(pc);
	bool cap = st.caps & PMU_CAP_RDPMC;

#ifdef PMU_ARCH_USER_SYSCTL
	/* arm64 shows the sysctl at 0 as index 0, riscv as cap_user_rdpmc 0 */
	if (!cap || !st.idx) {
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
	/*
	 * The readers' rule (pmu/inline.h): no width, no user-space read.
	 * Checked here once for pmu_read(), which then trusts it as it trusts
	 * cap_user_rdpmc; while the event is off its counter (index 0) the
	 * width is not looked at, by the readers either.
	 */
	if (cap && st.idx && pmu_inl_width_shift(pc->pmc_width) >= 64) {	/* the counter's, fixed (readpage.h) */
		snprintf(k->why_buf, sizeof(k->why_buf), "the page gives no valid counter width (pmc_width "
			 "%u, with cap_user_rdpmc 1)", (unsigned)pc->pmc_width);
		return k->why_buf;
	}
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
	if (!PMU_INL_USER_READ)
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
	else if (set->topdown)
		return pmu__topdown_user_read(set, i, why);
	for (k = 0; !w && k < c->nctr; k++)
		if (c->ctr[k].event == i && c->ctr[k].emu.on) {	/* a load of the plugin's count: no system call */
			if (why)
				*why = c->ctr[k].why;
			return 1;
		}
	for (k = 0; !w && k < c->nctr; k++) {
		if (c->ctr[k].event != i)
			continue;
		if (c->ctr[k].why)
			w = c->ctr[k].why;
		else if (!c->ctr[k].page)
			w = "the event's page is not mapped";
		else if (!pmu__page_state(c->ctr[k].page).idx)
			w = "the event is not on a hardware counter now (disabled, or multiplexed out)";
	}
	for (k = 0; !w && !set->direct && k < c->nctr; k++)
		if (c->ctr[k].why || !c->ctr[k].page)
			w = "another event of the set needs read(2), which reads the whole group";
	/* pmu_read() reads every event from user space or none */
	for (k = 0; !w && set->direct && k < c->nctr; k++)
		if (!pmu__page_state(c->ctr[k].page).idx)
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
