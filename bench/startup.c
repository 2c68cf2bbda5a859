/* SPDX-License-Identifier: MIT */
/*
 * What loading libpmu costs a process that counts nothing, and what zero-code
 * mode costs one that does: page faults and task-clock of a short program run
 * plain, with libpmu.so.0 preloaded and no PMU_EVENTS, and in zero-code mode
 * with two software events. Medians of N runs, counted from the exec on.
 *   bench/startup [-n N] [-l LIBPMU_SO] [PROGRAM [ARG...]]   (default /bin/true, then ls)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_counter(pid_t pid, uint64_t config)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = config,
		.disabled = 1, .enable_on_exec = 1, .inherit = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* One run: the child waits on a pipe until its counters are open, then execs. */
static int run_once(char **argv, char **envp, uint64_t *faults, uint64_t *ns)
{
	int p[2], fd[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(126);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[0]);
	fd[0] = open_counter(pid, PERF_COUNT_SW_PAGE_FAULTS);
	fd[1] = open_counter(pid, PERF_COUNT_SW_TASK_CLOCK);
	if (write(p[1], "x", 1) != 1 || fd[0] < 0 || fd[1] < 0)
		kill(pid, SIGKILL);
	close(p[1]);
	waitpid(pid, &st, 0);
	if (fd[0] < 0 || fd[1] < 0 || read(fd[0], faults, 8) != 8 || read(fd[1], ns, 8) != 8 ||
	    !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "startup: %s did not run (status %d, %s)\n", argv[0], st,
			fd[0] < 0 || fd[1] < 0 ? strerror(errno) : "counted");
		return -1;
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int measure(const char *label, char **argv, char **envp, int n)
{
	uint64_t f[n], t[n];

	for (int i = 0; i < n; i++)
		if (run_once(argv, envp, &f[i], &t[i]) < 0)
			return -1;
	qsort(f, n, sizeof(*f), cmp);
	qsort(t, n, sizeof(*t), cmp);
	printf("  %-26s %8llu %12.3f\n", label, (unsigned long long)f[n / 2], t[n / 2] / 1e6);
	return 0;
}

static int program(char **argv, const char *lib, int n)
{
	char pre[4200];
	char *plain[] = { "PATH=/usr/bin:/bin", NULL };
	char *preload[] = { plain[0], pre, NULL };
	char *zero[] = { plain[0], pre, "PMU_EVENTS=task-clock,page-faults", "PMU_REPORT=/dev/null", NULL };

	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", lib);
	printf("%s (median of %d runs)           page-faults  task-clock ms\n", argv[0], n);
	return measure("plain", argv, plain, n) | measure("preloaded, no PMU_EVENTS", argv, preload, n) |
	       measure("zero-code, 2 sw events", argv, zero, n);
}

int main(int argc, char **argv)
{
	const char *lib = "build/libpmu.so.0";
	char *dflt1[] = { "/bin/true", NULL }, *dflt2[] = { "/bin/ls", "/", NULL };
	int n = 31, o;

	while ((o = getopt(argc, argv, "+n:l:")) != -1) {
		if (o == 'n' && atoi(optarg) > 0)
			n = atoi(optarg);
		else if (o == 'l')
			lib = optarg;
		else {
			fprintf(stderr, "usage: startup [-n N] [-l LIBPMU_SO] [PROGRAM [ARG...]]\n");
			return 129;
		}
	}
	if (access(lib, R_OK) != 0) {
		fprintf(stderr, "startup: %s: %s\n", lib, strerror(errno));
		return 1;
	}
	if (optind < argc)
		return program(argv + optind, lib, n) ? 1 : 0;
	return program(dflt1, lib, n) | program(dflt2, lib, n) ? 1 : 0;
}
