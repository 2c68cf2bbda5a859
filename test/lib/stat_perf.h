/* SPDX-License-Identifier: MIT */
/* pmu stat against perf stat: running both, and their outputs' fields and masked layouts. */
#ifndef PMU_TEST_STAT_PERF_H
#define PMU_TEST_STAT_PERF_H

#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv with stdout and stderr to /dev/null; its exit status. */
static inline int run(char *const argv[])
{
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The value of event ev in the -x, output in file (-1 when absent or not
 * counted), and its layout: the unit and the number of fields ("" when absent).
 */
static inline double field(const char *file, const char *ev, char *layout, size_t size)
{
	char line[512], key[128];
	double v = -1;
	FILE *f = fopen(file, "r");

	snprintf(layout, size, "%s", "");
	snprintf(key, sizeof(key), ",%s,", ev);
	while (f && fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key), *c = strchr(line, ',');
		int n = 1;

		/* value,unit,event,...: the event is the third field */
		if (!k || !c || strchr(c + 1, ',') != k)
			continue;
		for (char *p = line; *p; p++)
			n += *p == ',';
		snprintf(layout, size, "unit '%.*s', %d fields", (int)(k - c - 1), c + 1, n);
		v = line[0] == '<' ? -1 : strtod(line, NULL);
	}
	if (f)
		fclose(f);
	return v;
}

/* Field k (from 0) of the -x, line of event ev in file, as a number; -1 when absent. */
static inline double nth(const char *file, const char *ev, int k)
{
	char line[512], key[128];
	double v = -1;
	FILE *f = fopen(file, "r");

	snprintf(key, sizeof(key), ",%s,", ev);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = line;

		if (!strstr(line, key))
			continue;
		for (int i = 0; i < k && p; i++)
			p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
		if (p)
			v = strtod(p, NULL);
	}
	if (f)
		fclose(f);
	return v;
}

/*
 * line with its numbers as N, blanks squeezed and the rates' K/M/G left
 * out (a rate's scale depends on the load); a table line's width appended.
 */
static inline void mask(const char *line, char *buf, size_t size, bool width)
{
	size_t n = 0;
	bool num = false, blank = false;

	for (const char *p = line; *p && n + 32 < size; p++) {
		bool d = (*p >= '0' && *p <= '9') || (*p == '.' && num);

		if ((*p == 'K' || *p == 'M' || *p == 'G') && !strncmp(p + 1, "/sec", 4))
			continue;
		if (d && !num)
			buf[n++] = 'N';
		else if (!d && !(*p == ' ' && blank))
			buf[n++] = *p;
		num = d;
		blank = *p == ' ';
	}
	buf[n] = '\0';
	if (width)
		snprintf(buf + n, size - n, " [width %zu]", strlen(line));
}

/*
 * The table of file with numbers (and a rate's K, M or G) masked and blanks
 * squeezed, into buf; the widths of the event lines (those with a "#"
 * comment) appended, as those are padded to fixed columns. perf's "# started
 * on" line is left out.
 */
static inline void masked(const char *file, char *buf, size_t size)
{
	char line[512], *p;
	size_t n = 0;
	FILE *f = fopen(file, "r");

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f) && n + 2 * strlen(line) + 16 < size) {
		if (!strncmp(line, "# started on", 12))
			continue;
		/* An event's "( +- x% )": absent where its runs happened to count alike (perf and pmu stat alike) */
		if (strchr(line, '#') && (p = strstr(line, "  ( +-")))
			strcpy(p, "\n");
		mask(line, buf + n, size - n, false);
		n += strlen(buf + n);
		if (strchr(line, '#'))
			n += (size_t)snprintf(buf + n, size - n, "[width %zu]\n", strlen(line));
		buf[n] = 0;
	}
	if (f)
		fclose(f);
}

#endif
