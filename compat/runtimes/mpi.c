// SPDX-License-Identifier: MIT
/*
 * libpmu-mpi: one report per MPI job, reduced inside the job. A PMPI
 * library (linked before -lmpi, or preloaded) whose MPI_Finalize, and the
 * Fortran bindings' mpi_finalize (mpif.h, use mpi), take zero-code mode's
 * report of each rank (PMU_EVENTS, PMU_REPORT) and merge them up a binomial
 * tree with pmu report merge's code: a merge of merged reports gives the
 * figures one merge of every report gives. Rank 0 writes the merged report
 * to PMU_REPORT with %r read as "all"; no per-rank file is written. Where
 * the reduction cannot be made, each rank writes what it holds and says so.
 * See libpmu-mpi(7).
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmu.h>
#include "plugin.h"

#define API __attribute__((visibility("default")))
#define TAG 7301	/* the reduction's messages, on a duplicate of MPI_COMM_WORLD */

/* What a rank holds on the way up the tree. */
struct part {
	struct merge *m;
	unsigned n;		/* reports and merged reports added */
	char *text;		/* the last json made or received, freed as it goes */
	size_t len;
	size_t most;		/* the most report text held at once, bytes */
};

/* r, with what as the head of the library's message. */
static int fail(int r, const char *what)
{
	return pmu__err(r, "%s: %s", what, pmu_errmsg());
}

static void say(int rank, const char *fmt, const char *arg)
{
	fprintf(stderr, "libpmu-mpi: rank %d: ", rank);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* text[0..len) (a report or a merged one; none when len is 0) into p, named name. */
static int part_add(struct part *p, const char *name, char *text, size_t len)
{
	int r = len && p->m ? pmu__merge_add_buf(p->m, name, text, len) : 0;

	if (r == 0 && len)
		p->n++;
	free(text);
	return r;
}

/* p as one merged report's json text in p->text (NULL, length 0, when it holds none). 0 or -errno. */
static int part_text(struct part *p)
{
	FILE *f;
	int r;

	p->text = NULL;
	p->len = 0;
	if (!p->n)
		return 0;
	if ((r = pmu__merge_done(p->m)) < 0)
		return r;
	if (!(f = open_memstream(&p->text, &p->len)))
		return -ENOMEM;
	r = pmu__merge_write(f, p->m, "json");
	r = fclose(f) == 0 ? r : -ENOMEM;
	if (p->len > p->most)
		p->most = p->len;
	return r;
}

/* Receives the subtree of rank from (its merged json, or nothing) into p. 0, or -1 (MPI) / -errno. */
static int receive(MPI_Comm c, int from, struct part *p)
{
	MPI_Status st;
	int count;
	char name[32], *buf;

	if (MPI_Probe(from, TAG, c, &st) != MPI_SUCCESS || MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS ||
	    count < 0)
		return -1;
	if (!(buf = malloc((size_t)count + 1)))
		return -ENOMEM;
	if (MPI_Recv(buf, count, MPI_BYTE, from, TAG, c, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(buf);
		return -1;
	}
	if ((size_t)count > p->most)
		p->most = (size_t)count;
	snprintf(name, sizeof(name), "ranks from %d", from);
	return part_add(p, name, buf, (size_t)count);
}

/* path with %r read as "all" (the job's report), then %p and %h as pmu_report_path() expands them. */
static int job_name(char *buf, size_t size, const char *path)
{
	char pat[PATH_MAX];
	size_t k = 0;

	for (const char *s = path; *s && k + 4 < sizeof(pat); s++) {
		if (s[0] == '%' && s[1] == 'r') {
			memcpy(pat + k, "all", 3);
			k += 3;
			s++;
			continue;
		}
		if (s[0] == '%' && s[1])
			pat[k++] = *s++;
		pat[k++] = *s;
	}
	pat[k] = '\0';
	return pmu__report_name(buf, size, pat) ? 0 : -ENAMETOOLONG;
}

/* Rank 0: the job's report, from p (merge_done() made), to PMU_REPORT's name with %r as "all". */
static int write_job(struct part *p, const char *path, char *name, size_t size)
{
	int r;

	if (!strcmp(path, "stderr") || !strcmp(path, "-") || !strcmp(path, "stdout"))
		snprintf(name, size, "%s", path);
	else if ((r = job_name(name, size, path)) < 0)
		return pmu__err(r, "PMU_REPORT=%s: the name is too long", path);
	return pmu__merge_write_path(p->m, name, NULL);
}

/* This rank's own report, as zero-code mode would have written it, when the job's cannot be. */
static void write_own(int rank, const char *path, const char *why)
{
	say(rank, "%s: this rank writes its own report", why);
	if (!strcmp(path, "stderr") || !strcmp(path, "-") ? pmu_report(stderr, NULL) < 0 :
	    !strcmp(path, "stdout") ? pmu_report(stdout, NULL) < 0 : pmu_report_path(path, NULL) < 0)
		say(rank, "PMU_REPORT: %s", pmu_errmsg());
}

/* This rank's zero-code report into p: its path, or NULL when it has none. *r: 0 or -errno. */
static const char *own_report(struct part *p, int rank, int *r)
{
	const char *path = pmu__zero_finish();
	char name[32], *text = NULL;
	size_t len = 0;
	FILE *f;

	*r = 0;
	if (!path)
		return NULL;
	if (!(f = open_memstream(&text, &len)))
		*r = -ENOMEM;
	else if ((*r = pmu_report(f, "json")) < 0 || fclose(f) != 0)
		*r = *r < 0 ? *r : -ENOMEM;
	if (*r == 0) {
		p->most = len;
		snprintf(name, sizeof(name), "rank %d", rank);
		*r = part_add(p, name, text, len);
	} else {
		free(text);
	}
	return path;
}

/*
 * Up the binomial tree: each rank merges its children's subtrees (rank +
 * 1, 2, 4 ... while its bit is clear), then sends its subtree to rank -
 * its lowest set bit. A rank whose part failed still receives (a sender
 * waits for its receiver) and sends nothing up. 0, or where it failed.
 */
static int climb(MPI_Comm c, int rank, int size, struct part *p, int r)
{
	for (int mask = 1; mask < size; mask <<= 1) {
		if (rank & mask) {
			if (r == 0 && (r = part_text(p)) < 0)
				pmu__err(r, "out of memory");
			size_t len = r == 0 ? p->len : 0;

			if (len > INT_MAX)
				r = pmu__err(-E2BIG, "%zu bytes of merged report: more than one message takes", len);
			if (MPI_Send(r == 0 ? p->text : "", r == 0 ? (int)len : 0, MPI_BYTE, rank - mask, TAG, c) !=
			    MPI_SUCCESS && r == 0)
				r = pmu__err(-EIO, "sending to rank %d failed", rank - mask);
			free(p->text);
			p->text = NULL;
			return r;
		}
		if (rank + mask < size) {
			struct part drop = { pmu__merge_new() };
			int rr = drop.m ? receive(c, rank + mask, r == 0 ? p : &drop) : -ENOMEM;

			if (drop.m)
				pmu__merge_free(drop.m);
			if (r == 0 && rr == -1) {
				r = pmu__err(-EIO, "receiving from rank %d failed", rank + mask);
			} else if (r == 0 && rr < 0) {
				char what[32];

				snprintf(what, sizeof(what), "ranks from %d", rank + mask);
				r = fail(rr, what);
			}
		}
	}
	return r;
}

/* The job's report, once, before MPI ends. */
static void reduce(void)
{
	static int done;
	int init = 0, fin = 0, rank, size, r;
	struct part p = { pmu__merge_new() };
	const char *path;
	unsigned long most, all = 0;
	char name[PATH_MAX];
	double t0;
	MPI_Comm c;

	if (done++)
		return;
	if (MPI_Initialized(&init) != MPI_SUCCESS || !init || MPI_Finalized(&fin) != MPI_SUCCESS || fin) {
		if (pmu_thread_event_count() > 0)
			fprintf(stderr, "libpmu-mpi: MPI is %s: each rank writes its own report at exit\n",
				init ? "finalized already" : "not initialized");
		return;
	}
	if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) {
		fprintf(stderr, "libpmu-mpi: MPI_Comm_dup failed: each rank writes its own report at exit\n");
		return;
	}
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	t0 = MPI_Wtime();
	path = own_report(&p, rank, &r);
	if (r == 0 && !p.m)
		r = pmu__err(-ENOMEM, "out of memory");
	if (r < 0)
		fail(r, "this rank's report");
	r = climb(c, rank, size, &p, r);
	if (r == 0 && rank == 0 && p.n && (r = pmu__merge_done(p.m)) == 0)
		r = write_job(&p, path ? path : "stderr", name, sizeof(name));
	if (r < 0 && path)
		write_own(rank, path, pmu_errmsg());
	most = p.most;
	MPI_Reduce(&most, &all, 1, MPI_UNSIGNED_LONG, MPI_MAX, 0, c);
	if (rank == 0 && r == 0 && p.n)
		fprintf(stderr, "libpmu-mpi: %d rank%s merged in %.1f ms (at most %lu bytes of report text on one "
			"rank): %s\n", size, size == 1 ? "" : "s", (MPI_Wtime() - t0) * 1e3, all, name);
	else if (rank == 0 && r == 0)
		fprintf(stderr, "libpmu-mpi: no rank counted anything (PMU_EVENTS is not set): no report\n");
	if (p.m)
		pmu__merge_free(p.m);
	MPI_Comm_free(&c);
}

API int MPI_Finalize(void)
{
	reduce();
	return PMPI_Finalize();
}

/* Fortran's mpi_finalize (mpif.h, use mpi) under each name compilers give it: Open MPI's own calls PMPI_Finalize. */
API void mpi_finalize_(MPI_Fint *ierr)
{
	reduce();
	*ierr = (MPI_Fint)PMPI_Finalize();
}

API void mpi_finalize__(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
API void mpi_finalize(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
API void MPI_FINALIZE(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
