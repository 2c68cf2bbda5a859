/* SPDX-License-Identifier: MIT */
/*
 * Region and thread names in the table and csv reports carry no raw control
 * characters: a newline or a terminal escape in a name is written escaped
 * (\n, \x1b), so a name can neither add a row nor drive the terminal.
 */
#include <sys/prctl.h>

#include "report_capture.h"

static const char *const names[] = { "line\nbreak", "esc\x1b[31mred", "tab\there", "back\\slash", "comma,\"q\"" };
#define N (sizeof(names) / sizeof(names[0]))

/* Bytes below 0x20 but newlines, and DEL. */
static int controls(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f;
	return n;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	char *out;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	prctl(PR_SET_NAME, "t\x1b]0;x\a");	/* before the thread's record is made */
	for (unsigned i = 0; i < N; i++) {
		CHECK(pmu_region_begin(names[i]) == 0);
		CHECK(pmu_region_end(names[i]) == 0);
	}

	/* A heading line, the column line, one row per region (a single thread). */
	out = t_report("table");
	CHECK_MSG(controls(out) == 0 && lines(out) == 2 + (int)N, "%s", out);
	CHECK_MSG(strstr(out, "\nline\\nbreak ") && strstr(out, "\nesc\\x1b[31mred ") &&
		  strstr(out, "\ntab\\there ") && strstr(out, "\nback\\\\slash "), "%s", out);
	free(out);

	/* The heading line, a total and a thread row per region. */
	out = t_report("csv");
	CHECK_MSG(controls(out) == 0 && lines(out) == 1 + 2 * (int)N, "%s", out);
	CHECK_MSG(strstr(out, "\nline\\nbreak,total,") && strstr(out, "\nesc\\x1b[31mred,total,") &&
		  strstr(out, "\n\"comma,\"\"q\"\"\",total,") && strstr(out, ",t\\x1b]0;x\\x07,"), "%s", out);
	free(out);

	/* JSON has escapes of its own. */
	out = t_report("json");
	CHECK_MSG(controls(out) == 0 && strstr(out, "\"line\\u000abreak\"") && strstr(out, "\"esc\\u001b[31mred\""),
		  "%s", out);
	free(out);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
