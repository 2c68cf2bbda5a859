/* SPDX-License-Identifier: MIT */
/* The list tests' runner: the pmu tool next to the test, the fixtures, a command's exit status and output. */
#ifndef PMU_TEST_LIST_RUN_H
#define PMU_TEST_LIST_RUN_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tool[PATH_MAX + 32], fix[PATH_MAX + 32], out[1 << 22], err[1 << 16];

static int slurp(const char *path, char *buf, size_t size)
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
static int __attribute__((format(printf, 3, 4))) run(const char *env, const char *program, const char *fmt, ...)
{
	char args[2048], cmd[4096 + 3 * PATH_MAX], o[64], e[64];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(o, sizeof(o), "/tmp/pmu-list-%d.out", (int)getpid());
	snprintf(e, sizeof(e), "/tmp/pmu-list-%d.err", (int)getpid());
	snprintf(cmd, sizeof(cmd), "%s %s %s >%s 2>%s", env, program, args, o, e);
	st = system(cmd);
	slurp(o, out, sizeof(out));
	slurp(e, err, sizeof(err));
	unlink(o);
	unlink(e);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Sets tool (build/pmu) and fix (test/fixtures, absolute). 0, or -1 when not found. */
static int find(void)
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
