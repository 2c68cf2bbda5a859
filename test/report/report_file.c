/* SPDX-License-Identifier: MIT */
/*
 * Report files: a symlink planted at the name is replaced, never followed;
 * a regular file written over keeps its permissions, a new one gets 0666
 * under the umask; /dev/null and a FIFO are written in place; no temporary
 * file stays behind; the same for pmu stat -o and pmu report merge -o.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pmu.h"
#include "test.h"

static char dir[] = "/tmp/pmu-report-file-XXXXXX";

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Entries of dir starting with '.' other than . and ..: temporary files left behind. */
static int leftovers(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static int tool_run(const char *tool, const char *const *args)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[16];
		int i = 0;

		argv[i++] = (char *)tool;
		while (*args && i < 15)
			argv[i++] = (char *)*args++;
		argv[i] = NULL;
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execv(tool, argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	char victim[128], name[128], buf[4096], tool[4200], fixture[4200];
	struct stat st;
	char *s;

	(void)argc;
	if (!mkdtemp(dir))
		T_SKIP("no temporary directory");
	if (pmu_thread_init("task-clock") < 0)
		T_SKIP("pmu_thread_init: %s", pmu_errmsg());
	CHECK(pmu_region_begin("r") == 0);
	CHECK(pmu_region_end("r") == 0);

	/* a link planted at the name: replaced, its target untouched */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(name, sizeof(name), "%s/report.json", dir);
	CHECK(put(victim, "precious\n") == 0);
	CHECK(symlink(victim, name) == 0);
	CHECK_MSG(pmu_report_path(name, NULL) == 0, "%s", pmu_errmsg());
	s = t_file(victim);
	CHECK_MSG(s && !strcmp(s, "precious\n"), "the link's target was written: %.80s", s ? s : "(gone)");
	CHECK(lstat(name, &st) == 0 && S_ISREG(st.st_mode));
	s = t_file(name);
	CHECK(s && strstr(s, "\"regions\""));

	/* a name with no directory in it: in the current one */
	{
		char cwd[4096];

		CHECK(getcwd(cwd, sizeof(cwd)) != NULL && chdir(dir) == 0);
		CHECK_MSG(pmu_report_path("bare.json", NULL) == 0, "bare.json: %s", pmu_errmsg());
		s = t_file("bare.json");
		CHECK(s && strstr(s, "\"regions\""));
		CHECK(chdir(cwd) == 0);
	}

	/* success leaves errno alone, though the new name's lookup failed on the way */
	snprintf(name, sizeof(name), "%s/fresh.json", dir);
	errno = 12345;
	CHECK(pmu_report_path(name, NULL) == 0 && errno == 12345);
	snprintf(name, sizeof(name), "%s/report.json", dir);

	/* an existing file keeps its permissions; a new one gets 0666 under the umask */
	CHECK(chmod(name, 0600) == 0);
	CHECK(pmu_report_path(name, NULL) == 0);
	CHECK(stat(name, &st) == 0 && (st.st_mode & 0777) == 0600);
	umask(027);
	snprintf(name, sizeof(name), "%s/new.csv", dir);
	CHECK(pmu_report_path(name, NULL) == 0);
	CHECK_MSG(stat(name, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o", (unsigned)st.st_mode & 0777);
	umask(022);

	/* a directory that takes no new file (root may make one anywhere): the existing file in place */
	if (geteuid() != 0) {
		char ro[160];

		snprintf(ro, sizeof(ro), "%s/ro", dir);
		snprintf(name, sizeof(name), "%s/ro/old.json", dir);
		CHECK(mkdir(ro, 0755) == 0 && put(name, "old\n") == 0 && chmod(ro, 0555) == 0);
		CHECK_MSG(pmu_report_path(name, NULL) == 0, "%s", pmu_errmsg());
		s = t_file(name);
		CHECK(s && strstr(s, "\"regions\""));
		CHECK(chmod(ro, 0755) == 0);
	}

	/* streams in place: /dev/null stays a device, a FIFO is written to */
	CHECK(pmu_report_path("/dev/null", "table") == 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	snprintf(name, sizeof(name), "%s/fifo", dir);
	CHECK(mkfifo(name, 0600) == 0);
	{
		pid_t pid = fork();
		int status = 0;

		if (pid == 0) {
			int fd = open(name, O_RDONLY);
			ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

			_exit(n > 0 && !strncmp(buf, "libpmu report", 13) ? 0 : 1);
		}
		CHECK(pmu_report_path(name, "table") == 0);
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
		CHECK(lstat(name, &st) == 0 && S_ISFIFO(st.st_mode));
	}
	/* a failure leaves no file: a directory as the name */
	CHECK(pmu_report_path(dir, "json") == -EISDIR);
	CHECK_MSG(leftovers() == 0, "%d temporary files left in %s", leftovers(), dir);

	CHECK(pmu_thread_fini() == 0);

	/* the tool: pmu stat -o and pmu report merge -o through a planted link */
	if (!realpath(argv[0], buf))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(buf));
	snprintf(fixture, sizeof(fixture), "test/fixtures/reports/a.json");
	snprintf(name, sizeof(name), "%s/stat.txt", dir);
	unlink(victim);
	CHECK(put(victim, "precious\n") == 0);
	CHECK(symlink(victim, name) == 0);
	CHECK(tool_run(tool, (const char *[]){ "stat", "-e", "task-clock", "-o", name, "true", NULL }) == 0);
	s = t_file(victim);
	CHECK_MSG(s && !strcmp(s, "precious\n"), "pmu stat -o wrote the link's target: %.80s", s ? s : "(gone)");
	s = t_file(name);
	CHECK(s && strstr(s, "task-clock"));
	if (!access(fixture, R_OK)) {
		snprintf(name, sizeof(name), "%s/merged.json", dir);
		CHECK(symlink(victim, name) == 0);
		CHECK(tool_run(tool, (const char *[]){ "report", "merge", "-o", name, fixture, NULL }) == 0);
		s = t_file(victim);
		CHECK_MSG(s && !strcmp(s, "precious\n"), "pmu report merge -o wrote the link's target: %.80s",
			  s ? s : "(gone)");
		CHECK(lstat(name, &st) == 0 && S_ISREG(st.st_mode));
	}
	CHECK_MSG(leftovers() == 0, "%d temporary files left in %s", leftovers(), dir);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	CHECK(system(buf) == 0);
	T_DONE();
}
