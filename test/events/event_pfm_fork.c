/* SPDX-License-Identifier: MIT */
/*
 * fork() while another thread is inside libpfm4: the child resolves names
 * through libpfm4 too, instead of waiting forever on a lock that no thread
 * of the child holds.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events/event.h"
#include "events/event_pfm.h"
#include "pmu.h"
#include "test.h"

static int stop;

static int lookup(void)
{
	uint64_t cfg[3];
	uint32_t type;
	char pmu[PMU_PMU_NAME];

	return pmu__pfm_encode("NO_SUCH_EVENT.ANYWHERE", 22, &type, cfg, pmu, sizeof(pmu));
}

static void *spin(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		lookup();
	return NULL;
}

int main(void)
{
	int forks = (int)t_scale(200), hung = 0;
	pthread_t th;

	if (!pmu__pfm_available())
		T_SKIP("built without libpfm4, or libpfm4 did not initialise");
	CHECK(pthread_create(&th, NULL, spin, NULL) == 0);
	for (int i = 0; i < forks && !hung; i++) {
		int status;
		pid_t pid;

		pid = fork();
		if (pid == 0) {
			alarm(60);	/* a hang, not a slow lookup on a loaded machine */
			_exit(lookup() == 0 ? 0 : 1);
		}
		CHECK(pid > 0);
		if (pid < 0)
			break;
		CHECK(waitpid(pid, &status, 0) == pid);
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			hung++;
		else
			CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	}
	CHECK_MSG(!hung, "a child forked while another thread was in libpfm4 hung");
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	T_DONE();
}
