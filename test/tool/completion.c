/* SPDX-License-Identifier: MIT */
/*
 * completion/pmu.bash driven by bash: COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT
 * set as readline would, _pmu called, COMPREPLY checked.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "tool_run.h"

static char bash[PATH_MAX], script[PATH_MAX + 64], bindir[PATH_MAX + 32], driver[256];

/*
 * $1 the completion script, $2 the line typed, the cursor at its end. The
 * words are split as readline splits them: at blanks, and around ':' (in
 * COMP_WORDBREAKS), so "sched:sched_sw" is three words.
 */
static const char driver_text[] =
	"source \"$1\" || exit 3\n"
	"set -f\n"
	"COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDBREAKS=$' \\t\\n\"\\'><=;|&(:' COMP_WORDS=()\n"
	"for x in $2; do\n"
	"	while [[ $x == *:* ]]; do\n"
	"		[[ -n ${x%%:*} ]] && COMP_WORDS+=(\"${x%%:*}\")\n"
	"		COMP_WORDS+=(:)\n"
	"		x=${x#*:}\n"
	"	done\n"
	"	[[ -n $x ]] && COMP_WORDS+=(\"$x\")\n"
	"done\n"
	"[[ $2 == *' ' || $2 == *: ]] && COMP_WORDS+=('')\n"
	"COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
	"COMPREPLY=()\n"
	"_pmu pmu \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
	"printf '%s\\n' \"${COMPREPLY[@]}\"\n";

/* bash, the script, the tool's directory and the fixtures: 0, or -1 when one is missing. */
static int find_all(void)
{
	static const char *const bashes[] = { "/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash" };

	for (size_t i = 0; i < sizeof(bashes) / sizeof(bashes[0]) && !bash[0]; i++)
		if (access(bashes[i], X_OK) == 0)
			snprintf(bash, sizeof(bash), "%s", bashes[i]);
	if (find())
		return -1;
	snprintf(bindir, sizeof(bindir), "%.*s", (int)(strrchr(tool, '/') - tool), tool);
	snprintf(script, sizeof(script), "%.*s/../../completion/pmu.bash", PATH_MAX, fix);
	return access(script, R_OK);
}

/*
 * Completes the words (the last one is the word under the cursor, at the
 * end of the line) and returns COMPREPLY, one per line, in out.
 */
static const char *complete(const char *words)
{
	char cmd[4 * PATH_MAX + 2048], o[256];
	int st;

	if (t_tmpfile(o, sizeof(o), "compl-out"))
		return "";
	/* the line as typed: words split on blanks, the cursor at its end */
	snprintf(cmd, sizeof(cmd), "PATH='%s':\"$PATH\" '%s' --norc --noprofile %s '%s' '%s' >%s 2>&1", bindir, bash,
		 driver, script, words, o);
	st = system(cmd);
	t_slurp(o, out, sizeof(out));
	unlink(o);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "'%s': bash exit %d: %s\n", words, WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
	return out;
}

/* Whether line is one of the candidates. */
static int has(const char *reply, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = reply; (p = strstr(p, line)); p++)
		if ((p == reply || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static int lines(const char *reply)
{
	int n = 0;

	for (const char *p = reply; *p; p++)
		n += *p == '\n';
	return n;
}

#define CHECK_OFFERS(words, cand) do { \
	const char *r_ = complete(words); \
	CHECK_MSG(has(r_, cand), "'%s' does not offer '%s': got:\n%s", words, cand, r_); \
} while (0)

int main(void)
{
	char help[8192], cmd[2 * PATH_MAX], o[256], words[256];

	if (find_all())
		T_SKIP("completion/pmu.bash not found (run from the source tree)");
	if (!bash[0])
		T_SKIP("bash is not installed");
	if (t_tmpfile(driver, sizeof(driver), "compl-driver"))
		T_DONE();
	{
		FILE *f = fopen(driver, "w");

		if (!f || fputs(driver_text, f) < 0 || fclose(f))
			T_SKIP("cannot write %s", driver);
	}

	/* subcommands */
	CHECK_OFFERS("pmu st", "stat");
	CHECK(lines(complete("pmu st")) == 1);
	CHECK_OFFERS("pmu l", "list");
	CHECK_OFFERS("pmu help e", "encode");

	/* stat options: every one pmu stat --help shows */
	CHECK_OFFERS("pmu stat --re", "--repeat");
	CHECK(lines(complete("pmu stat --re")) == 1);
	CHECK(t_tmpfile(o, sizeof(o), "compl-help") == 0);
	snprintf(cmd, sizeof(cmd), "%s/pmu stat --help >%s 2>&1", bindir, o);
	CHECK(system(cmd) == 0);
	t_slurp(o, help, sizeof(help));
	unlink(o);
	complete("pmu stat -");
	for (char *save, *l = strtok_r(help, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *end;

		if (strncmp(l, "  -", 3))
			continue;
		/* "  -x, --field-separator SEP  ...": the option words before the description */
		if ((end = strstr(l + 2, "  ")))
			*end = '\0';
		if ((end = strchr(l + 2, '[')))	/* "--emulate[=BACKEND]": the option is offered without its value */
			*end = '\0';
		for (char *s2, *w = strtok_r(l + 2, " ,", &s2); w; w = strtok_r(NULL, " ,", &s2))
			if (w[0] == '-')
				CHECK_MSG(has(out, w), "'pmu stat -' does not offer %s", w);
	}
	/* pmu emulate's backend, then the command */
	CHECK_OFFERS("pmu emulate --b", "--backend");
	CHECK_OFFERS("pmu emulate --backend v", "valgrind");
	CHECK_OFFERS("pmu emulate --backend qemu tr", "true");
	/* after the command: its own words, not pmu's */
	CHECK(!has(complete("pmu stat true --re"), "--repeat"));

	/* event names after -e, and after a comma */
	CHECK_OFFERS("pmu stat -e task-c", "task-clock");
	CHECK_OFFERS("pmu stat --event page-f", "page-faults");
	CHECK_OFFERS("pmu stat -e cycles,task-c", "cycles,task-clock");
	CHECK_OFFERS("pmu check -e cpu-cl", "cpu-clock");
	CHECK_OFFERS("pmu encode context-sw", "context-switches");
	CHECK(!has(complete("pmu stat -e terms"), "terms:"));

	/* list: perf's keywords and the options */
	CHECK_OFFERS("pmu list tr", "tracepoint");
	CHECK_OFFERS("pmu list s", "software");
	CHECK_OFFERS("pmu list ", "hw");
	CHECK_OFFERS("pmu list ", "pmu");
	CHECK_OFFERS("pmu list --av", "--available");
	CHECK_OFFERS("pmu list --j", "--json");
	snprintf(words, sizeof(words), "pmu list --sysfs %.200s/int", fix);
	snprintf(cmd, sizeof(cmd), "%.200s/intel", fix);
	CHECK_OFFERS(words, cmd);

	/* tracepoints: readline splits the word at ':' and replaces what follows it */
	snprintf(words, sizeof(words), "%.200s/tracefs", fix);
	setenv("PMU_TRACEFS", words, 1);
	CHECK_OFFERS("pmu stat -e sched:sched_sw", "sched_switch");
	CHECK(lines(out) == 1);
	CHECK_OFFERS("pmu stat -e task-clock,sched:sched_w", "sched_wakeup");
	CHECK_OFFERS("pmu stat -e sys", "syscalls:sys_enter_read");
	/* the command after a tracepoint is the command's */
	CHECK(!has(complete("pmu stat -e sched:sched_switch true --re"), "--repeat"));
	CHECK_OFFERS("pmu stat -e sched:sched_switch --re", "--repeat");
	unsetenv("PMU_TRACEFS");
	unlink(driver);
	T_DONE();
}
