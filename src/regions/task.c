/* SPDX-License-Identifier: MIT */
/*
 * Tasks (pmu.h): a unit of work's counts summed over the intervals it ran,
 * on whichever threads, then added to its region as one call by the thread
 * that ends it (region.c's pmu__region_task_read() and pmu__region_task_add()). A task is
 * the caller's to hand between threads, one at a time: it holds no lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "regions/region.h"
#include "regions/thread.h"

struct pmu_task {
	unsigned id, n;
	const struct pmu__thr *on;	/* the thread it runs on; NULL while suspended */
	pid_t tid;			/* its ID, for messages */
	uint64_t t0, ns;		/* the interval's start; the intervals' sum */
	uint64_t *v0, *sum;		/* per event: at the interval's start; over the intervals */
	uint64_t buf[];
};

/* The calling thread's record in the thread layer (its identity here), or NULL. */
static const struct pmu__thr *self(void)
{
	struct pmu__thr *t;

	return pmu__thr_current(&t) < 0 ? NULL : t;
}

/* Whether task runs on the calling thread: else -EINVAL saying where it is (who: the call). */
static int here(const struct pmu_task *task, const char *who)
{
	const struct pmu__thr *me;

	if (!task)
		return pmu__err(-EINVAL, "%s: the task is NULL", who);
	if (!task->on)
		return pmu__err(-EINVAL, "%s: task %s is suspended (pmu_task_resume() it first)", who,
				pmu__region_name(task->id));
	if ((me = self()) != task->on)
		return pmu__err(-EINVAL, "%s: task %s runs on thread %d, not on this one (%d): only that thread "
				"suspends or ends it", who, pmu__region_name(task->id), (int)task->tid,
				me ? (int)me->tid : -1);
	return 0;
}

/* The interval from task's start to now on the calling thread, added to its sums. 0 or -errno. */
static int close_interval(struct pmu_task *task, const char *who)
{
	uint64_t v[task->n + 1], ns;
	int id, r = pmu__region_task_read(who, NULL, &id, v, &ns);

	if (r < 0)
		return r;
	for (unsigned i = 0; i < task->n; i++)
		task->sum[i] += pmu__ev_delta(task->v0[i], v[i]);
	task->ns += ns - task->t0;
	task->on = NULL;
	return 0;
}

/* A new interval of task on the calling thread. 0 or -errno. */
static int open_interval(struct pmu_task *task, const char *who, const char *name)
{
	int id, r = pmu__region_task_read(who, name, &id, task->v0, &task->t0);

	if (r < 0)
		return r;
	if (name)
		task->id = (unsigned)id;
	task->on = self();
	task->tid = task->on->tid;
	return 0;
}

PMU_API struct pmu_task *pmu_task_begin(const char *name)
{
	unsigned n = pmu_thread_event_count();
	struct pmu_task *task;
	int r;

	if (!name) {
		errno = -pmu__err(-EINVAL, "pmu_task_begin: the name is NULL");
		return NULL;
	}
	/* Made before the first read: its pages' faults are not the task's. */
	task = calloc(1, sizeof(*task) + 2 * ((size_t)n + 1) * sizeof(uint64_t));
	if (!task) {
		errno = -pmu__err(-ENOMEM, "%s: pmu_task_begin: out of memory", name);
		return NULL;
	}
	task->n = n;
	task->v0 = task->buf;
	task->sum = task->buf + n + 1;
	if ((r = open_interval(task, "pmu_task_begin", name)) < 0) {
		free(task);
		errno = -r;
		return NULL;
	}
	return task;
}

PMU_API int pmu_task_suspend(struct pmu_task *task)
{
	int r = here(task, "pmu_task_suspend");

	return r < 0 ? r : close_interval(task, "pmu_task_suspend");
}

PMU_API int pmu_task_resume(struct pmu_task *task)
{
	if (!task)
		return pmu__err(-EINVAL, "pmu_task_resume: the task is NULL");
	if (task->on)
		return pmu__err(-EINVAL, "pmu_task_resume: task %s runs on thread %d (pmu_task_suspend() it there "
				"first)", pmu__region_name(task->id), (int)task->tid);
	return open_interval(task, "pmu_task_resume", NULL);
}

PMU_API int pmu_task_end(struct pmu_task *task)
{
	int r;

	if (task && task->on && (r = here(task, "pmu_task_end")) < 0)
		return r;
	if (!task)
		return pmu__err(-EINVAL, "pmu_task_end: the task is NULL");
	if (task->on && (r = close_interval(task, "pmu_task_end")) < 0)
		return r;
	r = pmu__region_task_add(pmu__region_name(task->id), task->id, task->ns, task->sum);
	free(task);
	return r;
}

PMU_API int pmu_task_read(const struct pmu_task *task, uint64_t *ns, uint64_t *values, unsigned n)
{
	uint64_t v[task ? task->n + 1 : 1], now;
	int id, r;

	if (!task || !ns || (n && !values))
		return pmu__err(-EINVAL, "pmu_task_read: %s is NULL", !task ? "the task" : !ns ? "ns" : "values");
	*ns = task->ns;
	for (unsigned i = 0; i < n && i < task->n; i++)
		values[i] = task->sum[i];
	if (!task->on || task->on != self())	/* suspended, or running elsewhere: its closed intervals */
		return (int)task->n;
	if ((r = pmu__region_task_read("pmu_task_read", NULL, &id, v, &now)) < 0)
		return r;
	*ns += now - task->t0;
	for (unsigned i = 0; i < n && i < task->n; i++)
		values[i] += pmu__ev_delta(task->v0[i], v[i]);
	return (int)task->n;
}
