/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the tests that run in a QEMU guest of a kernel tier
 * (test/arm64/run.sh, test/riscv64/run.sh), whatever the architecture: the
 * configuration the tier passes on the kernel command line (libpmu.icount=,
 * libpmu.cpu=), sysctls, the pmu tool, and sets whose every counter's mmap
 * page is mapped a second time here (the kernel hands every mapping of an
 * event the same page) so that reads can be checked against the page and
 * against read(2). test/arm64/a64.h and test/riscv64/rv64.h add each
 * architecture's own.
 */
#ifndef PMU_TEST_GUEST_H
#define PMU_TEST_GUEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pmu.h"
#include "test.h"
#include "set_peek.h"

#define GUEST_MAX_FDS 64

/* The value of libpmu.KEY= on the kernel command line, or NULL. */
static inline const char *guest_cmdline(const char *key)
{
	static char buf[4096], val[128];
	char pat[64], *p, *e;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	snprintf(pat, sizeof(pat), "libpmu.%s=", key);
	for (p = buf; (p = strstr(p, pat)); p++) {
		if (p != buf && p[-1] != ' ')
			continue;
		p += strlen(pat);
		for (e = p; *e && *e != ' ' && *e != '\n'; e++)
			;
		snprintf(val, sizeof(val), "%.*s", (int)(e - p), p);
		return val;
	}
	return NULL;
}

/* QEMU runs with -icount shift=0: one instruction per ns, counts exact. */
static inline bool guest_icount(void)
{
	const char *v = guest_cmdline("icount");

	return v && !strcmp(v, "1");
}

/* QEMU's -cpu model ("max", "cortex-a72"), or "" when unknown. */
static inline const char *guest_cpu(void)
{
	const char *v = guest_cmdline("cpu");

	return v ? v : "";
}

static inline long guest_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static inline long guest_user_access(void)
{
	return guest_sysctl("/proc/sys/kernel/perf_user_access");
}

/*
 * The output of "pmu ARGS" (the tool next to the tests' directory, as in the
 * guest's /pmu), in buf; -1 when the tool is not there or fails.
 */
static inline int guest_tool(const char *args, char *buf, size_t len)
{
	char exe[4096], cmd[4400], *p;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t got = 0;
	FILE *f;

	buf[0] = '\0';
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(p = strrchr(exe, '/')))
		return -1;
	*p = '\0';
	snprintf(cmd, sizeof(cmd), "%s/../pmu", exe);
	if (access(cmd, X_OK))
		return -1;
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s 2>&1", args);
	if (!(f = popen(cmd, "r")))
		return -1;
	while (got + 1 < len && (n = (ssize_t)fread(buf + got, 1, len - 1 - got, f)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	return pclose(f) == 0 ? 0 : -1;
}

/* The line of text that starts (after blanks) with key, or NULL. */
static inline const char *guest_line(const char *text, const char *key)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l + strspn(l, " "), key, strlen(key)))
			return l;
	return NULL;
}

/* The line of text that starts with key holds want. */
static inline bool guest_line_has(const char *text, const char *key, const char *want)
{
	const char *l = guest_line(text, key), *e = l ? strchr(l, '\n') : NULL, *w = l ? strstr(l, want) : NULL;

	return w && (!e || w < e);
}

/* The number after marker in the kernel log ("PMU driver, " in "..., 7 counters"); 0 when absent. */
static inline int guest_klog_number(const char *marker)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf, *p;

	if (len <= 0 || !(buf = malloc((size_t)len + 1)))
		return 0;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len > 0) {
		buf[len] = '\0';
		if ((p = strstr(buf, marker)))
			n = atoi(p + strlen(marker));
	}
	free(buf);
	return n;
}

/* One counter of a set as the kernel sees it. */
struct guest_ctr {
	int fd;
	struct perf_event_mmap_page *pg;	/* our own mapping of the event's page */
};

struct guest_set {
	struct pmu_set *s;
	unsigned n;				/* counters == events (no hybrid PMU here) */
	struct guest_ctr c[GUEST_MAX_FDS];
};

/*
 * pmu_open() and the set's descriptors (pmu__counter()), each page mapped
 * again here so that it can be looked at even where the library does not
 * map it. Returns pmu_open()'s result, or -EIO when the set is not one
 * counter per event.
 */
static inline int guest_open(struct guest_set *as, const char *events)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned ev;
	int r;

	memset(as, 0, sizeof(*as));
	r = pmu_open(&as->s, events);
	if (r < 0)
		return r;
	as->n = pmu__counters(as->s);
	if (as->n != pmu_count(as->s) || as->n > GUEST_MAX_FDS) {
		fprintf(stderr, "%s: %u counters for %u events\n", events, as->n, pmu_count(as->s));
		pmu_close(as->s);
		as->s = NULL;
		as->n = 0;
		return -EIO;
	}
	for (unsigned i = 0; i < as->n; i++) {
		struct guest_ctr *c = &as->c[i];

		if (pmu__counter(as->s, i, &c->fd, NULL, &ev) || ev != i) {
			fprintf(stderr, "%s: counter %u is not event %u\n", events, i, i);
			c->fd = -1;
			continue;
		}
		c->pg = mmap(NULL, (size_t)ps, PROT_READ, MAP_SHARED, c->fd, 0);
		if (c->pg == MAP_FAILED)
			c->pg = NULL;
	}
	return 0;
}

static inline void guest_close(struct guest_set *as)
{
	long ps = sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < as->n; i++)
		if (as->c[i].pg)
			munmap(as->c[i].pg, (size_t)ps);
	pmu_close(as->s);
	memset(as, 0, sizeof(*as));
}

/* The page's index (0: not on a counter now) and width, read under its seqlock. */
static inline uint32_t guest_index(const struct guest_set *as, unsigned i)
{
	const struct perf_event_mmap_page *pg = as->c[i].pg;
	uint32_t seq, idx;

	if (!pg)
		return 0;
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		idx = __atomic_load_n(&pg->index, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq);
	return idx;
}

static inline uint32_t guest_width(const struct guest_set *as, unsigned i)
{
	return as->c[i].pg ? __atomic_load_n(&as->c[i].pg->pmc_width, __ATOMIC_RELAXED) : 0;
}

/*
 * read(2) of the set's events through the group leader's descriptor (the
 * library's layout: one event alone, or PERF_FORMAT_GROUP); raw counts.
 * 0 or -errno.
 */
static inline int guest_read_raw(const struct guest_set *as, uint64_t *vals)
{
	uint64_t b[3 + GUEST_MAX_FDS];
	ssize_t got = read(as->c[0].fd, b, sizeof(b));

	if (got == 3 * 8 && as->n == 1) {
		vals[0] = b[0];
		return 0;
	}
	if (got < 4 * 8 || b[0] != as->n || got != (ssize_t)((3 + as->n) * 8))
		return got < 0 ? -errno : -EIO;
	for (unsigned i = 0; i < as->n; i++)
		vals[i] = b[3 + i];
	return 0;
}

/* Raw counts through the library (pmu_read_full, unscaled). 0 or -errno. */
static inline int guest_read_lib(const struct guest_set *as, uint64_t *vals)
{
	struct pmu_reading rd[GUEST_MAX_FDS];
	int r = pmu_read_full(as->s, rd);

	for (unsigned i = 0; !r && i < as->n; i++)
		vals[i] = rd[i].value;
	return r;
}

/*
 * The library's reads and read(2) of the same events agree: for each event,
 * library-before <= read(2) <= library-after (the counts only grow), and
 * while it is not multiplexed (its scaled value is the raw count) the inline
 * pmu_counter_read() fits between two more library reads. Returns the number
 * of failed checks; what names the case in messages.
 */
static inline int guest_sandwich(const struct guest_set *as, const char *what)
{
	uint64_t a[GUEST_MAX_FDS], raw[GUEST_MAX_FDS], b[GUEST_MAX_FDS], c[GUEST_MAX_FDS];
	struct pmu_reading rb[GUEST_MAX_FDS], rd[GUEST_MAX_FDS];
	int fails = 0, r = 0;

	if (guest_read_lib(as, a) || guest_read_raw(as, raw) || pmu_read_full(as->s, rb)) {
		fprintf(stderr, "%s: read failed: %s\n", what, pmu_errmsg());
		return 1;
	}
	for (unsigned i = 0; i < as->n && !r; i++)
		r = pmu_counter_read(pmu_counter(as->s, i), &c[i]);
	if (r || pmu_read_full(as->s, rd)) {
		fprintf(stderr, "%s: read failed: %d %s\n", what, r, pmu_errmsg());
		return 1;
	}
	for (unsigned i = 0; i < as->n; i++) {
		b[i] = rb[i].value;
		if (!(a[i] <= raw[i] && raw[i] <= b[i])) {
			fprintf(stderr, "%s: event %u (%s, index %u): library %" PRIu64 ", read(2) %" PRIu64
				", library %" PRIu64 "\n", what, i, pmu_name(as->s, i), guest_index(as, i),
				a[i], raw[i], b[i]);
			fails++;
		}
		if (rd[i].enabled == rd[i].running && !(b[i] <= c[i] && c[i] <= rd[i].value)) {
			fprintf(stderr, "%s: event %u (%s, index %u): library %" PRIu64 ", pmu_counter_read %"
				PRIu64 ", library %" PRIu64 "\n", what, i, pmu_name(as->s, i), guest_index(as, i),
				b[i], c[i], rd[i].value);
			fails++;
		}
	}
	return fails;
}

/* Exactly 2 * n + 1 instructions (n >= 1): a move, then n times a decrement and a branch. */
static inline __attribute__((always_inline, no_instrument_function)) void guest_spin(uint64_t n)
{
#if defined(__aarch64__)
	__asm__ volatile("mov x9, %0\n"
			 "1: subs x9, x9, #1\n"
			 "b.ne 1b\n"
			 : : "r"(n) : "x9", "cc");
#elif defined(__riscv)
	__asm__ volatile("mv t0, %0\n"
			 "1: addi t0, t0, -1\n"
			 "bnez t0, 1b\n"
			 : : "r"(n) : "t0");
#else
	for (volatile uint64_t i = 0; i < n; i++)
		;
#endif
}

/*
 * A set on the read(2) path because user access is off: no event is read
 * from user space, each one's reason holds reason, each page's index is 0
 * (and cap_user_rdpmc 0 when cap0), reads agree, and the first nadv events
 * advance over a spin.
 */
static inline void guest_nouser_set(const char *events, const char *reason, bool cap0, unsigned nadv)
{
	struct guest_set as;
	uint64_t v0[GUEST_MAX_FDS], v1[GUEST_MAX_FDS];
	const char *why;
	int r = guest_open(&as, events);

	CHECK_MSG(r == 0, "%s: %s", events, pmu_errmsg());
	if (r)
		return;
	for (unsigned i = 0; i < as.n; i++) {
		CHECK_MSG(pmu_user_read(as.s, i, &why) == 0, "%s: %s read from user space", events,
			  pmu_name(as.s, i));
		CHECK_MSG(strstr(why, reason) != NULL, "%s: %s: reason \"%s\" does not say \"%s\"", events,
			  pmu_name(as.s, i), why, reason);
		/* The kernel hands no counter to user space. */
		CHECK_MSG(guest_index(&as, i) == 0, "%s: %s: index %u without user access", events,
			  pmu_name(as.s, i), guest_index(&as, i));
		if (cap0)
			CHECK_MSG(as.c[i].pg && !as.c[i].pg->cap_user_rdpmc, "%s: %s: cap_user_rdpmc is not 0",
				  events, pmu_name(as.s, i));
	}
	CHECK(guest_sandwich(&as, events) == 0);
	CHECK(pmu_read(as.s, v0) == 0);
	guest_spin(1 << 18);
	CHECK(pmu_read(as.s, v1) == 0);
	for (unsigned i = 0; i < as.n && i < nadv; i++)
		CHECK_MSG(v1[i] > v0[i], "%s: %s did not advance (%" PRIu64 " then %" PRIu64 ")", events,
			  pmu_name(as.s, i), v0[i], v1[i]);
	CHECK(guest_sandwich(&as, events) == 0);
	guest_close(&as);
}

/*
 * One set of cycles more than the n sets holding every counter: the sets
 * take turns, and every read of each stays consistent over the rounds.
 */
static inline void guest_one_more(struct guest_set *sets, int n, int rounds)
{
	char what[96];
	int r = guest_open(&sets[n], "cycles");

	CHECK_MSG(r == 0, "set %d of %d: %s", n + 1, n, pmu_errmsg());
	if (r)
		return;
	for (int round = 0; round < rounds; round++) {
		for (int k = 0; k <= n; k++) {
			snprintf(what, sizeof(what), "set %d of %d sets on %d counters", k + 1, n + 1, n);
			CHECK(guest_sandwich(&sets[k], what) == 0);
		}
		guest_spin(1 << 16);
	}
	guest_close(&sets[n]);
}

/* The counts between two pmu_read() calls around guest_spin(n), per event. */
static inline int guest_measure(const struct guest_set *as, uint64_t n, uint64_t *delta)
{
	uint64_t a[GUEST_MAX_FDS], b[GUEST_MAX_FDS];
	int r;

	r = pmu_read(as->s, a);
	guest_spin(n);
	r = r ? r : pmu_read(as->s, b);
	for (unsigned i = 0; !r && i < as->n; i++)
		delta[i] = b[i] - a[i];
	return r;
}

/* guest_open(), checked, and every event read from user space (user 1) or not (0). */
static inline int guest_open_user(struct guest_set *as, const char *events, int user)
{
	const char *why;
	int r = guest_open(as, events);

	CHECK_MSG(r == 0, "%s: %s", events, pmu_errmsg());
	for (unsigned i = 0; r == 0 && i < as->n; i++)
		CHECK_MSG(pmu_user_read(as->s, i, &why) == user, "%s: %s: %s user space: %s", events,
			  pmu_name(as->s, i), user ? "not read from" : "read from", why);
	return r;
}

#endif
