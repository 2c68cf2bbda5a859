/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's metric expressions (see expr.h): a recursive-descent parser
 * with expr.y's precedence over the scanner of expr_scan.c, and a tree whose
 * nodes come in post-order, so that evaluation (expr_eval.c) is one loop
 * over them (no recursion however long an a+b+c+... chain is).
 */
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

static const char *const lit_names[PMU_EXPR_NLITS] = {
	[PMU_EXPR_SMT_ON] = "#smt_on",
	[PMU_EXPR_NUM_CPUS] = "#num_cpus",
	[PMU_EXPR_NUM_CORES] = "#num_cores",
	[PMU_EXPR_NUM_DIES] = "#num_dies",
	[PMU_EXPR_NUM_PACKAGES] = "#num_packages",
	[PMU_EXPR_CORE_WIDE] = "#core_wide",
	[PMU_EXPR_SYSTEM_TSC_FREQ] = "#system_tsc_freq",
	[PMU_EXPR_SLOTS] = "#slots",
};

const char *pmu__expr_lit_name(enum pmu__expr_lit lit)
{
	return (unsigned)lit < PMU_EXPR_NLITS ? lit_names[lit] : "#?";
}

/* ---- the tree ---- */

static int add_node(struct parser *p, enum op op, uint32_t a, uint32_t b, uint32_t c, size_t pos)
{
	struct pmu__expr *e = p->e;

	if (e->nnodes == p->cap_nodes) {
		unsigned cap = p->cap_nodes ? 2 * p->cap_nodes : 16;
		struct node *n = realloc(e->nodes, cap * sizeof(*n));

		if (!n) {
			p->err = pmu__err(-ENOMEM, "expression: no memory for its tree");
			return -1;
		}
		e->nodes = n;
		p->cap_nodes = cap;
	}
	e->nodes[e->nnodes] = (struct node){ .op = op, .a = a, .b = b, .c = c, .col = (uint32_t)pos + 1 };
	return (int)e->nnodes++;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int hash_grow(struct parser *p)
{
	unsigned size = p->hash_size ? 2 * p->hash_size : 64;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -1;
	for (unsigned i = 0; i < p->e->nids; i++) {
		uint32_t k = hash_str(p->e->ids[i]) & (size - 1);

		while (h[k])
			k = (k + 1) & (size - 1);
		h[k] = i + 1;
	}
	free(p->hash);
	p->hash = h;
	p->hash_size = size;
	return 0;
}

/* The index of the id a token spells, added if new: escapes undone, '?' the runtime parameter. */
static int add_id(struct parser *p, const struct token *t)
{
	struct pmu__expr *e = p->e;
	size_t n = 0, extra = 0;
	char *name, rt[16];
	uint32_t k;

	snprintf(rt, sizeof(rt), "%d", p->runtime);
	for (size_t i = 0; i < t->len; i++)
		if (p->s[t->pos + i] == '?')
			extra += strlen(rt);
	name = malloc(t->len + extra + 1);
	if (!name)
		goto nomem;
	for (size_t i = 0; i < t->len; i++) {
		char c = p->s[t->pos + i];

		if (c == '\\')
			c = p->s[t->pos + ++i];
		if (c == '?') {
			memcpy(name + n, rt, strlen(rt));
			n += strlen(rt);
		} else {
			name[n++] = c;
		}
	}
	name[n] = '\0';
	if (2 * (e->nids + 1) > p->hash_size && hash_grow(p))
		goto nomem_name;
	for (k = hash_str(name) & (p->hash_size - 1); p->hash[k]; k = (k + 1) & (p->hash_size - 1))
		if (!strcmp(e->ids[p->hash[k] - 1], name)) {
			free(name);
			return (int)p->hash[k] - 1;
		}
	if (e->nids == p->cap_ids) {
		unsigned cap = p->cap_ids ? 2 * p->cap_ids : 8;
		char **ids = realloc(e->ids, cap * sizeof(*ids));

		if (!ids)
			goto nomem_name;
		e->ids = ids;
		p->cap_ids = cap;
	}
	e->ids[e->nids] = name;
	p->hash[k] = e->nids + 1;
	return (int)e->nids++;
nomem_name:
	free(name);
nomem:
	p->err = pmu__err(-ENOMEM, "expression: no memory for its names");
	return -1;
}

/* ---- the parser: expr.y's grammar ---- */

static int if_expr(struct parser *p);
static int expr(struct parser *p, int min_prec);

/* Nesting that recurses, bounded so that no input exhausts the stack. */
static bool enter(struct parser *p)
{
	if (++p->depth > PMU_EXPR_MAX_DEPTH) {
		pmu__expr_fail(p, p->tok.pos, "nested deeper than %d", PMU_EXPR_MAX_DEPTH);
		return false;
	}
	return true;
}

static int leaf(struct parser *p)
{
	struct token t = p->tok;
	int i, id;

	switch (t.t) {
	case T_NUM: {
		char buf[64], *text = t.len < sizeof(buf) ? buf : malloc(t.len + 1);
		double v;

		if (!text) {
			p->err = pmu__err(-ENOMEM, "expression: no memory");
			return -1;
		}
		memcpy(text, p->s + t.pos, t.len);
		text[t.len] = '\0';
		errno = 0;
		v = strtod_l(text, NULL, p->c_locale);
		if (text != buf)
			free(text);
		/* perf refuses what strtod says is out of range (overflow or underflow) */
		if (errno)
			return pmu__expr_fail(p, t.pos, "number '%.*s' out of range", (int)(t.len > 40 ? 40 : t.len),
				    p->s + t.pos), -1;
		if ((i = add_node(p, N_NUM, 0, 0, 0, t.pos)) < 0)
			return -1;
		p->e->nodes[i].num = v;
		pmu__expr_next(p);
		return i;
	}
	case T_LIT:
		for (unsigned k = 0; k < PMU_EXPR_NLITS; k++) {
			const char *name = lit_names[k];
			/* perf 6.1 compares these two with strcasecmp (its JSON spells #SMT_on) */
			bool any_case = k == PMU_EXPR_SMT_ON || k == PMU_EXPR_SYSTEM_TSC_FREQ;

			if (strlen(name) == t.len &&
			    !(any_case ? strncasecmp : strncmp)(p->s + t.pos, name, t.len)) {
				if ((i = add_node(p, N_LIT, k, 0, 0, t.pos)) < 0)
					return -1;
				pmu__expr_next(p);
				return i;
			}
		}
		return pmu__expr_fail(p, t.pos, "unknown literal '%.*s'", (int)(t.len > 40 ? 40 : t.len), p->s + t.pos), -1;
	case T_ID:
		if ((id = add_id(p, &t)) < 0 || (i = add_node(p, N_ID, (uint32_t)id, 0, 0, t.pos)) < 0)
			return -1;
		pmu__expr_next(p);
		return i;
	default:
		if (t.t == T_END && p->prev.len)
			return pmu__expr_fail(p, t.pos, "an operand is missing after %s",
				    pmu__expr_tok_desc(p, &p->prev, (char[48]){ 0 }, 48)), -1;
		if (t.t == T_END)
			return pmu__expr_fail(p, t.pos, "empty expression"), -1;
		if (t.t == T_ELSE)
			return pmu__expr_fail(p, t.pos, "'else' without 'if'"), -1;
		if (t.t == T_IF)
			return pmu__expr_fail(p, t.pos, "'if' without a value before it"), -1;
		if (is_op(p, '+'))
			return pmu__expr_fail(p, t.pos, "unary '+' is not in the language"), -1;
		return pmu__expr_fail(p, t.pos, "expected an operand, found %s", TOK(p)), -1;
	}
}

/* min(a, b), max(a, b), d_ratio(a, b): arguments without a bare 'if', as expr.y has them. */
static int call(struct parser *p, enum op op)
{
	struct token name = p->tok;
	int a, b;

	pmu__expr_next(p);
	if (!is_op(p, '('))
		return pmu__expr_fail(p, p->tok.pos, "expected '(' after '%.*s'", (int)name.len, p->s + name.pos), -1;
	pmu__expr_next(p);
	if ((a = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return pmu__expr_fail(p, p->tok.pos, "an 'if' in an argument of %.*s() needs parentheses",
			    (int)name.len, p->s + name.pos), -1;
	if (!is_op(p, ','))
		return pmu__expr_fail(p, p->tok.pos, "expected ',' between the two arguments of %.*s(), found %s",
			    (int)name.len, p->s + name.pos, TOK(p)), -1;
	pmu__expr_next(p);
	if ((b = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return pmu__expr_fail(p, p->tok.pos, "an 'if' in an argument of %.*s() needs parentheses",
			    (int)name.len, p->s + name.pos), -1;
	if (is_op(p, ','))
		return pmu__expr_fail(p, p->tok.pos, "%.*s() takes two arguments", (int)name.len, p->s + name.pos), -1;
	if (!is_op(p, ')'))
		return pmu__expr_fail(p, p->tok.pos, "expected ')' to end the %.*s() of column %zu, found %s",
			    (int)name.len, p->s + name.pos, name.pos + 1, TOK(p)), -1;
	pmu__expr_next(p);
	return add_node(p, op, (uint32_t)a, (uint32_t)b, 0, name.pos);
}

static int primary(struct parser *p)
{
	struct token t = p->tok;
	int i, id;

	if (is_op(p, '-')) {
		if (!enter(p))
			return -1;
		pmu__expr_next(p);
		if ((i = primary(p)) < 0)
			return -1;
		p->depth--;
		return add_node(p, N_NEG, (uint32_t)i, 0, 0, t.pos);
	}
	if (is_op(p, '(')) {
		if (!enter(p))
			return -1;
		pmu__expr_next(p);
		if ((i = if_expr(p)) < 0)
			return -1;
		if (!is_op(p, ')'))
			return pmu__expr_fail(p, p->tok.pos, "expected ')' to close the '(' of column %zu, found %s",
				    t.pos + 1, TOK(p)), -1;
		pmu__expr_next(p);
		p->depth--;
		return i;
	}
	switch (t.t) {
	case T_MIN:
	case T_MAX:
	case T_DRATIO:
		if (!enter(p))
			return -1;
		i = call(p, t.t == T_MIN ? N_MIN : t.t == T_MAX ? N_MAX : N_DRATIO);
		p->depth--;
		return i;
	case T_SRC:
		pmu__expr_next(p);
		if (!is_op(p, '('))
			return pmu__expr_fail(p, p->tok.pos, "expected '(' after 'source_count'"), -1;
		pmu__expr_next(p);
		if (p->tok.t != T_ID)
			return pmu__expr_fail(p, p->tok.pos, "source_count() takes an event name, found %s", TOK(p)), -1;
		if ((id = add_id(p, &p->tok)) < 0 || (i = add_node(p, N_SRC, (uint32_t)id, 0, 0, t.pos)) < 0)
			return -1;
		pmu__expr_next(p);
		if (!is_op(p, ')'))
			return pmu__expr_fail(p, p->tok.pos, "expected ')' to end source_count() of column %zu, found %s",
				    t.pos + 1, TOK(p)), -1;
		pmu__expr_next(p);
		return i;
	default:
		return leaf(p);
	}
}

/* Binding of a binary operator (expr.y's %left lines), 0: none. */
static int prec(const struct parser *p, enum op *op)
{
	static const struct {
		char c;
		int prec;
		enum op op;
	} ops[] = {
		{ '|', 1, N_OR }, { '^', 2, N_XOR }, { '&', 3, N_AND }, { '<', 4, N_LT }, { '>', 4, N_GT },
		{ '+', 5, N_ADD }, { '-', 5, N_SUB }, { '*', 6, N_MUL }, { '/', 6, N_DIV }, { '%', 6, N_MOD },
	};

	if (p->tok.t != T_OP)
		return 0;
	for (size_t k = 0; k < PMU_ARRAY_SIZE(ops); k++)
		if (ops[k].c == p->tok.c) {
			*op = ops[k].op;
			return ops[k].prec;
		}
	return 0;
}

/* Precedence climbing: left-associative operators loop, only a tighter one recurses. */
static int expr(struct parser *p, int min_prec)
{
	int left, right, pr;
	enum op op;

	if ((left = primary(p)) < 0)
		return -1;
	while ((pr = prec(p, &op)) && pr >= min_prec) {
		size_t at = p->tok.pos;

		pmu__expr_next(p);
		if ((right = expr(p, pr + 1)) < 0)
			return -1;
		if ((left = add_node(p, op, (uint32_t)left, (uint32_t)right, 0, at)) < 0)
			return -1;
	}
	return left;
}

/* if_expr: expr 'if' expr 'else' if_expr | expr */
static int if_expr(struct parser *p)
{
	int a, c, b;
	size_t at;

	if ((a = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t != T_IF)
		return a;
	at = p->tok.pos;
	if (!enter(p))
		return -1;
	pmu__expr_next(p);
	if ((c = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return pmu__expr_fail(p, p->tok.pos, "an 'if' in the condition of the 'if' of column %zu needs parentheses",
			    at + 1), -1;
	if (p->tok.t != T_ELSE)
		return pmu__expr_fail(p, p->tok.pos, "expected 'else' for the 'if' of column %zu, found %s", at + 1, TOK(p)), -1;
	pmu__expr_next(p);
	if ((b = if_expr(p)) < 0)
		return -1;
	p->depth--;
	return add_node(p, N_IF, (uint32_t)a, (uint32_t)c, (uint32_t)b, at);
}

void pmu__expr_free(struct pmu__expr *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->nids; i++)
		free(e->ids[i]);
	free(e->ids);
	free(e->nodes);
	free(e->text);
	free(e);
}

int pmu__expr_parse_rt(const char *s, int runtime, struct pmu__expr **out)
{
	struct parser p = { .s = s, .runtime = runtime };
	int root;

	*out = NULL;
	if (!s)
		return pmu__err(-EINVAL, "expression: none given");
	p.len = strnlen(s, PMU_EXPR_MAX_LEN + 1);
	if (p.len > PMU_EXPR_MAX_LEN)
		return pmu__expr_fail_at(-E2BIG, s, 1, "longer than %d bytes", PMU_EXPR_MAX_LEN);
	p.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	p.e = calloc(1, sizeof(*p.e));
	if (!p.c_locale || !p.e || !(p.e->text = strdup(s))) {
		p.err = pmu__err(-ENOMEM, "expression: no memory");
		goto out;
	}
	pmu__expr_next(&p);
	if (p.err)
		goto out;
	if (p.tok.t == T_END) {
		pmu__expr_fail(&p, p.tok.pos, "empty expression");
		goto out;
	}
	root = if_expr(&p);
	if (root >= 0 && p.tok.t != T_END) {
		if (is_op(&p, ')'))
			pmu__expr_fail(&p, p.tok.pos, "')' without '('");
		else if (p.tok.t == T_ELSE)
			pmu__expr_fail(&p, p.tok.pos, "'else' without 'if'");
		else if (is_op(&p, ','))
			pmu__expr_fail(&p, p.tok.pos, "',' outside min(), max() or d_ratio()");
		else
			pmu__expr_fail(&p, p.tok.pos, "expected an operator, found %s", TOK(&p));
	}
out:
	if (p.c_locale)
		freelocale(p.c_locale);
	free(p.hash);
	if (p.err) {
		pmu__expr_free(p.e);
		return p.err;
	}
	*out = p.e;
	return 0;
}

int pmu__expr_parse(const char *s, struct pmu__expr **out)
{
	return pmu__expr_parse_rt(s, 0, out);
}

const char *pmu__expr_text(const struct pmu__expr *e)
{
	return e->text;
}

unsigned pmu__expr_nids(const struct pmu__expr *e)
{
	return e->nids;
}

const char *pmu__expr_id(const struct pmu__expr *e, unsigned i)
{
	return i < e->nids ? e->ids[i] : NULL;
}
