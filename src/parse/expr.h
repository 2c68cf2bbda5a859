/* SPDX-License-Identifier: MIT */
/*
 * Metric expressions in perf 6.1's language (tools/perf/util/expr.y and
 * expr.l): parsed once into a compact tree, then asked which events it needs
 * and evaluated in double through callbacks. Pure: no I/O, no global state.
 *
 * The language, loosest binding first (all operators left-associative):
 *   a if c else b      (c and the arguments below without a bare 'if':
 *                       an 'if' inside them needs parentheses, as in perf)
 *   |  ^  &            on the values truncated to long (*)
 *   <  >               1 or 0
 *   +  -
 *   *  /  %            % on the values truncated to long (*)
 *   -a                 unary minus (there is no unary plus)
 *   numbers (1.1e2, .1, 2.), identifiers (event names and metric names:
 *   [0-9a-zA-Z_.:@?] and the escapes \- \, \=; '?' is the runtime parameter),
 *   #literals, min(a, b), max(a, b), d_ratio(a, b), source_count(event), (a).
 *
 * Evaluation is perf's: every node is computed (both sides of an if too), so
 * a division or % by zero anywhere fails the expression, and d_ratio(a, 0) is 0.
 * An identifier the callback does not know counts as NaN.
 * (*) NaN and values beyond long's range truncate to LONG_MIN, as perf's
 * (long) cast does on x86-64; a % that perf would trap on (by a value that
 * truncates to 0) fails as a division by zero, and LONG_MIN % -1 is 0.
 *
 * Where perf's scanner silently drops a character it does not know (say '$'
 * or a '\' before another character), this parser refuses the expression.
 */
#ifndef PMU_EXPR_H
#define PMU_EXPR_H

#include <stdbool.h>

#include "base/internal.h"

#define PMU_EXPR_MAX_LEN 65536	/* bytes of an expression; perf 6.1's longest has 1,300 */
#define PMU_EXPR_MAX_DEPTH 128	/* nesting of parentheses, unary minus, calls and else-if */
#define PMU_EXPR_MAX_REFS 32	/* a chain of metric references */

/* perf's '#' literals (#smt_on and #system_tsc_freq in any case, as perf 6.1 compares them). */
enum pmu__expr_lit {
	PMU_EXPR_SMT_ON,
	PMU_EXPR_NUM_CPUS,
	PMU_EXPR_NUM_CORES,
	PMU_EXPR_NUM_DIES,
	PMU_EXPR_NUM_PACKAGES,
	PMU_EXPR_CORE_WIDE,
	PMU_EXPR_SYSTEM_TSC_FREQ,
	PMU_EXPR_SLOTS,		/* the core PMU's caps/slots (later perf versions, arm64) */
	PMU_EXPR_NLITS
};

/* "#smt_on" ... */
const char *pmu__expr_lit_name(enum pmu__expr_lit lit);

struct pmu__expr;

/*
 * Parses s into *out: 0, or -EINVAL (-E2BIG, -ENOMEM) with a message naming
 * the expression and the column. '?' in identifiers reads as runtime.
 */
int pmu__expr_parse(const char *s, struct pmu__expr **out);
int pmu__expr_parse_rt(const char *s, int runtime, struct pmu__expr **out);
void pmu__expr_free(struct pmu__expr *e);

/* The text parsed. */
const char *pmu__expr_text(const struct pmu__expr *e);

/*
 * Every identifier the text names (escapes undone), once each, in order of
 * first appearance: events and metric references alike. Valid while e is.
 */
unsigned pmu__expr_nids(const struct pmu__expr *e);
const char *pmu__expr_id(const struct pmu__expr *e, unsigned i);

/* Where an evaluation gets what the text names. Any member may be NULL. */
struct pmu__expr_env {
	/*
	 * An event's count (source_count: the number of events aggregated into
	 * it, perf's source_count()): 0, -ENOENT (unknown: NaN, as perf), or
	 * another -errno with a message set, which fails the evaluation.
	 * NULL: every event is unknown.
	 */
	int (*value)(void *ctx, const char *id, bool source_count, double *out);
	/* A literal's value: 0, or -errno with a message (NULL: every literal fails). */
	int (*literal)(void *ctx, enum pmu__expr_lit lit, double *out);
	/* The parsed metric an identifier names, or NULL when it names none (then it is an event). */
	const struct pmu__expr *(*metric)(void *ctx, const char *id);
	void *ctx;
};

/*
 * e's value into *out: 0, or -EDOM (division by zero), -ELOOP (a metric
 * that refers to itself), -EINVAL (a literal without a value) or the
 * callback's error, each with a message naming the expression and column.
 * A referenced metric whose own evaluation divides by zero counts as NaN, as
 * in perf.
 */
int pmu__expr_eval(const struct pmu__expr *e, const struct pmu__expr_env *env, double *out);

/*
 * The events e needs, as perf 6.1's expr__find_ids prunes them (an if whose
 * condition is a constant keeps only the branch taken; d_ratio(x, 0) needs
 * nothing) with literals from env, and metric references followed through
 * env->metric: *ids (malloc'd; its strings belong to the trees) and *n,
 * distinct, in order of first appearance. 0 or -errno with a message.
 */
int pmu__expr_events(const struct pmu__expr *e, const struct pmu__expr_env *env,
		     const char ***ids, unsigned *n);

#endif
