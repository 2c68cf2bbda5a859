/* SPDX-License-Identifier: MIT */
/*
 * Metric expressions (expr.c) over any bytes: a tree or a refusal naming the
 * expression and its column, never a crash, a leak or a hang; a tree lists
 * its names, its events and evaluates (the same twice) with callbacks that
 * also fail, refer back to the input (cycles) and to another metric.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "parse/expr.h"

static struct pmu__expr *input, *other;

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	size_t n = strlen(id);

	(void)ctx;
	if (!n)
		abort();	/* the parser never names "" */
	switch (id[n - 1] % 4) {
	case 0: return -ENOENT;
	case 1: *out = 0; return 0;
	case 2: if (id[0] == 'E') return pmu__err(-EIO, "%s: cannot read", id); /* fall through */
	default: *out = source_count ? 1 : (double)n * 1.5; return 0;
	}
}

static int literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	(void)ctx;
	if ((unsigned)lit >= PMU_EXPR_NLITS)
		abort();
	if (lit == PMU_EXPR_NUM_DIES)
		return pmu__err(-ENODEV, "no dies");
	*out = lit == PMU_EXPR_SLOTS ? NAN : (double)lit;
	return 0;
}

/* "self" is the input itself, "other" a metric that names "self". */
static const struct pmu__expr *metric(void *ctx, const char *id)
{
	(void)ctx;
	if (!strcmp(id, "self"))
		return input;
	if (!strcmp(id, "other"))
		return other;
	return NULL;
}

static const struct pmu__expr_env env = { value, literal, metric, NULL };

static bool told(int rc)
{
	const char *m = pmu_errmsg();

	/* refusals of the input name it; failures of callbacks name theirs */
	return rc < 0 && (!strncmp(m, "expression \"", 12) || strstr(m, "cannot read") || strstr(m, "no dies"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	const char **ids;
	unsigned n;
	double v1, v2;
	int rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!other && pmu__expr_parse("self * 2 + other_event", &other))
		abort();
	/* "?" reads as a runtime parameter, negative too */
	rc = pmu__expr_parse_rt(s, (int)size - 100, &input);
	if (rc) {
		if (input || (rc != -EINVAL && rc != -E2BIG && rc != -ENOMEM) || !strstr(pmu_errmsg(), "column "))
			abort();
		free(s);
		return 0;
	}
	if (strcmp(pmu__expr_text(input), s) || pmu__expr_id(input, pmu__expr_nids(input)))
		abort();
	for (unsigned i = 0; i < pmu__expr_nids(input); i++)
		if (!pmu__expr_id(input, i) || !*pmu__expr_id(input, i))
			abort();
	rc = pmu__expr_events(input, &env, &ids, &n);
	if (rc == 0) {
		for (unsigned i = 0; i < n; i++)
			if (!ids[i] || !*ids[i])
				abort();
		free(ids);
	} else if ((rc != -EDOM && rc != -ELOOP && rc != -ENODEV && rc != -EINVAL) || !told(rc) || ids || n) {
		abort();
	}
	rc = pmu__expr_eval(input, &env, &v1);
	if (rc && ((rc != -EDOM && rc != -ELOOP && rc != -EIO && rc != -ENODEV && rc != -EINVAL) || !told(rc)))
		abort();
	/* the same value again: evaluation has no state */
	if (pmu__expr_eval(input, &env, &v2) != rc || (!rc && memcmp(&v1, &v2, sizeof(v1)) && !(isnan(v1) && isnan(v2))))
		abort();
	/* with no environment at all */
	rc = pmu__expr_eval(input, NULL, &v1);
	if (rc && rc != -EDOM && rc != -EINVAL)
		abort();
	pmu__expr_free(input);
	input = NULL;
	free(s);
	return 0;
}
