/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's metric expressions (see expr.h): a scanner with flex's rule of
 * the longest match, a recursive-descent parser with expr.y's precedence, and
 * a tree whose nodes come in post-order, so that evaluation is one loop over
 * them (no recursion however long an a+b+c+... chain is).
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

#include "internal.h"
#include "expr.h"

enum op {
	N_NUM, N_LIT, N_ID, N_SRC,	/* leaves */
	N_NEG,
	N_OR, N_XOR, N_AND, N_LT, N_GT, N_ADD, N_SUB, N_MUL, N_DIV, N_MOD,
	N_DRATIO, N_MIN, N_MAX,
	N_IF,				/* a if b else c */
};

struct node {
	uint8_t op;
	uint32_t a, b, c;	/* children (earlier nodes); a: the id's index or the literal */
	uint32_t col;		/* 1-based column of the token, for messages */
	double num;
};

struct pmu__expr {
	char *text;
	struct node *nodes;	/* the root last */
	unsigned nnodes;
	char **ids;
	unsigned nids;
};

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

/* ---- messages ---- */

/* The expression as a message shows it: at most 60 bytes, control bytes as '?'. */
static void shown(const char *s, char *buf, size_t size)
{
	size_t n = 0, max = size - 4;

	for (; s[n] && n < max; n++)
		buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
	if (s[n])
		memcpy(buf + n, "...", 3), n += 3;
	buf[n] = '\0';
}

static int __attribute__((format(printf, 4, 5)))
fail_at(int err, const char *s, size_t col, const char *fmt, ...)
{
	char what[256], text[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	shown(s, text, sizeof(text));
	return pmu__err(err, "expression \"%s\": column %zu: %s", text, col, what);
}

/* ---- the scanner: expr.l's rules, the longest match first, ties to the earlier rule ---- */

enum tok {
	T_END, T_OP, T_NUM, T_LIT, T_ID,
	T_DRATIO, T_MAX, T_MIN, T_IF, T_ELSE, T_SRC,	/* expr.l's order */
};

static const struct {
	const char *s;
	enum tok t;
} keywords[] = {
	{ "d_ratio", T_DRATIO }, { "max", T_MAX }, { "min", T_MIN },
	{ "if", T_IF }, { "else", T_ELSE }, { "source_count", T_SRC },
};

struct token {
	enum tok t;
	char c;			/* T_OP */
	size_t pos, len;
};

struct parser {
	const char *s;
	size_t len;
	int runtime;
	size_t pos;		/* the scanner's */
	struct token tok, prev;
	unsigned depth;
	int err;
	locale_t c_locale;
	struct pmu__expr *e;
	unsigned cap_nodes, cap_ids;
	uint32_t *hash;		/* ids' indexes + 1, open addressing */
	unsigned hash_size;
};

/* ASCII, whatever the program's locale */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool sym_char(char c)
{
	return is_alnum(c) || (c && strchr("_.:@?", c));
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* number: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t match_number(const char *s)
{
	size_t i = 0, d1, d2 = 0;
	bool dot = false;

	while (is_digit(s[i]))
		i++;
	d1 = i;
	if (s[i] == '.') {
		dot = true;
		i++;
		while (is_digit(s[i]))
			i++, d2++;
	}
	if (!d1 && !d2)
		return 0;
	if (!d1 && !dot)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1;

		if (s[j] == '-')
			j++;
		if (is_digit(s[j])) {
			while (is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* symbol: (\\[-,=]|[0-9a-zA-Z_.:@?]+)+ */
static size_t match_symbol(const char *s)
{
	size_t i = 0;

	for (;;) {
		if (s[i] && sym_char(s[i]))
			i++;
		else if (s[i] == '\\' && s[i + 1] && strchr("-,=", s[i + 1]))
			i += 2;
		else
			return i;
	}
}

/* literal: #[0-9a-zA-Z_.\-]+ */
static size_t match_literal(const char *s)
{
	size_t i = 1;

	if (s[0] != '#')
		return 0;
	while (s[i] && (is_alnum(s[i]) || strchr("_.-", s[i])))
		i++;
	return i > 1 ? i : 0;
}

static int fail(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (p->err)
		return p->err;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->err = fail_at(-EINVAL, p->s, pos + 1, "%s", what);
	return p->err;
}

static void next(struct parser *p)
{
	const char *s = p->s;
	size_t at, best = 0, n;
	enum tok t = T_END;

	p->prev = p->tok;
	while (p->pos < p->len && is_space(s[p->pos]))
		p->pos++;
	at = p->pos;
	p->tok = (struct token){ .t = T_END, .pos = at };
	if (at >= p->len)
		return;
	if (strchr("|^&<>-+*/%(),", s[at])) {
		p->tok.t = T_OP;
		p->tok.c = s[at];
		p->tok.len = 1;
		p->pos++;
		return;
	}
	/* each rule's match, in expr.l's order: a later rule wins only by being longer */
	for (size_t k = 0; k < PMU_ARRAY_SIZE(keywords); k++) {
		n = strlen(keywords[k].s);
		if (!strncmp(s + at, keywords[k].s, n) && n > best)
			best = n, t = keywords[k].t;
	}
	if ((n = match_literal(s + at)) > best)
		best = n, t = T_LIT;
	if ((n = match_number(s + at)) > best)
		best = n, t = T_NUM;
	if ((n = match_symbol(s + at)) > best)
		best = n, t = T_ID;
	if (!best) {
		unsigned char c = (unsigned char)s[at];

		if (c == '\\')
			fail(p, at, "'\\' escapes only '-', ',' and '=' in a name");
		else if (c == '#')
			fail(p, at, "'#' without a literal's name");
		else if (c > 0x20 && c < 0x7f)
			fail(p, at, "unexpected character '%c'", c);
		else
			fail(p, at, "unexpected byte 0x%02x", c);
		p->tok.t = T_END;
		return;
	}
	p->tok.t = t;
	p->tok.len = best;
	p->pos = at + best;
}

/* What a message calls the current token. */
static const char *tok_desc(const struct parser *p, const struct token *t, char *buf, size_t size)
{
	if (t->t == T_END)
		return "the end of the expression";
	snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), p->s + t->pos);
	return buf;
}

#define TOK(p) tok_desc(p, &(p)->tok, (char[48]){ 0 }, 48)

static bool is_op(const struct parser *p, char c)
{
	return p->tok.t == T_OP && p->tok.c == c;
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
		fail(p, p->tok.pos, "nested deeper than %d", PMU_EXPR_MAX_DEPTH);
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
			return fail(p, t.pos, "number '%.*s' out of range", (int)(t.len > 40 ? 40 : t.len),
				    p->s + t.pos), -1;
		if ((i = add_node(p, N_NUM, 0, 0, 0, t.pos)) < 0)
			return -1;
		p->e->nodes[i].num = v;
		next(p);
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
				next(p);
				return i;
			}
		}
		return fail(p, t.pos, "unknown literal '%.*s'", (int)(t.len > 40 ? 40 : t.len), p->s + t.pos), -1;
	case T_ID:
		if ((id = add_id(p, &t)) < 0 || (i = add_node(p, N_ID, (uint32_t)id, 0, 0, t.pos)) < 0)
			return -1;
		next(p);
		return i;
	default:
		if (t.t == T_END && p->prev.len)
			return fail(p, t.pos, "an operand is missing after %s",
				    tok_desc(p, &p->prev, (char[48]){ 0 }, 48)), -1;
		if (t.t == T_END)
			return fail(p, t.pos, "empty expression"), -1;
		if (t.t == T_ELSE)
			return fail(p, t.pos, "'else' without 'if'"), -1;
		if (t.t == T_IF)
			return fail(p, t.pos, "'if' without a value before it"), -1;
		if (is_op(p, '+'))
			return fail(p, t.pos, "unary '+' is not in the language"), -1;
		return fail(p, t.pos, "expected an operand, found %s", TOK(p)), -1;
	}
}

/* min(a, b), max(a, b), d_ratio(a, b): arguments without a bare 'if', as expr.y has them. */
static int call(struct parser *p, enum op op)
{
	struct token name = p->tok;
	int a, b;

	next(p);
	if (!is_op(p, '('))
		return fail(p, p->tok.pos, "expected '(' after '%.*s'", (int)name.len, p->s + name.pos), -1;
	next(p);
	if ((a = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return fail(p, p->tok.pos, "an 'if' in an argument of %.*s() needs parentheses",
			    (int)name.len, p->s + name.pos), -1;
	if (!is_op(p, ','))
		return fail(p, p->tok.pos, "expected ',' between the two arguments of %.*s(), found %s",
			    (int)name.len, p->s + name.pos, TOK(p)), -1;
	next(p);
	if ((b = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return fail(p, p->tok.pos, "an 'if' in an argument of %.*s() needs parentheses",
			    (int)name.len, p->s + name.pos), -1;
	if (is_op(p, ','))
		return fail(p, p->tok.pos, "%.*s() takes two arguments", (int)name.len, p->s + name.pos), -1;
	if (!is_op(p, ')'))
		return fail(p, p->tok.pos, "expected ')' to end the %.*s() of column %zu, found %s",
			    (int)name.len, p->s + name.pos, name.pos + 1, TOK(p)), -1;
	next(p);
	return add_node(p, op, (uint32_t)a, (uint32_t)b, 0, name.pos);
}

static int primary(struct parser *p)
{
	struct token t = p->tok;
	int i, id;

	if (is_op(p, '-')) {
		if (!enter(p))
			return -1;
		next(p);
		if ((i = primary(p)) < 0)
			return -1;
		p->depth--;
		return add_node(p, N_NEG, (uint32_t)i, 0, 0, t.pos);
	}
	if (is_op(p, '(')) {
		if (!enter(p))
			return -1;
		next(p);
		if ((i = if_expr(p)) < 0)
			return -1;
		if (!is_op(p, ')'))
			return fail(p, p->tok.pos, "expected ')' to close the '(' of column %zu, found %s",
				    t.pos + 1, TOK(p)), -1;
		next(p);
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
		next(p);
		if (!is_op(p, '('))
			return fail(p, p->tok.pos, "expected '(' after 'source_count'"), -1;
		next(p);
		if (p->tok.t != T_ID)
			return fail(p, p->tok.pos, "source_count() takes an event name, found %s", TOK(p)), -1;
		if ((id = add_id(p, &p->tok)) < 0 || (i = add_node(p, N_SRC, (uint32_t)id, 0, 0, t.pos)) < 0)
			return -1;
		next(p);
		if (!is_op(p, ')'))
			return fail(p, p->tok.pos, "expected ')' to end source_count() of column %zu, found %s",
				    t.pos + 1, TOK(p)), -1;
		next(p);
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

		next(p);
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
	next(p);
	if ((c = expr(p, 0)) < 0)
		return -1;
	if (p->tok.t == T_IF)
		return fail(p, p->tok.pos, "an 'if' in the condition of the 'if' of column %zu needs parentheses",
			    at + 1), -1;
	if (p->tok.t != T_ELSE)
		return fail(p, p->tok.pos, "expected 'else' for the 'if' of column %zu, found %s", at + 1, TOK(p)), -1;
	next(p);
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
		return fail_at(-E2BIG, s, 1, "longer than %d bytes", PMU_EXPR_MAX_LEN);
	p.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	p.e = calloc(1, sizeof(*p.e));
	if (!p.c_locale || !p.e || !(p.e->text = strdup(s))) {
		p.err = pmu__err(-ENOMEM, "expression: no memory");
		goto out;
	}
	next(&p);
	if (p.err)
		goto out;
	if (p.tok.t == T_END) {
		fail(&p, p.tok.pos, "empty expression");
		goto out;
	}
	root = if_expr(&p);
	if (root >= 0 && p.tok.t != T_END) {
		if (is_op(&p, ')'))
			fail(&p, p.tok.pos, "')' without '('");
		else if (p.tok.t == T_ELSE)
			fail(&p, p.tok.pos, "'else' without 'if'");
		else if (is_op(&p, ','))
			fail(&p, p.tok.pos, "',' outside min(), max() or d_ratio()");
		else
			fail(&p, p.tok.pos, "expected an operator, found %s", TOK(&p));
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
	shown(ch->tree[0]->text, text, sizeof(text));
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
	shown(e->text, text, sizeof(text));
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
		return fail_at(-EINVAL, e->text, n->col, "%s has no value here", lit_names[n->a]);
	rc = env->literal(env->ctx, n->a, v);
	if (rc)
		return said_where(rc > 0 ? -EINVAL : rc, e, n, NULL);
	/* perf refuses an expression whose literal is NaN */
	if (isnan(*v))
		return fail_at(-EINVAL, e->text, n->col, "%s is not a number", lit_names[n->a]);
	return 0;
}

/* l % r as perf computes it on longs, with the cases C leaves undefined refused or defined. */
static int mod(const struct pmu__expr *e, const struct node *n, double l, double r, double *v)
{
	long a, b;

	if (fpclassify(r) == FP_ZERO)
		return fail_at(-EDOM, e->text, n->col, "'%%' by zero");
	a = to_long(l);
	b = to_long(r);
	if (!b)
		return fail_at(-EDOM, e->text, n->col, "'%%' by %g, which is 0 as an integer", r);
	*v = b == -1 ? 0 : (double)(a % b);
	return 0;
}

static double bits(enum op op, double l, double r)
{
	long a = to_long(l), b = to_long(r);

	return (double)(op == N_OR ? a | b : op == N_AND ? a & b : a ^ b);
}

/* Every node in order, as bison reduces them: the first failure, left to right, is the one told. */
static int eval(struct chain *ch, const struct pmu__expr *e, double *out)
{
	double small[64], *v = e->nnodes <= PMU_ARRAY_SIZE(small) ? small : malloc(e->nnodes * sizeof(*v));
	int rc = 0;

	if (!v)
		return pmu__err(-ENOMEM, "expression: no memory to evaluate");
	for (unsigned i = 0; i < e->nnodes && !rc; i++) {
		const struct node *n = &e->nodes[i];
		/* a leaf's a is no child */
		double a = n->op >= N_NEG ? v[n->a] : 0, b = n->op >= N_NEG ? v[n->b] : 0;

		switch (n->op) {
		case N_NUM: v[i] = n->num; break;
		case N_LIT: rc = eval_lit(ch, e, n, &v[i]); break;
		case N_ID:
		case N_SRC: rc = eval_id(ch, e, n, &v[i]); break;
		case N_NEG: v[i] = -a; break;
		case N_OR:
		case N_XOR:
		case N_AND: v[i] = bits(n->op, a, b); break;
		case N_LT: v[i] = a < b; break;
		case N_GT: v[i] = a > b; break;
		case N_ADD: v[i] = a + b; break;
		case N_SUB: v[i] = a - b; break;
		case N_MUL: v[i] = a * b; break;
		case N_DIV:
			if (fpclassify(b) == FP_ZERO)
				rc = fail_at(-EDOM, e->text, n->col, "division by zero");
			else
				v[i] = a / b;
			break;
		case N_MOD: rc = mod(e, n, a, b, &v[i]); break;
		case N_DRATIO: v[i] = fpclassify(b) == FP_ZERO ? 0 : a / b; break;
		case N_MIN: v[i] = a < b ? a : b; break;
		case N_MAX: v[i] = a > b ? a : b; break;
		case N_IF: v[i] = fpclassify(b) == FP_ZERO ? v[n->c] : a; break;
		}
	}
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

/*
 * The values first (a constant, or NaN where events decide), then which
 * nodes the root needs, from the root down: children come before parents.
 */
static int find_in(struct chain *ch, const struct pmu__expr *e, struct needs *nd, double *v, char *use)
{
	int rc = 0;

	for (unsigned i = 0; i < e->nnodes && !rc; i++) {
		const struct node *n = &e->nodes[i];
		/* a leaf's a is no child */
		double a = n->op >= N_NEG ? v[n->a] : 0, b = n->op >= N_NEG ? v[n->b] : 0;
		bool k = isfinite(a) && isfinite(b);

		switch (n->op) {
		case N_NUM: v[i] = n->num; break;
		case N_LIT: rc = eval_lit(ch, e, n, &v[i]); break;
		case N_ID:
		case N_SRC: v[i] = NAN; break;
		case N_NEG: v[i] = -a; break;
		case N_OR:
		case N_XOR:
		case N_AND: v[i] = k ? bits(n->op, a, b) : NAN; break;
		case N_LT: v[i] = k ? a < b : NAN; break;
		case N_GT: v[i] = k ? a > b : NAN; break;
		case N_ADD: v[i] = k ? a + b : NAN; break;
		case N_SUB: v[i] = k ? a - b : NAN; break;
		case N_MUL: v[i] = k ? a * b : NAN; break;
		case N_DIV:
			if (fpclassify(b) == FP_ZERO)
				rc = fail_at(-EDOM, e->text, n->col, "division by zero");
			else
				v[i] = k ? a / b : NAN;
			break;
		case N_MOD:
			if (fpclassify(b) == FP_ZERO)
				rc = fail_at(-EDOM, e->text, n->col, "'%%' by zero");
			else if (k)
				rc = mod(e, n, a, b, &v[i]);
			else
				v[i] = NAN;
			break;
		case N_DRATIO: v[i] = fpclassify(b) == FP_ZERO ? 0 : k ? a / b : NAN; break;
		case N_MIN:
		case N_MAX: v[i] = NAN; break;
		case N_IF: {
			double t = a, c = b, f = v[n->c];

			v[i] = fpclassify(c) == FP_ZERO ? f : isfinite(c) ? t : t == f ? t : NAN;
			break;
		}
		}
	}
	if (rc)
		return rc;
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
