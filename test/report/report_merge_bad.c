/* SPDX-License-Identifier: MIT */
/*
 * Reports pmu report merge must refuse, each with the file, the line and
 * the cause: every prefix of a valid report (truncated), hand-edited values,
 * JSON that is not RFC 8259, another major version; and on the command line
 * missing files, a directory, an empty file, an output it cannot write and
 * usage errors (exit 129), leaving no output behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pmu.h"
#include "report/report_read.h"
#include "test.h"
#include "tool_run.h"

#define FIX "test/fixtures/reports/"

static char good[1 << 14];


/* "name:LINE:" or "name:LINE:COL:" at the start of the message. */
static bool names_line(const char *msg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(msg, name, n) && msg[n] == ':' && msg[n + 1] >= '1' && msg[n + 1] <= '9';
}

/* good with the first from replaced by to, read: the message, or "" when accepted. */
static const char *edited(const char *from, const char *to)
{
	static char buf[sizeof(good) + 4096];
	const char *p = strstr(good, from);
	struct pmu__rep r;

	if (!p)
		return "(the fixture lacks the text to edit)";
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
	if (pmu__rep_parse("a.json", buf, strlen(buf), &r) == 0) {
		pmu__rep_free(&r);
		return "";
	}
	return pmu_errmsg();
}

#define REFUSED(from, to, msg) do { \
	const char *m_ = edited(from, to); \
	CHECK_MSG(!strcmp(m_, msg), "%s -> %s: \"%s\", not \"%s\"", from, to, m_, msg); \
} while (0)

static void truncated(void)
{
	size_t len = strlen(good);
	struct pmu__rep r;
	int bad = 0;

	CHECK_MSG(pmu__rep_parse("a.json", good, len, &r) == 0, "%s", pmu_errmsg());
	pmu__rep_free(&r);
	/* every prefix, white space at the end too */
	for (size_t n = 0; n < len; n++) {
		int e = pmu__rep_parse("a.json", good, n, &r);
		const char *m = pmu_errmsg();
		bool ws = true;

		for (size_t k = n; k < len; k++)
			ws = ws && strchr(" \n\t\r", good[k]);
		if (ws && e == 0) {
			pmu__rep_free(&r);
			continue;
		}
		if (e != -EINVAL || !(names_line(m, "a.json") || (n == 0 && !strcmp(m, "a.json: empty file")))) {
			if (bad++ < 5)
				CHECK_MSG(0, "a prefix of %zu bytes: %d %s", n, e, e ? m : "accepted");
			if (!e)
				pmu__rep_free(&r);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_MSG(pmu__rep_parse("a.json", good, len - 10, &r) < 0 &&
		  !strcmp(pmu_errmsg(), "a.json:16: unexpected end of file (truncated?)"), "%s", pmu_errmsg());
}

static void edits(void)
{
	/* the schema: named by line and field */
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": -10, \"ns\": 1000000",
		"a.json:10: region \"compute\": \"calls\" is not a non-negative integer");
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": \"10\", \"ns\": 1000000",
		"a.json:10: region \"compute\": \"calls\" is not a non-negative integer");
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": 10.5, \"ns\": 1000000",
		"a.json:10: region \"compute\": \"calls\" is not a non-negative integer");
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": 1e1, \"ns\": 1000000",
		"a.json:10: region \"compute\": \"calls\" is not a non-negative integer");
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": 18446744073709551616, \"ns\": 1000000",
		"a.json:10: region \"compute\": \"calls\" is not a non-negative integer");
	REFUSED("\"calls\": 10, \"ns\": 1000000", "\"calls\": 11, \"ns\": 1000000",
		"a.json:10: region \"compute\": \"ns_per_call\" is 100000.0, but \"ns\" / \"calls\" is 90909.1 "
		"(an edited file?)");
	REFUSED("\"calls\": 6, \"ns\": 600000", "\"calls\": 7, \"ns\": 700000",
		"a.json:10: region \"compute\": \"calls\" is 10, but its threads' sum is 11 (an edited file?)");
	REFUSED("\"task-clock\": 540000", "\"task-clock\": 540001",
		"a.json:10: region \"compute\": \"counts\": \"task-clock\" is 900000, but its threads' sum is 900001 "
		"(an edited file?)");
	REFUSED("\"counts\": {\"task-clock\": 900000, \"page-faults\": 64}", "\"counts\": {\"task-clock\": 900000}",
		"a.json:10: region \"compute\": \"counts\" has no \"page-faults\", which \"events\" lists");
	REFUSED("\"page-faults\": 64}", "\"page-faults\": 64, \"cycles\": 1}",
		"a.json:10: region \"compute\": \"counts\" has \"cycles\", which \"events\" does not list");
	REFUSED("\"tid\": 102", "\"tid\": -102",
		"a.json:13: region \"compute\": \"tid\" is not a non-negative integer");
	REFUSED("\"exited\": true", "\"exited\": 1",
		"a.json:13: region \"compute\": thread 102: \"exited\" is a number, not a boolean");
	REFUSED("\"name\": \"exchange\"", "\"name\": \"compute\"",
		"a.json:14: region \"compute\": a second region of this name (the first on line 10)");
	REFUSED("\"name\": \"exchange\"", "\"name\": \"\"", "a.json:14: \"name\" is empty");
	REFUSED("\"ns_min\": 90000", "\"ns_min\": 900000",
		"a.json:10: region \"compute\": \"ns_min\" is more than \"ns_max\"");
	REFUSED("\"min\": {\"task-clock\": 80000", "\"min\": {\"task-clock\": \"low\"",
		"a.json:10: region \"compute\": \"min\" of \"task-clock\" is not a non-negative number");
	REFUSED("  \"regions\": [", "  \"regionz\": [", "a.json:1: \"regions\" is missing");
	REFUSED("\"events\": [\"task-clock\", \"page-faults\"]", "\"events\": [\"task-clock\", \"task-clock\"]",
		"a.json:8: \"events\" has \"task-clock\" twice");
	REFUSED("\"events\": [\"task-clock\", \"page-faults\"]", "\"events\": []",
		"a.json:8: \"events\" has 0 events (1 to 1024)");
	REFUSED("\"pid\": 101", "\"pid\": 0", "a.json:3: \"pid\" is not a process ID");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": null", "a.json:4: \"hostname\" is null, not a string");
	char msg[160];

	snprintf(msg, sizeof(msg), "a.json:2: written by libpmu 1.0.0, another major version than this one's (%s): "
		 "not read", pmu_version());
	REFUSED("libpmu 0.3.0", "libpmu 1.0.0", msg);
	REFUSED("\"min\": {\"task-clock\": 80000, \"page-faults\": 6}", "\"min\": 6",
		"a.json:10: region \"compute\": \"min\" is a number, not an object");
	REFUSED("libpmu 0.3.0", "libpmu -0.3.0",
		"a.json:2: \"library\" is \"libpmu -0.3.0\", not \"libpmu MAJOR.MINOR.PATCH\"");
	REFUSED("libpmu 0.3.0", "libpmu 0.3.0x",
		"a.json:2: \"library\" is \"libpmu 0.3.0x\", not \"libpmu MAJOR.MINOR.PATCH\"");
	REFUSED("libpmu 0.3.0", "libpmu 0.4.12", "");
	REFUSED("libpmu 0.3.0", "perf 6.1",
		"a.json:2: \"library\" is \"perf 6.1\", not \"libpmu MAJOR.MINOR.PATCH\"");
	/* unknown fields are left alone, and the optional ones may be absent */
	REFUSED("\"pid\": 101,", "\"pid\": 101, \"rank\": 3, \"future\": {\"x\": [1, null]},", "");
	REFUSED("\"ns_min\": 90000, \"ns_max\": 120000, \"ns_stddev\": 5000.5, ", "", "");

	/* JSON itself, with line and column */
	REFUSED("\"pid\": 101,", "\"pid\": 101, \"pid\": 102,", "a.json:3: duplicate key \"pid\" (first on line 3)");
	REFUSED("\"pid\": 101,", "\"pid\": 0101,", "a.json:3:11: a number may not have a leading zero");
	REFUSED("\"pid\": 101,", "\"pid\": 101,,", "a.json:3:14: expected a string key, not ','");
	REFUSED("\"pid\": 101,", "\"pid\": 101 ", "a.json:4:3: expected ',' or '}' after a value");
	REFUSED("\"task-clock\", \"page-faults\"]", "\"task-clock\", \"page-faults\",]",
		"a.json:8:42: expected a value, not ']'");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"no\tde1\"",
		"a.json:4:18: control character 0x09 in a string (must be escaped)");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"\\ud800x\"",
		"a.json:4:16: \\ud800: a high surrogate without a low one (\\udc00 to \\udfff) after it");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"\\udc00\"",
		"a.json:4:16: \\udc00: a low surrogate without a high one before it");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"\\x41\"", "a.json:4:16: invalid escape \\'x' in a string");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"\\u12g4\"",
		"a.json:4:16: \\u needs four hexadecimal digits");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"n\\u00e9\\ud83d\\ude00\\/\"", "");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": \"a\\u0000b\"", "");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": nul", "a.json:4:15: expected a value, not 'n'");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": /* x */ \"node1\"", "a.json:4:15: expected a value, not '/'");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": 1.", "a.json:4:17: expected a digit after the decimal point");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": 1e+", "a.json:4:18: expected a digit in the exponent");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": -", "a.json:4:16: expected a digit in the number");
	REFUSED("\"hostname\": \"node1\"", "\"hostname\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"a.json:4:78: nested deeper than 64 levels");
	REFUSED("\n}\n", "\n}\nx", "a.json:19:1: 'x' after the JSON value (trailing garbage)");
	REFUSED("\n}\n", "\n}\n{}", "a.json:19:1: '{' after the JSON value (trailing garbage)");
	REFUSED("{\n  \"library\"", "[\n  \"library\"", "a.json:2:12: expected ',' or ']' after a value");
}

static void command_line(void)
{
	char dir[] = "/tmp/pmu-merge-bad-XXXXXX", path[128], o[160];
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(PMU("report", "merge", FIX "a.json", "/nonexistent/r.json"), 1);
	CHECK_MSG(!strcmp(err, "pmu report merge: /nonexistent/r.json: No such file or directory\n") && !out[0], "%s", err);
	/* a directory stands for its reports: none is refused */
	CHECK_EQ(PMU("report", "merge", FIX "a.json", dir), 1);
	CHECK_MSG(strstr(err, ": a directory with no report (*.json) in it\n"), "%s", err);
	snprintf(path, sizeof(path), "%s/empty.json", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(PMU("report", "merge", path), 1);
	CHECK_MSG(strstr(err, "empty.json: empty file\n"), "%s", err);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK_EQ(write(fd, good, 100), 100);
	close(fd);
	CHECK_EQ(PMU("report", "merge", FIX "a.json", path), 1);
	CHECK_MSG(strstr(err, "empty.json:5: unexpected end of file (truncated?)\n") && !out[0], "%s", err);

	/* no event in common */
	fd = open(path, O_WRONLY | O_TRUNC);
	{
		char buf[sizeof(good)], *q;

		/* task-clock, the only event c.json shares with a.json, as cpu-clock */
		snprintf(buf, sizeof(buf), "%s", good);
		while ((q = strstr(buf, "task-clock"))) {
			memcpy(q, "cpu", 3);
			memmove(q + 3, q + 4, strlen(q + 4) + 1);
		}
		CHECK(write(fd, buf, strlen(buf)) == (ssize_t)strlen(buf));
	}
	close(fd);
	CHECK_EQ(PMU("report", "merge", FIX "c.json", path), 1);
	CHECK_MSG(strstr(err, "pmu report merge: no event is common to all the reports: nothing to merge\n"), "%s", err);
	unlink(path);

	/* output: not written over when the inputs fail, nor made where it cannot be */
	snprintf(o, sizeof(o), "%s/out.json", dir);
	CHECK_EQ(PMU("report", "merge", "-o", o, FIX "a.json", "/nonexistent/r.json"), 1);
	CHECK(access(o, F_OK) != 0);
	snprintf(o, sizeof(o), "%s/no/such/dir/out.json", dir);
	CHECK_EQ(PMU("report", "merge", "-o", o, FIX "a.json"), 1);
	CHECK_MSG(strstr(err, "/no/such/dir/out.json: No such file or directory\n") && !out[0], "%s", err);
	CHECK_EQ(PMU("report", "merge", "-o", dir, FIX "a.json"), 1);
	CHECK_MSG(strstr(err, ": Is a directory\n"), "%s", err);
	if (!access("/dev/full", W_OK)) {
		CHECK_EQ(PMU("report", "merge", "-o", "/dev/full", FIX "a.json"), 1);
		CHECK_MSG(strstr(err, "/dev/full: No space left on device\n"), "%s", err);
	}
	CHECK_MSG(rmdir(dir) == 0, "%s: %s", dir, strerror(errno));

	/* usage errors: 129, as pmu stat */
	CHECK_EQ(PMU("report", "merge"), 129);
	CHECK_MSG(strstr(err, "no report to merge") && strstr(err, "usage: pmu report merge"), "%s", err);
	CHECK_EQ(PMU("report", "merge", "--format", "xml", FIX "a.json"), 129);
	CHECK_MSG(strstr(err, "--format xml: unknown report format (table, csv, json, html, prometheus, "
			      "openmetrics, folded, hatchet or json-split)"), "%s", err);
	/* an output name that asks for no format: refused before anything is read or written */
	CHECK_EQ(PMU("report", "merge", "-o", "/nonexistent/merged.xml", FIX "a.json"), 129);
	CHECK_MSG(strstr(err, "pmu report merge: -o /nonexistent/merged.xml: the extension .xml names no report "
			      "format (.csv, .json, .html, .prom, .om, .folded, or .txt or none for the table)"), "%s", err);
	CHECK_EQ(PMU("report", "merge", "-q", FIX "a.json"), 129);
	CHECK_MSG(strstr(err, "unknown option -q"), "%s", err);
	CHECK_EQ(PMU("report", "merge", FIX "a.json", "-o"), 129);
	CHECK_MSG(strstr(err, "-o needs a value"), "%s", err);
	CHECK_EQ(PMU("report"), 129);
	CHECK_EQ(PMU("report", "split"), 129);
	CHECK_MSG(strstr(err, "unknown subcommand 'split'"), "%s", err);

	/* help: the same text from every spelling, on stdout */
	CHECK_EQ(PMU("help", "report"), 0);
	snprintf(path, sizeof(path), "%.100s", out);
	CHECK_MSG(!strncmp(out, "usage: pmu report merge ", 24) && !err[0], "%s%s", out, err);
	CHECK_EQ(PMU("report", "--help"), 0);
	CHECK(!strncmp(out, path, strlen(path)));
	CHECK_EQ(PMU("report", "merge", "-h"), 0);
	CHECK(!strncmp(out, path, strlen(path)));
	CHECK_EQ(PMU("--help"), 0);
	CHECK_MSG(strstr(out, "\n  report  merge "), "%s", out);
}

int main(void)
{
	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	if (t_slurp(FIX "a.json", good, sizeof(good)) <= 0)
		T_SKIP("run from the source tree (" FIX ")");
	truncated();
	edits();
	command_line();
	T_DONE();
}
