/* SPDX-License-Identifier: MIT */
/*
 * Zero-code mode: PMU_EVENTS and PMU_REPORT in the environment set the
 * library up before main() and write the report at exit, in the format the
 * file name asks for. The test runs itself (and /bin/true with the shared
 * library preloaded) as the measured program.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

extern char **environ;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		pmu_region_begin("work");
		t_touch_pages(10);
		pmu_region_end("work");
	}
	return NULL;
}

static void close_stderr(void)
{
	fclose(stderr);	/* as coreutils' close_stdout() does */
}

/* The measured program: no pmu_thread_init(), only regions. */
static int measured(const char *mode)
{
	pthread_t th[3];

	if (!strcmp(mode, "close-stderr"))
		atexit(close_stderr);
	if (!strcmp(mode, "close-fds")) {
		/* As daemons do: close what was inherited, then open a data file, which gets the lowest number. */
		const char *data = getenv("TEST_DATA");
		int fd;

		for (fd = 3; fd < 1024; fd++)
			close(fd);
		fd = open(data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		return !(fd >= 0 && write(fd, "data\n", 5) == 5);	/* left open: the program's till exit */
	}

	pmu_region_begin("setup");
	t_touch_pages(50);
	pmu_region_end("setup");
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			pmu_region_begin("in-child");
			pmu_region_end("in-child");
			exit(0);	/* exit(), not _exit(): the child's report too */
		}
		waitpid(pid, NULL, 0);
	}
	if (!strcmp(mode, "exit-in-region"))
		pmu_region_begin("left-open");
	return 0;
}

/* Runs argv with extra environment; its stderr into err (if not NULL). Returns the exit status. */
static int run(char *const argv[], const char *const *env, char *err, size_t errsize)
{
	char *envp[256];
	int n = 0, p[2], status;
	pid_t pid;

	for (char **e = environ; *e && n < 200; e++)
		if (strncmp(*e, "PMU_", 4) && strncmp(*e, "LD_PRELOAD=", 11))
			envp[n++] = *e;
	for (; *env; env++)
		envp[n++] = (char *)*env;
	envp[n] = NULL;
	if (pipe(p) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	size_t k = 0;
	ssize_t got;
	char sink[512];
	while (err && k + 1 < errsize && (got = read(p[0], err + k, errsize - 1 - k)) > 0)
		k += (size_t)got;
	while (read(p[0], sink, sizeof(sink)) > 0)
		;
	if (err)
		err[k] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = s; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		n += !strncmp(p, prefix, len);
	}
	return n;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/pmu-zero-XXXXXX", path[256], env_rep[300], err[8192], self[4096];
	const char *ev = "PMU_EVENTS=task-clock,page-faults";

	if (argc > 2 && !strcmp(argv[1], "--measured"))
		return measured(argv[2]);
	if (!realpath(argv[0], self))
		T_SKIP("cannot resolve %s", argv[0]);
	CHECK(mkdtemp(dir) != NULL);

	/* csv to a file: regions of four threads, the main thread's whole run. */
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", path);
	char *plain[] = { self, "--measured", "plain", NULL };
	CHECK(run(plain, (const char *[]){ ev, env_rep, NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(err[0] == '\0', "stderr: %s", err);
	char *csv = slurp(path);
	CHECK_MSG(!strncmp(csv, "region,thread,tid,calls,ns,ns_per_call,task-clock,page-faults,ns_min,", 69), "%s", csv);
	CHECK_MSG(strstr(csv, "\nwork,total,,30,"), "%s", csv);
	CHECK_MSG(count_lines(csv, "work,") == 5, "%s", csv);	/* total + 3 threads, its call path */
	CHECK_MSG(strstr(csv, "\nsetup,total,,1,"), "%s", csv);
	CHECK_MSG(strstr(csv, "\n(whole run),total,,1,"), "%s", csv);
	unlink(path);

	/* json, from the extension. */
	char host0[256] = "";
	CHECK(gethostname(host0, sizeof(host0)) == 0);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", path);
	CHECK(run(plain, (const char *[]){ ev, env_rep, NULL }, err, sizeof(err)) == 0);
	char *json = slurp(path);
	CHECK_MSG(json[0] == '{' && strstr(json, "\"name\": \"work\", \"parent\": null, \"calls\": 30,") &&
		  strstr(json, "\"name\": \"(whole run)\""), "%s", json);
	/* Where it comes from: library, pid, host, command line and start time. */
	char hostkey[300], cmdkey[4200];
	snprintf(hostkey, sizeof(hostkey), "\n  \"hostname\": \"%s\",\n", host0);
	snprintf(cmdkey, sizeof(cmdkey), "\n  \"command\": \"%s --measured plain\",\n", self);
	CHECK_MSG(!strncmp(json, "{\n  \"library\": \"libpmu ", 22) && strstr(json, pmu_version()) &&
		  strstr(json, "\n  \"pid\": ") && strstr(json, hostkey) && strstr(json, cmdkey) &&
		  strstr(json, "\n  \"start\": \"20") && strstr(json, "Z\",\n  \"start_ns\": 1"), "%s", json);
	unlink(path);

	/* A metric named in PMU_EVENTS: its events counted, its value in the report per region. */
	CHECK(run(plain, (const char *[]){ "PMU_EVENTS=page-faults,CPUs_utilized", env_rep, NULL }, err, sizeof(err)) == 0);
	json = slurp(path);
	CHECK_MSG(strstr(json, "\"events\": [\"page-faults\", \"task-clock\"]") &&
		  strstr(json, "\"name\": \"work\", \"parent\": null, \"calls\": 30,") && strstr(json, "\"metrics\": {\"CPUs_utilized\": ") &&
		  strstr(json, "\"name\": \"(whole run)\""), "%s", json);
	unlink(path);

	/* A table on stderr; regions left open at exit are ended there. */
	char *open_[] = { self, "--measured", "exit-in-region", NULL };
	CHECK(run(open_, (const char *[]){ ev, "PMU_REPORT=stderr", NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(!strncmp(err, "libpmu report: 4 regions, 4 threads; events: task-clock, page-faults\n", 69),
		  "%s", err);
	CHECK_MSG(strstr(err, "\nleft-open ") && strstr(err, "\n(whole run) "), "%s", err);

	/* Still there when the program closes stderr in an atexit handler of its own. */
	char *closer[] = { self, "--measured", "close-stderr", NULL };
	CHECK(run(closer, (const char *[]){ ev, "PMU_REPORT=stderr", NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(!strncmp(err, "libpmu report:", 14), "%s", err);

	/*
	 * A program that closes its inherited descriptors and opens a data file
	 * under the same number: the report goes to stderr, never into the file.
	 */
	char data[300], env_data[320];
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(env_data, sizeof(env_data), "TEST_DATA=%s", data);
	char *closefds[] = { self, "--measured", "close-fds", NULL };
	CHECK(run(closefds, (const char *[]){ ev, "PMU_REPORT=stderr", env_data, NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(!strcmp(slurp(data), "data\n"), "the data file holds: %s", slurp(data));
	CHECK_MSG(strstr(err, "libpmu report:"), "%s", err);
	unlink(data);

	/* PMU_REPORT defaults to stderr. */
	CHECK(run(plain, (const char *[]){ ev, NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(!strncmp(err, "libpmu report:", 14), "%s", err);

	/* A bad event: a message, and the program runs as if nothing was asked. */
	CHECK(run(plain, (const char *[]){ "PMU_EVENTS=task-clock,no-such-event", "PMU_REPORT=stderr", NULL },
		  err, sizeof(err)) == 0);
	CHECK_MSG(strstr(err, "libpmu: PMU_EVENTS=task-clock,no-such-event: ") && strstr(err, "no-such-event: ") &&
		  !strstr(err, "libpmu report"), "%s", err);

	/* A forked child writes its own report only to a per-process name. */
	snprintf(path, sizeof(path), "%s/r-%%p.csv", dir);
	snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", path);
	char *forks[] = { self, "--measured", "fork", NULL };
	CHECK(run(forks, (const char *[]){ ev, env_rep, NULL }, err, sizeof(err)) == 0);
	int files = 0, child_files = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p2[600];

		if (strncmp(e->d_name, "r-", 2))
			continue;
		files++;
		snprintf(p2, sizeof(p2), "%s/%s", dir, e->d_name);
		char *s = slurp(p2);
		if (strstr(s, "\nin-child,total,,1,")) {
			child_files++;
			/* Fresh in the child: none of the parent's regions. */
			CHECK_MSG(!strstr(s, "\nwork,") && !strstr(s, "\nsetup,"), "%s", s);
		} else {
			CHECK_MSG(strstr(s, "\nwork,total,,30,") && !strstr(s, "in-child"), "%s", s);
		}
		unlink(p2);
	}
	if (d)
		closedir(d);
	CHECK_EQ(files, 2);
	CHECK_EQ(child_files, 1);
	/* Without %p only the process that set up writes. */
	snprintf(path, sizeof(path), "%s/one.csv", dir);
	snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", path);
	CHECK(run(forks, (const char *[]){ ev, env_rep, NULL }, err, sizeof(err)) == 0);
	csv = slurp(path);
	CHECK_MSG(strstr(csv, "\nwork,total,,30,") && !strstr(csv, "in-child"), "%s", csv);
	unlink(path);

	/* %h the host name, %r the MPI rank (from the first of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID
	 * that is a number), %% a '%'. */
	char host[256] = "", want[900];
	CHECK(gethostname(host, sizeof(host)) == 0);
	host[sizeof(host) - 1] = '\0';
	for (char *h = host; *h; h++)
		if (*h == '/')
			*h = '_';
	const struct {
		const char *var1, *var2, *rank;	/* rank NULL: the pid, not known here */
	} ranks[] = {
		{ "OMPI_COMM_WORLD_RANK=3", "PMI_RANK=5", "3" },
		{ "OMPI_COMM_WORLD_RANK=../x", "PMI_RANK=5", "5" },
		{ "SLURM_PROCID=12", "PMI_RANK=", "12" },
		{ "SLURM_PROCID=1x", "PMI_RANK=-1", NULL },
	};
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s/m-%%h-%%r-100%%%%.csv", dir);
		CHECK(run(plain, (const char *[]){ ev, env_rep, ranks[i].var1, ranks[i].var2, NULL }, err,
			  sizeof(err)) == 0);
		CHECK_MSG(err[0] == '\0', "%s", err);
		int found = 0;
		d = opendir(dir);
		while (d && (e = readdir(d))) {
			char p2[600];
			size_t hl = strlen(host);

			if (strncmp(e->d_name, "m-", 2))
				continue;
			found++;
			snprintf(want, sizeof(want), "m-%s-%s-100%%.csv", host, ranks[i].rank ? ranks[i].rank : "");
			if (ranks[i].rank)
				CHECK_MSG(!strcmp(e->d_name, want), "%s: %s, not %s", ranks[i].var1, e->d_name, want);
			else
				CHECK_MSG(!strncmp(e->d_name, want, 3 + hl) && e->d_name[3 + hl] >= '1' &&
					  e->d_name[3 + hl] <= '9' && strstr(e->d_name, "-100%.csv"),
					  "%s: %s, not the pid", ranks[i].var1, e->d_name);
			snprintf(p2, sizeof(p2), "%s/%s", dir, e->d_name);
			unlink(p2);
		}
		if (d)
			closedir(d);
		CHECK_EQ(found, 1);
	}

	/* An unwritable report path: a message, and the program's own status. */
	CHECK(run(plain, (const char *[]){ ev, "PMU_REPORT=/nonexistent/dir/r.csv", NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(strstr(err, "libpmu: PMU_REPORT=/nonexistent/dir/r.csv: "), "%s", err);

	/* A report path too long once %p is expanded: a message, never a file at a cut-short name. */
	static char longrep[4400];
	size_t k = (size_t)snprintf(longrep, sizeof(longrep), "PMU_REPORT=%s/", dir);
	while (k < 3950)
		k += (size_t)snprintf(longrep + k, sizeof(longrep) - k, "./");
	k += (size_t)snprintf(longrep + k, sizeof(longrep) - k, "cut%%p");
	while (k < 4300)
		longrep[k++] = 'x';
	snprintf(longrep + k, sizeof(longrep) - k, ".csv");
	CHECK(run(plain, (const char *[]){ ev, longrep, NULL }, err, sizeof(err)) == 0);
	CHECK_MSG(strstr(err, "libpmu: PMU_REPORT=") && strstr(err, "too long"), "%s", err);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		CHECK_MSG(strncmp(e->d_name, "cut", 3), "report written to %s/%s", dir, e->d_name);
		if (!strncmp(e->d_name, "cut", 3)) {
			char p2[600];

			snprintf(p2, sizeof(p2), "%s/%s", dir, e->d_name);
			unlink(p2);
		}
	}
	if (d)
		closedir(d);

	/* A program that knows nothing of libpmu, with the shared library preloaded. */
	char lib[4200], tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", self);
	snprintf(lib, sizeof(lib), "%s/../libpmu.so.0", dirname(tmp));
#ifdef T_SANITIZED
	/* A sanitized library cannot be preloaded into a program built without the sanitizer. */
	lib[0] = '\0';
#endif
	if (lib[0] && access(lib, R_OK) == 0 && access("/bin/true", X_OK) == 0) {
		char preload[4300];

		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", lib);
		snprintf(path, sizeof(path), "%s/true.csv", dir);
		snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", path);
		char *tru[] = { "/bin/true", NULL };
		CHECK(run(tru, (const char *[]){ ev, env_rep, preload, NULL }, err, sizeof(err)) == 0);
		CHECK_MSG(err[0] == '\0', "%s", err);
		csv = slurp(path);
		CHECK_MSG(strstr(csv, "\n(whole run),total,,1,"), "%s", csv);
		unlink(path);
	} else {
		printf("note: %s: the preload case was not run\n", lib[0] ? "libpmu.so.0 not built" : "sanitized build");
	}
	rmdir(dir);
	T_DONE();
}
