/* SPDX-License-Identifier: MIT */
/*
 * The tests that run the pmu tool: the tool next to the test, the fixtures,
 * a command's exit status with its standard output in out and its standard
 * error in err.
 */
#ifndef PMU_TEST_TOOL_RUN_H
#define PMU_TEST_TOOL_RUN_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tool[PATH_MAX + 32], fix[PATH_MAX + 32], out[1 << 22], err[1 << 16];

/* test.h's CHECK_MSG() for a run: a failure shows what the tool printed, too. */
#define CHECK_RUN(cond, ...) do { \
	if (!(cond)) { \
		CHECK_MSG(cond, __VA_ARGS__); \
		fprintf(stderr, "  out: %.3000s\n  err: %.3000s\n", out, err); \
	} \
} while (0)

/* The file into buf, NUL-terminated ("" when unreadable): its length, or -1. */
static inline int t_slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

/* Runs "ENV PROGRAM ARGS" through the shell (ARGS quoted by the caller): the exit status, out and err set. */
static inline int __attribute__((format(printf, 3, 4))) run(const char *env, const char *program, const char *fmt, ...)
{
	char args[2048], cmd[4096 + 3 * PATH_MAX], o[256], e[256];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	if (t_tmpfile(o, sizeof(o), "test-out"))
		return -1;
	if (t_tmpfile(e, sizeof(e), "test-err")) {
		unlink(o);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s %s %s >%s 2>%s", env, program, args, o, e);
	st = system(cmd);
	t_slurp(o, out, sizeof(out));
	t_slurp(e, err, sizeof(err));
	unlink(o);
	unlink(e);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The tool with args (NULL-terminated), no shell between: the exit status (128+N: killed by N), out and err set. */
static inline int run_argv(const char *const *args)
{
	char *argv[32];
	int n = 0, status;
	FILE *o = tmpfile(), *e = tmpfile();
	pid_t pid;

	if (!o || !e)
		return -1;
	argv[n++] = tool;
	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		execv(tool, argv);
		_exit(126);
	}
	waitpid(pid, &status, 0);
	n = (int)pread(fileno(o), out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	n = (int)pread(fileno(e), err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	fclose(o);
	fclose(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define PMU(...) run_argv((const char *[]){ __VA_ARGS__, NULL })

/* Sets tool (build/pmu) and fix (test/fixtures, absolute). 0, or -1 when not found. */
static inline int find(void)
{
	char exe[PATH_MAX], *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(s = strrchr(exe, '/')))
		return -1;
	*s = '\0';	/* build/test */
	snprintf(tool, sizeof(tool), "%s/../pmu", exe);
	if (access(tool, X_OK))
		return -1;
	if (access("test/fixtures/intel/cpu/type", R_OK) == 0)
		return realpath("test/fixtures", fix) ? 0 : -1;
	snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/../../test/fixtures");
	return realpath(exe, fix) ? 0 : -1;
}

#endif
