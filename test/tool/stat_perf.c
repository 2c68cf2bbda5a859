/* SPDX-License-Identifier: MIT */
/*
 * pmu stat against perf stat on the same deterministic command, with and
 * without modifiers: the same exit status, the same -x, layout (events,
 * units, field count), and page-faults within 1%. Counts that depend on the
 * scheduler (context switches, migrations, times) differ between two runs on
 * a loaded machine, so they are never compared across runs: pmu stat's
 * context-switches is only checked against the workload's own lower bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"
#include "stat_perf.h"

static char self[4096], tool[4200];

static int workload(long pages)
{
	long ps = sysconf(_SC_PAGESIZE);
	pid_t pid = fork();
	char *m;

	/* The parent and a child each touch pages: perf stat and pmu stat both follow children. */
	m = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* one fault per page: whether a huge page is free depends on the machine's load */
	if (m != MAP_FAILED)
		madvise(m, (size_t)(pages * ps), MADV_NOHUGEPAGE);
	for (long i = 0; m != MAP_FAILED && i < pages; i++)
		m[i * ps] = 1;
	if (pid == 0)
		_exit(0);
	/* Ten sleeps: at least ten context switches, which only kernel counting sees. */
	for (int i = 0; i < 10; i++)
		usleep(100);
	return pid > 0 && waitpid(pid, NULL, 0) == pid ? 0 : 1;
}

/* Run k (counted in file) touches k * 1000 pages: -r's runs differ by a known amount. */
static int growing(const char *file)
{
	long ps = sysconf(_SC_PAGESIZE), k = 0, pages;
	FILE *f = fopen(file, "r+");
	char *m;

	if (!f || fscanf(f, "%ld", &k) != 1)
		k = 0;
	k++;
	if (!f || fseek(f, 0, SEEK_SET) || fprintf(f, "%ld\n", k) < 0 || fclose(f))
		return 1;
	pages = k * 1000;
	m = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	madvise(m, (size_t)(pages * ps), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		m[i * ps] = 1;
	return 0;
}

/*
 * -r 5: perf stat -r's -x, layout (the variance field after the event); the
 * mean of page-faults within 1% of perf's on a fixed workload; and on runs
 * touching 1000, 2000, ... 5000 pages, the mean and relative standard
 * deviation (of the mean) computed here from the same 5 runs counted one by
 * one: page faults of a fixed program repeat, so both see the same counts.
 */
static void repeats(const char *np)
{
	char pf[] = "/tmp/pmu-perf-XXXXXX", mf[] = "/tmp/pmu-mine-XXXXXX", cf[] = "/tmp/pmu-runs-XXXXXX";
	char lt[64], lo[64];
	int a = mkstemp(pf), b = mkstemp(mf), c = mkstemp(cf);
	FILE *f;
	double t, o, mean, pct, x[5], m = 0, v = 0, want;

	close(a);
	close(b);
	close(c);
	CHECK_EQ(run((char *[]){ "perf", "stat", "-r", "5", "-x,", "-o", pf, "-e", "page-faults:u", "--", self,
				 "--work", (char *)np, NULL }), 0);
	CHECK_EQ(run((char *[]){ tool, "stat", "-r", "5", "-x,", "-o", mf, "-e", "page-faults:u", "--", self,
				 "--work", (char *)np, NULL }), 0);
	t = field(pf, "page-faults:u", lt, sizeof(lt));
	o = field(mf, "page-faults:u", lo, sizeof(lo));
	CHECK_MSG(*lt && !strcmp(lt, lo), "-r 5: perf stat: %s; pmu stat: %s", *lt ? lt : "absent",
		  *lo ? lo : "absent");
	CHECK_MSG(t > 0 && o >= t * 0.99 && o <= t * 1.01, "-r 5 page-faults:u: perf stat %.0f, pmu stat %.0f", t, o);
	printf("-r 5 page-faults:u   perf stat %10.0f  pmu stat %10.0f (+- %.2f%%)\n", t, o,
	       nth(mf, "page-faults:u", 3));

	for (int k = 0; k < 5; k++) {
		CHECK_EQ(run((char *[]){ tool, "stat", "-x,", "-o", mf, "-e", "page-faults:u", "--", self, "--grow",
					 cf, NULL }), 0);
		x[k] = nth(mf, "page-faults:u", 0);
		m += x[k] / 5;
	}
	for (int k = 0; k < 5; k++)
		v += (x[k] - m) * (x[k] - m) / 4;	/* the sample variance */
	/* perf's figure: the standard deviation of the mean (Newton's root: no libm), relative to it */
	v /= 5;
	want = v > 1 ? v : 1;
	for (int i = 0; i < 200 && v > 0; i++)
		want = (want + v / want) / 2;
	want = v > 0 ? 100.0 * want / m : 0;
	f = fopen(cf, "w");			/* runs 1..5 again */
	CHECK(f && fclose(f) == 0);
	CHECK_EQ(run((char *[]){ tool, "stat", "-r", "5", "-x,", "-o", mf, "-e", "page-faults:u", "--", self,
				 "--grow", cf, NULL }), 0);
	mean = nth(mf, "page-faults:u", 0);
	pct = nth(mf, "page-faults:u", 3);
	CHECK_MSG(m > 3000 && mean >= m * 0.99 && mean <= m * 1.01 && pct >= want * 0.98 && pct <= want * 1.02,
		  "-r 5 of runs touching 1000..5000 pages: mean %.1f +- %.2f%%; the runs one by one: %.1f +- %.2f%%",
		  mean, pct, m, want);
	/* the -r table, numbers masked */
	{
		char theirs[4096], ours[4096];

		CHECK_EQ(run((char *[]){ "perf", "stat", "-r", "3", "-o", pf, "-e", "page-faults:u,task-clock:u", "--",
					 self, "--work", (char *)np, NULL }), 0);
		CHECK_EQ(run((char *[]){ tool, "stat", "-r", "3", "-o", mf, "-e", "page-faults:u,task-clock:u", "--",
					 self, "--work", (char *)np, NULL }), 0);
		masked(pf, theirs, sizeof(theirs));
		masked(mf, ours, sizeof(ours));
		CHECK_MSG(*theirs && !strcmp(theirs, ours), "-r 3 table: perf stat:\n%s\npmu stat:\n%s", theirs, ours);
	}
	printf("-r 5 growing runs    mean %10.1f  +- %.2f%% (the runs one by one: %.1f +- %.2f%%)\n", mean, pct, m,
	       want);
	unlink(pf);
	unlink(mf);
	unlink(cf);
}

static double median3(double *v)
{
	double a = v[0], b = v[1], c = v[2];

	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/*
 * Counts the workload 3 times with each tool: the exit status and layout of
 * every run must match perf's; each event with a tolerance (a fraction of
 * perf's median) has its median compared. A negative tolerance compares
 * nothing across the tools (the count depends on the scheduler).
 */
static void compare(const char *events, const char *const *names, const double *tolerance, const char *np,
		    double *last)
{
	char pf[] = "/tmp/pmu-perf-XXXXXX", mf[] = "/tmp/pmu-mine-XXXXXX";
	int a = mkstemp(pf), b = mkstemp(mf);
	double theirs[8][3], ours[8][3];

	close(a);
	close(b);
	for (int r = 0; r < 3; r++) {
		char *perf[] = { "perf", "stat", "-x,", "-o", pf, "-e", (char *)events, "--", self, "--work",
				 (char *)np, NULL };
		char *mine[] = { tool, "stat", "-x,", "-o", mf, "-e", (char *)events, "--", self, "--work",
				 (char *)np, NULL };
		int rp = run(perf), rm = run(mine);

		CHECK_MSG(rp == 0 && rm == rp, "-e %s: perf stat exits %d, pmu stat %d", events, rp, rm);
		for (int i = 0; names[i]; i++) {
			char lt[64], lo[64];

			theirs[i][r] = field(pf, names[i], lt, sizeof(lt));
			ours[i][r] = field(mf, names[i], lo, sizeof(lo));
			CHECK_MSG(*lt && !strcmp(lt, lo), "%s: perf stat: %s; pmu stat: %s", names[i],
				  *lt ? lt : "absent", *lo ? lo : "absent");
			last[i] = ours[i][r];
		}
	}
	for (int i = 0; names[i]; i++) {
		double t = median3(theirs[i]), o = median3(ours[i]);
		double tol = tolerance[i] * t;

		if (tolerance[i] < 0)
			continue;
		CHECK_MSG(t >= 0 && o >= 0, "%s: perf %.0f, pmu %.0f", names[i], t, o);
		CHECK_MSG(o >= t - tol && o <= t + tol, "%s (-e %s): perf stat %.0f, pmu stat %.0f", names[i],
			  events, t, o);
		printf("%-20s perf stat %10.0f  pmu stat %10.0f\n", names[i], t, o);
	}
	unlink(pf);
	unlink(mf);
}

static char sfx[4];

/* name, or name:u where perf stat fell back to user space */
static const char *ev(const char *name, int k)
{
	static char buf[4][64];

	snprintf(buf[k], sizeof(buf[k]), "%s%s", name, sfx);
	return buf[k];
}

int main(int argc, char **argv)
{
	char buf[4096], np[32];
	double last[8];
	long paranoid = 2;
	FILE *f;
	long pages = t_scale(4000);

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return workload(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "--grow"))
		return growing(argv[2]);
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(buf, sizeof(buf), "%s", self);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(buf));
	if (access(tool, X_OK))
		T_SKIP("the pmu tool is not built next to the tests (%s)", tool);
	if (run((char *[]){ "perf", "stat", "-x,", "-e", "task-clock", "true", NULL }) != 0)
		T_SKIP("perf is not installed or cannot count here (perf stat -e task-clock true failed)");
	snprintf(np, sizeof(np), "%ld", pages);

	/*
	 * Where the kernel may not be counted (an ordinary user at paranoid 2),
	 * perf stat counts user space and names the events ":u"; pmu stat must too.
	 */
	{
		char pf[] = "/tmp/pmu-perf-XXXXXX", mf[] = "/tmp/pmu-mine-XXXXXX", lt[64], lo[64];
		int a = mkstemp(pf), b = mkstemp(mf);

		close(a);
		close(b);
		run((char *[]){ "perf", "stat", "-x,", "-o", pf, "-e", "context-switches", "true", NULL });
		run((char *[]){ tool, "stat", "-x,", "-o", mf, "-e", "context-switches", "true", NULL });
		field(pf, "context-switches:u", lt, sizeof(lt));
		field(mf, "context-switches:u", lo, sizeof(lo));
		unlink(pf);
		unlink(mf);
		CHECK_MSG(!*lt || *lo, "perf stat falls back to context-switches:u here (kernel counting "
			  "refused), pmu stat does not");
		if (*lt)
			strcpy(sfx, ":u");
	}
	/* page-faults of this fixed workload: 1%; the scheduler's counts and times: layout only */
	compare("task-clock,context-switches,cpu-migrations,page-faults",
		(const char *[]){ ev("page-faults", 0), ev("context-switches", 1), ev("cpu-migrations", 2),
				  ev("task-clock", 3), NULL },
		(const double[]){ 0.01, -1, -1, -1 }, np, last);
	/* the workload sleeps 10 times: at least 10 switches, when the kernel may be counted */
	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "r"))) {
		if (fscanf(f, "%ld", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (!*sfx && (geteuid() == 0 || paranoid < 2))
		CHECK_MSG(last[1] >= 10, "pmu stat counted %.0f context-switches of a workload that sleeps 10 times",
			  last[1]);
	compare("page-faults:u,minor-faults:u,major-faults:u",
		(const char *[]){ "page-faults:u", "minor-faults:u", "major-faults:u", NULL },
		(const double[]){ 0.01, 0.01, -1 }, np, last);
	repeats(np);
	T_DONE();
}
