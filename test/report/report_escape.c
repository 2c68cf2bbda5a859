/* SPDX-License-Identifier: MIT */
/*
 * Region and thread names in the table report and in messages carry no raw
 * control character (C0, DEL, C1 as a raw byte or as UTF-8) and no byte that
 * is not UTF-8: they are written escaped (\n, \x1b, \x9b, \xc2\x9b), so a
 * name can neither add a row nor drive the terminal. Valid UTF-8 (café)
 * is written as it is. The csv report (RFC 4180) quotes what needs it, so
 * that every name reads back exactly through Python's csv module. The json
 * report is valid UTF-8 that Python's json.load reads, a byte that is not
 * UTF-8 written as U+FFFD. The report's messages escape the names they show.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "report_capture.h"

static const char *const names[] = {
	"line\nbreak", "esc\x1b[31mred", "tab\there", "back\\slash", "comma,\"q\"", "cr\rret", "del\x7f",
	"csi\x9b" "31m", "csi\xc2\x9b" "31m", "caf\xe9", "caf\xc3\xa9", "quote\"d",
};
#define N (sizeof(names) / sizeof(names[0]))
/* The names as JSON gives them back: each byte that is not UTF-8 as U+FFFD. */
static const char *const json_names[N] = {
	"line\nbreak", "esc\x1b[31mred", "tab\there", "back\\slash", "comma,\"q\"", "cr\rret", "del\x7f",
	"csi\xef\xbf\xbd" "31m", "csi\xc2\x9b" "31m", "caf\xef\xbf\xbd", "caf\xc3\xa9", "quote\"d",
};

/* The length of the valid UTF-8 sequence (RFC 3629) at p, 0 when there is none. */
static size_t seq(const unsigned char *p)
{
	unsigned char c = *p;
	size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		     c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	for (size_t i = 1; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
	    (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

/* Whether s is valid UTF-8. */
static int utf8_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p += seq(p))
		if (!seq(p))
			return 0;
	return 1;
}

/* C0 control characters but newlines. */
static int c0(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += (unsigned char)*s < 0x20 && *s != '\n';
	return n;
}

/* Those, DEL and C1 ones: a raw byte 0x80..0x9f, or U+0080..U+009F in UTF-8. */
static int controls(const char *s)
{
	int n = c0(s);

	for (const unsigned char *p = (const unsigned char *)s; *p; p += seq(p) ? seq(p) : 1)
		n += *p == 0x7f || (seq(p) ? p[0] == 0xc2 && p[1] <= 0x9f : *p >= 0x80 && *p <= 0x9f);
	return n;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A message naming a hostile event name shows it escaped. */
static void message(const char *event, const char *shown)
{
	struct perf_event_attr *attr = calloc(1, 512);
	const char *m;

	CHECK(attr && pmu_event_attr(event, attr) < 0);
	m = pmu_errmsg();
	CHECK_MSG(controls(m) == 0 && utf8_ok(m) && strstr(m, shown), "%s", m);
	free(attr);
}

/* Reads a report back with Python: one line per row of the csv, per region of the json, "REGION THREAD" in hex. */
static const char script[] =
	"import csv, json, sys\n"
	"h = lambda s: s.encode('utf-8', 'surrogateescape').hex() or '-'\n"
	"if sys.argv[1] == 'csv':\n"
	"    with open(sys.argv[2], newline='', encoding='utf-8', errors='surrogateescape') as f:\n"
	"        rows = list(csv.reader(f, strict=True))\n"
	"    for r in rows[1:]:\n"
	"        assert len(r) == len(rows[0]), r\n"
	"        print(h(r[0]), h(r[1]))\n"
	"else:\n"
	"    with open(sys.argv[2], encoding='utf-8') as f:\n"
	"        d = json.load(f)\n"
	"    for r in d['regions']:\n"
	"        for t in r['threads']:\n"
	"            print(h(r['name']), h(t['name']))\n";

static void hex(char *out, const char *s)
{
	if (!*s)
		strcpy(out, "-");
	for (; *s; s++, out += 2)
		sprintf(out, "%02x", (unsigned char)*s);
}

/*
 * The report in format read back by Python: its rows "REGION THREAD" (csv: a
 * total and a thread row per region) must be want's, in order. Skipped, saying
 * so, without python3.
 */
static void round_trip(const char *dir, const char *format, const char *const *want, unsigned n, const char *thread)
{
	char path[128], cmd[512], line[1024], a[600], b[600], e[1300];
	unsigned row = 0, per = strcmp(format, "csv") ? 1 : 2;	/* rows per region */
	FILE *f, *p;

	if (system("python3 -c '' >/dev/null 2>&1") != 0) {
		printf("python3 not found: the %s report is not read back through Python\n", format);
		return;
	}
	snprintf(path, sizeof(path), "%s/script.py", dir);
	f = fopen(path, "w");
	CHECK(f && fputs(script, f) >= 0 && fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/report.%s", dir, format);
	f = fopen(path, "w");
	CHECK_MSG(f && pmu_report(f, format) == 0, "%s", pmu_errmsg());
	if (f)
		CHECK(fclose(f) == 0);
	snprintf(cmd, sizeof(cmd), "python3 %s/script.py %s %s", dir, format, path);
	p = popen(cmd, "r");
	CHECK(p);
	while (p && fgets(line, sizeof(line), p)) {
		CHECK_MSG(row / per < n, "%s: more rows than regions: %s", format, line);
		if (row / per >= n)
			break;
		hex(a, want[row / per]);
		hex(b, per == 2 && row % 2 == 0 ? "total" : thread);
		snprintf(e, sizeof(e), "%s %s\n", a, b);
		CHECK_MSG(!strcmp(line, e), "%s row %u read back as %s, not %s", format, row, line, e);
		row++;
	}
	CHECK_MSG(p && pclose(p) == 0, "%s: python3 could not read the report back (%s)", format, path);
	CHECK_MSG(row == n * per, "%s: %u rows read back", format, row);
}

int main(void)
{
	char dir[] = "/tmp/pmu-escape-XXXXXX", cmd[64], path[96], *out;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");
	message("cyc\x9bles", "cyc\\x9bles");
	message("cyc\xc2\x9bles", "cyc\\xc2\\x9bles");
	message("caf\xe9", "caf\\xe9");
	message("x\x1b]0;t\a", "x\\x1b]0;t\\x07");
	CHECK(mkdtemp(dir));
	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	prctl(PR_SET_NAME, "t\x1b]0;x\a");	/* before the thread's record is made */
	for (unsigned i = 0; i < N; i++) {
		CHECK(pmu_region_begin(names[i]) == 0);
		CHECK(pmu_region_end(names[i]) == 0);
	}

	/* A heading line, the column line, one row per region (a single thread). */
	out = t_report("table");
	CHECK_MSG(controls(out) == 0 && utf8_ok(out) && lines(out) == 2 + (int)N, "%s", out);
	CHECK_MSG(strstr(out, "\nline\\nbreak ") && strstr(out, "\nesc\\x1b[31mred ") &&
		  strstr(out, "\ntab\\there ") && strstr(out, "\nback\\\\slash ") && strstr(out, "\ncr\\rret ") &&
		  strstr(out, "\ndel\\x7f ") && strstr(out, "\ncsi\\x9b31m ") && strstr(out, "\ncsi\\xc2\\x9b31m ") &&
		  strstr(out, "\ncaf\\xe9 ") && strstr(out, "\ncaf\xc3\xa9 "), "%s", out);
	free(out);

	/* The heading line, a total and a thread row per region: bytes as they are, quoted where needed. */
	out = t_report("csv");
	CHECK_MSG(lines(out) == 1 + 2 * (int)N + 2, "%s", out);	/* one name has a newline, in 2 rows */
	CHECK_MSG(strstr(out, "\n\"line\nbreak\",total,") && strstr(out, "\nesc\x1b[31mred,total,") &&
		  strstr(out, "\n\"comma,\"\"q\"\"\",total,") && strstr(out, "\n\"cr\rret\",total,") &&
		  strstr(out, "\ncsi\x9b" "31m,total,") && strstr(out, "\ncaf\xe9,total,") &&
		  strstr(out, "\n\"quote\"\"d\",total,") && strstr(out, ",t\x1b]0;x\a,"), "%s", out);
	free(out);
	round_trip(dir, "csv", names, N, "t\x1b]0;x\a");

	/* JSON has escapes of its own, and is valid UTF-8: a byte that is not as U+FFFD. */
	out = t_report("json");
	CHECK_MSG(controls(out) == 0 && utf8_ok(out) && strstr(out, "\"line\\u000abreak\"") &&
		  strstr(out, "\"esc\\u001b[31mred\"") && strstr(out, "\"del\\u007f\"") &&
		  strstr(out, "\"csi\\ufffd31m\"") && strstr(out, "\"csi\\u009b31m\"") &&
		  strstr(out, "\"caf\\ufffd\"") && strstr(out, "\"caf\xc3\xa9\"") &&
		  strstr(out, "\"quote\\\"d\"") && strstr(out, "\"t\\u001b]0;x\\u0007\""), "%s", out);
	free(out);
	round_trip(dir, "json", json_names, N, "t\x1b]0;x\a");
	/* the report's own messages name the format and the file escaped */
	CHECK(pmu_report(stdout, "x\x1b[2J") == -EINVAL);
	CHECK_MSG(controls(pmu_errmsg()) == 0 && strstr(pmu_errmsg(), "x\\x1b[2J: unknown report format"), "%s",
		  pmu_errmsg());
	snprintf(path, sizeof(path), "%s/missing\x1b]0;x\a/r.csv", dir);
	CHECK(pmu_report_path(path, NULL) == -ENOENT);
	CHECK_MSG(controls(pmu_errmsg()) == 0 && strstr(pmu_errmsg(), "/missing\\x1b]0;x\\x07/r.csv: "), "%s",
		  pmu_errmsg());
	CHECK(pmu_thread_fini() == 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	T_DONE();
}
