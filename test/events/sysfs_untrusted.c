/* SPDX-License-Identifier: MIT */
/*
 * Files under a sysfs root are untrusted. In a tree made here: a FIFO as a
 * type, format or alias file is refused by path and never blocks the
 * library, pmu encode or pmu list; more core PMUs, PMUs or alias terms than
 * the library's tables hold are refused with a message naming the limit, or
 * handled; an unreadable core PMU type names the event being opened; input
 * in messages is escaped and bounded, and the cause survives 64 KiB of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "events/event.h"
#include "events/sysfs.h"
#include "test.h"

static char root[64], tool[4200];

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	unlink(path);	/* it may be a FIFO */
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void fifo(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	CHECK(mkfifo(path, 0644) == 0);
}

static void reset_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", root);
	CHECK(system(cmd) == 0);
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7\n");
	put("cpu/format/umask", "config:8-15\n");
	put("cpu/events/ok", "event=0x3c\n");
	put("software/type", "1\n");
}

static int t_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Parses event s: its return value; the message in msg. */
static int parse(const char *s, char *msg, size_t size)
{
	struct pmu__event ev;
	int r = pmu__event_parse(s, strlen(s), &ev);

	snprintf(msg, size, "%s", r < 0 ? pmu_errmsg() : "");
	return r;
}

/* Runs the pmu tool with PMU_SYSFS_DEVICES=root; its exit status (128+signal), stdout+stderr in out. */
static int run_tool(const char *const *args, char *out, size_t size)
{
	int p[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	fflush(NULL);
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[16];
		int i = 0;

		argv[i++] = tool;
		while (*args && i < 15)
			argv[i++] = (char *)*args++;
		argv[i] = NULL;
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		setenv("PMU_SYSFS_DEVICES", root, 1);
		alarm(60);	/* a block is a hang, not slowness */
		execv(tool, argv);
		_exit(127);
	}
	close(p[1]);
	while (n + 1 < size && (r = read(p[0], out + n, size - n - 1)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	char msg[1024], buf[4096], *out = malloc(1 << 20), *big;
	int r;

	(void)argc;
	if (!realpath(argv[0], buf))
		T_SKIP("cannot resolve %s", argv[0]);
	snprintf(tool, sizeof(tool), "%s/../pmu", dirname(buf));
	snprintf(root, sizeof(root), "/tmp/pmu-untrusted-XXXXXX");
	if (!out || !mkdtemp(root))
		T_SKIP("no temporary directory");
	pmu__set_sysfs_root(root);
	alarm(120);	/* the library blocking on a FIFO ends the test */

	/* A FIFO as the core PMU's type: refused by path, naming the event. */
	reset_tree();
	fifo("cpu/type");
	r = parse("cycles", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && !strncmp(msg, "cycles: ", 8) && strstr(msg, "/cpu/type") &&
		  strstr(msg, "not a regular file"), "%d %s", r, msg);
	r = parse("cpu/event=1/", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && strstr(msg, "cpu/event=1/: ") && strstr(msg, "not a regular file"), "%d %s", r,
		  msg);
	/* Garbage: the same. */
	put("cpu/type", "4x\n");
	r = parse("cycles", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && !strncmp(msg, "cycles: ", 8) && strstr(msg, "malformed PMU type"), "%d %s", r,
		  msg);
	put("cpu/type", "");
	r = parse("r003c", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && !strncmp(msg, "r003c: ", 7) && strstr(msg, "/cpu/type"), "%d %s", r, msg);

	/* A FIFO as a format and as an alias: the library, pmu encode and pmu list. */
	reset_tree();
	fifo("cpu/format/umask");
	fifo("cpu/events/fifo");
	r = parse("cpu/event=1,umask=1/", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && strstr(msg, "/cpu/format/umask is malformed: 'not a regular file'"), "%d %s", r,
		  msg);
	r = parse("cpu/fifo/", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && strstr(msg, "/cpu/events/fifo: malformed event alias (not a regular file)"),
		  "%d %s", r, msg);
	CHECK(parse("cpu/ok/", msg, sizeof(msg)) == 0);
	r = run_tool((const char *[]){ "encode", "cpu/fifo/", NULL }, out, 1 << 20);
	CHECK_MSG(r == 1 && strstr(out, "not a regular file"), "pmu encode exit %d: %s", r, out);
	r = run_tool((const char *[]){ "list", "cpu/", NULL }, out, 1 << 20);
	CHECK_MSG(r == 0 && strstr(out, "cpu/ok/") && strstr(out, "umask=(malformed: not a regular file)"),
		  "pmu list exit %d: %s", r, out);
	/* A device: refused without reading it forever. */
	reset_tree();
	snprintf(buf, sizeof(buf), "%s/cpu/events/zero", root);
	CHECK(symlink("/dev/zero", buf) == 0);
	r = parse("cpu/zero/", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && strstr(msg, "not a regular file"), "%d %s", r, msg);

	/* Links out of the tree are not followed: an alias, a directory, a tracepoint id. */
	{
		char secret[96], link[600];

		snprintf(secret, sizeof(secret), "%s.secret", root);
		mkdir(secret, 0700);
		snprintf(link, sizeof(link), "%s/file", secret);
		CHECK(t_write_file(link, "event=0x99,secret-bytes-here\n") == 0);
		reset_tree();
		snprintf(buf, sizeof(buf), "%s/cpu/events/leak", root);
		CHECK(symlink(link, buf) == 0);
		r = parse("cpu/leak/", msg, sizeof(msg));
		CHECK_MSG(r == -EINVAL && strstr(msg, "not a regular file") && !strstr(msg, "secret-bytes"), "%d %s",
			  r, msg);
		r = run_tool((const char *[]){ "list", "--sysfs", "cpu/", NULL }, out, 1 << 20);
		CHECK_MSG(!strstr(out, "secret-bytes") && !strstr(out, "0x99"), "pmu list exit %d: %s", r, out);
		/* a directory link out of the tree: its aliases are not there */
		snprintf(link, sizeof(link), "%s/events2", secret);
		mkdir(link, 0700);
		snprintf(link, sizeof(link), "%s/events2/inside", secret);
		CHECK(t_write_file(link, "event=0x77\n") == 0);
		snprintf(buf, sizeof(buf), "%s/pmu2/type", root);
		put("pmu2/type", "9\n");
		put("pmu2/format/event", "config:0-7\n");
		snprintf(buf, sizeof(buf), "%s/pmu2/events", root);
		snprintf(link, sizeof(link), "%s/events2", secret);
		CHECK(symlink(link, buf) == 0);
		r = parse("pmu2/inside/", msg, sizeof(msg));
		CHECK_MSG(r < 0, "an alias read through a directory link out of the tree: %d", r);
		/* a tracepoint id linked out of a PMU_TRACEFS tree */
		snprintf(buf, sizeof(buf), "%s/tfs/events/sched/leak", root);
		put("tfs/events/sched/leak/x", "");
		snprintf(link, sizeof(link), "%s/id", secret);
		CHECK(t_write_file(link, "1234\n") == 0);
		snprintf(buf, sizeof(buf), "%s/tfs/events/sched/leak/id", root);
		CHECK(symlink(link, buf) == 0);
		snprintf(buf, sizeof(buf), "%s/tfs", root);
		setenv("PMU_TRACEFS", buf, 1);
		r = parse("sched:leak", msg, sizeof(msg));
		CHECK_MSG(r == -EINVAL && strstr(msg, "not a regular file"), "%d %s", r, msg);
		unsetenv("PMU_TRACEFS");
		snprintf(buf, sizeof(buf), "rm -rf '%s'", secret);
		CHECK(system(buf) == 0);
	}

	/* More core PMUs than an event counts on: cycles is refused, naming the limit. */
	reset_tree();
	for (int i = 0; i < PMU_MAX_PMUS + 4; i++) {
		snprintf(buf, sizeof(buf), "armv8_c%02d/type", i);
		snprintf(msg, sizeof(msg), "%d\n", 10 + i);
		put(buf, msg);
	}
	r = parse("cycles", msg, sizeof(msg));
	snprintf(buf, sizeof(buf), "more than %d core PMUs", PMU_MAX_PMUS);
	CHECK_MSG(r == -E2BIG && !strncmp(msg, "cycles: ", 8) && strstr(msg, buf), "%d %s", r, msg);
	CHECK(parse("armv8_c11/cycles/", msg, sizeof(msg)) == 0);

	/* 300 PMUs before cpu: pmu check lists them all and finds the core PMU. */
	reset_tree();
	for (int i = 0; i < 300; i++) {
		snprintf(buf, sizeof(buf), "a%03d/type", i);
		snprintf(msg, sizeof(msg), "%d\n", 100 + i);
		put(buf, msg);
	}
	r = run_tool((const char *[]){ "check", "-e", "task-clock", NULL }, out, 1 << 20);
	CHECK_MSG(r == 0 && strstr(out, "\n  a299 ") && strstr(out, "\n  cpu ") && !strstr(out, "no core PMU"),
		  "pmu check exit %d: %.2000s", r, out);

	/* An alias using more distinct terms than the lookup table: named as a limit, not "not a term". */
	reset_tree();
	for (int i = 0; i < PMU_LAZY_FORMATS + 6; i++) {
		snprintf(buf, sizeof(buf), "cpu/format/t%02d", i);
		snprintf(msg, sizeof(msg), "config1:%d\n", i % 64);
		put(buf, msg);
	}
	{
		char terms[2048] = "";

		for (int i = 0; i < PMU_LAZY_FORMATS + 6; i++)
			snprintf(terms + strlen(terms), sizeof(terms) - strlen(terms), "%st%02d=1", i ? "," : "", i);
		put("cpu/events/wide", terms);
	}
	r = parse("cpu/wide/", msg, sizeof(msg));
	CHECK_MSG(r == -E2BIG && strstr(msg, "64 distinct terms") && !strstr(msg, "not a term"), "%d %s", r, msg);

	/* Input in messages: escaped, bounded, the cause kept after 64 KiB. */
	reset_tree();
	r = parse("cpu/ev\x1b[2J\nx=1/", msg, sizeof(msg));
	CHECK_MSG(r == -EINVAL && strstr(msg, "ev\\x1b[2J\\nx=1"), "%d %s", r, msg);
	big = malloc(65536 + 16);
	CHECK(big != NULL);
	if (big) {
		struct pmu_set *s;

		memset(big, 'x', 65536);
		memcpy(big + 65536, "\n\x1b[2J", 6);
		r = pmu_open(&s, big);
		CHECK_MSG(r == -ENOENT && strstr(pmu_errmsg(), "unknown event") && !strchr(pmu_errmsg(), '\n') &&
			  !strchr(pmu_errmsg(), '\x1b'), "%d %.200s", r, pmu_errmsg());
		memcpy(big, "cpu/", 4);
		memcpy(big + 65536, "=1\x1b/", 5);
		r = parse(big, msg, sizeof(msg));
		CHECK_MSG(r == -EINVAL && strstr(msg, "unknown term") && !strchr(msg, '\x1b'), "%d %s", r, msg);
		free(big);
	}

	snprintf(buf, sizeof(buf), "rm -rf '%s'", root);
	CHECK(system(buf) == 0);
	free(out);
	T_DONE();
}
