/* SPDX-License-Identifier: MIT */
/*
 * Report file names, for pmu_report_path() and zero-code mode: the format a
 * name asks for, and %p, %h and %r (the MPI rank) expanded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/escape.h"
#include "parse/format.h"
#include "output/report_path.h"

/* A file name's formats, by extension; a name without one is the table. */
static const char *const exts[][2] = {
	{ "csv", "csv" }, { "json", "json" }, { "html", "html" }, { "htm", "html" }, { "prom", "prometheus" }, { "om", "openmetrics" },
	{ "folded", "folded" }, { "txt", "table" }, { "text", "table" }, { "log", "table" }, { "out", "table" },
};

const char *pmu__report_format(const char *path)
{
	const char *base = strrchr(path, '/'), *dot = strrchr(base ? base : path, '.');

	/* no extension: none, a dot file, one of %p's digits or a % expansion's */
	if (!dot || dot == (base ? base + 1 : path) || !dot[1] || strchr(dot, '%') ||
	    strspn(dot + 1, "0123456789") == strlen(dot + 1))
		return "table";
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (!strcasecmp(dot + 1, exts[i][0]))
			return exts[i][1];
	pmu__err(-EINVAL, "the extension %s names no report format (.csv, .json, .html, .prom, .om, .folded, "
		 "or .txt or none for the table)", pmu__show(&(struct pmu__shown){ 0 }, dot, strlen(dot)));
	return NULL;
}

long pmu__mpi_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = pmu__getenv(vars[i]);
		char *end;
		long r;

		if (!v || *v < '0' || *v > '9')
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (!*end && !errno && r <= 999999999)
			return r;
	}
	return -1;
}

/* One expansion of %p (pid), %h (host name, '/' as '_', and . or .. as _ or __), %r (MPI rank, else the pid) or %% into buf at
 * *k; false when it does not fit. Any other % stands for itself. */
static bool expand_one(char *buf, size_t size, size_t *k, char c)
{
	char host[256];
	long rank;
	int n;

	switch (c) {
	case 'p':
		n = snprintf(buf + *k, size - *k, "%d", (int)getpid());
		break;
	case 'r':
		rank = pmu__mpi_rank();
		n = snprintf(buf + *k, size - *k, "%ld", rank >= 0 ? rank : (long)getpid());
		break;
	case 'h':
		if (gethostname(host, sizeof(host)) != 0 || !host[0])
			strcpy(host, "localhost");
		host[sizeof(host) - 1] = '\0';
		for (char *h = host; *h; h++)
			if (*h == '/')
				*h = '_';
		/* "." and ".." would name a directory, not a part of a name */
		if (!strcmp(host, ".") || !strcmp(host, ".."))
			for (char *h = host; *h; h++)
				*h = '_';
		n = snprintf(buf + *k, size - *k, "%s", host);
		break;
	default:
		n = snprintf(buf + *k, size - *k, "%c", c);
		break;
	}
	if (n < 0 || (size_t)n >= size - *k)
		return false;
	*k += (size_t)n;
	return true;
}

bool pmu__report_name(char *buf, size_t size, const char *p)
{
	size_t k = 0;

	for (; *p; p++) {
		if (p[0] == '%' && p[1] && strchr("phr%", p[1])) {
			if (!expand_one(buf, size, &k, p[1]))
				return false;
			p++;
		} else {
			if (k + 1 >= size)
				return false;
			buf[k++] = *p;
		}
	}
	buf[k] = '\0';
	return true;
}
