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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/escape.h"
#include "parse/format.h"	/* pmu__show() */
#include "regions/region.h"
#include "output/report_path.h"
#include "zerocode/zerocode.h"
#include "regions/thread.h"
#include "regions/trace.h"

#define WHOLE_RUN "(whole run)"

/*
 * Nothing below refers to this file: the shared library has it, and a
 * static link brings it in when asked, with -Wl,-u,pmu__zero_linked (which
 * pkg-config --static and the CMake target libpmu::pmu_static give).
 */
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

/* Whether the name has a per-process part (%p, or %r outside an MPI job), so that a forked child
 * writes a file of its own: a child of a rank has its parent's rank. */
static bool per_process(const char *p)
{
	for (; *p; p++)
		if (p[0] == '%' && p[1]) {
			if (p[1] == 'p' || (p[1] == 'r' && pmu__mpi_rank() < 0))
				return true;
			p++;
		}
	return false;
}

/*
 * One process, one report: the process that sets zero-code mode up records
 * itself for the programs it execs ("pid:rank" in PMU_REPORT_OWNER). A later
 * program image in a descendant (another pid) is a child like a forked one:
 * it writes only to a per-process name. An MPI rank under a launcher that
 * was itself preloaded is no child: a rank of its own, under a name with %r.
 */
#define OWNER_VAR "PMU_REPORT_OWNER"
static bool zero_descendant;

static bool has_rank_part(const char *p)
{
	for (; *p; p++)
		if (p[0] == '%' && p[1]) {
			if (p[1] == 'r')
				return true;
			p++;
		}
	return false;
}

static void zero_owner(void)
{
	const char *v = pmu__getenv(OWNER_VAR);
	long pid, rank, me = pmu__mpi_rank();
	char buf[48], end;

	if (v && sscanf(v, "%ld:%ld%c", &pid, &rank, &end) == 2 && pid != (long)getpid() &&
	    !(me >= 0 && rank != me && has_rank_part(zero_path))) {
		zero_descendant = true;
		return;
	}
	snprintf(buf, sizeof(buf), "%ld:%ld", (long)getpid(), me);
	setenv(OWNER_VAR, buf, 1);
}

static void zero_write(void)
{
	const char *p = zero_path;
	FILE *f;

	if (strcmp(p, "stderr") && strcmp(p, "-") && strcmp(p, "stdout")) {
		/* pmu_report_path()'s messages start with the file's name */
		if (pmu_report_path(p, NULL) < 0)
			pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT=%s\n", pmu_errmsg());
		return;
	}
	f = strcmp(p, "stdout") ? open_stderr() : stdout;
	if (f && pmu_report(f, "table") < 0)
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT=%s: %s\n", p, pmu_errmsg());
}

static bool zero_done;

static void zero_exit(void)
{
	if (zero_done)
		return;
	zero_done = true;
	if (getpid() == zero_pid)
		pmu__zero_interval_stop();
	/* A child, forked or exec'd, writes a report of its own only to a per-process file name. */
	if ((getpid() == zero_pid && !zero_descendant) || per_process(zero_path)) {
		if ((pid_t)syscall(SYS_gettid) == getpid())
			pmu__region_end_all();
		zero_write();
		pmu__trace_at_exit();	/* PMU_TRACE: after the regions ended, and before _exit() skips atexit */
	} else if (zero_descendant && getpid() == zero_pid && strcmp(zero_path, "stderr") && strcmp(zero_path, "-") &&
		   strcmp(zero_path, "stdout")) {
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT=%s: no report from process %ld, a child of the process "
			   "that set up: the name has no %%p\n",
			   pmu__show(&(struct pmu__shown){ 0 }, zero_path, strlen(zero_path)), (long)getpid());
	}
	pmu__thr_exit_self();	/* other threads may still run: only this one's set can go */
}

const char *pmu__zero_finish(void)
{
	if (!zero_path || zero_done || getpid() != zero_pid || zero_descendant)
		return NULL;
	zero_done = true;
	pmu__zero_interval_stop();
	if ((pid_t)syscall(SYS_gettid) == getpid())
		pmu__region_end_all();
	return zero_path;
}

/* "libpmu: PMU_EVENTS=EV: WHAT: the library's message", EV escaped for a terminal. */
static void say_events(const char *ev, const char *what)
{
	pmu__print(PMU_PRINT_WARN, "libpmu: PMU_EVENTS=%s: %s%s\n", pmu__show(&(struct pmu__shown){ 0 }, ev, strlen(ev)),
		   what, pmu_errmsg());
}

/* Each event (groups: '|' as LIKWID writes it) that does not open is left out, said once by the thread layer. */
static int zero_init(const char *ev)
{
	if (pmu__thread_init_avail(ev, false, "libpmu") == 0)
		return 0;
	say_events(ev, "nothing is counted: ");
	return -1;
}

/*
 * A program that ends with _exit() (dash, sh -c) runs no atexit handler: libpmu.so's
 * _exit (exit.c) calls this first. Only the process that set up writes there: a forked
 * or vfork'ed child (another pid) shares memory with its parent, or may, and exits at once.
 */
void pmu__zero_quick_exit(void)
{
	if (zero_path && getpid() == zero_pid && !zero_descendant)
		zero_exit();
}

static void zero_setup(void)
{
	const char *ev = pmu__getenv("PMU_EVENTS"), *rep = pmu__getenv("PMU_REPORT");

	if (!ev || !*ev || zero_init(ev) < 0)
		return;
	zero_path = strdup(rep && *rep ? rep : "stderr");
	if (!zero_path)
		return;
	zero_pid = getpid();
	zero_owner();
	if (!strcmp(zero_path, "stderr") || !strcmp(zero_path, "-"))
		zero_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (zero_fd >= 0 && fstat(zero_fd, &zero_st) < 0) {
		close(zero_fd);
		zero_fd = -1;
	}
	if (pmu_region_begin(WHOLE_RUN) < 0)
		say_events(ev, "");
	if (atexit(zero_exit) != 0)
		pmu__print(PMU_PRINT_WARN, "libpmu: PMU_REPORT: cannot register the report at exit\n");
	else if (!zero_descendant)
		pmu__zero_interval_start(zero_path);
}

__attribute__((constructor)) static void zero_ctor(void)
{
	if (pmu__getenv("PMU_EVENTS"))
		zero_setup();
}
