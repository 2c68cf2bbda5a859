/* SPDX-License-Identifier: MIT */
/* perf 6.1's metric expressions evaluated (see expr.h), and the events an expression needs, as perf finds them. */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "parse/expr_int.h"

/* ---- evaluation ---- */

/* The metrics being evaluated, outermost first: references are checked against them. */
struct chain {
	const struct pmu__expr_env *env;
	const struct pmu__expr *tree[PMU_EXPR_MAX_REFS + 1];
	const char *name[PMU_EXPR_MAX_REFS + 1];	/* [0]: NULL, the expression asked for */
	unsigned n;
};

static const struct pmu__expr_env no_env;

/*
 * A reference to a metric being evaluated already, or one too deep: -ELOOP
 * naming the expression asked for and the chain.
 */
static int check_ref(struct chain *ch, const struct pmu__expr *ref, const char *name)
{
	char path[256] = "", text[64];
	size_t len = 0;
	unsigned k;

	for (k = 0; k < ch->n && ch->tree[k] != ref; k++)
		;
	if (k == ch->n && ch->n <= PMU_EXPR_MAX_REFS)
		return 0;
	pmu__expr_shown(ch->tree[0]->text, text, sizeof(text));
	if (k == ch->n)
		return pmu__err(-ELOOP, "expression \"%s\": metric references nested deeper than %d",
				text, PMU_EXPR_MAX_REFS);
	for (unsigned j = k; j < ch->n && len < sizeof(path); j++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s -> ",
					ch->name[j] ? ch->name[j] : "this expression");
	return pmu__err(-ELOOP, "expression \"%s\": metric reference cycle: %s%s%s", text, path, name,
			k ? "" : ", which is this expression");
}

/* Where a failure inside a reference or a callback happened. */
static int said_where(int rc, const struct pmu__expr *e, const struct node *n, const char *ref)
{
	char text[64];

	if (rc == -ELOOP)
		return rc;
	pmu__expr_shown(e->text, text, sizeof(text));
	if (ref)
		pmu__err_append("; in metric %s at column %u of expression \"%s\"", ref, n->col, text);
	else
		pmu__err_append(" (expression \"%s\", column %u)", text, n->col);
	return rc;
}

/*
 * x truncated to long as perf's (long)x computes it on x86-64, defined here
 * for every x: NaN and values beyond long's range are LONG_MIN (cvttsd2si's
 * "integer indefinite"), so an unknown event (NaN) in | & ^ % gives what
 * perf gives.
 */
static long to_long(double x)
{
	if (!(x >= (double)LONG_MIN && x < -(double)LONG_MIN))
		return LONG_MIN;
	return (long)x;
}

static int eval(struct chain *ch, const struct pmu__expr *e, double *out);

static int eval_id(struct chain *ch, const struct pmu__expr *e, const struct node *n, double *v)
{
	const struct pmu__expr_env *env = ch->env;
	const char *name = e->ids[n->a];
	const struct pmu__expr *ref;
	int rc;

	if (n->op == N_ID && env->metric && (ref = env->metric(env->ctx, name))) {
		if ((rc = check_ref(ch, ref, name)))
			return rc;
		ch->tree[ch->n] = ref;
		ch->name[ch->n++] = name;
		rc = eval(ch, ref, v);
		ch->n--;
		/* perf: a referenced metric that fails to compute is NaN */
		if (rc == -EDOM) {
			*v = NAN;
			pmu__err_clear();
			return 0;
		}
		return rc ? said_where(rc, e, n, name) : 0;
	}
	*v = NAN;
	if (!env->value)
		return 0;
	rc = env->value(env->ctx, name, n->op == N_SRC, v);
	if (rc == -ENOENT) {
		*v = NAN;
		return 0;
	}
	return rc ? said_where(rc > 0 ? -EINVAL : rc, e, n, NULL) : 0;
}

static int eval_lit(const struct chain *ch, const struct pmu__expr *e, const struct node *n, double *v)
{
	const struct pmu__expr_env *env = ch->env;
	int rc;

	if (!env->literal)
		return pmu__expr_fail_at(-EINVAL, e->text, n->col, "%s has no value here", pmu__expr_lit_name(n->a));
	rc = env->literal(env->ctx, n->a, v);
	if (rc)
		return said_where(rc > 0 ? -EINVAL : rc, e, n, NULL);
	/* perf refuses an expression whose literal is NaN */
	if (isnan(*v))
		return pmu__expr_fail_at(-EINVAL, e->text, n->col, "%s is not a number", pmu__expr_lit_name(n->a));
	return 0;
}

/* l % r as perf computes it on longs, with the cases C leaves undefined refused or defined. */
static int mod(const struct pmu__expr *e, const struct node *n, double l, double r, double *v)
{
	long a, b;

	if (fpclassify(r) == FP_ZERO)
		return pmu__expr_fail_at(-EDOM, e->text, n->col, "'%%' by zero");
	a = to_long(l);
	b = to_long(r);
	if (!b)
		return pmu__expr_fail_at(-EDOM, e->text, n->col, "'%%' by %g, which is 0 as an integer", r);
	*v = b == -1 ? 0 : (double)(a % b);
	return 0;
}

static double bits(enum op op, double l, double r)
{
	long a = to_long(l), b = to_long(r);

	return (double)(op == N_OR ? a | b : op == N_AND ? a & b : a ^ b);
}

/*
 * Operator node n on its operands' values (c: ?:'s third). With fold, while finding an
 * expression's events, the values are constants or NaN where events decide: an operand
 * not known (or infinite) leaves the node unknown, min and max are never known, and ?:
 * is known where its condition is, or where both sides agree.
 */
static int apply(const struct pmu__expr *e, const struct node *n, double a, double b, double c, bool fold, double *v)
{
	bool k = !fold || (isfinite(a) && isfinite(b));

	switch (n->op) {
	case N_NEG: *v = -a; return 0;
	case N_OR:
	case N_XOR:
	case N_AND: *v = k ? bits(n->op, a, b) : NAN; return 0;
	case N_LT: *v = k ? a < b : NAN; return 0;
	case N_GT: *v = k ? a > b : NAN; return 0;
	case N_ADD: *v = k ? a + b : NAN; return 0;
	case N_SUB: *v = k ? a - b : NAN; return 0;
	case N_MUL: *v = k ? a * b : NAN; return 0;
	case N_DIV:
		if (fpclassify(b) == FP_ZERO)
			return pmu__expr_fail_at(-EDOM, e->text, n->col, "division by zero");
		*v = k ? a / b : NAN;
		return 0;
	case N_MOD:
		if (k || fpclassify(b) == FP_ZERO)
			return mod(e, n, a, b, v);
		*v = NAN;
		return 0;
	case N_DRATIO: *v = fpclassify(b) == FP_ZERO ? 0 : k ? a / b : NAN; return 0;
	case N_MIN: *v = fold ? NAN : a < b ? a : b; return 0;
	case N_MAX: *v = fold ? NAN : a > b ? a : b; return 0;
	case N_IF:
		if (!fold)
			*v = fpclassify(b) == FP_ZERO ? c : a;
		else
			*v = fpclassify(b) == FP_ZERO ? c : isfinite(b) ? a : a == c ? a : NAN;
		return 0;
	default: *v = NAN; return 0;	/* leaves: their callers' */
	}
}

/* Node i's value into v[i], from its children's before it (fold: see apply(); ids are then unknown). */
static int node_value(struct chain *ch, const struct pmu__expr *e, unsigned i, double *v, bool fold)
{
	const struct node *n = &e->nodes[i];
	/* a leaf's a is no child */
	double a = n->op >= N_NEG ? v[n->a] : 0, b = n->op >= N_NEG ? v[n->b] : 0;

	if (n->op == N_NUM) {
		v[i] = n->num;
		return 0;
	}
	if (n->op == N_LIT)
		return eval_lit(ch, e, n, &v[i]);
	if (!fold && (n->op == N_ID || n->op == N_SRC))
		return eval_id(ch, e, n, &v[i]);
	return apply(e, n, a, b, n->op == N_IF ? v[n->c] : 0, fold, &v[i]);
}

/* Every node in order, as bison reduces them: the first failure, left to right, is the one told. */
static int eval(struct chain *ch, const struct pmu__expr *e, double *out)
{
	double small[64], *v = e->nnodes <= PMU_ARRAY_SIZE(small) ? small : malloc(e->nnodes * sizeof(*v));
	int rc = 0;

	if (!v)
		return pmu__err(-ENOMEM, "expression: no memory to evaluate");
	for (unsigned i = 0; i < e->nnodes && !rc; i++)
		rc = node_value(ch, e, i, v, false);
	if (!rc)
		*out = v[e->nnodes - 1];
	if (v != small)
		free(v);
	return rc;
}

int pmu__expr_eval(const struct pmu__expr *e, const struct pmu__expr_env *env, double *out)
{
	struct chain ch = { .env = env ? env : &no_env, .tree = { e }, .n = 1 };

	return eval(&ch, e, out);
}

/* ---- the events needed: expr.y with compute_ids, NaN the value of "any" ---- */

struct needs {
	const char **ids;
	unsigned n, cap;
};

static int need(struct needs *nd, const char *id)
{
	for (unsigned i = 0; i < nd->n; i++)
		if (!strcmp(nd->ids[i], id))
			return 0;
	if (nd->n == nd->cap) {
		unsigned cap = nd->cap ? 2 * nd->cap : 16;
		const char **ids = realloc(nd->ids, cap * sizeof(*ids));

		if (!ids)
			return pmu__err(-ENOMEM, "expression: no memory for its events");
		nd->ids = ids;
		nd->cap = cap;
	}
	nd->ids[nd->n++] = id;
	return 0;
}

static int find(struct chain *ch, const struct pmu__expr *e, struct needs *nd);

/* Which nodes the root needs, from the root down (children come before parents), given the values v. */
static void mark_used(const struct pmu__expr *e, const double *v, char *use)
{
	memset(use, 0, e->nnodes);
	use[e->nnodes - 1] = 1;
	for (unsigned i = e->nnodes; i-- > 0;) {
		const struct node *n = &e->nodes[i];
		/* a leaf's a is no child */
		double a = n->op >= N_NEG ? v[n->a] : 0, b = n->op >= N_NEG ? v[n->b] : 0;
		bool k = isfinite(a) && isfinite(b);

		if (!use[i])
			continue;
		switch (n->op) {
		case N_NUM:
		case N_LIT:
		case N_ID:
		case N_SRC:
			break;
		case N_NEG:
			use[n->a] = 1;
			break;
		case N_DRATIO:
			if (fpclassify(b) != FP_ZERO && !k)
				use[n->a] = use[n->b] = 1;
			break;
		case N_MIN:
		case N_MAX:
			use[n->a] = use[n->b] = 1;
			break;
		case N_IF:
			if (fpclassify(b) == FP_ZERO)
				use[n->c] = 1;
			else if (isfinite(b))
				use[n->a] = 1;
			else if (a != v[n->c])
				use[n->a] = use[n->b] = use[n->c] = 1;
			break;
		default:
			if (!k)
				use[n->a] = use[n->b] = 1;
		}
	}
}

/*
 * The values first (a constant, or NaN where events decide), then which
 * nodes the root needs, from the root down: children come before parents.
 */
static int find_in(struct chain *ch, const struct pmu__expr *e, struct needs *nd, double *v, char *use)
{
	int rc = 0;

	for (unsigned i = 0; i < e->nnodes && !rc; i++)
		rc = node_value(ch, e, i, v, true);
	if (rc)
		return rc;
	mark_used(e, v, use);
	for (unsigned i = 0; i < e->nnodes && !rc; i++) {
		const struct node *n = &e->nodes[i];
		const char *name;
		const struct pmu__expr *ref;

		if (!use[i] || (n->op != N_ID && n->op != N_SRC))
			continue;
		name = e->ids[n->a];
		if (n->op == N_ID && ch->env->metric && (ref = ch->env->metric(ch->env->ctx, name))) {
			if ((rc = check_ref(ch, ref, name)))
				break;
			ch->tree[ch->n] = ref;
			ch->name[ch->n++] = name;
			rc = find(ch, ref, nd);
			ch->n--;
			if (rc)
				said_where(rc, e, n, name);
		} else {
			rc = need(nd, name);
		}
	}
	return rc;
}

static int find(struct chain *ch, const struct pmu__expr *e, struct needs *nd)
{
	double *v = malloc(e->nnodes * (sizeof(*v) + 1));
	int rc;

	if (!v)
		return pmu__err(-ENOMEM, "expression: no memory to list its events");
	rc = find_in(ch, e, nd, v, (char *)(v + e->nnodes));
	free(v);
	return rc;
}

int pmu__expr_events(const struct pmu__expr *e, const struct pmu__expr_env *env,
		     const char ***ids, unsigned *n)
{
	struct chain ch = { .env = env ? env : &no_env, .tree = { e }, .n = 1 };
	struct needs nd = { 0 };
	int rc = find(&ch, e, &nd);

	if (rc) {
		free(nd.ids);
		*ids = NULL;
		*n = 0;
		return rc;
	}
	*ids = nd.ids;
	*n = nd.n;
	return 0;
}
