/* SPDX-License-Identifier: MIT */
/*
 * Intel's topdown metric events (Ice Lake and later), as the kernel serves
 * them (arch/x86/events/intel/core.c, tools/perf/Documentation/topdown.txt):
 * slots is fixed counter 3 and must lead a group with PERF_FORMAT_GROUP;
 * each metric event is a byte of the PERF_METRICS register, its fraction of
 * 0xff of slots. Their pages' indexes are RDPMC_FIXED|3 + 1 and RDPMC_METRIC
 * + 1, and a page's offset does not complete the register into a count: the
 * kernel's value of metric i is slots * byte_i / 0xff, and each read(2) (and
 * reset) adds it to the count and clears both registers, while a context
 * switch may save and restore them or clear them (the leader's period decides).
 *
 * So the user-space decode counts from the group's last read(2): while no
 * page of the group changed since (no context switch, reset or enable, which
 * all publish a page update), slots = base + register and metric i = base +
 * register * byte_i / 0xff, base being what that read(2) gave. Otherwise the
 * read is a read(2), the new base. None of this is inline: the set is never
 * direct, its topdown events have no inline page; read.c's read_topdown()
 * takes the decode or the read(2).
 */
#include <stdio.h>
#include <string.h>

#include "counters/set_ops.h"
#include "events/sysfs.h"
#include "counters/readpage.h"
#include "counters/arch.h"

#define TD_SLOTS_IDX ((1u << 30 | 3) + 1)	/* the pages' index: INTEL_PMC_FIXED_RDPMC_BASE | 3, + 1 */
#define TD_METRIC_IDX ((1u << 29) + 1)		/* INTEL_PMC_FIXED_RDPMC_METRICS + 1 */

unsigned pmu__topdown_kind(const struct pmu__attr *a)
{
#ifdef __x86_64__
	uint64_t cfg = a->attr.config;
	char path[256];
	unsigned kind;

	if (a->attr.type != PERF_TYPE_RAW && strcmp(a->pmu, "cpu") && strcmp(a->pmu, "cpu_core"))
		return 0;
	if (cfg == 0x0400)
		kind = PMU_TD_SLOTS;
	else if ((cfg & ~0x0700ull) == 0x8000)
		kind = PMU_TD_METRIC + (unsigned)(cfg >> 8 & 7);
	else
		return 0;
	/* The kernel shows slots where it has the metrics (elsewhere 0x8000 may be another event). */
	if (pmu__path(path, sizeof(path), a->pmu, "events/slots") < 0 || !pmu__exists(path))
		return 0;
	return kind;
#else
	(void)a;
	return 0;
#endif
}

/* Counter from of the group, moved to its first place. */
static void lead(struct pmu__cold *c, const struct pmu__group *gr, unsigned from)
{
	struct pmu__perf_counter k = c->ctr[from];
	struct pmu__attr a = c->attr[from];

	memmove(&c->ctr[gr->first + 1], &c->ctr[gr->first], (from - gr->first) * sizeof(k));
	memmove(&c->attr[gr->first + 1], &c->attr[gr->first], (from - gr->first) * sizeof(a));
	c->ctr[gr->first] = k;
	c->attr[gr->first] = a;
}

int pmu__topdown_plan(struct pmu__cold *c, unsigned flags)
{
	unsigned g, k;

	c->ntd = 0;
	for (k = 0; k < c->nctr; k++)
		c->ctr[k].td = pmu__topdown_kind(&c->attr[k]);
	for (g = 0; g < c->ngroups; g++) {
		struct pmu__group *gr = &c->grp[g];
		unsigned end = gr->first + gr->n, metric = end, slots = end;

		for (k = gr->first; k < end; k++) {
			if (c->ctr[k].td >= PMU_TD_METRIC && metric == end)
				metric = k;
			if (c->ctr[k].td == PMU_TD_SLOTS && slots == end)
				slots = k;
		}
		if (metric == end) {	/* slots without metric events: an ordinary counter */
			for (k = gr->first; k < end; k++)
				c->ctr[k].td = 0;
			continue;
		}
		if (slots == end) {
			const char *name = c->names[c->ctr[metric].event];
			struct pmu__shown b;

			return pmu__err(-EINVAL, "%s: a topdown metric event is a fraction of slots, which must "
					"lead its group%s", pmu__show(&b, name, strlen(name)),
					(flags & PMU_NO_GROUP) ? ", and PMU_NO_GROUP puts each event alone" :
					": name the slots event of its PMU with it (slots,...)");
		}
		lead(c, gr, slots);
		gr->td = true;
		c->ntd++;
	}
	return 0;
}

void pmu__topdown_settle(struct pmu_set *set)
{
	struct pmu__cold *c = pmu__cold(set);

	set->direct = 0;
	for (unsigned k = 0; k < c->nctr; k++)
		if (c->ctr[k].td)
			set->ev[c->ctr[k].event].page = NULL;
	for (unsigned g = 0; g < c->ngroups; g++)
		c->grp[g].td_valid = false;
	set->topdown = 1;
}

void pmu__topdown_mark(struct pmu__cold *c, struct pmu__group *gr)
{
	gr->td_valid = false;
	for (unsigned k = gr->first; k < gr->first + gr->n; k++)
		if (c->ctr[k].td && c->ctr[k].page)
			c->ctr[k].td_seq = pmu__page_state(c->ctr[k].page).seq;
}

/* A base only when no page changed during the read(2): a switch after its reset would be missed. */
void pmu__topdown_noted(struct pmu__cold *c, struct pmu__group *gr, const struct pmu_reading *rd)
{
	unsigned k;

	for (k = gr->first; k < gr->first + gr->n; k++) {
		const struct pmu__perf_counter *e = &c->ctr[k];

		if (e->td && (!e->page || pmu__page_state(e->page).seq != e->td_seq))
			return;
	}
	for (k = gr->first; k < gr->first + gr->n; k++)
		c->ctr[k].td_base = rd[k].value;
	gr->td_raw = 0;
	gr->td_valid = true;
}

/* Why group gr's topdown events are not decoded now, or NULL. */
static const char *group_blocker(const struct pmu__cold *c, const struct pmu__group *gr)
{
	const struct perf_event_mmap_page *lpc = c->ctr[gr->first].page;

	if (!gr->td_valid)
		return "the topdown decode counts from the group's last read(2), which resets slots and the "
		       "metrics: the next read is one (none since the counters started, or a page changed "
		       "during it)";
	for (unsigned k = gr->first; k < gr->first + gr->n; k++) {
		const struct pmu__perf_counter *e = &c->ctr[k];
		uint32_t want = e->td == PMU_TD_SLOTS && k == gr->first ? TD_SLOTS_IDX : TD_METRIC_IDX;
		struct pmu_inl_value v;

		if (!e->td)
			continue;
		if (!e->page)
			return "a page of the topdown group is not mapped";
		pmu_inl_read(e->page, pmu_inl_rdpmc, pmu__arch_clock, 0, &v);
		if (v.seq != e->td_seq)
			return "the topdown group's pages changed since its last read(2) (a context switch, a "
			       "reset, an enable): the next read is a read(2), from which the decode counts again";
		if (v.idx != want || !(v.caps & PMU_CAP_RDPMC) || (e->td == PMU_TD_SLOTS && k != gr->first))
			return "the topdown events are not on fixed counter 3 and the metrics register now "
			       "(their pages' index is not RDPMC_FIXED|3 + 1 and RDPMC_METRIC + 1)";
	}
	if (pmu__page_multiplexed(lpc))
		return "the topdown group was multiplexed: read(2) gives its scaled counts";
	if (pmu_inl_width_shift(lpc->pmc_width) >= 64)	/* the counter's, fixed (readpage.h) */
		return "the slots page gives no valid counter width";
	return NULL;
}

/* Why counter e of group gr is not read from user space now, or NULL. */
static const char *counter_blocker(const struct pmu__cold *c, const struct pmu__group *gr,
				   const struct pmu__perf_counter *e)
{
	if (e->why)
		return e->why;
	if (!e->page)
		return "the event's page is not mapped";
	if (gr->td && (e->td || pmu__page_state(e->page).idx))
		return group_blocker(c, gr);
	if (!pmu__page_state(e->page).idx)
		return "the event is not on a hardware counter now (disabled, or multiplexed out)";
	return NULL;
}

int pmu__topdown_user_read(const struct pmu_set *set, unsigned i, const char **why)
{
	const struct pmu__cold *c = pmu__cold(set);
	const char *w = NULL, *other = NULL;
	bool td = false;

	for (unsigned g = 0; g < c->ngroups; g++) {
		const struct pmu__group *gr = &c->grp[g];

		for (unsigned k = gr->first; k < gr->first + gr->n; k++) {
			const struct pmu__perf_counter *e = &c->ctr[k];
			const char *kw = counter_blocker(c, gr, e);

			if (e->event == i) {
				td |= e->td != 0;
				w = w ? w : kw;
			} else if (kw) {
				other = "another event of the set needs read(2) now, which reads every group of a "
					"set with topdown events";
			}
		}
	}
	w = w ? w : other;
	if (why)
		*why = w ? w : td ? "read with user-space instructions (" PMU_ARCH_NAME "): the topdown decode "
				    "of slots and PERF_METRICS (rdpmc of fixed counter 3 and the metrics register), "
				    "counted from the group's last read(2)" :
		       "read with a user-space instruction (" PMU_ARCH_NAME ")";
	return !w;
}

#if PMU_INL_USER_READ && defined(__x86_64__)
/* slots * byte / 0xff in 128 bits, as the kernel's mul_u64_u32_div(). */
static uint64_t mul_div(uint64_t a, uint32_t mul, uint32_t div)
{
	return (uint64_t)((unsigned __int128)a * mul / div);
}

/* A page of the group that is what it was at the read(2), a metric event's page on the metrics register. */
static bool held(const struct pmu__perf_counter *e)
{
	struct pmu_inl_value v;

	if (!e->page || e->td == PMU_TD_SLOTS)
		return false;
	pmu_inl_read(e->page, pmu_inl_rdpmc, pmu__arch_clock, 0, &v);
	return v.seq == e->td_seq && v.idx == TD_METRIC_IDX && (v.caps & PMU_CAP_RDPMC);
}

/* Group gr decoded into rd (per counter), or 1 when its pages cannot answer (a read(2) then does). */
static int decode(struct pmu__cold *c, struct pmu__group *gr, struct pmu_reading *rd, bool times)
{
	const struct pmu__perf_counter *s = &c->ctr[gr->first];
	const struct perf_event_mmap_page *pc = s->page;
	/* Multiplexed: read(2) scales it. */
	unsigned mode = PMU_INL_COUNT | PMU_INL_CAP | PMU_INL_TIMES | (times ? PMU_INL_NOW : 0);
	struct pmu_inl_value sv;
	uint64_t raw, met;
	unsigned k;

	if (!gr->td_valid || !pc)
		return 1;
	for (k = gr->first + 1; k < gr->first + gr->n; k++)
		if (c->ctr[k].td && !held(&c->ctr[k]))
			return 1;
	if (pmu_inl_read(pc, pmu_inl_rdpmc, pmu__arch_clock, mode, &sv) || sv.seq != s->td_seq ||
	    sv.idx != TD_SLOTS_IDX)
		return 1;
	raw = sv.raw;
	met = pmu_inl_rdpmc(TD_METRIC_IDX);
	/* Slots going back: the registers were cleared with no page update (a PERF_METRICS overflow). */
	if (!pmu__page_unchanged(pc, sv.seq) || raw < gr->td_raw)
		return 1;
	gr->td_raw = raw;
	for (k = gr->first; k < gr->first + gr->n; k++) {
		const struct pmu__perf_counter *e = &c->ctr[k];
		struct pmu__page_value v;
		uint64_t x;

		if (!e->td) {	/* another event of the group: its own page */
			if (!e->page || pmu__read_page(e->page, times ? PMU_READ_TIMES : PMU_READ_COUNT,
						       pmu_inl_rdpmc, pmu__arch_clock, &v))
				return 1;
			rd[k] = (struct pmu_reading){ v.count, v.enabled, v.running };
			continue;
		}
		if (e->td == PMU_TD_SLOTS)
			x = e->td_base + raw;
		else
			x = e->td_base + mul_div(raw, (uint32_t)(met >> 8 * (e->td - PMU_TD_METRIC) & 0xff), 0xff);
		rd[k] = (struct pmu_reading){ x, sv.enabled, sv.running };
	}
	return 0;
}

int pmu__topdown_user_values(struct pmu__cold *c, struct pmu_reading *rd, bool times)
{
	for (unsigned g = 0; g < c->ngroups; g++) {
		struct pmu__group *gr = &c->grp[g];

		if (gr->td) {
			if (decode(c, gr, rd, times))
				return 1;
			continue;
		}
		for (unsigned k = gr->first; k < gr->first + gr->n; k++) {
			struct pmu__page_value v;

			if (!c->ctr[k].page || pmu__read_page(c->ctr[k].page, times ? PMU_READ_TIMES : PMU_READ_COUNT,
							      pmu_inl_rdpmc, pmu__arch_clock, &v))
				return 1;
			rd[k] = (struct pmu_reading){ v.count, v.enabled, v.running };
		}
	}
	return 0;
}
#else
int pmu__topdown_user_values(struct pmu__cold *c, struct pmu_reading *rd, bool times)
{
	(void)c;
	(void)rd;
	(void)times;
	return 1;
}
#endif
