/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's targets, as perf stat takes them: -p PIDS (every thread each
 * has when counting starts), -t TIDS, -a (every online CPU), -C CPUS.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layers.h"
#include "procfs.h"
#include "stat_target.h"

/* A parsed list: sorted, each value once. */
struct ints {
	long *v;
	unsigned n;
};

static int ints_add(struct ints *l, long x)
{
	if (pmu__grow(&l->v, l->n, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = x;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* perf keeps -p and -t lists in string order */
static int cmp_decimal(const void *a, const void *b)
{
	char x[24], y[24];

	snprintf(x, sizeof(x), "%ld", *(const long *)a);
	snprintf(y, sizeof(y), "%ld", *(const long *)b);
	return strcmp(x, y);
}

static void ints_sort(struct ints *l, int (*cmp)(const void *, const void *))
{
	unsigned k = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp);
	for (unsigned i = 0; i < l->n; i++)
		if (!k || l->v[k - 1] != l->v[i])
			l->v[k++] = l->v[i];
	l->n = k;
}

/* One number of a list at s, its end in *end: -1 when s does not start with digits. */
static long number(const char *s, const char **end, long max)
{
	long x = 0;

	*end = s;
	if (*s < '0' || *s > '9')
		return -1;
	for (; **end >= '0' && **end <= '9'; (*end)++)
		x = x > max ? x : x * 10 + (**end - '0');
	return x;
}

/*
 * "1,3-5" (ranges where allowed) into l, each value from min to max; 0, or
 * -EINVAL with why (the item at fault) filled.
 */
static int parse_ints(const char *s, bool ranges, long min, long max, const char *what, struct ints *l,
		      char *why, size_t size)
{
	const char *p = s;

	if (!*s) {
		snprintf(why, size, "an empty list");
		return -EINVAL;
	}
	for (;;) {
		const char *item = p, *e;
		long a = number(p, &e, max), b = a;
		int len;

		if (a >= 0 && ranges && *e == '-')
			b = number(e + 1, &e, max);
		len = (int)(strcspn(item, ","));
		if (len == 0) {
			snprintf(why, size, "an empty item (stray ',')");
			return -EINVAL;
		}
		if (a < 0 || b < 0 || (*e && *e != ',')) {
			snprintf(why, size, "'%.*s' is not a %s%s", len, item, what, ranges ? " or a range A-B" : "");
			return -EINVAL;
		}
		if (b < a) {
			snprintf(why, size, "'%.*s': the range goes down", len, item);
			return -EINVAL;
		}
		if (a < min || b > max) {
			snprintf(why, size, "'%.*s' is not a %s (%ld to %ld)", len, item, what, min, max);
			return -EINVAL;
		}
		for (long x = a; x <= b; x++)
			if (ints_add(l, x) < 0) {
				snprintf(why, size, "out of memory");
				return -ENOMEM;
			}
		if (!*e)
			return 0;
		p = e + 1;
	}
}

static int unit_add(struct stat_target *t, pid_t pid, int cpu, const char *comm)
{
	struct stat_unit *u;

	if (pmu__grow(&t->u, t->n, sizeof(*t->u)) < 0)
		return -ENOMEM;
	u = &t->u[t->n++];
	u->pid = pid;
	u->cpu = cpu;
	snprintf(u->comm, sizeof(u->comm), "%s", comm);
	return 0;
}

/* pid's threads, as perf lists them (/proc/PID/task when counting starts). 0 or -errno. */
static int add_process(struct stat_target *t, long pid)
{
	char comm[32], **names;
	struct ints tids = { 0 };
	size_t n;
	int r = pmu__task_threads(pid, &names, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++)
		r = ints_add(&tids, atol(names[i]));
	pmu__names_free(names, n);
	ints_sort(&tids, cmp_long);
	for (unsigned i = 0; i < tids.n && r == 0; i++)
		if (pmu__task_comm(tids.v[i], comm, sizeof(comm)) == 0)	/* else it has exited since */
			r = unit_add(t, (pid_t)tids.v[i], -1, comm);
	free(tids.v);
	return r < 0 ? r : t->n ? 0 : -ENOENT;
}

static int add_thread(struct stat_target *t, long tid)
{
	char comm[32];
	int r = pmu__task_comm(tid, comm, sizeof(comm));

	return r < 0 ? r : unit_add(t, (pid_t)tid, -1, comm);
}

/* The online CPUs (the kernel's list), else 0 .. the count the C library sees. */
static int online_cpus(struct ints *l)
{
	char buf[4096], why[128];

	if (pmu__online_cpus(buf, sizeof(buf)) == 0 && parse_ints(buf, true, 0, INT_MAX, "CPU", l, why, sizeof(why)) == 0)
		return 0;
	l->n = 0;
	for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n; c++)
		if (ints_add(l, c) < 0)
			return -ENOMEM;
	return 0;
}

static bool has(const struct ints *l, long x)
{
	return bsearch(&x, l->v, l->n, sizeof(*l->v), cmp_long) != NULL;
}

/* -a, -C: a unit per CPU asked for, each online. -1 or an exit status. */
static int resolve_cpus(struct stat_target *t)
{
	struct ints on = { 0 }, want = { 0 };
	char why[160];
	int rc = -1;

	if (online_cpus(&on) < 0)
		goto nomem;
	ints_sort(&on, cmp_long);
	if (t->cpus && parse_ints(t->cpus, true, 0, INT_MAX, "CPU number", &want, why, sizeof(why)) < 0) {
		fprintf(stderr, "pmu stat: -C '%s': %s\n", t->cpus, why);
		rc = 129;
		goto out;
	}
	ints_sort(&want, cmp_long);
	for (unsigned i = 0; i < (t->cpus ? want.n : on.n); i++) {
		long c = t->cpus ? want.v[i] : on.v[i];

		if (!has(&on, c)) {
			fprintf(stderr, "pmu stat: -C '%s': CPU %ld is not online (see "
				"/sys/devices/system/cpu/online)\n", t->cpus, c);
			rc = 129;
			goto out;
		}
		if (unit_add(t, -1, (int)c, "") < 0)
			goto nomem;
	}
	goto out;
nomem:
	fprintf(stderr, "pmu stat: out of memory\n");
	rc = 1;
out:
	free(on.v);
	free(want.v);
	return rc;
}

/* -p, -t: a unit per thread. -1 or an exit status. */
static int resolve_tasks(struct stat_target *t)
{
	const char *opt = t->pids ? "-p" : "-t", *list = t->pids ? t->pids : t->tids;
	struct ints ids = { 0 };
	char why[160];
	int rc = -1, r = 0;

	if (parse_ints(list, false, 1, INT_MAX, t->pids ? "process id" : "thread id", &ids, why, sizeof(why)) < 0) {
		fprintf(stderr, "pmu stat: %s '%s': %s\n", opt, list, why);
		free(ids.v);
		return 129;
	}
	ints_sort(&ids, cmp_decimal);
	for (unsigned i = 0; i < ids.n && rc < 0; i++) {
		unsigned before = t->n;

		r = t->pids ? add_process(t, ids.v[i]) : add_thread(t, ids.v[i]);
		if (r == -ENOENT && t->n == before) {
			fprintf(stderr, "pmu stat: %s %ld: no such %s\n", opt, ids.v[i],
				t->pids ? "process" : "thread");
			rc = 1;
		} else if (r < 0) {
			fprintf(stderr, "pmu stat: %s %ld: %s\n", opt, ids.v[i], strerror(-r));
			rc = 1;
		}
	}
	free(ids.v);
	return rc;
}

int stat_target_resolve(struct stat_target *t)
{
	if (t->kind == STAT_CPUS)
		return resolve_cpus(t);
	if (t->kind == STAT_TASKS)
		return resolve_tasks(t);
	if (unit_add(t, 0, -1, "") < 0) {
		fprintf(stderr, "pmu stat: out of memory\n");
		return 1;
	}
	return -1;
}

void stat_target_free(struct stat_target *t)
{
	free(t->u);
	t->u = NULL;
	t->n = 0;
}

static int refuse(const char *what)
{
	fprintf(stderr, "pmu stat: not supported: %s\n", what);
	return 129;
}

int stat_target_check(struct stat_target *t, bool cmd, unsigned repeat)
{
	bool tasks = t->pids || t->tids, cpus = t->all_cpus || t->cpus;

	t->kind = tasks ? STAT_TASKS : cpus ? STAT_CPUS : STAT_CMD;
	if (t->pids && t->tids)
		return refuse("-p with -t (perf stat would ignore -t)");
	if (tasks && cpus)
		return refuse("-p/-t with -a/-C (perf stat would ignore -a/-C)");
	if (t->no_aggr && !cpus)
		return refuse("-A/--no-aggr without -a or -C (CPUs to print one by one)");
	if (t->per_thread && !tasks)	/* perf stat neither */
		return refuse("--per-thread without -p or -t (a line per thread of running processes)");
	if (repeat && t->kind != STAT_CMD)
		return refuse("-r with -p, -t, -a or -C");
	if (!cmd && t->kind == STAT_CMD) {
		fprintf(stderr, "pmu stat: no command to count\n");
		return 129;
	}
	return -1;
}

void stat_target_opts(const struct stat_target *t, unsigned u, struct pmu_opts *o)
{
	o->size = sizeof(*o);
	o->pid = t->u[u].pid;
	o->cpu = t->u[u].cpu;
	if (t->kind == STAT_CMD)
		o->flags = PMU_INHERIT | PMU_ENABLE_ON_EXEC;
	else if (t->kind == STAT_TASKS)	/* started together once all are open; threads made later count too */
		o->flags = PMU_INHERIT | PMU_DISABLED;
	else
		o->flags = PMU_ON_CPU | PMU_DISABLED;
}

/*
 * With -a, the CPUs an event of a PMU that counts per CPU (a cpumask: RAPL,
 * uncore) is opened on, as perf, so that a socket's count is not summed once
 * per CPU: how many into cpus; 0 when every unit counts it (-C's CPUs are as
 * asked).
 */
unsigned stat_target_event_cpus(const struct stat_target *t, const char *spec, int *cpus, unsigned max)
{
	struct pmu__event ev;
	unsigned n = 0;

	if (t->kind != STAT_CPUS || !t->all_cpus || pmu__event_parse(spec, strlen(spec), &ev) < 0)
		return 0;
	for (unsigned k = 0; k < ev.n && n < max; k++)
		n += pmu__pmu_cpus(ev.a[k].pmu, cpus + n, max - n);
	return n;
}

bool stat_target_lines(const struct stat_target *t)
{
	return t && (t->no_aggr || t->per_thread);
}

void stat_target_header(const struct stat_target *t, char **cmd, FILE *f)
{
	if (t && t->all_cpus)
		fprintf(f, "'system wide");
	else if (t && t->cpus)
		fprintf(f, "'CPU(s) %s", t->cpus);
	else if (t && t->pids)
		fprintf(f, "process id '%s", t->pids);
	else if (t && t->tids)
		fprintf(f, "thread id '%s", t->tids);
	else
		for (char **a = cmd; *a; a++)
			fprintf(f, "%s%s", a == cmd ? "'" : " ", *a);
	fputc('\'', f);
}

void stat_unit_print(const struct stat_unit *u, FILE *f, const char *sep, bool json)
{
	/* a thread's name is its owner's choice: escaped for each output */
	char label[sizeof(u->comm) + 16], shown[4 * sizeof(u->comm) + 16];

	snprintf(label, sizeof(label), "%s-%d", u->comm, (int)u->pid);
	if (json && u->cpu >= 0) {
		fprintf(f, "\"cpu\" : \"%d\", ", u->cpu);
	} else if (json) {
		fputs("\"thread\" : ", f);
		pmu__json_str(f, label);
		fputs(", ", f);
	} else if (u->cpu >= 0) {
		fprintf(f, sep ? "CPU%d%s" : "CPU%-7d%s", u->cpu, sep ? sep : " ");
	} else if (sep && !strcmp(sep, ",")) {
		pmu__report_csv_field(f, label);
		fputs(sep, f);
	} else {
		pmu__text_esc(shown, sizeof(shown), u->comm, strlen(u->comm));
		fprintf(f, sep ? "%s-%d%s" : "%16s-%-8d%s", shown, (int)u->pid, sep ? sep : " ");
	}
}

/* The time left until due, false when it is past. */
static bool time_left(const struct timespec *due, struct timespec *left)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(due->tv_sec - now.tv_sec) * 1000000000LL + (due->tv_nsec - now.tv_nsec);
	*left = (struct timespec){ (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	return ns > 0;
}

enum stat_wait stat_target_wait(const struct stat_target *t, const struct timespec *due)
{
	/* threads are looked at every 100 ms (perf stat: every second) */
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	sigset_t intr;

	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	for (;;) {
		struct timespec left = tick;
		bool gone = t->kind == STAT_TASKS;

		for (unsigned u = 0; gone && u < t->n; u++)
			gone = !pmu__task_alive(t->u[u].pid);
		if (gone)
			return STAT_WAIT_GONE;
		if (due && !time_left(due, &left))
			return STAT_WAIT_DUE;
		if (t->kind == STAT_TASKS && (!due || left.tv_sec || left.tv_nsec > tick.tv_nsec))
			left = tick;
		if (sigtimedwait(&intr, NULL, due || t->kind == STAT_TASKS ? &left : NULL) == SIGINT)
			return STAT_WAIT_INT;
	}
}

const char *stat_target_refused(const struct stat_target *t, const char *event, int err, char *buf, size_t size)
{
	long paranoid = -9;

	if (t->kind != STAT_CPUS || (err != EACCES && err != EPERM))
		return NULL;
	pmu__sysctl("kernel.perf_event_paranoid", &paranoid);
	snprintf(buf, size, "%s: permission denied counting every task of a CPU (-a, -C): that needs "
		 "CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid <= 0 (it is %ld); "
		 "-p PID or a command counts your own tasks", event, paranoid);
	return buf;
}
