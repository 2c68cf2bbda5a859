/* SPDX-License-Identifier: MIT */
/*
 * The region report in the Prometheus text format (pmu_report(f,
 * "prometheus"), "openmetrics", PMU_REPORT=NAME.prom): counters of calls,
 * seconds and each event per region, for the total and each thread, with
 * the same figures as the json report; hostile region names as label values
 * that stay on their line and quote nothing out; and the file passes
 * Prometheus' own promtool check metrics where it is installed (Debian's
 * prometheus package; said when it is not).
 */
#include <pthread.h>
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

/* promtool check metrics on text: 0 passed, 1 failed, 77 not installed. */
static int promtool(const char *text)
{
	char path[] = "/tmp/pmu-prom-XXXXXX", cmd[128];
	int fd, r;
	FILE *f;

	if (system("command -v promtool >/dev/null 2>&1") != 0)
		return 77;
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return 1;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	r = system(cmd);
	unlink(path);
	return r == 0 ? 0 : 1;
}

int main(void)
{
	pthread_t t[2];
	char *p, *o;
	int r;

	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());
	for (long k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, worker, (void *)(100 * (k + 1))) == 0);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	p = t_report("prometheus");
	o = t_report("openmetrics");
	printf("%s", p);
	CHECK_MSG(!strcmp(p, o), "openmetrics is another name of the same format");
	CHECK(strstr(p, "# TYPE pmu_region_calls_total counter\n"));
	CHECK(strstr(p, "pmu_region_calls_total{region=\"work\",thread=\"total\"} 300\n"));
	CHECK(strstr(p, "# TYPE pmu_region_seconds_total counter\n"));
	CHECK(strstr(p, "pmu_region_events_total{region=\"work\",thread=\"total\",event=\"page-faults\"} "));
	/* the hostile name: one escaped label value, on its line, U+FFFD for ESC and the stray byte */
	CHECK_MSG(strstr(p, "{region=\"quote\\\" back\\\\ line\\nnext \xef\xbf\xbd[31m caf\xef\xbf\xbd\",thread=\"total\"} 2\n"),
		  "the hostile name's calls");
	CHECK(!strchr(p, '\x1b'));
	r = promtool(p);
	if (r == 77)
		printf("promtool is not installed (Debian: prometheus): the format is not checked by it\n");
	else
		CHECK_MSG(r == 0, "promtool check metrics failed");
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
	printf("%s", p);
	CHECK(strstr(p, "# TYPE pmu_region_call_seconds summary\n"));
	CHECK(strstr(p, "pmu_region_call_seconds{region=\"work\",thread=\"total\",quantile=\"0.99\"} "));
	CHECK(strstr(p, "pmu_region_call_seconds_count{region=\"work\",thread=\"total\"} 300\n"));
	CHECK(strstr(p, "pmu_region_call_events{region=\"work\",thread=\"total\",event=\"page-faults\",quantile=\"0.5\"} "));
	CHECK(strstr(p, "pmu_region_call_events_count{region=\"quote\\\" back"));
	r = promtool(p);
	CHECK_MSG(r != 1, "promtool check metrics failed on the summaries");
	free(p);
	pmu_thread_fini();
	T_DONE();
}
