/* SPDX-License-Identifier: MIT */
/*
 * Event lists against the fixture sysfs trees: the first byte picks the tree,
 * the rest is the list given to pmu__event_next/pmu__event_parse.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "events/event.h"

static const char *const trees[] = {
	"intel", "intel_hybrid", "amd_zen", "arm64", "arm64_big_little", "riscv", "powerpc", "broken",
};
static char *roots[sizeof(trees) / sizeof(trees[0])];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *fix = getenv("FUZZ_FIXTURES");
	char path[PATH_MAX], abs[PATH_MAX];

	(void)argc, (void)argv;
	if (!fix)
		fix = "test/fixtures";
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fix, trees[i]);
		roots[i] = strdup(realpath(path, abs) ? abs : path);
	}
	snprintf(path, sizeof(path), "%s/tracefs", fix);
	setenv("PMU_TRACEFS", realpath(path, abs) ? abs : path, 1);
	return 0;
}

static void check_event(const struct pmu__event *ev)
{
	if (ev->n < 1 || ev->n > PMU_MAX_PMUS)
		abort();
	for (unsigned i = 0; i < ev->n; i++) {
		if (ev->a[i].attr.size != sizeof(ev->a[i].attr) || !memchr(ev->a[i].pmu, '\0', PMU_PMU_NAME) ||
		    !ev->a[i].pmu[0])
			abort();
		if (ev->a[i].auto_long & ~ev->a[i].attr.config1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu__event ev;
	const char *p, *tok;
	size_t len;
	char *s;
	int r;

	if (size < 1)
		return 0;
	setenv("PMU_SYSFS_DEVICES", roots[data[0] % (sizeof(trees) / sizeof(trees[0]))], 1);
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	p = s;
	/* a few events per input: unknown names cost a scan of the tree for suggestions */
	for (int n = 0; n < 4 && (r = pmu__event_next(&p, &tok, &len)) > 0; n++) {
		r = pmu__event_parse(tok, len, &ev);
		if (r > 0 || (r == 0) != (ev.n > 0))
			abort();
		if (r == 0)
			check_event(&ev);
		else if (!pmu_errmsg()[0])
			abort();	/* every failure explains itself */
	}
	/* the event as bytes, with any NULs inside */
	r = pmu__event_parse((const char *)data + 1, size - 1, &ev);
	if (r == 0)
		check_event(&ev);
	else if (!pmu_errmsg()[0] || r > 0)
		abort();
	free(s);
	return 0;
}
