/* SPDX-License-Identifier: MIT */
/*
 * Tasks: requests that start on one thread and finish on another. A
 * "reader" thread takes each request's first half, then hands it to a
 * "writer" thread through a pipe; pmu_task_suspend() and pmu_task_resume()
 * at the handoff count each request over both threads, and not the time
 * it waited in the pipe. With histograms, the report gives the requests'
 * p50, p99 and what the slowest 1% did.
 *   build: cc -pthread tasks.c $(pkg-config --cflags --libs libpmu)
 *   run:   ./tasks [REQUESTS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmu.h>

static int handoff[2];

/* Work that faults pages in: most requests 1 page, every 50th 64. */
static void work(int i)
{
	size_t size = (i % 50 == 49 ? 64 : 1) * 4096;
	volatile char *p = malloc(size);

	for (size_t k = 0; p && k < size; k += 4096)
		p[k] = 1;
	free((void *)p);
}

static void *writer(void *arg)
{
	struct pmu_task *t;

	(void)arg;
	for (int i = 0; read(handoff[0], &t, sizeof(t)) == sizeof(t); i++) {
		pmu_task_resume(t);
		work(i);
		pmu_task_end(t);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int requests = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t w;

	if (pmu_thread_init("task-clock,page-faults") < 0 || pipe(handoff) < 0) {
		fprintf(stderr, "tasks: %s\n", pmu_errmsg());
		return 1;
	}
	pmu_region_histograms(1);
	pthread_create(&w, NULL, writer, NULL);
	for (int i = 0; i < requests; i++) {
		struct pmu_task *t = pmu_task_begin("request");

		if (!t) {
			fprintf(stderr, "tasks: %s\n", pmu_errmsg());
			break;
		}
		work(i);
		pmu_task_suspend(t);	/* the reader's part ends; the writer resumes it */
		if (write(handoff[1], &t, sizeof(t)) != sizeof(t))
			break;
	}
	close(handoff[1]);
	pthread_join(w, NULL);
	pmu_report(stdout, "table");
	return 0;
}
