/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the arm64 live tests (test/arm64_*.c). They run in the QEMU
 * guest of test/arm64/run.sh, which passes its configuration on the kernel
 * command line (libpmu.icount=, libpmu.cpu=); elsewhere they skip.
 * Each counter's mmap page is mapped a second time here: the kernel hands
 * every mapping of an event the same page.
 */
#ifndef PMU_TEST_A64_H
#define PMU_TEST_A64_H

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
#include "../test.h"
#include "arch.h"
#include "introspect.h"

#define A64_MAX_FDS 64
#define A64_CYCLE_IDX 32	/* PMCCNTR_EL0 in the page's 1-based index */

/* Skips unless this is an arm64 Linux with an armv8 PMU in sysfs. */
static inline void a64_require(void)
{
#ifndef __aarch64__
	T_SKIP("not arm64 (an arm64 tier test; test/arm64/run.sh runs it under QEMU)");
#else
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strncmp(e->d_name, "armv8_", 6);
	if (d)
		closedir(d);
	if (!found)
		T_SKIP("no armv8 PMU in /sys/bus/event_source/devices");
#endif
}

/* The value of libpmu.KEY= on the kernel command line, or NULL. */
static inline const char *a64_cmdline(const char *key)
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
static inline bool a64_icount(void)
{
	const char *v = a64_cmdline("icount");

	return v && !strcmp(v, "1");
}

/* QEMU's -cpu model ("max", "cortex-a72"), or "" when unknown. */
static inline const char *a64_cpu(void)
{
	const char *v = a64_cmdline("cpu");

	return v ? v : "";
}

static inline long a64_sysctl(const char *path)
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

static inline long a64_user_access(void)
{
	return a64_sysctl("/proc/sys/kernel/perf_user_access");
}

/*
 * Linux before 5.17 has no kernel.perf_user_access and gives tasks no access
 * to the counters: there the arm64 tests check the read(2) path on the same
 * counters (pmu_user_read() 0, index 0, values agreeing with read(2)).
 */
static inline bool a64_before_user_access(void)
{
	return access("/proc/sys/kernel/perf_user_access", F_OK) != 0;
}

/* Skips unless kernel.perf_user_access is 1, or the kernel predates it (see above). */
static inline void a64_require_user_access(void)
{
	long v = a64_user_access();

	if (v != 1 && !a64_before_user_access())
		T_SKIP("kernel.perf_user_access is %ld here (the user-space path needs 1; "
		       "arm64_nouser covers 0)", v);
}

/* The armv8 PMU's sysfs name (armv8_pmuv3, armv8_pmuv3_0, ...). */
static inline const char *a64_pmu_name(void)
{
	static char name[256];
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;

	name[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "armv8_", 6) && !name[0])
			snprintf(name, sizeof(name), "%s", e->d_name);
	if (d)
		closedir(d);
	return name;
}

/*
 * Counters of the PMU, cycle counter included, as the driver announced at
 * boot ("hw perfevents: enabled with armv8_pmuv3 PMU driver, 7 counters
 * available"); 0 when the log does not say.
 */
static inline int a64_counters(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf, *p;

	if (len <= 0 || !(buf = malloc((size_t)len + 1)))
		return 0;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len > 0) {
		buf[len] = '\0';
		if ((p = strstr(buf, "PMU driver, ")))
			n = atoi(p + strlen("PMU driver, "));
	}
	free(buf);
	return n;
}

/* One counter of a set as the kernel sees it. */
struct a64_ctr {
	int fd;
	struct perf_event_mmap_page *pg;	/* our own mapping of the event's page */
};

struct a64_set {
	struct pmu_set *s;
	unsigned n;				/* counters == events (no hybrid PMU here) */
	struct a64_ctr c[A64_MAX_FDS];
};

/*
 * pmu_open() and the set's descriptors (pmu__counter()), each page mapped
 * again here so that it can be looked at even where the library does not
 * map it. Returns pmu_open()'s result, or -EIO when the set is not one
 * counter per event.
 */
static inline int a64_open(struct a64_set *as, const char *events)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned ev;
	int r;

	memset(as, 0, sizeof(*as));
	r = pmu_open(&as->s, events);
	if (r < 0)
		return r;
	as->n = pmu__counters(as->s);
	if (as->n != pmu_count(as->s) || as->n > A64_MAX_FDS) {
		fprintf(stderr, "%s: %u counters for %u events\n", events, as->n, pmu_count(as->s));
		pmu_close(as->s);
		as->s = NULL;
		as->n = 0;
		return -EIO;
	}
	for (unsigned i = 0; i < as->n; i++) {
		struct a64_ctr *c = &as->c[i];

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

static inline void a64_close(struct a64_set *as)
{
	long ps = sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < as->n; i++)
		if (as->c[i].pg)
			munmap(as->c[i].pg, (size_t)ps);
	pmu_close(as->s);
	memset(as, 0, sizeof(*as));
}

/* The page's index (0: not on a counter now) and width, read under its seqlock. */
static inline uint32_t a64_index(const struct a64_set *as, unsigned i)
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

static inline uint32_t a64_width(const struct a64_set *as, unsigned i)
{
	return as->c[i].pg ? __atomic_load_n(&as->c[i].pg->pmc_width, __ATOMIC_RELAXED) : 0;
}

/*
 * read(2) of the set's events through the group leader's descriptor (the
 * library's layout: one event alone, or PERF_FORMAT_GROUP); raw counts.
 * 0 or -errno.
 */
static inline int a64_read_raw(const struct a64_set *as, uint64_t *vals)
{
	uint64_t b[3 + A64_MAX_FDS];
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
static inline int a64_read_lib(const struct a64_set *as, uint64_t *vals)
{
	struct pmu_reading rd[A64_MAX_FDS];
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
static inline int a64_sandwich(const struct a64_set *as, const char *what)
{
	uint64_t a[A64_MAX_FDS], raw[A64_MAX_FDS], b[A64_MAX_FDS], c[A64_MAX_FDS];
	struct pmu_reading rb[A64_MAX_FDS], rd[A64_MAX_FDS];
	int fails = 0, r = 0;

	if (a64_read_lib(as, a) || a64_read_raw(as, raw) || pmu_read_full(as->s, rb)) {
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
				", library %" PRIu64 "\n", what, i, pmu_name(as->s, i), a64_index(as, i),
				a[i], raw[i], b[i]);
			fails++;
		}
		if (rd[i].enabled == rd[i].running && !(b[i] <= c[i] && c[i] <= rd[i].value)) {
			fprintf(stderr, "%s: event %u (%s, index %u): library %" PRIu64 ", pmu_counter_read %"
				PRIu64 ", library %" PRIu64 "\n", what, i, pmu_name(as->s, i), a64_index(as, i),
				b[i], c[i], rd[i].value);
			fails++;
		}
	}
	return fails;
}

/* Exactly 2 * n + 1 instructions (n >= 1): a mov, then n times subs + b.ne. */
static inline __attribute__((always_inline)) void a64_spin(uint64_t n)
{
#ifdef __aarch64__
	__asm__ volatile("mov x9, %0\n"
			 "1: subs x9, x9, #1\n"
			 "b.ne 1b\n"
			 : : "r"(n) : "x9", "cc");
#else
	for (volatile uint64_t i = 0; i < n; i++)
		;
#endif
}

#endif
