/* SPDX-License-Identifier: MIT */
/*
 * Worker threads that each count themselves: pmu_thread_init() once, then
 * pmu_thread_read() in any thread; each thread's counters open on its first
 * read and close when it exits.
 *   build: cc -pthread threads.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./threads [EVENTS]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmu.h>

#define THREADS 4
#define MAX_EVENTS 16

struct job {
	int id;
	size_t bytes;
	uint64_t counts[MAX_EVENTS];
	int err;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t before[MAX_EVENTS], after[MAX_EVENTS];
	volatile char *buf;

	j->err = pmu_thread_read(before);	/* opens this thread's counters */
	if (j->err)
		return NULL;
	/* Work that differs per thread: touch a different amount of memory. */
	buf = malloc(j->bytes);
	for (size_t i = 0; buf && i < j->bytes; i += 4096)
		buf[i] = (char)j->id;
	free((void *)buf);
	j->err = pmu_thread_read(after);
	for (int i = 0; !j->err && i < pmu_thread_event_count(); i++)
		j->counts[i] = after[i] - before[i];
	return NULL;			/* the counters close as the thread exits */
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock,page-faults";
	pthread_t th[THREADS];
	struct job jobs[THREADS];
	int n;

	if (pmu_thread_init(events) < 0) {
		fprintf(stderr, "%s\n", pmu_errmsg());
		return 1;
	}
	n = pmu_thread_event_count();
	if (n > MAX_EVENTS) {
		fprintf(stderr, "at most %d events\n", MAX_EVENTS);
		return 1;
	}
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (struct job){ .id = t, .bytes = (size_t)(t + 1) << 22 };
		pthread_create(&th[t], NULL, worker, &jobs[t]);
	}
	printf("%-8s %10s", "thread", "MiB");
	for (int i = 0; i < n; i++)
		printf(" %16s", pmu_thread_event_name((unsigned)i));
	printf("\n");
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		if (jobs[t].err) {
			fprintf(stderr, "thread %d: error %d\n", t, jobs[t].err);
			continue;
		}
		printf("%-8d %10zu", t, jobs[t].bytes >> 20);
		for (int i = 0; i < n; i++)
			printf(" %16" PRIu64, jobs[t].counts[i]);
		printf("\n");
	}
	pmu_thread_fini();
	return 0;
}
