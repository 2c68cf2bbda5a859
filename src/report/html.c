/* SPDX-License-Identifier: MIT */
/* The pieces of an HTML report: see html.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/escape.h"
#include "regions/hist.h"
#include "report/html.h"

void pmu__html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	pmu__html_str(f, title);
	fputs("</title>\n<style>\n"
	      "body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }\n"
	      /* a wide table scrolls inside the page, and long names wrap, so that the page fits its window */
	      "table { border-collapse: collapse; margin: 0.5em 0 1.5em; display: block; max-width: 100%; "
	      "overflow-x: auto; }\n"
	      "th, td { padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }\n"
	      "th:first-child, td:first-child { text-align: left; white-space: normal; overflow-wrap: anywhere; "
	      "min-width: 10em; max-width: 32em; }\n"
	      "th { background: #f3f3f3; }\n"
	      ".note { color: #555; }\n"
	      ".bar { fill: #3b6ea8; }\n"
	      "table.heat td { border: 0; padding: 0 8px; }\n"
	      /* the call paths' icicle: a row per depth, each region as wide as its share of the one around it */
	      ".flame, .fk { display: flex; }\n"
	      ".flame { margin: 0.5em 0 1.5em; }\n"
	      ".fl { flex: none; min-width: 0; overflow: hidden; }\n"
	      ".fn { font-size: 12px; padding: 2px 4px; border: 1px solid #fff; white-space: nowrap; overflow: hidden; "
	      "text-overflow: ellipsis; }\n"
	      ".fl:hover > .fn { outline: 1px solid #222; }\n"
	      "</style>\n</head>\n<body>\n", f);
}

void pmu__html_tail(FILE *f)
{
	fputs("</body>\n</html>\n", f);
}

void pmu__html_num(FILE *f, double x)
{
	/* one notation down a column: plain digits, never an exponent for a figure a count or ns can be */
	if (!isfinite(x))
		fputs("-", f);
	else if (fabs(x) >= 1e15)
		fprintf(f, "%.4g", x);
	else if (x == floor(x) || fabs(x) >= 100)
		fprintf(f, "%.0f", x);
	else if (fabs(x) >= 0.01)
		fprintf(f, "%.2f", x);
	else
		fprintf(f, "%.3g", x);
}

void pmu__html_bars(FILE *f, unsigned n, const char *const *labels, const double *v, const char *unit)
{
	double top = 0;

	for (unsigned i = 0; i < n; i++)
		top = isfinite(v[i]) && v[i] > top ? v[i] : top;
	fputs("<table class=\"bars\">\n", f);
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		fputs("<tr><td>", f);
		pmu__html_str(f, labels[i]);
		fprintf(f, "</td><td><svg width=\"400\" height=\"12\"><rect class=\"bar\" width=\"%.1f\" height=\"12\"/>"
			"</svg></td><td>", top > 0 ? 400 * v[i] / top : 0);
		pmu__html_num(f, v[i]);
		fprintf(f, " %s</td></tr>\n", unit);
	}
	fputs("</table>\n", f);
}

#define HIST_W 600
#define HIST_H 90

/* A marker at quantile q's bucket, x from bucket first over span buckets. */
static void hist_mark(FILE *f, const struct pmu__shist *h, double q, const char *name, unsigned first, unsigned span)
{
	double v = pmu__shist_quantile(h, q), x = HIST_W * (double)(pmu__hist_bucket((uint64_t)v) - first + 0.5) / span;

	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\" stroke=\"#c0392b\"/>"
		"<text x=\"%.1f\" y=\"10\" font-size=\"10\">%s</text>", x, x, HIST_H, x + 2, name);
}

void pmu__html_hist(FILE *f, const struct pmu__shist *h, const char *unit)
{
	unsigned first, span;
	uint64_t top = 0;

	if (!h->len)
		return;
	first = h->idx[0];
	span = h->idx[h->len - 1] - first + 1;
	for (unsigned k = 0; k < h->len; k++)
		top = h->cnt[k] > top ? h->cnt[k] : top;
	fprintf(f, "<svg class=\"hist\" width=\"%d\" height=\"%d\">", HIST_W, HIST_H + 14);
	for (unsigned k = 0; k < h->len; k++) {
		double bh = HIST_H * sqrt((double)h->cnt[k] / (double)top);
		unsigned b = h->idx[k];

		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%" PRIu64
			" to %" PRIu64 " %s: %" PRIu64 " calls</title></rect>", HIST_W * (double)(b - first) / span,
			HIST_H - bh, HIST_W / (double)span > 1 ? HIST_W / (double)span : 1.0, bh, pmu__hist_low(b),
			pmu__hist_low(b) + pmu__hist_width(b) - 1, unit, h->cnt[k]);
	}
	hist_mark(f, h, 0.5, "p50", first, span);
	hist_mark(f, h, 0.99, "p99", first, span);
	fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"10\">%" PRIu64 " %s</text><text x=\"%d\" y=\"%d\" "
		"font-size=\"10\" text-anchor=\"end\">%" PRIu64 " %s</text></svg>\n", HIST_H + 12,
		pmu__hist_low(first), unit, HIST_W, HIST_H + 12, pmu__hist_low(h->idx[h->len - 1]), unit);
}

/* A heat row's colour for share x of the row's largest (light to dark blue), grey where absent. */
static const char *heat(double x)
{
	static const char *const c[] = { "#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6",
					 "#4292c6", "#2171b5", "#08519c", "#08306b", "#041f47" };

	return isfinite(x) ? c[x >= 1 ? 9 : x <= 0 ? 0 : (int)(x * 10)] : "#e5e5e5";
}

/* One row: adjacent cells of one colour as one rectangle (a thousand processes stay small). */
static void heat_row(FILE *f, unsigned ncol, const double *v, double top, unsigned cw)
{
	fprintf(f, "<svg width=\"%u\" height=\"14\">", ncol * cw);
	for (unsigned c = 0; c < ncol;) {
		const char *col = heat(top > 0 ? v[c] / top : v[c] * 0);
		unsigned end = c + 1;

		while (end < ncol && heat(top > 0 ? v[end] / top : v[end] * 0) == col)
			end++;
		fprintf(f, "<rect x=\"%u\" width=\"%u\" height=\"14\" fill=\"%s\"/>", c * cw, (end - c) * cw, col);
		c = end;
	}
	fputs("</svg>", f);
}

#define HEAT_COLS 400	/* more columns are drawn in bins: a thousand processes stay a few MB and quick */

/* Row v[0..ncol) in bins of bin columns, each its largest value (NAN: none ran it), into out. */
static void bin_row(const double *v, unsigned ncol, unsigned bin, double *out)
{
	for (unsigned b = 0; b * bin < ncol; b++) {
		out[b] = NAN;
		for (unsigned c = b * bin; c < ncol && c < (b + 1) * bin; c++)
			if (isfinite(v[c]) && !(out[b] >= v[c]))
				out[b] = v[c];
	}
}

void pmu__html_heatmap(FILE *f, const char *what, unsigned nrow, const char *const *rows, unsigned ncol,
		       const char *const *cols, const double *v)
{
	unsigned bin = (ncol + HEAT_COLS - 1) / HEAT_COLS, nb = (ncol + bin - 1) / bin;
	unsigned cw = nb >= 800 ? 1 : 800 / nb > 40 ? 40 : 800 / nb;
	double *binned = bin > 1 ? malloc(nb * sizeof(*binned)) : NULL;

	fprintf(f, "<p class=\"note\">Each region's row: its %s left to right", what);
	if (binned)
		fprintf(f, " in columns of %u (their most)", bin);
	fputs(", darker where more ns were spent (scaled to the row's most); grey where none ran it.</p>\n"
	      "<table class=\"heat\">\n", f);
	for (unsigned r = 0; r < nrow; r++) {
		const double *row = v + (size_t)r * ncol;
		unsigned lo = ncol, hi = ncol;

		for (unsigned c = 0; c < ncol; c++)
			if (isfinite(row[c])) {
				lo = lo == ncol || row[c] < row[lo] ? c : lo;
				hi = hi == ncol || row[c] > row[hi] ? c : hi;
			}
		fputs("<tr><td>", f);
		pmu__html_str(f, rows[r]);
		fputs("</td><td>", f);
		if (binned)
			bin_row(row, ncol, bin, binned);
		heat_row(f, binned ? nb : ncol, binned ? binned : row, hi < ncol ? row[hi] : 0, cw);
		fputs("</td><td>", f);
		if (hi < ncol) {
			fputs("min ", f);
			pmu__html_str(f, cols[lo]);
			fputs(", max ", f);
			pmu__html_str(f, cols[hi]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(binned);
}
