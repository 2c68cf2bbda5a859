/* SPDX-License-Identifier: MIT */
/*
 * pmu report merge: one view of the json region reports of many processes
 * (the ranks of an MPI job, runs on many hosts): per region the totals over
 * the processes and each figure's spread across them (min, mean, max, and
 * which process had the min and the max).
 *
 * Inputs are read one at a time into the merged figures (merge.c), a
 * merged report among them, and everything is read and checked before
 * anything is written. Files with different event lists merge on the
 * events they all have, with a note naming each one left out and the files
 * that lack it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool_err.h"
#include "report/merge.h"
#include "layers.h"
#include "cmds.h"

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu report merge [-o FILE] [--format FORMAT] [--from LIST] [REPORT.json|DIR]...\n"
		"  merges the json region reports of many processes (pmu_report_path(3),\n"
		"  PMU_REPORT=run-%%h-%%r.json): per region, the totals over the processes and\n"
		"  the spread across them: min, mean and max per process, and which process\n"
		"  had the min and the max; a merged report (--format json) merges again\n"
		"  DIR                  the directory's *.json files, in name order\n"
		"  --from LIST          the reports named in LIST, one per line ('-': standard input)\n"
		"  -o, --output FILE    write to FILE (default: standard output)\n"
		"  --format FORMAT      table, csv, json, html, prometheus, openmetrics, or the\n"
		"                       call paths as folded[:FIGURE], hatchet or json-split\n"
		"                       (default: from FILE's extension, .csv .json .html\n"
		"                       .prom .om .folded, table for .txt or none; any other\n"
		"                       is refused);\n"
		"                       html: one page with a heatmap of processes by regions\n"
		"  reports with different events merge on the events common to all, with a\n"
		"  note naming the others; none in common, a process given twice, another\n"
		"  major version of libpmu or a malformed file are refused (PATH:LINE: why)\n"
		"  exit status: 0, 1 when a report cannot be read or the output written,\n"
		"  129 for a usage error\n");
	return f == stdout ? 0 : 129;
}

/* The inputs: each argument, a directory's *.json files (sorted) in its place, and --from's lines. */
static int add_dir(struct merge *m, const char *dir)
{
	char **names, path[4096];
	bool found = false;
	size_t n;
	int r = pmu__dir_names(dir, pmu__keep_all, &names, &n);

	if (r < 0)
		return tool_err(r, "%s: %s", dir, strerror(-r));
	for (size_t i = 0; i < n && r >= 0; i++) {
		size_t len = strlen(names[i]);

		if (len < 6 || strcmp(names[i] + len - 5, ".json"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			r = tool_err(-ENAMETOOLONG, "%s/%s: the path is too long", dir, names[i]);
		else
			r = tool_err_lib(pmu__merge_add(m, path));
		found = true;
	}
	pmu__names_free(names, n);
	if (r >= 0 && !found)
		r = tool_err(-ENOENT, "%s: a directory with no report (*.json) in it", dir);
	return r;
}

static int add_input(struct merge *m, const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return add_dir(m, path);
	return tool_err_lib(pmu__merge_add(m, path));
}

/* --from FILE ("-": standard input): a path per line; empty lines skipped. */
static int add_list(struct merge *m, const char *list)
{
	FILE *f = strcmp(list, "-") ? fopen(list, "re") : stdin;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int r = 0;

	if (!f)
		return tool_err(-errno, "--from %s: %s", list, strerror(errno));
	while (r >= 0 && (len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len)
			r = add_input(m, line);
	}
	if (r >= 0 && ferror(f))
		r = tool_err(-EIO, "--from %s: cannot read it", list);
	free(line);
	if (f != stdin)
		fclose(f);
	return r;
}

struct merge_args {
	const char *out, *format, *from;
};

/* The options into a: -1 to merge, or an exit status (--help, a usage error). */
static int merge_args(struct merge_args *a, int argc, char **argv)
{
	enum { FORMAT = 256, FROM };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, FORMAT },
		{ "from", required_argument, NULL, FROM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		if (opt == 'o') {
			a->out = optarg;
		} else if (opt == FORMAT) {
			a->format = optarg;
			if (pmu__merge_format(optarg) < 0) {
				fprintf(stderr, "pmu report merge: --format %s\n", pmu_errmsg());
				return usage(stderr);
			}
		} else if (opt == FROM) {
			a->from = optarg;
		} else if (opt == 'h') {
			return usage(stdout);
		} else {
			fprintf(stderr, opt == ':' ? "pmu report merge: %s needs a value\n" :
				"pmu report merge: unknown option %s\n", argv[optind - 1]);
			return usage(stderr);
		}
	}
	if (optind >= argc && !a->from) {
		fprintf(stderr, "pmu report merge: no report to merge\n");
		return usage(stderr);
	}
	if (a->out && !*a->out) {
		fprintf(stderr, "pmu report merge: -o: the path is empty\n");
		return usage(stderr);
	}
	if (!a->format && a->out && !(a->format = pmu__report_format(a->out))) {
		fprintf(stderr, "pmu report merge: -o %s: %s\n", a->out, pmu_errmsg());
		return usage(stderr);
	}
	return -1;
}

static int merge_main(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct merge m = { 0 };
	int r = merge_args(&a, argc, argv);

	if (r >= 0)
		return r;
	m.keep_procs = a.format && !strcmp(a.format, "html");	/* each process's figures, for the heatmap */
	r = a.from ? add_list(&m, a.from) : 0;
	for (int i = optind; i < argc && r >= 0; i++)
		r = add_input(&m, argv[i]);
	if (r >= 0 && !m.nin)
		r = tool_err(-EINVAL, "no report to merge: the lists and directories given name none");
	if (r >= 0)
		r = tool_err_lib(pmu__merge_done(&m));
	/* The figures first: a failure leaves no file made or written over. */
	if (r >= 0)
		r = tool_err_lib(pmu__merge_write_path(&m, a.out ? a.out : "stdout", a.format));
	if (r < 0)
		fprintf(stderr, "pmu report merge: %s\n", tool_errmsg());
	pmu__merge_free(&m);
	return r < 0;
}

int cmd_report(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "pmu report: which? (merge, diff)\n");
		return usage(stderr);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout), diff_usage(stdout);
	if (!strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "diff"))
		return cmd_diff(argc - 1, argv + 1);
	fprintf(stderr, "pmu report: unknown subcommand '%s' (merge, diff)\n", argv[1]);
	return usage(stderr);
}
