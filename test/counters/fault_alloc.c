/* SPDX-License-Identifier: MIT */
/*
 * Every allocation failure survived. The allocator the library and the
 * tool's subcommands call (malloc, calloc, realloc, strdup, strndup: linked
 * with --wrap, see the Makefile) fails the Nth allocation, for every N in
 * turn, across pmu_open of software, sysfs and alias events, pmu_event_attr
 * on the fixture trees, the per-thread layer with regions and reports, and
 * pmu list, encode, check and report merge. Each run must end as it does
 * without the failure or with ENOMEM and a message saying so (exit status
 * and stderr for the subcommands); nothing may stay allocated or open; the
 * same call without the failure then succeeds. ASan (the asan tier) catches
 * what a failure path touches after freeing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "events/event.h"
#include "test.h"

/* The subcommands, linked in: each names its usage() apart. */
#define usage list_usage
#include "../tools/list.c"
#undef usage
#define usage encode_usage
#include "../tools/encode.c"
#undef usage
#include "../tools/check.c"
#define usage report_usage
#include "../tools/report.c"
#undef usage
#define usage pmu_usage
#define main pmu_tool_main
#include "../tools/main.c"
#undef main
#undef usage

int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static long nth, count, live;
static int armed;

static int fail_now(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_RELAXED))
		return 0;
	if (__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED) != nth)
		return 0;
	errno = ENOMEM;
	return 1;
}

static void *counted(void *p)
{
	if (p)
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : counted(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : counted(__real_calloc(n, size));
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	if (fail_now())
		return NULL;
	q = __real_realloc(p, n);
	if (!p)
		counted(q);
	return q;
}

void __wrap_free(void *p)
{
	if (p)
		__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	__real_free(p);
}

char *__wrap_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = __wrap_malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

char *__wrap_strdup(const char *s)
{
	return __wrap_strndup(s, (size_t)-1);
}

static char fix[256], err[1 << 14], out[1 << 20];

static int says_nomem(const char *msg)
{
	return strstr(msg, "out of memory") || strstr(msg, "Cannot allocate memory");
}

/* ---- what is run, N times over ---- */

struct scenario {
	const char *name;
	int (*fn)(const char *arg);
	const char *arg;
	bool cli;	/* the result is an exit status, the message on stderr */
	bool timed;	/* its output has timings: not compared */
};

static struct perf_event_attr attr;

static int attr_of(const char *arg)
{
	memset(&attr, 0, sizeof(attr));
	return pmu_event_attr(arg, &attr);
}

static int open_set(const char *arg)
{
	struct pmu_set *s;
	uint64_t v[8];
	int r = pmu_open(&s, arg);

	if (r < 0)
		return r;
	r = pmu_read(s, v);
	pmu_close(s);
	return r;
}

static int thread_layer(const char *arg)
{
	static const char *const fmt[] = { "table", "csv", "json" };
	uint64_t v[4];
	FILE *f;
	int r = pmu_thread_init(arg);

	if (r < 0)
		return r;
	if (!(r = pmu_thread_read(v)) && !(r = pmu_region_begin("outer"))) {
		if (!(r = pmu_region_begin("inner")))
			r = pmu_region_end("inner");
		if (!r)
			r = pmu_region_end("outer");
	}
	f = fopen("/dev/null", "w");
	for (int i = 0; i < 3 && !r; i++)
		r = f ? pmu_report(f, fmt[i]) : -errno;
	if (f)
		fclose(f);
	if (r < 0) {
		snprintf(err, sizeof(err), "%s", pmu_errmsg());
		pmu_thread_fini();
		pmu__err(r, "%s", err);
		return r;
	}
	return pmu_thread_fini();
}

/* "list --sysfs DIR ...": runs the subcommand with stdout to /dev/null and stderr in err. */
static int cli(const char *arg)
{
	char line[1024], words[16][512], *argv[16], *save;
	int argc = 0, r, o = dup(1), e = dup(2), out1 = open("/tmp", O_TMPFILE | O_RDWR, 0600),
	    tmp = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	ssize_t n;

	snprintf(line, sizeof(line), "%s", arg);
	for (char *t = strtok_r(line, " ", &save); t && argc < 15; t = strtok_r(NULL, " ", &save)) {
		snprintf(words[argc], sizeof(words[argc]), "%s%s", strncmp(t, "FIX", 3) ? "" : fix,
			 strncmp(t, "FIX", 3) ? t : t + 3);
		argv[argc] = words[argc];
		argc++;
	}
	argv[argc] = NULL;
	fflush(NULL);
	dup2(out1, 1);
	dup2(tmp, 2);
	r = !strcmp(argv[0], "list") ? cmd_list(argc, argv) : !strcmp(argv[0], "encode") ? cmd_encode(argc, argv)
		: !strcmp(argv[0], "report") ? cmd_report(argc, argv) : cmd_check(argc, argv);
	fflush(NULL);
	dup2(o, 1);
	dup2(e, 2);
	n = pread(tmp, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	n = pread(out1, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(o);
	close(e);
	close(out1);
	close(tmp);
	return r;
}

/* The tool's --sysfs set the root: back to the test's, with nothing failing. */
static int call(const struct scenario *s)
{
	int r = s->fn(s->arg);
	int a = __atomic_exchange_n(&armed, 0, __ATOMIC_RELAXED);

	if (s->cli)
		pmu__set_sysfs_root(getenv("FAULT_ROOT"));
	__atomic_store_n(&armed, a, __ATOMIC_RELAXED);
	return r;
}

static void run(const struct scenario *s)
{
	static char err0[sizeof(err)], out0[sizeof(out)];
	struct perf_event_attr attr0;
	long base, fds, n, nfail = 0;
	int r0, r;

	/* twice: lazy one-time state (libpfm4, stdio) is set up before counting */
	call(s);
	r0 = call(s);
	snprintf(err0, sizeof(err0), "%s", s->cli ? err : pmu_errmsg());
	snprintf(out0, sizeof(out0), "%s", s->cli && !s->timed ? out : "");
	attr0 = attr;
	base = __atomic_load_n(&live, __ATOMIC_RELAXED);
	fds = t_fd_count();
	for (n = 1;; n++) {
		__atomic_store_n(&count, 0, __ATOMIC_RELAXED);
		nth = n;
		__atomic_store_n(&armed, 1, __ATOMIC_RELAXED);
		r = call(s);
		__atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
		if (count < n)
			break;	/* fewer than n allocations: every one has failed once */
		/* anything else than without the failure: ENOMEM, said */
		if (r != r0 || (r && strcmp(s->cli ? err : pmu_errmsg(), err0)) ||
		    (s->cli && !s->timed && strcmp(out, out0)) || (!r && memcmp(&attr, &attr0, sizeof(attr)))) {
			const char *m = s->cli ? err : pmu_errmsg();

			/* pmu check says it in its table, on stdout */
			CHECK_MSG(s->cli ? r != 0 && (says_nomem(m) || says_nomem(out)) : r == -ENOMEM && says_nomem(m),
				  "%s %s: allocation %ld failed: returned %d (without: %d): %.300s%.2000s", s->name, s->arg,
				  n, r, r0, m, getenv("FAULT_SHOW") ? out : "");
			nfail++;
		}
		CHECK_MSG(__atomic_load_n(&live, __ATOMIC_RELAXED) == base,
			  "%s %s: allocation %ld failed: %ld allocations left behind", s->name, s->arg, n,
			  __atomic_load_n(&live, __ATOMIC_RELAXED) - base);
		CHECK_MSG(t_fd_count() == fds, "%s %s: allocation %ld failed: descriptors %ld -> %d", s->name,
			  s->arg, n, fds, t_fd_count());
		__atomic_store_n(&live, base, __ATOMIC_RELAXED);
		r = call(s);
		CHECK_MSG(r == r0, "%s %s: after allocation %ld failed, a retry returned %d (%d before): %.300s",
			  s->name, s->arg, n, r, r0, s->cli ? err : pmu_errmsg());
		if (t_failures > 20)
			break;
	}
	printf("%-14s %-44.44s %4ld allocations failed in turn, %4ld of them failed the call (%d without)\n",
	       s->name, s->arg, n - 1, nfail, r0);
}

int main(void)
{
	static const char *const trees[] = { "intel", "intel_hybrid", "arm64", "amd_zen", "powerpc" };
	static const char *const attrs[] = {
		"cycles", "instructions:k", "LLC-load-misses", "r003c", "page-faults",
		"cpu/event=0x3c,umask=0x0/", "cpu/mem-loads,ldlat=30/", "mem-loads", "cpu_core/topdown-retiring/",
		"topdown-retiring", "uncore_imc_0/cas_count_read/", "armv8_pmuv3_0/cpu_cycles/",
		"amd_df/event=0x1c7/", "hv_gpci/dtbp_ptitc,starting_index=1/", "cyclez", "cpu/bogus=1/",
		"nosuchpmu/event=1/", NULL,
	};
	static const char *const clis[] = {
		"list --sysfs FIX/intel", "list --sysfs FIX/intel_hybrid --json", "list --sysfs FIX/broken",
		"encode --sysfs FIX/intel cycles cpu/mem-loads,ldlat=3/ mem-stores cyclez",
		"encode --sysfs FIX/intel_hybrid cycles topdown-retiring",
		"check -e task-clock,cycles", "check -e cyclez,cpu/event=1/,nosuch/x/",
		"list --sysfs FIX/intel tracepoint", "encode --sysfs FIX/intel sched:sched_swich software/task-clock/",
		"report merge --format json FIX/reports/a.json FIX/reports/b.json FIX/reports/c.json",
	};
	char root[4400];

	if (access("test/fixtures/intel/cpu/type", R_OK))
		T_SKIP("run from the source tree (test/fixtures)");
	snprintf(fix, sizeof(fix), "test/fixtures");
	setenv("PMU_TRACEFS", "test/fixtures/tracefs", 1);	/* tracepoints listed and suggested */

	for (size_t t = 0; t < PMU_ARRAY_SIZE(trees); t++) {
		snprintf(root, sizeof(root), "%s/%s", fix, trees[t]);
		setenv("FAULT_ROOT", root, 1);
		pmu__set_sysfs_root(root);
		for (int i = 0; attrs[i]; i++) {
			struct scenario s = { trees[t], attr_of, attrs[i], false };

			run(&s);
		}
	}
	/* pmu_open: resolving is done before the kernel says no to a fixture's PMU */
	snprintf(root, sizeof(root), "%s/intel", fix);
	setenv("FAULT_ROOT", root, 1);
	pmu__set_sysfs_root(root);
	run(&(struct scenario){ "pmu_open", open_set, "task-clock,cpu/mem-loads,ldlat=3/,mem-stores", false });
	for (size_t i = 0; i < PMU_ARRAY_SIZE(clis); i++) {
		bool timed = !strcmp(clis[i], "check -e task-clock,cycles");

		/* pmu check times 10^5 reads per event, each of ~70 runs: too long emulated */
		if (timed && t_scale(20) == 1) {
			printf("pmu check -e task-clock,cycles: left out (PMU_TEST_QUICK)\n");
			continue;
		}
		run(&(struct scenario){ "pmu", cli, clis[i], true, timed });
	}

	/* this machine: software events opened and read, the per-thread layer */
	unsetenv("FAULT_ROOT");
	pmu__set_sysfs_root(NULL);
	run(&(struct scenario){ "pmu_open", open_set, "task-clock,page-faults,context-switches", false });
	run(&(struct scenario){ "pmu_open", open_set, "page-faults,cyclez", false });
	run(&(struct scenario){ "thread+report", thread_layer, "task-clock,page-faults", false });
	run(&(struct scenario){ "thread+report", thread_layer, "page-faults,CPUs_utilized", false });
	T_DONE();
}
