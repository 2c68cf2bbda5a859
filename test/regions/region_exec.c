/* SPDX-License-Identifier: MIT */
/*
 * No descriptor of the library crosses exec: after pmu_open(), the
 * per-thread layer with regions in two threads, and zero-code mode (its
 * copy of stderr), a program that execs hands the new program nothing of
 * ours. The test runs itself three times: to note the descriptors it was
 * given, as the measured program, and as the exec'd program that looks.
 */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

extern char **environ;

/* The open descriptors as ",0,1,2,", the directory's own left out. */
static void fd_list(char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t k = (size_t)snprintf(buf, size, ",");

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && k < size)
			k += (size_t)snprintf(buf + k, size - k, "%s,", e->d_name);
	if (d)
		closedir(d);
}

/* The exec'd program: every descriptor beyond those first given is a leak. */
static int check(const char *given)
{
	char now[4096], *p, *save = NULL, key[32], link[64], target[256];
	int leaks = 0;

	fd_list(now, sizeof(now));
	for (p = strtok_r(now, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		ssize_t n;

		snprintf(key, sizeof(key), ",%s,", p);
		if (strstr(given, key))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", p);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("leaked into the exec'd program: descriptor %s -> %s\n", p, target);
		leaks++;
	}
	return leaks ? 1 : 0;
}

static pthread_barrier_t bar;

static void *worker(void *arg)
{
	uint64_t v[2];

	(void)arg;
	pmu_thread_read(v);
	pmu_region_begin("worker");
	pthread_barrier_wait(&bar);	/* its counters stay open across the exec */
	pause();
	return NULL;
}

/* The measured program, set up by zero-code mode before main(). */
static int measured(char *self, char *given)
{
	char *argv[] = { self, "--check", given, NULL }, *envp[1] = { NULL };
	struct pmu_set *set;
	pthread_t th;

	if (pmu_open(&set, "task-clock,page-faults") < 0) {
		printf("pmu_open: %s\n", pmu_errmsg());
		return 2;
	}
	if (pmu_region_begin("main") < 0 || pmu_region_end("main") < 0) {
		printf("regions: %s\n", pmu_errmsg());
		return 2;
	}
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&bar);
	execve(self, argv, envp);
	return 3;
}

int main(int argc, char **argv)
{
	char given[4096], self[4096], *env[] = { "PMU_EVENTS=task-clock,page-faults", "PMU_REPORT=stderr", NULL };
	int status;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--measured"))
		return measured(argv[0], argv[2]);
	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	fd_list(given, sizeof(given));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *a[] = { self, "--measured", given, NULL };

		execve(self, a, env);
		_exit(4);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the exec'd program found descriptors of "
		  "the library (status 0x%x)", status);
	T_DONE();
}
