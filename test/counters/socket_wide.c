/* SPDX-License-Identifier: MIT */
/*
 * PMU_SOCKET_WIDE: an event of a per-CPU PMU (a cpumask, as RAPL and the
 * uncore PMUs have) opened once on each CPU of its mask, every task there,
 * summed, read through read(2), beside events of the thread; pmu_thread_init()
 * takes such events, and a region reports their socket-wide delta. The PMU is
 * a sysfs tree of the test's: the software PMU's type with cpu-clock as its
 * event, which counts time on its CPU whatever runs there, so that its count
 * is known. A normal user gets the refusal that names the permission.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpu_pmu.h"
#include "pmu.h"
#include "test.h"

static char dir[] = "/tmp/pmu-socket.XXXXXX";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(void)
{
	PMU_OPTS(o, .flags = PMU_SOCKET_WIDE);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pmu_results *res;
	struct pmu_set *s = NULL;
	char mask[32], cmd[PATH_MAX + 16];
	const char *why = NULL;
	uint64_t v[3], t0, t1;
	int r;

	if (!mkdtemp(dir))
		T_SKIP("mkdtemp: %s", strerror(errno));
	t_cpu_pmu(dir, "sock0", "0\n", "clk", "event=0x0\n");
	snprintf(mask, sizeof(mask), "0-%ld\n", ncpu - 1);
	t_cpu_pmu(dir, "sockall", mask, "clk", "event=0x0\n");
	setenv("PMU_SYSFS_DEVICES", dir, 1);

	t0 = now_ns();
	r = pmu_open_opts(&s, "task-clock,sock0/clk/,sockall/clk/", &o);
	if (r < 0 && geteuid() != 0) {
		CHECK_MSG(strstr(pmu_errmsg(), "permission denied: counting every task on CPU 0") &&
			  strstr(pmu_errmsg(), "CAP_PERFMON or kernel.perf_event_paranoid <= 0"), "%s", pmu_errmsg());
		goto out;
	}
	CHECK_MSG(r == 0, "%d %s", r, pmu_errmsg());
	if (r)
		goto out;
	nap_ms(50);
	CHECK_EQ(pmu_read(s, v), 0);
	t1 = now_ns();
	/*
	 * The thread slept; CPU 0, then every CPU, counted at least the 50 ms and
	 * at most the time from open to read, each (bounds, not a time compared).
	 */
	CHECK_MSG(v[0] < v[1] / 2, "task-clock %llu ns, sock0 %llu", (unsigned long long)v[0],
		  (unsigned long long)v[1]);
	CHECK_MSG(v[1] >= 50000000 && v[1] <= t1 - t0, "sock0 %llu ns in %llu", (unsigned long long)v[1],
		  (unsigned long long)(t1 - t0));
	CHECK_MSG(v[2] >= (uint64_t)ncpu * 50000000 && v[2] <= (uint64_t)ncpu * (t1 - t0),
		  "sockall %llu ns over %ld CPUs in %llu", (unsigned long long)v[2], ncpu,
		  (unsigned long long)(t1 - t0));
	CHECK_EQ(pmu_user_read(s, 1, &why), 0);
	CHECK_MSG(why && strstr(why, "socket-wide"), "%s", why ? why : "(null)");
	pmu_close(s);

	/* pmu_thread_init() takes them beside the thread's events; a region sees the socket's delta */
	r = pmu_thread_init("task-clock,sock0/clk/");
	CHECK_MSG(r == 0, "%d %s", r, pmu_errmsg());
	CHECK_EQ(pmu_region_begin("nap"), 0);
	nap_ms(30);
	CHECK_EQ(pmu_region_end("nap"), 0);
	res = pmu_results_take();
	CHECK(res != NULL);
	if (res) {
		struct pmu_region_result rr = { .size = sizeof(rr) };

		CHECK_EQ(pmu_results_regions(res, NULL), 1);
		CHECK_EQ(pmu_results_get(res, 0, -1, &rr), 0);
		CHECK_MSG(rr.sum && rr.sum[1] > 20000000 && rr.sum[0] < 10000000, "nap: task-clock %llu sock0 %llu",
			  rr.sum ? (unsigned long long)rr.sum[0] : 0, rr.sum ? (unsigned long long)rr.sum[1] : 0);
		pmu_results_free(res);
	}
	/* the reports mark it, with its unit */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f && pmu_report(f, "json") == 0 && pmu_report(f, "table") == 0 && pmu_report(f, "csv") == 0);
		if (f)
			fclose(f);
		CHECK_MSG(buf && strstr(buf, "\"sock0/clk/\": {\"unit\": \"msec\", \"scale\": 9.9999999999999995e-07, "
					 "\"socket_wide\": true}") &&
			  strstr(buf, "\"task-clock\": {\"unit\": \"msec\", \"scale\": 9.9999999999999995e-07, "
				 "\"socket_wide\": false}") &&
			  strstr(buf, "\nsock0/clk/: socket-wide, everything on its socket while a region ran; counts x "
				 "1e-06 = msec\n") &&
			  strstr(buf, "\nregion,thread,tid,calls,ns,ns_per_call,task-clock,sock0/clk/ (socket-wide),") &&
			  strstr(buf, ",max(sock0/clk/ (socket-wide)),"), "%s", buf ? buf : "(none)");
		free(buf);
	}
	pmu_thread_fini();
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	T_DONE();
}
