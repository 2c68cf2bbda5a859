/* SPDX-License-Identifier: MIT */
/* Generic, software and raw event names, modifiers, list splitting and bad input. */
#include <errno.h>
#include <string.h>

#include "events/event.h"
#include "events/spellings.h"
#include "test.h"

static const struct {
	const char *ev;
	uint32_t type;
	uint64_t config;
	int xu, xk, xh;
} good[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 1 },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 1 },
	{ "instructions", PERF_TYPE_HARDWARE, 1, 0, 1, 1 },
	{ "cache-references", PERF_TYPE_HARDWARE, 2, 0, 1, 1 },
	{ "cache-misses", PERF_TYPE_HARDWARE, 3, 0, 1, 1 },
	{ "branches", PERF_TYPE_HARDWARE, 4, 0, 1, 1 },
	{ "branch-instructions", PERF_TYPE_HARDWARE, 4, 0, 1, 1 },
	{ "branch-misses", PERF_TYPE_HARDWARE, 5, 0, 1, 1 },
	{ "bus-cycles", PERF_TYPE_HARDWARE, 6, 0, 1, 1 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, 7, 0, 1, 1 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, 8, 0, 1, 1 },
	{ "ref-cycles", PERF_TYPE_HARDWARE, 9, 0, 1, 1 },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, 0, 0, 1, 1 },
	{ "task-clock", PERF_TYPE_SOFTWARE, 1, 0, 1, 1 },
	{ "page-faults", PERF_TYPE_SOFTWARE, 2, 0, 1, 1 },
	{ "faults", PERF_TYPE_SOFTWARE, 2, 0, 1, 1 },
	{ "context-switches", PERF_TYPE_SOFTWARE, 3, 0, 0, 1 },	/* kernel-only events count the kernel */
	{ "cs", PERF_TYPE_SOFTWARE, 3, 0, 0, 1 },	/* kernel-only events count the kernel */
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, 4, 0, 0, 1 },	/* kernel-only events count the kernel */
	{ "migrations", PERF_TYPE_SOFTWARE, 4, 0, 0, 1 },	/* kernel-only events count the kernel */
	{ "minor-faults", PERF_TYPE_SOFTWARE, 5, 0, 1, 1 },
	{ "major-faults", PERF_TYPE_SOFTWARE, 6, 0, 1, 1 },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, 7, 0, 1, 1 },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, 8, 0, 1, 1 },
	{ "r3c", PERF_TYPE_RAW, 0x3c, 0, 1, 1 },
	{ "r01C2", PERF_TYPE_RAW, 0x1c2, 0, 1, 1 },
	{ "r0x1a", PERF_TYPE_RAW, 0x1a, 0, 1, 1 },
	{ "rffffffffffffffff", PERF_TYPE_RAW, ~0ull, 0, 1, 1 },
	{ "cycles:u", PERF_TYPE_HARDWARE, 0, 0, 1, 1 },
	{ "cycles:k", PERF_TYPE_HARDWARE, 0, 1, 0, 1 },
	{ "cycles:h", PERF_TYPE_HARDWARE, 0, 1, 1, 0 },
	{ "cycles:uk", PERF_TYPE_HARDWARE, 0, 0, 0, 1 },
	{ "cycles:ku", PERF_TYPE_HARDWARE, 0, 0, 0, 1 },
	{ "cycles:ukh", PERF_TYPE_HARDWARE, 0, 0, 0, 0 },
	{ "task-clock:k", PERF_TYPE_SOFTWARE, 1, 1, 0, 1 },
	{ "r1234:uh", PERF_TYPE_RAW, 0x1234, 0, 1, 0 },
};

static const struct {
	const char *ev;
	int err;
} bad[] = {
	{ "foo", -ENOENT },
	{ "cycle", -ENOENT },
	{ "Cycles2", -ENOENT },
	{ "r", -EINVAL },
	{ "r0x", -EINVAL },
	{ "r0X", -EINVAL },
	{ "r:u", -EINVAL },
	{ "r12345678123456789", -EINVAL },
	{ "cycles:", -EINVAL },
	{ "cycles:x", -EINVAL },
	{ "cycles:uz", -EINVAL },
	{ ":u", -EINVAL },
	{ "cycles:u:k", -EINVAL },
};

static void check_list(const char *list, int n_expect, int err_expect)
{
	const char *p = list, *tok;
	size_t len;
	int r, n = 0;

	while ((r = pmu__event_next(&p, &tok, &len)) > 0)
		n++;
	CHECK_MSG(r == err_expect && n == n_expect, "'%s': %d events, r=%d", list, n, r);
}

int main(void)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	char *big;

	setenv("PMU_SYSFS_DEVICES", "/nonexistent", 1);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int r = pmu_event_attr(good[i].ev, &a);

		CHECK_MSG(r == 0, "%s: %d %s", good[i].ev, r, pmu_errmsg());
		CHECK_EQ(a.type, good[i].type);
		CHECK_EQ(a.config, good[i].config);
		CHECK_MSG(a.exclude_user == good[i].xu && a.exclude_kernel == good[i].xk &&
			  a.exclude_hv == good[i].xh, "%s: exclude u%d k%d h%d", good[i].ev,
			  a.exclude_user, a.exclude_kernel, a.exclude_hv);
		CHECK_EQ(a.size, sizeof(a));
		CHECK_EQ(a.config1, 0);
		CHECK(!a.disabled && !a.inherit && !a.pinned && !a.sample_period);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = pmu_event_attr(bad[i].ev, &a);

		CHECK_MSG(r == bad[i].err, "%s: %d (%s)", bad[i].ev, r, pmu_errmsg());
		CHECK_MSG(strstr(pmu_errmsg(), bad[i].ev), "%s: message '%s'", bad[i].ev, pmu_errmsg());
	}
	/* the one modifier parser, as the resolver, the messages and the metrics use it */
	{
		static const struct { const char *s; size_t len; bool u, k, h; } split[] = {
			{ "cycles:uk", 6, 1, 1, 0 }, { "cpu/cycles/:h", 11, 0, 0, 1 }, { "sched:sched_switch", 18 },
			{ "sched:sched_switch:ukh", 18, 1, 1, 1 }, { "cycles:", 7 }, { "cycles:x", 8 },
			{ "cycles:uu", 6, 1, 0, 0 }, { "cycles", 6 }, { ":k", 0, 0, 1, 0 },
		};
		struct pmu__mods m;

		for (size_t i = 0; i < sizeof(split) / sizeof(split[0]); i++) {
			size_t n = pmu__mods_split(split[i].s, strlen(split[i].s), &m);

			CHECK_MSG(n == split[i].len && m.given == (n < strlen(split[i].s)) && m.u == split[i].u &&
				  m.k == split[i].k && m.h == split[i].h, "%s: %zu u%d k%d h%d", split[i].s, n, m.u,
				  m.k, m.h);
		}
		CHECK(pmu__mods_parse("kuh", 3, &m) == 1 && m.given && m.u && m.k && m.h);
		CHECK(pmu__mods_parse("", 0, &m) == 0 && !m.given);
		CHECK(pmu__mods_parse("up", 2, &m) == 0 && !m.given && !m.u);
		CHECK(pmu__metric_is("cycles:uk", pmu__metric_clocks) == 0);
		CHECK(pmu__metric_is("task-clock:uk", pmu__metric_clocks) == 1);
		CHECK(pmu__metric_is("sched:sched_switch", (const char *const[]){ "sched", NULL }) == 0);
	}
	CHECK(pmu_event_attr("", &a) == -EINVAL);
	CHECK(pmu_event_attr(",,", &a) == -EINVAL);
	CHECK(pmu_event_attr("cycles,instructions", &a) == -EINVAL);
	CHECK(pmu_event_attr(NULL, &a) == -EINVAL);

	/* A 1 MB name: refused, and the message stays short. */
	big = malloc(1 << 20);
	CHECK(big != NULL);
	memset(big, 'x', (1 << 20) - 1);
	big[(1 << 20) - 1] = '\0';
	CHECK(pmu_event_attr(big, &a) == -ENOENT);
	CHECK(strlen(pmu_errmsg()) < 200);
	CHECK(strstr(pmu_errmsg(), "xxxx...") != NULL);
	big[0] = 'r';
	memset(big + 1, '1', (1 << 20) - 2);
	CHECK(pmu_event_attr(big, &a) == -EINVAL);
	free(big);

	check_list("cycles", 1, 0);
	check_list("cycles,instructions", 2, 0);
	check_list(" cycles , instructions ", 2, 0);
	check_list("cpu/event=1,umask=2/u,cycles", 2, 0);
	check_list("", 0, -EINVAL);
	check_list(",,", 0, -EINVAL);
	check_list("cycles,", 1, -EINVAL);
	check_list(",cycles", 0, -EINVAL);
	check_list("a,,b", 1, -EINVAL);
	T_DONE();
}
