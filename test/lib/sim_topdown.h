/* SPDX-License-Identifier: MIT */
/*
 * A simulated kernel for x86_topdown_emu: Linux 6.1's topdown code
 * (arch/x86/events/intel/core.c) for one group, slots leading metric events,
 * on x86_emu.h's pages (event e's is emu_wpage[e]).
 *  - a metric event's value is slots * byte_i of PERF_METRICS / 0xff
 *    (icl_get_metrics_event_value(), mul_u64_u32_div());
 *  - a fold (intel_update_topdown_event()) adds to each count its value less
 *    the value of the registers saved at the last stop, where larger; a read(2)
 *    or reset then clears both registers and the saved ones (no page update), a
 *    stop saves them;
 *  - at schedule-in (icl_set_topdown_event_period()) the registers are restored
 *    from the saved ones (RESTORE: the leader's period_left not at its start)
 *    or cleared (ZERO), and the pages published: index RDPMC_FIXED|3 + 1 for
 *    slots and RDPMC_METRIC + 1 for the metric events, offset the count
 *    (prev_count is 0), the times;
 *  - a task's events off the CPU (switched out, disabled) count no time.
 * The clock is sim_kernel.h's (struct sk, its clock fields only). The
 * events are opened as msr/tsc/ events in their place, which count nothing
 * the simulation does not say.
 */
#ifndef PMU_SIM_TOPDOWN_H
#define PMU_SIM_TOPDOWN_H

#include <sys/ioctl.h>
#include "sim_kernel.h"
#include "x86_emu.h"

#define SLOTS_IDX ((1u << 30 | 3) + 1)
#define METRIC_IDX ((1u << 29) + 1)
#define MAXEV 10
#define KIND_SLOTS 1
#define KIND_METRIC 2	/* + i */

enum model { RESTORE, ZERO };	/* what schedule-in does with the saved registers */

static struct {
	unsigned nev;
	unsigned kind[MAXEV];
	int fd[MAXEV];
	enum model model;
	int active, hide;
	uint64_t raw, met, saved_raw, saved_met;
	uint64_t count[MAXEV];
	uint64_t base[MAXEV];		/* the counts of the last read(2) */
	uint32_t lock[MAXEV];
	struct sk C;			/* the clock and the group's times only */
	int msr_type;			/* the msr PMU, whose tsc event stands in */
	long switches, resets, bad;	/* bad: calls the simulation cannot answer */
} T;

static uint64_t value(unsigned e, uint64_t raw, uint64_t met)
{
	if (T.kind[e] == KIND_SLOTS)
		return raw;
	return (uint64_t)((unsigned __int128)raw * ((met >> 8 * (T.kind[e] - KIND_METRIC)) & 0xff) / 0xff);
}

/* __icl_update_topdown_event(): what a fold adds to event e. */
static uint64_t fold_delta(unsigned e)
{
	uint64_t d = value(e, T.raw, T.met), last = T.saved_raw ? value(e, T.saved_raw, T.saved_met) : 0;

	return T.raw && T.active && d > last ? d - last : 0;
}

/* What read(2) would return for event e now. */
static uint64_t truth(unsigned e)
{
	return T.count[e] + fold_delta(e);
}

/* intel_update_topdown_event(): fold, then clear (a read, a reset) or save (a stop). */
static void fold(int save)
{
	if (!T.active || !T.raw)
		return;
	for (unsigned e = 0; e < T.nev; e++)
		T.count[e] += fold_delta(e);
	if (save) {
		T.saved_raw = T.raw;
		T.saved_met = T.met;
	} else {
		T.raw = T.met = T.saved_raw = T.saved_met = 0;
	}
}

/* The group's times up to now: a task's events off the CPU (or disabled) count no time at all. */
static void times_now(void)
{
	if (T.active)
		sk_truth_times(&T.C, T.C.clk, &T.C.en, &T.C.run);
	T.C.c_base = T.C.clk;
}

static void times(uint64_t *en, uint64_t *run)
{
	if (T.active) {
		sk_truth_times(&T.C, T.C.clk, en, run);
	} else {
		*en = T.C.en;
		*run = T.C.run;
	}
}

/* perf_event_update_userpage() of every event: index, offset = count (prev_count is 0), times. */
static void publish(void)
{
	times_now();
	for (unsigned e = 0; e < T.nev; e++) {
		struct perf_event_mmap_page *pg = emu_wpage[e];
		uint32_t idx = T.active && !T.hide ? T.kind[e] == KIND_SLOTS ? SLOTS_IDX : METRIC_IDX : 0;

		pg->lock = ++T.lock[e];
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		pg->index = idx;
		pg->offset = (int64_t)T.count[e];
		pg->pmc_width = 48;
		pg->capabilities = 1ull << 1 | 1ull << 2 | 1ull << 3 | 1ull << 4;
		pg->time_enabled = T.C.en;
		pg->time_running = T.C.run;
		pg->time_mult = T.C.mult;
		pg->time_shift = T.C.shift;
		pg->time_offset = sk_time_offset(&T.C);
		pg->time_zero = sk_time_zero(&T.C);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		pg->lock = ++T.lock[e];
	}
}

/* Off the PMU (fold and save), then on it again as the model says, the pages published. */
static void sched_out(void)
{
	fold(1);
	times_now();
	T.active = 0;
	times_now();
}

static void sched_in(void)
{
	if (T.model == ZERO) {
		T.raw = T.met = T.saved_raw = T.saved_met = 0;
	} else {
		T.raw = T.saved_raw;
		T.met = T.saved_met;
	}
	times_now();
	T.active = 1;
	times_now();
	publish();
}

static void context_switch(void)
{
	sched_out();
	T.C.clk += 5000;
	sched_in();
	T.switches++;
}

/* slots events counted, the metrics register's fractions: L1 summing to 0xff, each L2 within its L1. */
static void run_for(uint64_t slots, const uint8_t f[8])
{
	uint64_t m = 0;

	for (unsigned i = 0; i < 8; i++)
		m |= (uint64_t)f[i] << 8 * i;
	if (T.active) {
		T.raw = (T.raw + slots) & mask_of(48);
		T.met = m;
	}
	T.C.clk += slots / 4 + 1;
}

static void random_fractions(uint8_t f[8])
{
	unsigned a = (unsigned)(rnd() % 256), b = (unsigned)(rnd() % (256 - a)), c = (unsigned)(rnd() % (256 - a - b));

	f[0] = (uint8_t)a;
	f[1] = (uint8_t)b;
	f[2] = (uint8_t)c;
	f[3] = (uint8_t)(255 - a - b - c);
	for (unsigned i = 4; i < 8; i++)
		f[i] = (uint8_t)(rnd() % (f[i - 4] + 1u));
}

static unsigned kind_of(const struct perf_event_attr *at)
{
	if (at->type != PERF_TYPE_RAW && at->type != 4)	/* the fixtures' cpu PMU */
		return 0;
	if (at->config == 0x400)
		return KIND_SLOTS;
	if ((at->config & ~0x700ull) == 0x8000)
		return KIND_METRIC + (unsigned)(at->config >> 8 & 7);
	return 0;
}

/* One group to be opened: no event yet, on the CPU, counts 0, a 2.5 GHz TSC ten days after boot. */
static void td_sim_init(enum model model)
{
	memset(&T.count, 0, sizeof(T.count));
	T.nev = 0;
	T.model = model;
	T.active = 1;
	T.hide = 0;
	T.raw = T.met = T.saved_raw = T.saved_met = 0;
	T.switches = T.resets = T.bad = 0;
	T.C.mult = 1717986918;
	T.C.shift = 32;
	T.C.clk = 2160000000000000ull;
	T.C.cyc2ns_off = 123456789;
	T.C.c_base = T.C.clk;
	T.C.en = T.C.run = 0;
	T.C.state = SK_ON;
}

/* ---- its system calls: this program's syscall() (emu_open_hook) and ioctl() (emu_ioctl_hook) ---- */

/* perf_event_open of a topdown event: the kernel's rules, then a msr/tsc/ event in its place. */
static long td_open(struct perf_event_attr *at, long pid, long cpu, long group, long flags)
{
	struct perf_event_attr m = *at;
	unsigned kind = kind_of(at);
	long r;

	if (!kind || T.nev == MAXEV) {
		T.bad++;
		return -EINVAL;
	}
	if (kind >= KIND_METRIC && (group < 0 || !T.nev || group != T.fd[0] || T.kind[0] != KIND_SLOTS ||
				    !(at->read_format & PERF_FORMAT_GROUP)))
		return -EINVAL;	/* intel_pmu_hw_config(): the metric events need a slots leader */
	m.type = (uint32_t)T.msr_type;
	m.config = 0;
	m.exclude_user = m.exclude_kernel = m.exclude_hv = 0;
	r = emu_perf_open(&m, pid, cpu, group, flags);
	if (r >= 0) {
		T.kind[T.nev] = kind;
		T.fd[T.nev++] = (int)r;
	}
	return r;
}

static int td_fd(int fd)
{
	for (unsigned e = 0; e < T.nev; e++)
		if (T.fd[e] == fd)
			return (int)e;
	return -1;
}

/* The library's disable, reset (with PERF_IOC_FLAG_GROUP) and enable of the group (emu_ioctl_hook). */
static void td_ioctl(int fd, unsigned long req)
{
	if (td_fd(fd) < 0)
		return;
	if (req == PERF_EVENT_IOC_DISABLE && T.active) {
		sched_out();
		publish();
	} else if (req == PERF_EVENT_IOC_ENABLE && !T.active) {
		sched_in();
	} else if (req == PERF_EVENT_IOC_RESET) {
		fold(0);	/* perf_event_read() of an active event, then count = 0 */
		memset(T.count, 0, sizeof(T.count));
		publish();
		T.resets++;
	}
}

#endif
