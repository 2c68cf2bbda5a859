/* SPDX-License-Identifier: MIT */
/*
 * Hardware events through the per-thread layer and regions, where the
 * machine has a PMU (the arm64 tier): counts from the user-space read path,
 * IPC in the report, and a forked child that reads fresh counters of its
 * own, never its parent's registers.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "regions/thread.h"
#include "test.h"

static volatile uint64_t sink;

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (uint64_t)i * 3;
}

static void *worker(void *arg)
{
	uint64_t a[2], b[2];
	long *fail = arg;

	if (pmu_thread_read(a) || pmu_region_begin("spin"))
		return (*fail = 1), NULL;
	spin(t_scale(1000000));
	if (pmu_region_end("spin") || pmu_thread_read(b) || b[0] <= a[0])
		*fail = 1;
	return NULL;
}

int main(void)
{
	const char *events = "cycles,instructions";
	struct pmu_set *probe;
	uint64_t v[2], w[2];
	long fail[4] = { 0 };
	pthread_t th[4];
	const char *why;
	int status;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	if (pmu_open(&probe, events) < 0) {
		events = "cycles";
		if (pmu_open(&probe, events) < 0)
			T_SKIP("no hardware events here: %s", pmu_errmsg());
	}
	pmu_close(probe);
	CHECK_MSG(pmu_thread_init(events) == 0, "%s", pmu_errmsg());
	CHECK(pmu_thread_read(v) == 0);
	printf("%s: %s\n", events, pmu_user_read(pmu__tls.thr->set, 0, &why) == 1 ? "user-space read" : why);

	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, worker, &fail[i]) == 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ(fail[i], 0);
	}

	/* The report: cycles in every thread's row, IPC with both events. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f && pmu_report(f, "csv") == 0);
	fclose(f);
	CHECK_MSG(strstr(buf, "\nspin,total,,4,"), "%s", buf);
	if (strchr(events, ','))
		CHECK_MSG(strstr(buf, ",cycles,instructions,ipc,"), "%s", buf);
	uint64_t calls = 0, ns = 0, cyc = 0;
	char *row = strstr(buf, "\nspin,total,,");
	CHECK(row && sscanf(row, "\nspin,total,,%" SCNu64 ",%" SCNu64 ",%*f,%" SCNu64, &calls, &ns, &cyc) == 3);
	CHECK_MSG(cyc >= 4 * (uint64_t)t_scale(1000000), "cycles %" PRIu64, cyc);
	free(buf);

	/*
	 * A child reads counters of its own: fewer cycles than the parent's
	 * total, which its inherited registers would have shown. Not "half":
	 * under QEMU without -icount cycles follow the host's clock, and a
	 * loaded host can stretch the child's reopening past half the parent's.
	 */
	spin(t_scale(2000000));
	CHECK(pmu_thread_read(v) == 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (pmu_thread_read(w) != 0)
			_exit(2);
		_exit(w[0] < v[0] ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
