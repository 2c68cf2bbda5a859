/* SPDX-License-Identifier: MIT */
/*
 * pmu_thread_read() is async-signal-safe once the thread has read before
 * (libpmu(7)), in a forked child too: a read in a signal handler, the
 * child's first, allocates nothing, takes no lock of the library's and
 * opens no descriptor, as in the parent. The allocator and the mutex lock
 * are wrapped (--wrap, see the Makefile) to count their calls.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_pthread_mutex_lock(pthread_mutex_t *m);

static volatile long allocs, locks;

void *__wrap_malloc(size_t n)
{
	allocs++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	allocs++;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	allocs++;
	return __real_realloc(p, n);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	locks++;
	return __real_pthread_mutex_lock(m);
}

static volatile long h_allocs, h_locks;
static volatile int h_ret;

static void handler(int sig)
{
	uint64_t v[2];
	long a = allocs, l = locks;

	(void)sig;
	h_ret = pmu_thread_read(v);
	h_allocs = allocs - a;
	h_locks = locks - l;
}

/* A read in a signal handler: 0 when it read and allocated, locked and opened nothing. */
static int in_handler(const char *who)
{
	int fds = t_fd_count(), bad = 0;

	h_ret = -1;
	raise(SIGUSR1);
	if (h_ret != 0 || h_allocs || h_locks || t_fd_count() != fds) {
		printf("%s: the read in the handler returned %d with %ld allocations, %ld locks, descriptors %d -> %d\n",
		       who, h_ret, h_allocs, h_locks, fds, t_fd_count());
		fflush(stdout);
		bad = 1;
	}
	return bad;
}

int main(void)
{
	uint64_t v[2];
	int status = 0;
	pid_t pid;

	if (pmu_thread_init("task-clock,page-faults") < 0)
		T_SKIP("pmu_thread_init: %s", pmu_errmsg());
	signal(SIGUSR1, handler);
	CHECK(pmu_thread_read(v) == 0);
	CHECK(in_handler("parent") == 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(in_handler("forked child"));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's read in a signal handler was not safe");
	/* the parent's record is still its own */
	CHECK(in_handler("parent after fork") == 0);
	pmu_thread_fini();
	T_DONE();
}
