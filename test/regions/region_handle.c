/* SPDX-License-Identifier: MIT */
/*
 * Regions by handle: one handle per name in every thread, the same region
 * whether named or given by handle (mixed on the same region), nesting
 * errors identical to begin/end's, bad handles, before pmu_thread_init(),
 * after pmu_thread_fini(), and in a forked child.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"
#include "results_index.h"

#define THREADS 4
#define ROUNDS 100

/* How many regions of the snapshot are called name: one, whatever the calls. */
static unsigned named(const struct pmu_results *r, const char *name)
{
	const char *const *names;
	unsigned n = pmu_results_regions(r, &names), k = 0;

	for (unsigned i = 0; i < n; i++)
		k += !strcmp(names[i], name);
	return k;
}

static int get(const struct pmu_results *r, const char *name, int thread, struct pmu_region_result *out)
{
	out->size = sizeof(*out);
	return pmu_results_get(r, region_index(r, name), thread, out);
}

static int handles[THREADS];

static void *worker(void *arg)
{
	int i = (int)(long)arg, h = pmu_region_register("shared");

	handles[i] = h;
	for (int k = 0; h >= 0 && k < ROUNDS; k++) {
		/* By handle, by name, and mixed, all on the same region. */
		if (pmu_region_enter(h) || pmu_region_exit(h) || pmu_region_begin("shared") ||
		    pmu_region_exit(h) || pmu_region_enter(h) || pmu_region_end("shared"))
			return (void *)1;
	}
	return NULL;
}

/* The message of the last failed call, copied. */
static const char *msg(void)
{
	static char m[512];

	snprintf(m, sizeof(m), "%s", pmu_errmsg());
	return m;
}

/* begin/end and enter/exit fail alike: the same error and the same message. */
/* s with from replaced by to, into buf. */
static void replace(char *buf, size_t size, const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);

	if (p)
		snprintf(buf, size, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
	else
		snprintf(buf, size, "%s", s);
}

/* The same refusal, each message naming its own calls: exit's says pmu_region_exit() and pmu_region_enter(). */
static void same_error(int by_name, const char *name_msg, int by_handle, const char *handle_msg)
{
	char a[512], b[512], want[512];

	replace(a, sizeof(a), name_msg, "pmu_region_end() of", "pmu_region_exit() of");
	replace(b, sizeof(b), a, "pmu_region_end() without", "pmu_region_exit() without");
	replace(want, sizeof(want), b, "without pmu_region_begin()", "without pmu_region_enter()");
	CHECK_EQ(by_name, by_handle);
	CHECK_MSG(!strcmp(want, handle_msg), "by handle: \"%s\", not \"%s\"", handle_msg, want);
	CHECK_MSG(!strstr(handle_msg, "pmu_region_end() of") && !strstr(handle_msg, "pmu_region_end() without"),
		  "the handle's message names end: \"%s\"", handle_msg);
}

int main(void)
{
	struct pmu_region_result o;
	struct pmu_results *r;
	pthread_t th[THREADS];
	char m1[512], buf[64];
	int a, b, e1, e2, h, pre;

	if (getenv("PMU_EVENTS"))
		T_SKIP("PMU_EVENTS is set in the environment: the layer is already set up");

	/* Before pmu_thread_init(): a name may be registered; entering fails as begin does. */
	pre = pmu_region_register("early");
	CHECK_MSG(pre >= 0, "%s", pmu_errmsg());
	e1 = pmu_region_begin("early");
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_enter(pre);
	same_error(e1, m1, e2, msg());
	CHECK_EQ(e2, -EINVAL);
	CHECK_EQ(pmu_region_exit(pre), -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "early") != NULL, "%s", pmu_errmsg());

	CHECK_MSG(pmu_thread_init("task-clock,page-faults") == 0, "%s", pmu_errmsg());

	/* The same handle for the same name, whatever the pointer; another for another name. */
	a = pmu_region_register("a");
	CHECK(a >= 0);
	snprintf(buf, sizeof(buf), "a");
	CHECK_EQ(pmu_region_register(buf), a);
	CHECK_EQ(pmu_region_register("early"), pre);
	b = pmu_region_register("b");
	CHECK(b >= 0 && b != a && b != pre);

	/* Bad names as begin refuses them. */
	e1 = pmu_region_begin("");
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_register("");
	same_error(e1, m1, e2, msg());
	CHECK_EQ(e1, -EINVAL);
	{
		char longname[200];

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		e1 = pmu_region_begin(longname);
		snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
		e2 = pmu_region_register(longname);
	same_error(e1, m1, e2, msg());
		CHECK_EQ(e1, -ENAMETOOLONG);
	}
	CHECK_EQ(pmu_region_register(NULL), -EINVAL);
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_region_register") != NULL, "%s", pmu_errmsg());

	/* Bad handles: -EINVAL with a message naming the handle; nothing opened. */
	{
		static const int bad[] = { -1, -EINVAL, 999, 256, 1 << 30 };

		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(buf, sizeof(buf), "%d", bad[i]);
			CHECK_EQ(pmu_region_enter(bad[i]), -EINVAL);
			CHECK_MSG(strstr(pmu_errmsg(), buf) && strstr(pmu_errmsg(), "pmu_region_enter"), "%s",
				  pmu_errmsg());
			CHECK_EQ(pmu_region_exit(bad[i]), -EINVAL);
			CHECK_MSG(strstr(pmu_errmsg(), buf) && strstr(pmu_errmsg(), "pmu_region_exit"), "%s",
				  pmu_errmsg());
		}
		/* An unregistered id below the limit. */
		h = b + 1;
		while (h == pre || h == a)
			h++;
		CHECK_EQ(pmu_region_enter(h), -EINVAL);
		CHECK_EQ(pmu_region_exit(h), -EINVAL);
	}
	CHECK_EQ(pmu_region_exit(a), -EINVAL);	/* nothing open */
	CHECK_MSG(strstr(pmu_errmsg(), "pmu_region_exit() without pmu_region_enter()"), "%s", pmu_errmsg());

	/* Nesting errors: the same as begin/end's, and they change nothing. */
	CHECK(pmu_region_begin("a") == 0);
	CHECK(pmu_region_begin("b") == 0);
	e1 = pmu_region_end("a");
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_exit(a);
	same_error(e1, m1, e2, msg());
	CHECK_EQ(e1, -EINVAL);
	CHECK_MSG(strstr(m1, "\"b\" is the innermost"), "%s", m1);
	e1 = pmu_region_end("early");	/* registered, never begun here */
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_exit(pre);
	CHECK_EQ(e1, -EINVAL);
	CHECK_EQ(e2, -EINVAL);
	CHECK_MSG(strstr(m1, "early") && strstr(msg(), "early"), "%s / %s", m1, msg());
	CHECK(pmu_region_exit(b) == 0);	/* begun by name, ended by handle */
	CHECK(pmu_region_end("a") == 0);
	e1 = pmu_region_end("a");
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_exit(a);
	same_error(e1, m1, e2, msg());
	/* Too deep: the same refusal. */
	for (int i = 0; i < 64; i++)
		CHECK(pmu_region_enter(a) == 0);
	e1 = pmu_region_begin("a");
	snprintf(m1, sizeof(m1), "%s", pmu_errmsg());
	e2 = pmu_region_enter(a);
	same_error(e1, m1, e2, msg());
	CHECK_EQ(e1, -ENOSPC);
	for (int i = 0; i < 64; i++)
		CHECK(i % 2 ? pmu_region_exit(a) == 0 : pmu_region_end("a") == 0);

	/* Threads: one handle, and one region over names and handles. */
	for (long i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *ret;

		CHECK(pthread_join(th[i], &ret) == 0);
		CHECK(ret == NULL);
	}
	h = pmu_region_register("shared");
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ(handles[i], h);
	/* Here too, nested in itself by handle and by name. */
	CHECK(pmu_region_enter(h) == 0);
	CHECK(pmu_region_begin("shared") == 0);
	CHECK(pmu_region_exit(h) == 0);
	CHECK(pmu_region_end("shared") == 0);

	r = pmu_results_take();
	CHECK_MSG(r != NULL, "%s", pmu_errmsg());
	CHECK_EQ(named(r, "shared"), 1);
	CHECK_EQ(named(r, "a"), 1);
	CHECK(get(r, "shared", -1, &o) == 0);
	CHECK_EQ(o.calls, (uint64_t)THREADS * ROUNDS * 3 + 2);
	CHECK_EQ(o.spans, (uint64_t)THREADS * ROUNDS * 3 + 1);
	CHECK(o.ns >= o.ns_max && o.ns_max >= o.ns_min);
	CHECK(get(r, "a", -1, &o) == 0);
	CHECK_EQ(o.calls, 65);
	CHECK_EQ(o.spans, 2);	/* one nested 64 deep */
	CHECK(get(r, "b", -1, &o) == 0);
	CHECK_EQ(o.calls, 1);
	pmu_results_free(r);

	/* A forked child: handles stay valid; the parent's open regions are not open there. */
	CHECK(pmu_region_enter(a) == 0);
	fflush(NULL);
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		int bad = 0;

		bad += pmu_region_exit(a) != -EINVAL;
		bad += pmu_region_enter(b) != 0;
		bad += pmu_region_exit(b) != 0;
		bad += pmu_region_register("b") != b;
		r = pmu_results_take();
		if (!r || get(r, "b", -1, &o) != 0 || o.calls != 1 || get(r, "a", -1, &o) != -ENOENT)
			bad++;
		pmu_results_free(r);
		_exit(bad ? 1 : 0);
	}
	{
		int st;

		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	}
	CHECK(pmu_region_exit(a) == 0);

	/* After pmu_thread_fini() the handles are gone with the names. */
	CHECK(pmu_thread_fini() == 0);
	CHECK_EQ(pmu_region_enter(a), -EINVAL);
	CHECK_EQ(pmu_region_exit(a), -EINVAL);
	/* A new start gives handles anew. */
	CHECK_MSG(pmu_thread_init("task-clock") == 0, "%s", pmu_errmsg());
	h = pmu_region_register("after");
	CHECK_EQ(h, 1);	/* the first, as after the first start: 0 is no region's */
	CHECK(pmu_region_enter(h) == 0 && pmu_region_end("after") == 0);
	CHECK_EQ(pmu_region_enter(h + 1), -EINVAL);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
