/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the riscv64 live tests (test/riscv64_*.c). They run in the QEMU
 * guest of test/riscv64/run.sh, which passes its configuration on the kernel
 * command line (libpmu.icount=, libpmu.cpu=); elsewhere they skip.
 * Each counter's mmap page is mapped a second time here: the kernel hands
 * every mapping of an event the same page.
 */
#ifndef PMU_TEST_RV64_H
#define PMU_TEST_RV64_H

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

#define RV64_MAX_FDS 64
/* The page's index is 1 + the counter's CSR number - 0xc00: 1 cycle, 3 instret, 4.. hpmcounter3.. */
#define RV64_IDX_CYCLE 1
#define RV64_IDX_INSTRET 3
#define RV64_IDX_MAX 32

/* SBI firmware events: config bit 63 on PMU cpu (format "firmware"). */
#define RV64_FIRMWARE (1ull << 63)

/* Skips unless this is a riscv64 Linux whose SBI PMU driver registered PMU "cpu". */
static inline void rv64_require(void)
{
#if !(defined(__riscv) && __riscv_xlen == 64)
	T_SKIP("not riscv64 (a riscv64 tier test; test/riscv64/run.sh runs it under QEMU)");
#else
	if (access("/sys/bus/event_source/devices/cpu/format/firmware", F_OK))
		T_SKIP("no riscv-pmu-sbi PMU (cpu with a firmware term) in /sys/bus/event_source/devices");
#endif
}

/* The value of libpmu.KEY= on the kernel command line, or NULL. */
static inline const char *rv64_cmdline(const char *key)
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
static inline bool rv64_icount(void)
{
	const char *v = rv64_cmdline("icount");

	return v && !strcmp(v, "1");
}

/* QEMU's -cpu model ("max", "cortex-a72"), or "" when unknown. */
static inline const char *rv64_cpu(void)
{
	const char *v = rv64_cmdline("cpu");

	return v ? v : "";
}

static inline long rv64_sysctl(const char *path)
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

static inline long rv64_user_access(void)
{
	return rv64_sysctl("/proc/sys/kernel/perf_user_access");
}

/* Skips unless kernel.perf_user_access is 1. */
static inline void rv64_require_user_access(void)
{
	long v = rv64_user_access();

	if (v != 1)
		T_SKIP("kernel.perf_user_access is %ld here (the user-space path needs 1; "
		       "riscv64_nouser covers 0, riscv64_legacy 2)", v);
}

/*
 * Hardware counters the SBI PMU offers, as the driver announced at boot
 * ("riscv-pmu-sbi: 16 firmware and 18 hardware counters"); 0 when the log
 * does not say.
 */
static inline int rv64_hw_counters(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf, *p;

	if (len <= 0 || !(buf = malloc((size_t)len + 1)))
		return 0;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len > 0) {
		buf[len] = '\0';
		if ((p = strstr(buf, " firmware and ")))
			n = atoi(p + strlen(" firmware and "));
	}
	free(buf);
	return n;
}

/*
 * The output of "pmu ARGS" (the tool next to the tests' directory, as in the
 * guest's /pmu), in buf; -1 when the tool is not there or fails.
 */
static inline int rv64_tool(const char *args, char *buf, size_t len)
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
static inline const char *rv64_line(const char *text, const char *key)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l + strspn(l, " "), key, strlen(key)))
			return l;
	return NULL;
}

/* One counter of a set as the kernel sees it. */
struct rv64_ctr {
	int fd;
	struct perf_event_mmap_page *pg;	/* our own mapping of the event's page */
};

struct rv64_set {
	struct pmu_set *s;
	unsigned n;				/* counters == events (no hybrid PMU here) */
	struct rv64_ctr c[RV64_MAX_FDS];
};

/*
 * pmu_open() and the set's descriptors (pmu__counter()), each page mapped
 * again here so that it can be looked at even where the library does not
 * map it. Returns pmu_open()'s result, or -EIO when the set is not one
 * counter per event.
 */
static inline int rv64_open(struct rv64_set *as, const char *events)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned ev;
	int r;

	memset(as, 0, sizeof(*as));
	r = pmu_open(&as->s, events);
	if (r < 0)
		return r;
	as->n = pmu__counters(as->s);
	if (as->n != pmu_count(as->s) || as->n > RV64_MAX_FDS) {
		fprintf(stderr, "%s: %u counters for %u events\n", events, as->n, pmu_count(as->s));
		pmu_close(as->s);
		as->s = NULL;
		as->n = 0;
		return -EIO;
	}
	for (unsigned i = 0; i < as->n; i++) {
		struct rv64_ctr *c = &as->c[i];

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

static inline void rv64_close(struct rv64_set *as)
{
	long ps = sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < as->n; i++)
		if (as->c[i].pg)
			munmap(as->c[i].pg, (size_t)ps);
	pmu_close(as->s);
	memset(as, 0, sizeof(*as));
}

/* The page's index (0: not on a counter now) and width, read under its seqlock. */
static inline uint32_t rv64_index(const struct rv64_set *as, unsigned i)
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

static inline uint32_t rv64_width(const struct rv64_set *as, unsigned i)
{
	return as->c[i].pg ? __atomic_load_n(&as->c[i].pg->pmc_width, __ATOMIC_RELAXED) : 0;
}

/*
 * read(2) of the set's events through the group leader's descriptor (the
 * library's layout: one event alone, or PERF_FORMAT_GROUP); raw counts.
 * 0 or -errno.
 */
static inline int rv64_read_raw(const struct rv64_set *as, uint64_t *vals)
{
	uint64_t b[3 + RV64_MAX_FDS];
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
static inline int rv64_read_lib(const struct rv64_set *as, uint64_t *vals)
{
	struct pmu_reading rd[RV64_MAX_FDS];
	int r = pmu_read_full(as->s, rd);

	for (unsigned i = 0; !r && i < as->n; i++)
		vals[i] = rd[i].value;
	return r;
}

/*
 * The library's read and read(2) of the same events agree: for each event,
 * library-before <= read(2) <= library-after (the counts only grow). Returns
 * the number of failed checks; what names the case in messages.
 */
static inline int rv64_sandwich(const struct rv64_set *as, const char *what)
{
	uint64_t a[RV64_MAX_FDS], raw[RV64_MAX_FDS], b[RV64_MAX_FDS];
	int fails = 0;

	if (rv64_read_lib(as, a) || rv64_read_raw(as, raw) || rv64_read_lib(as, b)) {
		fprintf(stderr, "%s: read failed: %s\n", what, pmu_errmsg());
		return 1;
	}
	for (unsigned i = 0; i < as->n; i++) {
		if (a[i] <= raw[i] && raw[i] <= b[i])
			continue;
		fprintf(stderr, "%s: event %u (%s, index %u): library %" PRIu64 ", read(2) %" PRIu64
			", library %" PRIu64 "\n", what, i, pmu_name(as->s, i), rv64_index(as, i),
			a[i], raw[i], b[i]);
		fails++;
	}
	return fails;
}

/* Exactly 2 * n + 1 instructions (n >= 1): a mv, then n times addi + bnez. */
static inline __attribute__((always_inline)) void rv64_spin(uint64_t n)
{
#if defined(__riscv)
	__asm__ volatile("mv t0, %0\n"
			 "1: addi t0, t0, -1\n"
			 "bnez t0, 1b\n"
			 : : "r"(n) : "t0");
#else
	for (volatile uint64_t i = 0; i < n; i++)
		;
#endif
}

#endif
