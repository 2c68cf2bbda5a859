/* SPDX-License-Identifier: MIT */
/*
 * One process, one report: in zero-code mode a parent spawns two exec'd
 * children and a forked one, which all exit after the parent has written
 * its report. Under a fixed name the report stays the parent's (each exec'd
 * child says it wrote none); under a name with %p each process writes its
 * own. The test runs itself as the parent and as the children.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"

extern char **environ;

/* A child: waits for the parent to have exited (EOF on fd), then exits, writing its report. */
static int child(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

static int parent(const char *self)
{
	int go[2];
	char arg[16];

	if (pipe(go) < 0)
		return 1;
	snprintf(arg, sizeof(arg), "%d", go[0]);
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(go[1]);
			if (i == 2)
				exit(child(go[0]));	/* forked, no exec: exit() runs the library's handler */
			execl(self, self, "child", arg, (char *)NULL);
			_exit(127);
		}
	}
	close(go[0]);
	return 0;	/* the report is written at exit, then go's write end closes */
}

/* Runs the parent with PMU_REPORT=rep; its stderr in err. 0 when it and all its children ended. */
static int run(const char *self, const char *rep, char *err, size_t size)
{
	char env_rep[4200];
	int done[2], efd, status = 0;
	char tmpl[] = "/tmp/pmu-zero-children-XXXXXX", c;
	ssize_t n;
	pid_t pid;

	efd = mkstemp(tmpl);
	if (efd < 0 || pipe(done) < 0)
		return -1;
	unlink(tmpl);
	snprintf(env_rep, sizeof(env_rep), "PMU_REPORT=%s", rep);
	pid = fork();
	if (pid == 0) {
		char *envp[] = { "PMU_EVENTS=task-clock", env_rep, NULL };

		close(done[0]);
		dup2(efd, 2);
		execle(self, self, "parent", (char *)NULL, envp);
		_exit(127);
	}
	close(done[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	while ((n = read(done[0], &c, 1)) > 0 || (n < 0 && errno == EINTR))
		;	/* EOF: every child has exited */
	close(done[0]);
	n = pread(efd, err, size - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(efd);
	return 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/pmu-zero-children-XXXXXX", rep[4200], err[8192], cmd[4300], *s;
	int n = 0, parents = 0;
	struct dirent *e;
	DIR *d;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "parent"))
		return parent(argv[0]);
	unsetenv("PMU_REPORT_OWNER");
	if (!mkdtemp(dir))
		T_SKIP("no temporary directory");

	/* a fixed name: the parent's report, and a note from each exec'd child */
	snprintf(rep, sizeof(rep), "%s/fixed.json", dir);
	CHECK(run(argv[0], rep, err, sizeof(err)) == 0);
	s = t_file(rep);
	CHECK_MSG(s && strstr(s, " parent\"") && !strstr(s, " child "), "the report at %s: %s", rep,
		  s ? s : "(none)");
	for (const char *p = err; (p = strstr(p, "no report from process")); p++)
		n++;
	CHECK_MSG(n == 2, "%d notes from exec'd children: %s", n, err);
	unlink(rep);

	/* %p: four reports, one of them the parent's */
	snprintf(rep, sizeof(rep), "%s/r-%%p.json", dir);
	CHECK(run(argv[0], rep, err, sizeof(err)) == 0);
	CHECK_MSG(!strstr(err, "no report"), "%s", err);
	n = 0;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "r-", 2))
			continue;
		snprintf(cmd, sizeof(cmd), "%s/%s", dir, e->d_name);
		s = t_file(cmd);
		n++;
		parents += s && strstr(s, " parent\"");
		unlink(cmd);
	}
	if (d)
		closedir(d);
	CHECK_MSG(n == 4 && parents == 2, "%d reports under %%p, %d with the parent's command", n, parents);
	rmdir(dir);
	T_DONE();
}
