/* SPDX-License-Identifier: MIT */
/*
 * pmu_set_print(): every message of the library's own goes through the
 * function set, stderr by default, none with NULL, errno kept; a real one
 * (PMU_COMPENSATE=2) too. Failures set errno, and a message too long for
 * pmu_errmsg()'s buffer is cut at a word's end, marked " [...]".
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "pmu.h"
#include "base/internal.h"
#include "test.h"

static char got[4096];
static int calls;
static enum pmu_print_level got_level;

static int capture(enum pmu_print_level level, const char *fmt, va_list args)
{
	size_t n = strlen(got);

	calls++;
	got_level = level;
	vsnprintf(got + n, sizeof(got) - n, fmt, args);
	errno = ENOSPC;		/* the library keeps the caller's errno */
	return 0;
}

/* What fn in a child made of the messages of say(): on stderr into err, through capture() into got. */
static void in_child(pmu_print_fn fn, void (*say)(void), char *err, size_t size)
{
	char path[256];
	int fd, st;
	pid_t pid;

	err[0] = '\0';
	if (t_tmpfile(path, sizeof(path), "print") < 0)
		return;
	pid = fork();
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_TRUNC);
		dup2(fd, 2);
		pmu_set_print(fn);
		say();
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	if (fd >= 0) {
		ssize_t n = read(fd, err, size - 1);

		err[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	unlink(path);
}

static void say_internal(void)
{
	pmu__print(PMU_PRINT_WARN, "libpmu: TEST=%d: a message\n", 7);
}

/* PMU_COMPENSATE=2, a real message, said at the first region of a thread. */
static void say_compensate(void)
{
	setenv("PMU_COMPENSATE", "2", 1);
	if (pmu_thread_init("task-clock") == 0) {
		pmu_region_begin("r");
		pmu_region_end("r");
		pmu_thread_fini();
	}
}

static void routes(void)
{
	char err[4096];

	in_child(NULL, say_internal, err, sizeof(err));
	CHECK_MSG(!strcmp(err, ""), "silenced, stderr got \"%s\"", err);
	in_child(capture, say_internal, err, sizeof(err));
	CHECK_MSG(!strcmp(err, ""), "with a function set, stderr got \"%s\"", err);

	/* in this process: the function gets the line, errno is kept, the old function given back */
	pmu_print_fn def = pmu_set_print(capture);

	CHECK(def != NULL && def != capture);	/* the default, stderr's */
	errno = EXDEV;
	say_internal();
	CHECK(errno == EXDEV);
	CHECK_MSG(calls == 1 && !strcmp(got, "libpmu: TEST=7: a message\n") && got_level == PMU_PRINT_WARN,
		  "%d calls, \"%s\"", calls, got);
	CHECK(pmu_set_print(NULL) == capture);
	say_internal();
	CHECK(calls == 1);
}

/* A library that was never told: stderr. */
static void routes_default(void)
{
	char err[4096];
	int fd[2], st;
	pid_t pid;

	CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		say_internal();
		_exit(0);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], err, sizeof(err) - 1);

	err[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_MSG(!strcmp(err, "libpmu: TEST=7: a message\n"), "stderr by default: \"%s\"", err);
}

static void real_message(void)
{
	struct pmu_set *s;
	char err[4096];

	if (pmu_open(&s, "task-clock") < 0) {
		printf("perf_event_open is refused here (%s): no real message checked\n", pmu_errmsg());
		return;
	}
	pmu_close(s);
	in_child(NULL, say_compensate, err, sizeof(err));
	CHECK_MSG(!strcmp(err, ""), "silenced, PMU_COMPENSATE=2 wrote \"%s\"", err);
	got[0] = '\0';
	calls = 0;
	pmu_set_print(capture);
	say_compensate();
	pmu_set_print(NULL);
	unsetenv("PMU_COMPENSATE");
	CHECK_MSG(calls == 1 && strstr(got, "libpmu: PMU_COMPENSATE=2: neither 1 (on) nor 0 (off)"), "%d calls, \"%s\"",
		  calls, got);
}

/* pmu__err(): errno, and a long message cut at a word's end, marked. */
static void long_messages(void)
{
	char words[2000], word[2000];
	const char *m;
	size_t len;

	for (size_t i = 0; i + 1 < sizeof(words); i++)
		words[i] = i % 10 == 9 ? ' ' : 'a' + (char)(i % 10);
	words[sizeof(words) - 1] = '\0';
	errno = 0;
	CHECK(pmu__err(-E2BIG, "%s", words) == -E2BIG && errno == E2BIG);
	m = pmu_errmsg();
	len = strlen(m);
	CHECK_MSG(len < PMU_MSG_SIZE && len > PMU_MSG_SIZE - 16, "%zu bytes", len);
	CHECK_MSG(len > 6 && !strcmp(m + len - 6, " [...]"), "not marked: \"...%s\"", m + (len > 20 ? len - 20 : 0));
	CHECK_MSG(len > 6 && !strncmp(m, words, len - 6) && words[len - 6] == ' ', "cut mid-word");
	/* an append that does not fit is marked the same */
	pmu__err(-EINVAL, "short");
	pmu__err_append(": %s", words);
	m = pmu_errmsg();
	len = strlen(m);
	CHECK(len > 6 && !strcmp(m + len - 6, " [...]") && !strncmp(m, "short: ", 7));
	/* one word of two-byte characters: cut between characters */
	for (size_t i = 0; i + 2 < sizeof(word); i += 2)
		memcpy(word + i, "\xc3\xa9", 2);
	word[sizeof(word) - 2] = '\0';
	pmu__err(-EINVAL, "%s", word);
	m = pmu_errmsg();
	len = strlen(m);
	CHECK(len > 6 && !strcmp(m + len - 6, " [...]") && (len - 6) % 2 == 0);
	/* a message that fits is whole; err 0 keeps errno */
	errno = EXDEV;
	pmu__err(0, "fits");
	CHECK(!strcmp(pmu_errmsg(), "fits") && errno == EXDEV);
}

int main(void)
{
	routes_default();
	routes();
	real_message();
	long_messages();
	T_DONE();
}
