/* SPDX-License-Identifier: MIT */
/* pmu encode: the perf_event_attr of each event, one line per event and PMU. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "cmds.h"
#include "events/perf_json.h"
#include "tool_err.h"

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu encode [--sysfs DIR] [--perf-json PATH]... EVENT...\n"
		"  Prints for each event and PMU it counts on:\n"
		"  EVENT pmu=NAME type=N config=0xHEX config1=0xHEX config2=0xHEX config3=0xHEX "
		"exclude_user=B exclude_kernel=B exclude_hv=B\n"
		"  --sysfs DIR  read PMUs from DIR instead of /sys/bus/event_source/devices\n"
		"  --perf-json PATH  perf's event files (also PMU_PERF_JSON): their names, as\n"
		"               INST_RETIRED.ANY, encode as the core PMU's terms\n");
	return f == stdout ? 0 : TOOL_USAGE;
}

static void print_attr(const char *ev, size_t len, const struct pmu__attr *pa)
{
	const struct perf_event_attr *a = &pa->attr;

	printf("%.*s pmu=%s type=%" PRIu32 " config=0x%" PRIx64 " config1=0x%" PRIx64
	       " config2=0x%" PRIx64 " config3=0x%" PRIx64 " exclude_user=%d exclude_kernel=%d exclude_hv=%d\n",
	       (int)len, ev, pa->pmu, (uint32_t)a->type, (uint64_t)a->config, (uint64_t)a->config1,
	       (uint64_t)a->config2, pmu__attr_config3(a), (int)a->exclude_user, (int)a->exclude_kernel,
	       (int)a->exclude_hv);
}

int cmd_encode(int argc, char **argv)
{
	int i = 1, r, failed = 0, n = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(stdout);
		r = tool_sysfs_option("encode", argc, argv, &i);
		if (!r)
			r = tool_perf_json_option("encode", argc, argv, &i);
		if (r < 0)
			return TOOL_USAGE;
		if (!r) {
			fprintf(stderr, "pmu encode: unknown option '%s'\n", argv[i]);
			return usage(stderr);
		}
	}
	if (i == argc)
		return usage(stderr);
	if (pmu__pj_load() < 0) {
		fprintf(stderr, "pmu encode: %s\n", pmu_errmsg());
		return 1;
	}
	for (; i < argc; i++) {
		const char *p = argv[i], *tok;
		size_t len;
		int r;

		while ((r = pmu__event_next(&p, &tok, &len)) > 0) {
			struct pmu__event ev;

			char *name = strndup(tok, len), *spec = name ? pmu__pj_metric_event(name) : NULL;

			n++;
			free(name);
			if (!spec) {
				fprintf(stderr, "pmu encode: %s\n", name ? pmu_errmsg() : "out of memory");
				failed++;
				continue;
			}
			int pr = pmu__event_parse(spec, strlen(spec), &ev);

			free(spec);
			if (pr < 0) {
				fprintf(stderr, "pmu encode: %s\n", pmu_errmsg());
				failed++;
				continue;
			}
			for (unsigned k = 0; k < ev.n; k++)
				print_attr(tok, len, &ev.a[k]);
		}
		if (r < 0) {
			fprintf(stderr, "pmu encode: '%s': %s\n", argv[i], pmu_errmsg());
			failed++;
		}
	}
	fflush(stdout);
	pmu__pj_free();
	return failed ? 1 : 0;
}
