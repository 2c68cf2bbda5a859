/* SPDX-License-Identifier: MIT */
/*
 * Tasks (pmu.h): a unit of work's counts summed over the intervals it ran,
 * on whichever threads, then added to its region as one call by the thread
 * that ends it (region.c's pmu__region_task_read() and pmu__region_task_add()). A task is
 * the caller's to hand between threads, one at a time: it holds no lock. Another thread may
 * read it (pmu_task_read(), and end's and suspend's checks) while it runs: where it runs and
 * its sums are written under a seqcount, by the one thread that runs it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "regions/region.h"
#include "regions/thread.h"

struct pmu_task {
	unsigned id, n;
	uint64_t seq;			/* the seqcount over on, tid, ns and sum */
	const struct pmu__thr *on;	/* the thread it runs on; NULL while suspended */
	pid_t tid;			/* its ID, for messages */
	uint64_t t0, ns;		/* the interval's start; the intervals' sum */
	uint64_t *v0, *sum;		/* per event: at the interval's start; over the intervals */
	uint64_t buf[];
};

/* Where task runs (NULL: suspended) and its ID, with its closed intervals' ns and first n sums when
 * asked: one consistent copy, whichever thread reads while its thread writes. */
static const struct pmu__thr *snap(const struct pmu_task *task, pid_t *tid, uint64_t *ns, uint64_t *sum,
				   unsigned n)
{
	const struct pmu__thr *on;
	uint64_t s;

	do {
		s = pmu_seq_read_begin(&task->seq);
		on = PMU_SEQ_LD(task->on);
		*tid = PMU_SEQ_LD(task->tid);
		if (ns)
			*ns = PMU_SEQ_LD(task->ns);
		for (unsigned i = 0; i < n && i < task->n; i++)
			sum[i] = PMU_SEQ_LD(task->sum[i]);
	} while ((s & 1) || pmu_seq_read_retry(&task->seq, s));
	return on;
}

/* The calling thread's record in the thread layer (its identity here), or NULL. */
static const struct pmu__thr *self(void)
{
	struct pmu__thr *t;

	return pmu__thr_current(&t) < 0 ? NULL : t;
}

/* Whether task runs on the calling thread: else -EINVAL saying where it is (who: the call). */
static int here(const struct pmu_task *task, const char *who)
{
	const struct pmu__thr *me, *on;
	pid_t tid;

	if (!task)
		return pmu__err(-EINVAL, "%s: the task is NULL", who);
	if (!(on = snap(task, &tid, NULL, NULL, 0)))
		return pmu__err(-EINVAL, "%s: task %s is suspended (pmu_task_resume() it first)", who,
				pmu__region_name(task->id));
	if ((me = self()) != on)
		return pmu__err(-EINVAL, "%s: task %s runs on thread %d, not on this one (%d): only that thread "
				"suspends or ends it", who, pmu__region_name(task->id), (int)tid, me ? (int)me->tid : -1);
	return 0;
}

/* The interval from task's start to now on the calling thread, added to its sums. 0 or -errno. */
static int close_interval(struct pmu_task *task, const char *who)
{
	uint64_t v[task->n + 1], ns;
	int id, r = pmu__region_task_read(who, NULL, &id, v, &ns);

	uint64_t s;

	if (r < 0)
		return r;
	s = pmu_seq_write_begin(&task->seq);
	for (unsigned i = 0; i < task->n; i++)
		PMU_SEQ_ST(task->sum[i], task->sum[i] + pmu__ev_delta(task->v0[i], v[i]));
	PMU_SEQ_ST(task->ns, task->ns + ns - task->t0);
	PMU_SEQ_ST(task->on, NULL);
	pmu_seq_write_end(&task->seq, s);
	return 0;
}

/* A new interval of task on the calling thread. 0 or -errno. */
static int open_interval(struct pmu_task *task, const char *who, const char *name)
{
	int id, r = pmu__region_task_read(who, name, &id, task->v0, &task->t0);
	const struct pmu__thr *me = self();
	uint64_t s;

	if (r < 0)
		return r;
	if (name)
		task->id = (unsigned)id;
	s = pmu_seq_write_begin(&task->seq);
	PMU_SEQ_ST(task->on, me);
	PMU_SEQ_ST(task->tid, me->tid);
	pmu_seq_write_end(&task->seq, s);
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
	pid_t tid;

	if (!task)
		return pmu__err(-EINVAL, "pmu_task_resume: the task is NULL");
	if (snap(task, &tid, NULL, NULL, 0))
		return pmu__err(-EINVAL, "pmu_task_resume: task %s runs on thread %d (pmu_task_suspend() it there "
				"first)", pmu__region_name(task->id), (int)tid);
	return open_interval(task, "pmu_task_resume", NULL);
}

/* Frees task whatever it returns but -EBUSY (it runs on another thread) and a NULL task's -EINVAL (pmu.h). */
PMU_API int pmu_task_end(struct pmu_task *task)
{
	const struct pmu__thr *on, *me;
	pid_t tid;
	int r;

	if (!task)
		return pmu__err(-EINVAL, "pmu_task_end: the task is NULL");
	on = snap(task, &tid, NULL, NULL, 0);
	me = self();
	if (on && me && on != me)	/* its thread ends it: -EBUSY, apart from the failures that free it */
		return pmu__err(-EBUSY, "pmu_task_end: task %s runs on thread %d, not on this one (%d): only that "
				"thread ends it (the task is left as it was)", pmu__region_name(task->id), (int)tid,
				(int)me->tid);
	/* here, or the layer gone under it: the interval's read fails then, saying why */
	r = on ? close_interval(task, "pmu_task_end") : 0;
	if (r == 0)
		r = pmu__region_task_add(pmu__region_name(task->id), task->id, task->ns, task->sum);
	if (r < 0)
		pmu__err_append(" (the task is freed, its counts not added)");
	free(task);
	return r;
}

PMU_API int pmu_task_read(const struct pmu_task *task, uint64_t *ns, uint64_t *values, unsigned n)
{
	uint64_t v[task ? task->n + 1 : 1], now;
	int id, r;

	const struct pmu__thr *on;
	pid_t tid;

	if (!task || !ns || (n && !values))
		return pmu__err(-EINVAL, "pmu_task_read: %s is NULL", !task ? "the task" : !ns ? "ns" : "values");
	on = snap(task, &tid, ns, values, n);
	if (!on || on != self())	/* suspended, or running elsewhere: its closed intervals */
		return (int)task->n;
	if ((r = pmu__region_task_read("pmu_task_read", NULL, &id, v, &now)) < 0)
		return r;
	*ns += now - task->t0;
	for (unsigned i = 0; i < n && i < task->n; i++)
		values[i] += pmu__ev_delta(task->v0[i], v[i]);
	return (int)task->n;
}
