/* SPDX-License-Identifier: MIT */
/*
 * What expr.c (the tree and the parser), expr_scan.c (the scanner and the
 * messages) and expr_eval.c (evaluation, the events needed) share; the
 * interface is expr.h.
 */
#ifndef PMU_EXPR_INT_H
#define PMU_EXPR_INT_H

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parse/expr.h"

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

enum tok {
	T_END, T_OP, T_NUM, T_LIT, T_ID,
	T_DRATIO, T_MAX, T_MIN, T_IF, T_ELSE, T_SRC,	/* expr.l's order */
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

/* expr_scan.c */
/* The expression as a message shows it: at most 60 bytes, control bytes as '?'. */
void pmu__expr_shown(const char *s, char *buf, size_t size);
/* -err with the message "expression \"TEXT\": column COL: what" (col 1-based). */
int pmu__expr_fail_at(int err, const char *s, size_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The parser's first failure, at byte pos: -EINVAL with the message "expression \"..\": column N: what". */
int pmu__expr_fail(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The next token into p->tok (the last into p->prev). */
void pmu__expr_next(struct parser *p);

/* What a message calls the current token. */
static inline const char *pmu__expr_tok_desc(const struct parser *p, const struct token *t, char *buf, size_t size)
{
	if (t->t == T_END)
		return "the end of the expression";
	snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), p->s + t->pos);
	return buf;
}

#define TOK(p) pmu__expr_tok_desc(p, &(p)->tok, (char[48]){ 0 }, 48)

static inline bool is_op(const struct parser *p, char c)
{
	return p->tok.t == T_OP && p->tok.c == c;
}

#endif
