/* SPDX-License-Identifier: MIT */
/*
 * pmu stat: counts a command and its children, passes on its exit status,
 * prints -x and --json lines, and refuses bad events before running it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

/* The counted command: this program again. */
static int workload(char **argv)
{
	if (!strcmp(argv[0], "--exit"))
		return atoi(argv[1]);
	if (!strcmp(argv[0], "--kill"))
		raise(SIGKILL);
	if (!strcmp(argv[0], "--mark")) {
		int fd = open(argv[1], O_WRONLY | O_CREAT, 0600);

		return fd < 0;
	}
	if (!strcmp(argv[0], "--spin")) {
		volatile uint64_t x = 0;

		for (long i = 0; i < atol(argv[1]); i++)
			x += (uint64_t)i;
		return x == 1;	/* never: the sum is 0 or at least 3 */
	}
	if (!strcmp(argv[0], "--child-touch")) {
		pid_t pid = fork();

		if (pid == 0) {
			t_touch_pages(atol(argv[1]));
			_exit(0);
		}
		return waitpid(pid, NULL, 0) == pid ? 0 : 1;
	}
	if (!strcmp(argv[0], "--fds")) {
		/* Fails when a descriptor of pmu stat's own files reached the command. */
		char link[64], target[4096];
		int bad = 0;

		for (int fd = 3; fd < 1024; fd++) {
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (!strncmp(target, "/tmp/pmu-stat-", 14)) {
				fprintf(stderr, "fd %d: %s\n", fd, target);
				bad = 1;
			}
		}
		return bad;
	}
	return 99;
}

static char self[4096], tool[4200];

/* Runs pmu stat with args; its output (-o) into out. Returns its exit status. */
static int stat_run(const char *const *args, char *out, size_t size, char *err, size_t esize)
{
	char ofile[] = "/tmp/pmu-stat-XXXXXX", efile[] = "/tmp/pmu-stat-err-XXXXXX";
	int ofd = mkstemp(ofile), efd = mkstemp(efile), status;

	/* Only what pmu stat opens itself may reach the command. */
	fcntl(ofd, F_SETFD, FD_CLOEXEC);
	fcntl(efd, F_SETFD, FD_CLOEXEC);
	char *argv[32];
	int n = 0;
	pid_t pid;

	argv[n++] = tool;
	argv[n++] = "stat";
	argv[n++] = "-o";
	argv[n++] = ofile;
	for (; *args && n < 30; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(efd, 2);
		execv(tool, argv);
		_exit(126);
	}
	waitpid(pid, &status, 0);
	/* -o writes a new file renamed over the name: read what the name is now */
	close(ofd);
	ofd = open(ofile, O_RDONLY | O_CLOEXEC);
	ssize_t k = pread(ofd, out, size - 1, 0);
	out[k > 0 ? k : 0] = '\0';
	/* -o FILE begins with perf stat's "# started on DATE" and a blank line: checked, then left out */
	if (k > 0) {
		char *body = strstr(out, "\n\n");

		CHECK_MSG(!strncmp(out, "# started on ", 13) && body, "%s", out);
		if (!strncmp(out, "# started on ", 13) && body)
			memmove(out, body + 2, strlen(body + 2) + 1);
	}
	k = pread(efd, err, esize - 1, 0);
	err[k > 0 ? k : 0] = '\0';
	close(ofd);
	close(efd);
	unlink(ofile);
	unlink(efile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The value of event ev (or ev:u, where kernel counting is refused) in -x, output; -1 if absent or not a number. */
static double field(const char *out, const char *ev)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), ",%s,", ev);
	if (!strstr(out, key))
		snprintf(key, sizeof(key), ",%s:u,", ev);
	for (p = strstr(out, key); p && p > out && p[-1] != '\n'; p--)
		;
	if (!p || (p[0] == '<'))
		return -1;
	return strtod(p, NULL);
}

int main(int argc, char **argv)
{
	char out[8192], err[8192], mark[300], markdir[256];

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return workload(argv + 2);
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(out, sizeof(out), "%s", self);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(out));
	if (access(tool, X_OK))
		T_SKIP("the pmu tool is not built next to the tests (%s)", tool);

	/* The default table, and the command's exit status. */
	CHECK_EQ(stat_run((const char *[]){ "--", self, "--work", "--exit", "7", NULL }, out, sizeof(out),
			  err, sizeof(err)), 7);
	CHECK_MSG(strstr(out, "Performance counter stats for '") && strstr(out, " msec task-clock") &&
		  strstr(out, " page-faults") && strstr(out, " seconds time elapsed"), "%s", out);
	CHECK_EQ(stat_run((const char *[]){ self, "--work", "--kill", NULL }, out, sizeof(out), err, sizeof(err)),
		 128 + SIGKILL);

	/* Children are counted: the child touches 3000 pages, the command itself few. */
	long pages = t_scale(3000);
	char np[32];
	snprintf(np, sizeof(np), "%ld", pages);
	CHECK_EQ(stat_run((const char *[]){ "-x,", "-e", "page-faults,task-clock", "--", self, "--work",
				       "--child-touch", np, NULL }, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_MSG(field(out, "page-faults") >= (double)pages, "%s", out);
	CHECK_MSG(field(out, "task-clock") > 0, "%s", out);
	/* Where the kernel may not be counted (an ordinary user at paranoid 2), events are named :u, as perf names them. */
	const char *u = strstr(out, "task-clock:u,") ? ":u" : "";
	char key[128];

	snprintf(key, sizeof(key), ",msec,task-clock%s,", u);
	CHECK_MSG(strstr(out, key), "%s", out);
	/* Seven fields a line. */
	for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
		int commas = 0;
		for (const char *c = l; *c && *c != '\n'; c++)
			commas += *c == ',';
		CHECK_MSG(commas == 6, "%.*s", (int)strcspn(l, "\n"), l);
	}

	/* Another separator; --json. */
	CHECK_EQ(stat_run((const char *[]){ "-x", ";", "-e", "page-faults", self, "--work", "--exit", "0", NULL },
			  out, sizeof(out), err, sizeof(err)), 0);
	snprintf(key, sizeof(key), ";;page-faults%s;", u);
	CHECK_MSG(strstr(out, key), "%s", out);
	CHECK_EQ(stat_run((const char *[]){ "--json", "-e", "task-clock,page-faults", self, "--work", "--exit", "0",
				       NULL }, out, sizeof(out), err, sizeof(err)), 0);
	snprintf(key, sizeof(key), "\"unit\" : \"msec\", \"event\" : \"task-clock%s\", \"event-runtime\" : ", u);
	CHECK_MSG(!strncmp(out, "{\"counter-value\" : \"", 20) && strstr(out, key) &&
		  strstr(out, "}\n{\"counter-value\" : \"") && strstr(out, "\"event\" : \"page-faults"), "%s", out);

	/* A bad event: a message naming it, and the command never runs. */
	CHECK(t_tmpdir(markdir, sizeof(markdir), "stat-mark") == 0);
	snprintf(mark, sizeof(mark), "%s/mark", markdir);	/* a name the command makes */
	CHECK_EQ(stat_run((const char *[]){ "-e", "task-clock,no-such-event", "--", self, "--work", "--mark", mark,
				       NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "no-such-event"), "%s", err);
	CHECK(access(mark, F_OK) != 0);
	/* A supported-elsewhere event: shown as not supported, the command runs. */
	CHECK_EQ(stat_run((const char *[]){ "-x,", "-e", "task-clock,cycles", "--", self, "--work", "--mark", mark,
				       NULL }, out, sizeof(out), err, sizeof(err)), 0);
	CHECK(access(mark, F_OK) == 0);
	unlink(mark);
	rmdir(markdir);
	{
		struct pmu_set *s;

		if (pmu_open(&s, "cycles") == 0)
			pmu_close(s);
		else
			CHECK_MSG(strstr(out, "<not supported>,,cycles,") && strstr(err, "cycles: "), "%s\n%s", out, err);
	}

	/*
	 * More hardware events than counters (where there is a PMU): the kernel
	 * multiplexes them, pmu stat scales and shows the share of time counted.
	 */
	{
		struct pmu_set *s;

		if (pmu_open(&s, "cycles") == 0) {
			/* 24: more than any PMU of the tiers has (riscv64 under QEMU: 18). */
			const char *many = "cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,"
					   "cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,"
					   "cycles,cycles,cycles,cycles";
			char spins[32];
			int partial = 0;

			pmu_close(s);
			snprintf(spins, sizeof(spins), "%ld", t_scale(200000000));
			CHECK_EQ(stat_run((const char *[]){ "-x,", "-e", many, "--", self, "--work", "--spin", spins,
						       NULL }, out, sizeof(out), err, sizeof(err)), 0);
			for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
				double pct = 100;
				const char *c = l;

				for (int k = 0; k < 4 && c; k++)
					c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
				if (c)
					pct = strtod(c, NULL);
				CHECK_MSG(pct > 0 && pct <= 100, "%.*s", (int)strcspn(l, "\n"), l);
				partial += pct < 100;
			}
			CHECK_MSG(partial > 0, "no event was multiplexed:\n%s", out);
			CHECK_EQ(stat_run((const char *[]){ "-e", many, "--", self, "--work", "--spin", spins, NULL },
					  out, sizeof(out), err, sizeof(err)), 0);
			CHECK_MSG(strstr(out, "%)\n"), "%s", out);
		}
	}

	/* Usage errors exit 129, as perf stat's; perf's options pmu stat lacks are named, never misread. */
	CHECK_EQ(stat_run((const char *[]){ NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_EQ(stat_run((const char *[]){ "-x,", "--json", "true", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_EQ(stat_run((const char *[]){ "-q", "true", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_EQ(stat_run((const char *[]){ "--smi-cost", "true", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "not supported: --smi-cost"), "%s", err);
	CHECK_EQ(stat_run((const char *[]){ "-M", "no_such_metric", "true", NULL }, out, sizeof(out), err, sizeof(err)),
		 1);
	CHECK_MSG(strstr(err, "-M no_such_metric: no metric or metric group of that name"), "%s", err);
	/* -r: a number of runs; the table says how many, and the command's status is passed through */
	CHECK_EQ(stat_run((const char *[]){ "-r", "0", "true", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "-r '0'"), "%s", err);
	CHECK_EQ(stat_run((const char *[]){ "--repeat=3", "-e", "page-faults", "true", NULL }, out, sizeof(out), err,
			  sizeof(err)), 0);
	CHECK_MSG(strstr(out, "'true' (3 runs):") && strstr(out, "( +-") && strstr(out, "seconds time elapsed  ( +-"),
		  "%s", out);
	CHECK_EQ(stat_run((const char *[]){ "-r", "3", "sh", "-c", "exit 5", NULL }, out, sizeof(out), err,
			  sizeof(err)), 5);
	CHECK_EQ(stat_run((const char *[]){ "--per-thread", "true", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "not supported: --per-thread"), "%s", err);
	CHECK_EQ(stat_run((const char *[]){ "-e", NULL }, out, sizeof(out), err, sizeof(err)), 129);
	CHECK_MSG(strstr(err, "-e needs a value"), "%s", err);
	/* perf's spellings: --event=, -j and --json-output, a command without "--", --append. */
	CHECK_EQ(stat_run((const char *[]){ "--event=page-faults", "-j", self, "--work", "--exit", "0", NULL }, out,
			  sizeof(out), err, sizeof(err)), 0);
	CHECK_MSG(!strncmp(out, "{\"counter-value\" : \"", 20) && strstr(out, "\"event\" : \"page-faults"), "%s", out);
	CHECK_EQ(stat_run((const char *[]){ "--json-output", "--field-separator", ",", "true", NULL }, out,
			  sizeof(out), err, sizeof(err)), 129);
	{
		char af[] = "/tmp/pmu-stat-append-XXXXXX", buf[8192];
		int fd = mkstemp(af);
		ssize_t k;

		for (int i = 0; i < 2; i++)
			CHECK_EQ(stat_run((const char *[]){ "-x,", "-e", "page-faults", "-o", af, "--append", "true", NULL },
					  out, sizeof(out), err, sizeof(err)), 0);
		k = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[k > 0 ? k : 0] = '\0';
		CHECK_MSG(strstr(buf, ",page-faults") && strstr(strstr(buf, ",page-faults") + 1, ",page-faults"),
			  "--append: %s", buf);
		close(fd);
		unlink(af);
	}
	CHECK_EQ(stat_run((const char *[]){ "--", "/nonexistent/command", NULL }, out, sizeof(out), err,
			  sizeof(err)), 127);
	CHECK_MSG(strstr(err, "/nonexistent/command: No such file"), "%s", err);
	/* The -o file is not left open in the command. */
	CHECK_MSG(stat_run((const char *[]){ "-e", "task-clock", "--", self, "--work", "--fds", NULL }, out,
			   sizeof(out), err, sizeof(err)) == 0, "%s", err);
	T_DONE();
}
