/* SPDX-License-Identifier: MIT */
/*
 * Resolves what this machine really has: software events, every sysfs PMU and
 * alias, tracepoints when tracefs is mounted, libpfm4 names when built with
 * it, and the arm64 user-access terms when the core PMU has them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/event.h"
#include "events/event_pfm.h"
#include "test.h"

struct pfm_names {
	int n;
	char name[64][128];
};

static void pfm_collect(void *arg, const char *pmu, const char *ev, const char *desc)
{
	struct pfm_names *p = arg;

	(void)pmu, (void)desc;
	if (p->n < 64)
		snprintf(p->name[p->n++], sizeof(p->name[0]), "%s", ev);
}

int main(void)
{
	struct pmu__desc core[PMU_MAX_PMUS];
	struct pmu__event ev;
	struct perf_event_attr a = { .size = sizeof(a) };
	struct pmu_set *set;
	char **pmus, buf[160];
	static struct pfm_names pfm;
	size_t npmu;
	int ncore, r, resolved = 0;

	unsetenv("PMU_SYSFS_DEVICES");
	CHECK(pmu_event_attr("task-clock", &a) == 0 && a.type == PERF_TYPE_SOFTWARE && a.config == 1);

	/* every PMU and alias here resolves, or fails with a message naming it */
	if (pmu__pmu_names(&pmus, &npmu) < 0)
		T_SKIP("no %s on this machine", pmu__sysfs_root());
	for (size_t i = 0; i < npmu; i++) {
		struct pmu__desc d;
		char **al, e[512];
		size_t nal;

		r = pmu__desc_load(pmus[i], strlen(pmus[i]), &d);
		CHECK_MSG(r == 0 || (r == -EINVAL && strstr(pmu_errmsg(), pmus[i])), "%s: %d %s", pmus[i], r,
			  pmu_errmsg());
		if (r)
			continue;
		snprintf(e, sizeof(e), "%s/config=0/", pmus[i]);
		r = pmu__event_parse(e, strlen(e), &ev);
		CHECK_MSG(r == 0 && ev.n == 1 && ev.a[0].attr.type == d.type, "%s: %d %s", e, r, pmu_errmsg());
		CHECK(pmu__alias_names(pmus[i], &al, &nal) == 0);
		for (size_t k = 0; k < nal; k++) {
			snprintf(e, sizeof(e), "%s/%s/", pmus[i], al[k]);
			r = pmu__event_parse(e, strlen(e), &ev);
			/* aliases with '?' need a value: that is the only accepted failure */
			CHECK_MSG(r == 0 || (r == -EINVAL && strstr(pmu_errmsg(), "needs a value")),
				  "%s: %d %s", e, r, pmu_errmsg());
			resolved += r == 0;
			if (r == 0)
				CHECK(ev.a[0].attr.type == d.type && !strcmp(ev.a[0].pmu, d.name));
		}
		pmu__names_free(al, nal);
		pmu__desc_free(&d);
	}
	pmu__names_free(pmus, npmu);
	printf("%zu PMUs, %d aliases resolved\n", npmu, resolved);

	/* the software PMU through its sysfs name, opened and counting */
	r = pmu__event_parse("software/config=1/", 18, &ev);
	CHECK_MSG(r == 0 && ev.a[0].attr.type == PERF_TYPE_SOFTWARE && ev.a[0].attr.config == 1, "%s", pmu_errmsg());
	r = pmu_open(&set, "software/config=1/,page-faults,tracepoint/config=0/u");
	if (r == 0) {
		uint64_t v[3];

		CHECK(pmu_count(set) == 3);
		CHECK(!strcmp(pmu_name(set, 0), "software/config=1/"));
		CHECK(pmu_read(set, v) == 0);
		pmu_close(set);
	} else {
		/* tracepoint id 0 may not exist: open the software ones alone */
		r = pmu_open(&set, "software/config=1/,page-faults");
		CHECK_MSG(r == 0, "pmu_open: %d %s", r, pmu_errmsg());
		if (r == 0)
			pmu_close(set);
	}

	/* tracepoints, when tracefs is mounted */
	if (access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK) == 0) {
		r = pmu__event_parse("sched:sched_switch", 18, &ev);
		CHECK_MSG(r == 0 && ev.a[0].attr.type == PERF_TYPE_TRACEPOINT && !ev.a[0].attr.exclude_kernel,
			  "%d %s", r, pmu_errmsg());
	} else {
		printf("tracefs not mounted: sys:name tracepoints not tried\n");
	}

	/* generic events land on the core PMUs with their user-access terms */
	ncore = pmu__core_pmus(core);
	CHECK(ncore >= 0);
	r = pmu__event_parse("cycles", 6, &ev);
	CHECK_MSG(r == 0, "cycles: %s", pmu_errmsg());
	if (r == 0 && ncore <= 0) {
		CHECK(ev.n == 1 && !strcmp(ev.a[0].pmu, "cpu") && ev.a[0].attr.config1 == 0);
		printf("no core PMU: cycles stays type 0 on 'cpu'\n");
	}
	if (r == 0 && ncore > 0) {
		CHECK(ev.n == (unsigned)ncore);
		for (int i = 0; i < ncore && i < (int)ev.n; i++) {
			const struct pmu__format *rd = pmu__desc_format(&core[i], "rdpmc", 5);
			const struct pmu__format *lg = pmu__desc_format(&core[i], "long", 4);
			uint64_t want = 0, cfg[4] = { 0, 0, 0, 0 };

			CHECK(!strcmp(ev.a[i].pmu, core[i].name));
			if (rd && !rd->bad && rd->f.word == 1)
				pmu__field_put(&rd->f, 1, cfg);
			if (lg && !lg->bad && lg->f.word == 1)
				pmu__field_put(&lg->f, 1, cfg);
			want = cfg[1];
			CHECK_MSG(ev.a[i].attr.config1 == want, "%s: config1 0x%llx, want 0x%llx", core[i].name,
				  (unsigned long long)ev.a[i].attr.config1, (unsigned long long)want);
			CHECK_EQ(ev.a[i].auto_long, lg && !lg->bad && lg->f.word == 1 ? lg->f.mask : 0);
			printf("core PMU %s type %u: cycles config1=0x%llx\n", core[i].name, core[i].type,
			       (unsigned long long)ev.a[i].attr.config1);
		}
		CHECK(pmu_event_attr("cycles", &a) == 0 && !memcmp(&a, &ev.a[0].attr, sizeof(a)));
		for (int i = 0; i < ncore; i++)
			pmu__desc_free(&core[i]);
	}

	/* libpfm4: names of the PMUs present here resolve, or say why (a missing unit mask) */
	if (pmu__pfm_available() && pmu__pfm_list(pfm_collect, &pfm) > 0) {
		int ok = 0;

		for (int i = 0; i < pfm.n; i++) {
			r = pmu__event_parse(pfm.name[i], strlen(pfm.name[i]), &ev);
			CHECK_MSG(r == 0 || (r == -EINVAL && strstr(pmu_errmsg(), pfm.name[i])), "%s: %d %s",
				  pfm.name[i], r, pmu_errmsg());
			if (r || ok++)
				continue;
			snprintf(buf, sizeof(buf), "%.100s:k", pfm.name[i]);
			r = pmu__event_parse(buf, strlen(buf), &ev);
			CHECK_MSG(r == 0 && ev.a[0].attr.exclude_user && !ev.a[0].attr.exclude_kernel, "%s: %d %s",
				  buf, r, pmu_errmsg());
		}
		CHECK(ok > 0);
		printf("libpfm4: %d of %d names resolve\n", ok, pfm.n);
	} else {
		printf("libpfm4: not built in or no PMU known to it\n");
	}
	T_DONE();
}
