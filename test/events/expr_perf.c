/* SPDX-License-Identifier: MIT */
/*
 * The metric expression language against perf 6.1's own cases
 * (tools/perf/tests/expr.c of Linux 6.1, values transcribed), then the
 * corners of its grammar: precedence, if/else, the scanner's longest match,
 * escapes, d_ratio and division by zero, metric references, and refusals
 * (each with a message naming the expression and column).
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>

#include "test.h"
#include "base/internal.h"
#include "parse/expr.h"

/* ---- callbacks: events FOO=1, BAR=2 (as perf's test), literals, metrics ---- */

static double lits[PMU_EXPR_NLITS];
static bool lit_fails[PMU_EXPR_NLITS];

static int value(void *ctx, const char *id, bool source_count, double *out)
{
	(void)ctx;
	if (!strcmp(id, "FOO"))
		*out = source_count ? 3 : 1;
	else if (!strcmp(id, "BAR"))
		*out = source_count ? 4 : 2;
	else if (!strcmp(id, "ZERO"))
		*out = 0;
	else if (!strcmp(id, "BROKEN"))
		return pmu__err(-EIO, "BROKEN: cannot read");
	else
		return -ENOENT;
	return 0;
}

static int literal(void *ctx, enum pmu__expr_lit lit, double *out)
{
	(void)ctx;
	if (lit_fails[lit])
		return pmu__err(-ENODEV, "%s: unknown here", pmu__expr_lit_name(lit));
	*out = lits[lit];
	return 0;
}

static const struct {
	const char *name, *expr;
} metric_src[] = {
	{ "sum", "FOO + BAR" },
	{ "twice", "sum * 2" },
	{ "self", "self + 1" },
	{ "ping", "pong * 2" },
	{ "pong", "1 + ping" },
	{ "divzero", "FOO / ZERO" },
	{ "uses_divzero", "max(divzero, 7)" },
	{ "smt_pick", "FOO if #smt_on else BAR" },
	{ "via_smt", "smt_pick + sum" },
	{ "broken", "BROKEN * 2" },
};
static struct pmu__expr *metric_tree[PMU_ARRAY_SIZE(metric_src)];

static const struct pmu__expr *metric(void *ctx, const char *id)
{
	(void)ctx;
	for (size_t i = 0; i < PMU_ARRAY_SIZE(metric_src); i++)
		if (!strcmp(id, metric_src[i].name))
			return metric_tree[i];
	return NULL;
}

static const struct pmu__expr_env env = { value, literal, metric, NULL };

/* ---- checks ---- */

static int eval_str(const char *s, int runtime, double *v)
{
	struct pmu__expr *e;
	int rc = pmu__expr_parse_rt(s, runtime, &e);

	if (rc)
		return rc;
	rc = pmu__expr_eval(e, &env, v);
	pmu__expr_free(e);
	return rc;
}

/* s evaluates to exactly want, as perf's test compares (NaN: is NaN). */
static void is(const char *s, double want)
{
	double v = -12345;
	int rc = eval_str(s, 0, &v);

	CHECK_MSG(rc == 0, "%s: %d %s", s, rc, pmu_errmsg());
	if (!rc)
		CHECK_MSG(isnan(want) ? isnan(v) : v == want, "%s = %.17g, want %.17g", s, v, want);
}

/* s fails with err (to parse when parse_err, else to evaluate) and a message holding each of the parts. */
static void refused(const char *s, bool parse_err, int err, const char *part1, const char *part2)
{
	struct pmu__expr *e = (struct pmu__expr *)1;
	double v;
	int rc = pmu__expr_parse(s, &e);
	char head[96];

	if (!parse_err) {
		CHECK_MSG(rc == 0, "%s: %s", s, pmu_errmsg());
		if (rc)
			return;
		rc = pmu__expr_eval(e, &env, &v);
		pmu__expr_free(e);
	} else {
		CHECK_MSG(e == NULL, "%s: tree left on failure", s);
	}
	CHECK_MSG(rc == err, "%s: %d, want %d (%s)", s, rc, err, pmu_errmsg());
	snprintf(head, sizeof(head), "expression \"%.60s", s);
	if (strlen(s) <= 60 && !strpbrk(s, "\t\x01"))
		CHECK_MSG(strstr(pmu_errmsg(), head) != NULL, "%s: message \"%s\" does not name it", s, pmu_errmsg());
	CHECK_MSG(!part1 || strstr(pmu_errmsg(), part1), "%s: message \"%s\" lacks \"%s\"", s, pmu_errmsg(), part1);
	CHECK_MSG(!part2 || strstr(pmu_errmsg(), part2), "%s: message \"%s\" lacks \"%s\"", s, pmu_errmsg(), part2);
}

/* The events s needs (literals from lits[]), space-separated, is want. */
static void needs(const char *s, int runtime, const char *want)
{
	struct pmu__expr *e;
	const char **ids;
	unsigned n;
	char got[512] = "";
	int rc = pmu__expr_parse_rt(s, runtime, &e);

	CHECK_MSG(rc == 0, "%s: %s", s, pmu_errmsg());
	if (rc)
		return;
	rc = pmu__expr_events(e, &env, &ids, &n);
	CHECK_MSG(rc == 0, "%s: events: %s", s, pmu_errmsg());
	for (unsigned i = 0; !rc && i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", ids[i]);
	CHECK_MSG(rc || !strcmp(got, want), "%s needs \"%s\", want \"%s\"", s, got, want);
	if (!rc)
		free(ids);
	pmu__expr_free(e);
}

/* The identifiers s names, as the tree lists them. */
static void names(const char *s, const char *want)
{
	struct pmu__expr *e;
	char got[512] = "";

	if (pmu__expr_parse(s, &e)) {
		CHECK_MSG(0, "%s: %s", s, pmu_errmsg());
		return;
	}
	for (unsigned i = 0; i < pmu__expr_nids(e); i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s[%s]", i ? " " : "", pmu__expr_id(e, i));
	CHECK_MSG(!strcmp(got, want), "%s names \"%s\", want \"%s\"", s, got, want);
	CHECK(pmu__expr_id(e, pmu__expr_nids(e)) == NULL);
	CHECK(!strcmp(pmu__expr_text(e), s));
	pmu__expr_free(e);
}

/* tools/perf/tests/expr.c of Linux 6.1, in its order. */
static void perf_cases(void)
{
	double v;

	is("1+1", 2);
	is("FOO+BAR", 3);
	is("(BAR/2)%2", 1);
	is("1 - -4", 5);
	is("(FOO-1)*2 + (BAR/2)%2 - -4", 5);
	is("1-1 | 1", 1);
	is("1-1 & 1", 0);
	is("min(1,2) + 1", 2);
	is("max(1,2) + 1", 3);
	is("1+1 if 3*4 else 0", 2);
	is("100 if 1 else 200 if 1 else 300", 100);
	is("100 if 0 else 200 if 1 else 300", 200);
	is("100 if 1 else 200 if 0 else 300", 100);
	is("100 if 0 else 200 if 0 else 300", 300);
	is("1.1 + 2.1", 3.2);
	is(".1 + 2.", 2.1);
	is("d_ratio(1, 2)", 0.5);
	is("d_ratio(2.5, 0)", 0);
	is("1.1 < 2.2", 1);
	is("2.2 > 1.1", 1);
	is("1.1 < 1.1", 0);
	is("2.2 > 2.2", 0);
	is("2.2 < 1.1", 0);
	is("1.1 > 2.2", 0);
	is("1.1e10 < 1.1e100", 1);
	is("1.1e2 > 1.1e-2", 1);

	/* "division by zero" and "missing operand": perf's expr__parse returns -1 */
	refused("FOO/0", false, -EDOM, "column 4", "division by zero");
	refused("BAR/", true, -EINVAL, "column 5", "missing after '/'");

	/* find ids: perf's test drops FOO (its "one" argument) and finds the other three */
	needs("FOO + BAR + BAZ + BOZO", 0, "FOO BAR BAZ BOZO");
	needs("EVENT1\\,param\\=?@ + EVENT2\\,param\\=?@", 3, "EVENT1,param=3@ EVENT2,param=3@");
	needs("dash\\-event1 - dash\\-event2", 0, "dash-event1 dash-event2");

	/* only EVENT1 or EVENT2 need be measured, by #smt_on and #core_wide */
	for (int on = 0; on < 2; on++) {
		lits[PMU_EXPR_SMT_ON] = on;
		lits[PMU_EXPR_CORE_WIDE] = !on;
		needs("EVENT1 if #smt_on else EVENT2", 0, on ? "EVENT1" : "EVENT2");
		needs("EVENT1 if #core_wide else EVENT2", 0, on ? "EVENT2" : "EVENT1");
	}
	/* a constant 1.0 needs no event */
	needs("1.0 if EVENT1 > 100.0 else 1.0", 0, "");

	/* the topology literals parse and give what the platform says */
	lits[PMU_EXPR_NUM_CPUS] = 8;
	lits[PMU_EXPR_NUM_CORES] = 4;
	lits[PMU_EXPR_NUM_DIES] = 2;
	lits[PMU_EXPR_NUM_PACKAGES] = 1;
	lits[PMU_EXPR_SYSTEM_TSC_FREQ] = 2.1e9;
	is("#num_cpus", 8);
	is("#num_cores", 4);
	is("#num_dies", 2);
	is("#num_packages", 1);
	is("#system_tsc_freq", 2.1e9);
	lits[PMU_EXPR_SYSTEM_TSC_FREQ] = 0;	/* not Intel: 0 */
	CHECK(eval_str("#system_tsc_freq", 0, &v) == 0 && fpclassify(v) == FP_ZERO);

	/* source_count(EVENT1) yields the id EVENT1 */
	needs("source_count(EVENT1)", 0, "EVENT1");
}

static void precedence(void)
{
	is("1 + 2 * 3", 7);
	is("2 * 3 + 1", 7);
	is("8 - 2 - 1", 5);
	is("8 / 2 / 2", 2);
	is("7 % 4 * 2", 6);
	is("2 * 7 % 4", 2);
	is("1 | 2 ^ 3", 1);	/* ^ binds tighter than | */
	is("6 & 3 | 8", 10);
	is("1 | 6 & 3", 3);
	is("3 ^ 1 & 1", 2);	/* & tighter than ^ */
	is("1 < 2 + 3", 1);
	is("3 & 1 < 2", 1);	/* < tighter than & */
	is("1 < 2 < 3", 1);	/* left to right: (1 < 2) < 3 */
	is("3 > 2 > 1", 0);
	is("-2 * 3", -6);
	is("- 2 - 3", -5);
	is("-(2 - 3)", 1);
	is("2 - -3", 5);
	is("--2", 2);
	is("2*-3", -6);
	is("-3 % 2", -1);	/* on longs, C's truncation */
	is("7.9 % 2.5", 1);
	is("5.5 | 0", 5);
	is("-1 & 255", 255);
	is("1e300 * 1e300 > 0", 1);	/* inf as C computes it */
	/* NaN and beyond long's range: LONG_MIN, as perf's cast on x86-64 */
	is("2 ^ 1e300", (double)(LONG_MIN ^ 2));
	is("-(1e300 | 0)", 9223372036854775808.0);
	is("1e300 % 7", (double)(LONG_MIN % 7));
}

static void if_else(void)
{
	is("(1 if 0 else 2) if 1 else 3", 2);
	is("1 if (2 if 0 else 0) else 3", 3);
	is("1 + (2 if 1 else 3) * 10", 21);
	is("1 if 1 else 2 + 100", 1);
	is("0 if 0 else 2 + 100", 102);
	is("1 + 2 if 0 else 5", 5);	/* the whole sum is the value */
	is("1 + 2 if 1 else 5", 3);
	is("1 if 2 > 1 else 0", 1);
	is("10 if FOO < BAR else 20", 10);
	is("10 if UNKNOWN else 20", 10);	/* NaN is not zero: true, as perf */
	is("1 if 0 else 2 if 0 else 3 if 0 else 4 if 1 else 5", 4);
}

static void scanner(void)
{
	/* numbers */
	is("1.1e2", 110);
	is("2.e3", 2000);
	is(".5e-1", 0.05);
	is("007", 7);
	is("1.5 - .5", 1);
	/* flex's longest match: these are names, not numbers */
	names("1e + 1E5 + 1.1e2x + 2.5.1", "[1e] [1E5] [1.1e2x] [2.5.1]");
	names("1e+5", "[1e]");	/* exponents have no '+': 1e, then + 5 */
	names("ifx + elsey + min_x + d_ratio2 + source_countx + maxi", "[ifx] [elsey] [min_x] [d_ratio2] [source_countx] [maxi]");
	names("INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD:u", "[INST_RETIRED.ANY] [CPU_CLK_UNHALTED.THREAD:u]");
	/* pmu@event,term=x@ and escapes */
	names("cpu@inst_retired.any\\,cmask\\=1@ + cpu@x@", "[cpu@inst_retired.any,cmask=1@] [cpu@x@]");
	names("a\\-b - a\\-b - a-b", "[a-b] [a] [b]");
	names("source_count(FOO) + FOO", "[FOO]");
	/* '?' is the runtime parameter */
	{
		struct pmu__expr *e;

		CHECK(pmu__expr_parse_rt("hv_24x7@PM_X\\,chip\\=?@", 12, &e) == 0);
		CHECK(!strcmp(pmu__expr_id(e, 0), "hv_24x7@PM_X,chip=12@"));
		pmu__expr_free(e);
		CHECK(pmu__expr_parse("x?y", &e) == 0);
		CHECK(!strcmp(pmu__expr_id(e, 0), "x0y"));
		pmu__expr_free(e);
	}
	/* whitespace of any kind */
	is(" \t1\n+\r2\f ", 3);
	/* literals: #smt_on and #system_tsc_freq in any case, as perf 6.1 (its JSON writes #SMT_on) */
	lits[PMU_EXPR_SMT_ON] = 1;
	lits[PMU_EXPR_SLOTS] = 6;
	is("#SMT_on + #SMT_ON", 2);
	is("#slots * 2", 12);
	refused("#NUM_CPUS", true, -EINVAL, "column 1", "unknown literal '#NUM_CPUS'");
	/* perf's literal takes '-' in: write spaces around a minus */
	refused("#num_cpus-1", true, -EINVAL, "column 1", "unknown literal '#num_cpus-1'");
	is("#num_cpus - 1", 7);
}

static void zero(void)
{
	is("d_ratio(FOO, 0)", 0);
	is("d_ratio(FOO, BAR - 2)", 0);
	is("d_ratio(BAR, FOO)", 2);
	is("d_ratio(UNKNOWN, FOO)", NAN);
	refused("FOO / (BAR - 2)", false, -EDOM, "column 5", "division by zero");
	refused("FOO % 0", false, -EDOM, "column 5", "by zero");
	refused("5 % 0.5", false, -EDOM, "column 3", "0 as an integer");
	/* perf computes both branches of an if: the one not taken fails too */
	refused("1 if 1 else 1 / 0", false, -EDOM, "column 15", "division by zero");
	refused("1 / 0 if 0 else 1", false, -EDOM, "column 3", NULL);
	is("-9223372036854775808 % -1", 0);
	is("FOO / UNKNOWN", NAN);
	is("UNKNOWN / 0.5", NAN);
	is("max(UNKNOWN, 1)", 1);	/* NaN > 1 is false */
	is("min(UNKNOWN, 1)", 1);
	is("UNKNOWN | 1", (double)(LONG_MIN | 1));
	is("UNKNOWN % 3 + UNKNOWN & 1", 0);	/* (LONG_MIN % 3 + NaN) & 1 */
	is("source_count(FOO) + source_count(BAR)", 7);
	is("source_count(UNKNOWN)", NAN);
}

static void refusals(void)
{
	char *s;

	refused("", true, -EINVAL, "column 1", "empty");
	refused("  \t", true, -EINVAL, "column 4", "empty");
	refused("1 if 1", true, -EINVAL, "column 7", "expected 'else' for the 'if' of column 3");
	refused("1 if 1 if 1 else 2 else 3", true, -EINVAL, "column 8", "needs parentheses");
	refused("min(1 if 1 else 2, 3)", true, -EINVAL, "column 7", "argument of min() needs parentheses");
	refused("max(1)", true, -EINVAL, "column 6", "expected ','");
	refused("d_ratio(1, 2, 3)", true, -EINVAL, "column 13", "takes two arguments");
	refused("min 1", true, -EINVAL, "column 5", "expected '(' after 'min'");
	refused("else 1", true, -EINVAL, "column 1", "'else' without 'if'");
	refused("1 else 2", true, -EINVAL, "column 3", "'else' without 'if'");
	refused("if 1", true, -EINVAL, "column 1", NULL);
	refused("(1 + 2", true, -EINVAL, "column 7", "close the '(' of column 1");
	refused("1 + 2)", true, -EINVAL, "column 6", "')' without '('");
	refused("1 2", true, -EINVAL, "column 3", "expected an operator, found '2'");
	refused("1, 2", true, -EINVAL, "column 2", "','");
	refused("+1", true, -EINVAL, "column 1", "unary '+'");
	refused("1 * * 2", true, -EINVAL, "column 5", "expected an operand, found '*'");
	refused("()", true, -EINVAL, "column 2", NULL);
	refused("1 $ 2", true, -EINVAL, "column 3", "unexpected character '$'");
	refused("FOO + !BAR", true, -EINVAL, "column 7", "'!'");
	refused("a\\+b", true, -EINVAL, "column 2", "escapes only");
	refused("a\\", true, -EINVAL, "column 2", "escapes only");
	refused("# + 1", true, -EINVAL, "column 1", "'#'");
	refused("1 + \x01", true, -EINVAL, "column 5", "byte 0x01");
	refused("1e400", true, -EINVAL, "column 1", "out of range");
	refused("1e-400", true, -EINVAL, "column 1", "out of range");
	refused("source_count(1)", true, -EINVAL, "column 14", "takes an event name");
	refused("source_count(a + b)", true, -EINVAL, "column 16", "expected ')'");
	refused("source_count a", true, -EINVAL, "column 14", NULL);
	refused("BROKEN + 1", false, -EIO, "BROKEN: cannot read", NULL);
	lit_fails[PMU_EXPR_NUM_DIES] = true;
	refused("#num_dies", false, -ENODEV, "#num_dies: unknown here", NULL);
	lit_fails[PMU_EXPR_NUM_DIES] = false;
	lits[PMU_EXPR_NUM_DIES] = NAN;
	refused("#num_dies + 1", false, -EINVAL, "#num_dies is not a number", NULL);
	lits[PMU_EXPR_NUM_DIES] = 2;
	{
		struct pmu__expr *e;
		double v;

		CHECK(pmu__expr_parse(NULL, &e) == -EINVAL && !e);
		/* no environment: events NaN, literals refused */
		CHECK(pmu__expr_parse("FOO + 1", &e) == 0);
		CHECK(pmu__expr_eval(e, NULL, &v) == 0 && isnan(v));
		pmu__expr_free(e);
		CHECK(pmu__expr_parse("#smt_on", &e) == 0);
		CHECK(pmu__expr_eval(e, NULL, &v) == -EINVAL);
		CHECK(strstr(pmu_errmsg(), "#smt_on has no value") != NULL);
		pmu__expr_free(e);
		pmu__expr_free(NULL);
	}
	/* a long expression's message shows its start */
	s = malloc(2000);
	memset(s, 'a', 1990);
	strcpy(s + 1990, " + $");
	refused(s, true, -EINVAL, "column 1994", "aaaaaaa...\"");
	free(s);
}

/* Nesting is bounded (no input exhausts the stack); a flat chain is not nesting. */
static void limits(void)
{
	size_t big = PMU_EXPR_MAX_LEN + 2;
	char *s = malloc(big + 1);
	struct pmu__expr *e;
	double v;
	int d;

	for (d = 0; d < PMU_EXPR_MAX_DEPTH; d++)
		s[d] = '(';
	s[d] = '1';
	memset(s + d + 1, ')', (size_t)d);
	s[2 * d + 1] = '\0';
	is(s, 1);
	/* one deeper, in each form that recurses */
	static const char *const opens[] = { "(", "-", "min(1,", "1 if 0 else " };
	for (size_t k = 0; k < PMU_ARRAY_SIZE(opens); k++) {
		size_t n = 0, len = strlen(opens[k]);

		for (d = 0; d <= PMU_EXPR_MAX_DEPTH; d++, n += len)
			memcpy(s + n, opens[k], len);
		strcpy(s + n, "1");
		CHECK_MSG(pmu__expr_parse(s, &e) == -EINVAL && strstr(pmu_errmsg(), "nested deeper than 128"),
			  "%s: %s", opens[k], pmu_errmsg());
	}
	/* 20,000 terms: a flat chain, any depth of tree */
	for (d = 0; d < 20000; d++)
		memcpy(s + 2 * d, "1+", 2);
	strcpy(s + 2 * d, "1");
	CHECK(pmu__expr_parse(s, &e) == 0);
	CHECK(pmu__expr_eval(e, &env, &v) == 0 && v == 20001);
	pmu__expr_free(e);
	/* many distinct names */
	for (d = 0; d < 5000; d++)
		sprintf(s + 7 * d, "e%05d+", d);
	strcpy(s + 7 * d, "FOO");
	CHECK(pmu__expr_parse(s, &e) == 0);
	CHECK(pmu__expr_nids(e) == 5001 && !strcmp(pmu__expr_id(e, 4321), "e04321"));
	CHECK(pmu__expr_eval(e, &env, &v) == 0 && isnan(v));
	pmu__expr_free(e);
	/* longer than the bound */
	memset(s, '1', big);
	s[big] = '\0';
	CHECK(pmu__expr_parse(s, &e) == -E2BIG && !e && strstr(pmu_errmsg(), "longer than 65536 bytes"));
	free(s);
}

static void references(void)
{
	const char **ids;
	unsigned n;
	double v;

	for (size_t i = 0; i < PMU_ARRAY_SIZE(metric_src); i++)
		CHECK_MSG(pmu__expr_parse(metric_src[i].expr, &metric_tree[i]) == 0, "%s", pmu_errmsg());
	is("sum", 3);
	is("twice + sum", 9);
	is("1 - twice / 10", 0.4);
	/* perf: a referenced metric that fails to compute is NaN */
	is("divzero", NAN);
	is("uses_divzero", 7);
	refused("self", false, -ELOOP, "metric reference cycle: self -> self", NULL);
	refused("twice + ping", false, -ELOOP, "metric reference cycle: ping -> pong -> ping", NULL);
	refused("broken + 1", false, -EIO, "BROKEN: cannot read (expression \"BROKEN * 2\", column 1); in metric broken at column 1 of expression \"broken + 1\"", NULL);
	/* a metric evaluated by itself is in the chain too */
	CHECK(pmu__expr_eval(metric_tree[2], &env, &v) == -ELOOP);
	CHECK(strstr(pmu_errmsg(), "this expression -> self, which is this expression") != NULL);

	/* events through references, pruned as perf prunes them */
	needs("twice + FOO + sum", 0, "FOO BAR");
	lits[PMU_EXPR_SMT_ON] = 0;
	needs("via_smt", 0, "BAR FOO");
	lits[PMU_EXPR_SMT_ON] = 1;
	needs("via_smt", 0, "FOO BAR");
	needs("0 if 1 else sum", 0, "");
	needs("source_count(sum)", 0, "sum");	/* source_count names an event */
	needs("d_ratio(sum, 0) + min(FOO, 1) + max(X, Y) + -Z", 0, "FOO X Y Z");
	needs("X if FOO else 1 + 0", 0, "X FOO");
	needs("X if #smt_on * 0 else Y", 0, "Y");
	needs("X if #smt_on + 1 > 1 else Y", 0, "X");
	needs("(X if #smt_on else Y) * (2 | #slots)", 0, "X");
	{
		struct pmu__expr *e;

		CHECK(pmu__expr_parse("1 + ping", &e) == 0);
		CHECK(pmu__expr_events(e, &env, &ids, &n) == -ELOOP && !ids && !n);
		CHECK(strstr(pmu_errmsg(), "metric reference cycle: ping -> pong -> ping") != NULL);
		pmu__expr_free(e);
		/* a constant division by zero fails perf's find_ids too */
		CHECK(pmu__expr_parse("X / (2 - 2)", &e) == 0);
		CHECK(pmu__expr_events(e, &env, &ids, &n) == -EDOM);
		pmu__expr_free(e);
		CHECK(pmu__expr_parse("#num_dies + X", &e) == 0);
		lit_fails[PMU_EXPR_NUM_DIES] = true;
		CHECK(pmu__expr_events(e, &env, &ids, &n) == -ENODEV);
		lit_fails[PMU_EXPR_NUM_DIES] = false;
		pmu__expr_free(e);
		/* without an environment, only references cannot be followed */
		CHECK(pmu__expr_parse("sum + X", &e) == 0);
		CHECK(pmu__expr_events(e, NULL, &ids, &n) == 0 && n == 2);
		free(ids);
		pmu__expr_free(e);
	}
	for (size_t i = 0; i < PMU_ARRAY_SIZE(metric_src); i++)
		pmu__expr_free(metric_tree[i]);
}

/* Numbers read as C reads them whatever the program's locale. */
static void locale(void)
{
	static const char *const comma[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "C.UTF-8" };

	for (size_t i = 0; i < PMU_ARRAY_SIZE(comma); i++)
		if (setlocale(LC_ALL, comma[i]))
			break;
	is("1.5 + 0.25", 1.75);
	setlocale(LC_ALL, "C");
}

int main(void)
{
	perf_cases();
	precedence();
	if_else();
	scanner();
	zero();
	refusals();
	limits();
	references();
	locale();
	T_DONE();
}
