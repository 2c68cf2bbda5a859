/* SPDX-License-Identifier: MIT */
/*
 * Zero-code mode: with PMU_EVENTS in the environment the library sets the
 * per-thread layer up before main(), measures the main thread's whole run
 * as a region, and writes the report at exit to PMU_REPORT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "region.h"

#define WHOLE_RUN "(whole run)"

/* Static links: thread.c refers to this, so any use of the layer brings zero-code mode in. */
const char pmu__zero_linked;

static char *zero_path;
static pid_t zero_pid;
/*
 * A copy of stderr for the report, since programs may close stderr in atexit
 * handlers of their own; with what it is (st_dev, st_ino), since a program may
 * as well close the copy and open a file of its own under the same number.
 */
static int zero_fd = -1;
static struct stat zero_st;

/* fd is open on the file stderr was at start-up. */
static bool is_start_stderr(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == zero_st.st_dev && st.st_ino == zero_st.st_ino;
}

/* Where the report to stderr goes: the copy, else stderr if still the same file, else nowhere (NULL). */
static FILE *open_stderr(void)
{
	FILE *f;
	int fd;

	if (zero_fd < 0)
		return stderr;
	if (!is_start_stderr(zero_fd))
		return is_start_stderr(2) ? stderr : NULL;
	/* Written through a copy of the copy: the number may be the program's again, for the same file. */
	fd = fcntl(zero_fd, F_DUPFD_CLOEXEC, 3);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* The report's format from the file name: .csv, .json, else a table. */
static const char *format_of(const char *path)
{
	size_t n = strlen(path);

	if (n >= 4 && !strcasecmp(path + n - 4, ".csv"))
		return "csv";
	if (n >= 5 && !strcasecmp(path + n - 5, ".json"))
		return "json";
	return "table";
}

/* The MPI rank of this process: OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID, where one holds a
 * plain decimal number; else -1. */
static long mpi_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r;

		if (!v || *v < '0' || *v > '9')
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (!*end && !errno && r <= 999999999)
			return r;
	}
	return -1;
}

/* One expansion of %p (pid), %h (host name, '/' as '_'), %r (MPI rank, else the pid) or %% into buf at
 * *k; false when it does not fit. Any other % stands for itself. */
static bool expand_one(char *buf, size_t size, size_t *k, char c)
{
	char host[256];
	long rank;
	int n;

	switch (c) {
	case 'p':
		n = snprintf(buf + *k, size - *k, "%d", (int)getpid());
		break;
	case 'r':
		rank = mpi_rank();
		n = snprintf(buf + *k, size - *k, "%ld", rank >= 0 ? rank : (long)getpid());
		break;
	case 'h':
		if (gethostname(host, sizeof(host)) != 0 || !host[0])
			strcpy(host, "localhost");
		host[sizeof(host) - 1] = '\0';
		for (char *h = host; *h; h++)
			if (*h == '/')
				*h = '_';
		n = snprintf(buf + *k, size - *k, "%s", host);
		break;
	default:
		n = snprintf(buf + *k, size - *k, "%c", c);
		break;
	}
	if (n < 0 || (size_t)n >= size - *k)
		return false;
	*k += (size_t)n;
	return true;
}

/* path with %p, %h, %r and %% expanded into buf; false when it does not fit. */
static bool expand_path(char *buf, size_t size, const char *p)
{
	size_t k = 0;

	for (; *p; p++) {
		if (p[0] == '%' && p[1] && strchr("phr%", p[1])) {
			if (!expand_one(buf, size, &k, p[1]))
				return false;
			p++;
		} else {
			if (k + 1 >= size)
				return false;
			buf[k++] = *p;
		}
	}
	buf[k] = '\0';
	return true;
}

/* Whether the name has a per-process part (%p, or %r outside an MPI job), so that a forked child
 * writes a file of its own: a child of a rank has its parent's rank. */
static bool per_process(const char *p)
{
	for (; *p; p++)
		if (p[0] == '%' && p[1]) {
			if (p[1] == 'p' || (p[1] == 'r' && mpi_rank() < 0))
				return true;
			p++;
		}
	return false;
}

static void zero_write(void)
{
	char path[4096];
	const char *p = zero_path;
	FILE *f;
	int r;

	if (!strcmp(p, "stderr") || !strcmp(p, "-")) {
		f = open_stderr();
		if (!f)
			return;
	} else if (!strcmp(p, "stdout")) {
		f = stdout;
	} else {
		if (!expand_path(path, sizeof(path), p)) {
			fprintf(stderr, "libpmu: PMU_REPORT=%.64s...: path too long (%zu bytes at most, %%p, %%h "
				"and %%r expanded); no report written\n", p, sizeof(path) - 1);
			return;
		}
		f = fopen(path, "we");
		if (!f) {
			fprintf(stderr, "libpmu: PMU_REPORT=%s: %s\n", path, strerror(errno));
			return;
		}
	}
	r = pmu_report(f, format_of(zero_path));
	if (r < 0)
		fprintf(stderr, "libpmu: PMU_REPORT=%s: %s\n", zero_path, pmu_errmsg());
	if (f != stderr && f != stdout && fclose(f) != 0)
		fprintf(stderr, "libpmu: PMU_REPORT=%s: %s\n", zero_path, strerror(errno));
}

static void zero_exit(void)
{
	/* A forked child writes a report of its own only to a per-process file name. */
	if (getpid() == zero_pid || per_process(zero_path)) {
		if ((pid_t)syscall(SYS_gettid) == getpid())
			pmu__region_end_all();
		zero_write();
	}
	pmu__thr_exit_self();	/* other threads may still run: only this one's set can go */
}

static void zero_setup(void)
{
	const char *ev = getenv("PMU_EVENTS"), *rep = getenv("PMU_REPORT");

	if (!ev || !*ev)
		return;
	if (pmu_thread_init(ev) < 0) {
		fprintf(stderr, "libpmu: PMU_EVENTS=%s: %s\n", ev, pmu_errmsg());
		return;
	}
	zero_path = strdup(rep && *rep ? rep : "stderr");
	if (!zero_path)
		return;
	zero_pid = getpid();
	if (!strcmp(zero_path, "stderr") || !strcmp(zero_path, "-"))
		zero_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (zero_fd >= 0 && fstat(zero_fd, &zero_st) < 0) {
		close(zero_fd);
		zero_fd = -1;
	}
	if (pmu_region_begin(WHOLE_RUN) < 0)
		fprintf(stderr, "libpmu: PMU_EVENTS=%s: %s\n", ev, pmu_errmsg());
	if (atexit(zero_exit) != 0)
		fprintf(stderr, "libpmu: PMU_REPORT: cannot register the report at exit\n");
}

__attribute__((constructor)) static void zero_ctor(void)
{
	if (getenv("PMU_EVENTS"))
		zero_setup();
}
