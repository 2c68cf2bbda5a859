/* SPDX-License-Identifier: MIT */
/*
 * The region report in the Prometheus text format (pmu_report(f,
 * "prometheus"), PMU_REPORT=NAME.prom) and in OpenMetrics 1.0 ("openmetrics"):
 * counters of calls, seconds and each event per region, for the total and
 * each thread, with the same figures as pmu_results_get(); hostile region
 * names as label values that stay on their line and quote nothing out. The
 * Prometheus text passes promtool check metrics (Debian's prometheus), and
 * both pass the prometheus_client package's parsers (Debian's
 * python3-prometheus-client: its OpenMetrics parser is strict), where
 * installed; said when not. Call paths, when one is nested, are families of
 * their own with a path label, the same figures as the json report's.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <stdlib.h>

#include "report_capture.h"

static void *worker(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		pmu_region_begin("work");
		pmu_region_end("work");
	}
	pmu_region_begin("quote\" back\\ line\nnext \x1b[31m caf\xe9");
	pmu_region_end("quote\" back\\ line\nnext \x1b[31m caf\xe9");
	return NULL;
}

/* cmd < text: 0 passed, 1 failed, 77 not installed. */
static int check_with(const char *text, const char *cmd)
{
	char path[] = "/tmp/pmu-prom-XXXXXX", line[512];
	int fd, r;
	FILE *f;

	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return 1;
	fputs(text, f);
	fclose(f);
	snprintf(line, sizeof(line), "(%s) < %s", cmd, path);
	r = system(line);
	unlink(path);
	return WIFEXITED(r) && WEXITSTATUS(r) == 77 ? 77 : r == 0 ? 0 : 1;
}

#define PROMTOOL "command -v promtool >/dev/null || exit 77; promtool check metrics"
/* Debian's python3 (a pyenv's first in PATH may lack the package) */
#define PARSER(opt) "for p in python3 /usr/bin/python3; do $p -c 'import prometheus_client' 2>/dev/null && " \
	"exec $p test/report/metrics_parse.py " opt "; done; exit 77"

/* Each checker on p (Prometheus text) and o (OpenMetrics): a failure counts, one not installed is said. */
static void check_parsers(const char *p, const char *o)
{
	static const char *const name[] = { "promtool check metrics", "prometheus_client's Prometheus parser",
					     "prometheus_client's OpenMetrics parser" };
	int r[3] = { check_with(p, PROMTOOL), check_with(p, PARSER("")), check_with(o, PARSER("--openmetrics")) };

	for (int k = 0; k < 3; k++)
		if (r[k] == 77)
			printf("%s is not installed (Debian: %s): not checked by it\n", name[k],
			       k ? "python3-prometheus-client" : "prometheus");
		else
			CHECK_MSG(r[k] == 0, "%s refused the text", name[k]);
}

/* The figures of region "work" in total, as pmu_results_get() gives them, in both texts. */
static void same_figures(const char *p, const char *o)
{
	struct pmu_results *res = pmu_results_take();
	struct pmu_region_result g = { .size = sizeof(g) };
	const char *const *names;
	char want[3][200];
	unsigned n = pmu_results_regions(res, &names), id = 0;

	while (id < n && strcmp(names[id], "work"))
		id++;
	CHECK(res && id < n && pmu_results_get(res, id, -1, &g) == 0 && g.nevents == 2);
	snprintf(want[0], sizeof(want[0]), "pmu_region_calls_total{region=\"work\",thread=\"total\"} %llu\n",
		 (unsigned long long)g.calls);
	snprintf(want[1], sizeof(want[1]), "pmu_region_seconds_total{region=\"work\",thread=\"total\"} %llu.%09llu\n",
		 (unsigned long long)(g.ns / 1000000000), (unsigned long long)(g.ns % 1000000000));
	snprintf(want[2], sizeof(want[2]), "pmu_region_events_total{region=\"work\",thread=\"total\","
		 "event=\"page-faults\"} %llu\n", (unsigned long long)(g.nevents ? g.sum[1] : 0));
	for (int k = 0; k < 3; k++)
		CHECK_MSG(strstr(p, want[k]) && strstr(o, want[k]), "not in both: %s", want[k]);
	pmu_results_free(res);
}

/* The paths' families: path "outer" as the json report has it, the ';' of "in;ner" as \x3b, self a gauge. */
static void same_paths(const char *p, const char *o)
{
	char *json = t_report("json"), want[3][200];
	const char *e = strstr(json, "{\"path\": [\"outer\"], \"calls\": 1, \"ns\": ");
	unsigned long long ns = e ? strtoull(e + strlen("{\"path\": [\"outer\"], \"calls\": 1, \"ns\": "), NULL, 10) : 0;

	CHECK_MSG(e, "%.2000s", json);
	snprintf(want[0], sizeof(want[0]), "pmu_path_seconds_total{path=\"outer\"} %llu.%09llu\n", ns / 1000000000,
		 ns % 1000000000);
	snprintf(want[1], sizeof(want[1]), "pmu_path_calls_total{path=\"outer;in\\\\x3bner\"} 1\n");
	snprintf(want[2], sizeof(want[2]), "pmu_path_self_events{path=\"outer;in\\\\x3bner\",event=\"page-faults\"} ");
	for (int k = 0; k < 3; k++)
		CHECK_MSG(strstr(p, want[k]) && strstr(o, want[k]), "not in both: %s", want[k]);
	CHECK(strstr(p, "# TYPE pmu_path_self_seconds gauge\n") && strstr(o, "# UNIT pmu_path_self_seconds seconds\n"));
	free(json);
}

int main(void)
{
	pthread_t t[2];
	char *p, *o;

	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (long k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)(100 * (k + 1))) == 0);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	CHECK(pmu_region_begin("outer") == 0 && pmu_region_begin("in;ner") == 0);	/* a nested path */
	CHECK(pmu_region_end("in;ner") == 0 && pmu_region_end("outer") == 0);
	p = t_report("prometheus");
	o = t_report("openmetrics");
	printf("%s%s", p, o);
	same_figures(p, o);
	same_paths(p, o);
	CHECK(strstr(p, "# TYPE pmu_region_calls_total counter\n"));
	/* OpenMetrics: families named without _total, units, an info metric, the end marked */
	CHECK(strstr(o, "# TYPE pmu_region_calls counter\n") && strstr(o, "# UNIT pmu_region_seconds seconds\n"));
	CHECK(strstr(o, "# TYPE pmu info\npmu_info{library=\"libpmu "));
	CHECK(strlen(o) > 6 && !strcmp(o + strlen(o) - 6, "# EOF\n") && !strstr(p, "# EOF"));
	CHECK(strstr(p, "pmu_region_calls_total{region=\"work\",thread=\"total\"} 300\n"));
	CHECK(strstr(p, "# TYPE pmu_region_seconds_total counter\n"));
	CHECK(strstr(p, "pmu_region_events_total{region=\"work\",thread=\"total\",event=\"page-faults\"} "));
	/* the hostile name: one escaped label value, on its line, U+FFFD for ESC and the stray byte */
	CHECK_MSG(strstr(p, "{region=\"quote\\\" back\\\\ line\\nnext \xef\xbf\xbd[31m caf\xef\xbf\xbd\",thread=\"total\"} 2\n"),
		  "the hostile name's calls");
	CHECK(!strchr(p, '\x1b'));
	check_parsers(p, o);
	CHECK(pmu_report(stdout, "prom") == -EINVAL && strstr(pmu_errmsg(), "prometheus"));
	free(p);
	free(o);

	/* With histograms, for threads begun since: summaries over their calls alone (300 of 600). */
	CHECK(pmu_region_histograms(1) == 0);
	for (long k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)(100 * (k + 1))) == 0);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	p = t_report("prometheus");
	o = t_report("openmetrics");
	printf("%s", p);
	CHECK(strstr(p, "# TYPE pmu_region_call_seconds summary\n"));
	CHECK(strstr(p, "pmu_region_call_seconds{region=\"work\",thread=\"total\",quantile=\"0.99\"} "));
	CHECK(strstr(p, "pmu_region_call_seconds_count{region=\"work\",thread=\"total\"} 300\n"));
	CHECK(strstr(p, "pmu_region_call_events{region=\"work\",thread=\"total\",event=\"page-faults\",quantile=\"0.5\"} "));
	CHECK(strstr(p, "pmu_region_call_events_count{region=\"quote\\\" back"));
	CHECK(strstr(o, "# UNIT pmu_region_call_seconds seconds\n"));
	check_parsers(p, o);
	free(p);
	free(o);
	pmu_thread_fini();
	T_DONE();
}
