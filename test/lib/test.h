/* SPDX-License-Identifier: MIT */
/* Tiny test harness: a test is a program that exits 0 (pass), 1 (fail) or 77 (skip, with a reason). */
#ifndef PMU_TEST_H
#define PMU_TEST_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fds.h"

static int t_failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		t_failures++; \
	} \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		t_failures++; \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ != b_) { \
		fprintf(stderr, "%s:%d: check failed: %s == %s (0x%" PRIx64 " != 0x%" PRIx64 ")\n", \
			__FILE__, __LINE__, #a, #b, a_, b_); \
		t_failures++; \
	} \
} while (0)

/* Skips the whole test: the runner shows the reason. */
#define T_SKIP(...) do { \
	printf("SKIP: "); printf(__VA_ARGS__); printf("\n"); fflush(stdout); exit(77); \
} while (0)

#define T_DONE() return t_failures ? 1 : 0

/*
 * Temporary files and directories with names nobody can guess or plant
 * beforehand (mkstemp, mkdtemp), under $TMPDIR or /tmp: "DIR/pmu-WHAT-XXXXXX"
 * into buf. t_tmpfile makes the file (empty, 0600) and closes it. 0, or -1
 * with the failure counted against the test.
 */
static inline int t_tmpname(char *buf, size_t size, const char *what)
{
	const char *dir = getenv("TMPDIR");
	int n = snprintf(buf, size, "%s/pmu-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);

	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "temporary name for %s: too long\n", what);
		t_failures++;
		return -1;
	}
	return 0;
}

static inline int t_tmpfile(char *buf, size_t size, const char *what)
{
	int fd;

	if (t_tmpname(buf, size, what))
		return -1;
	fd = mkstemp(buf);
	if (fd < 0) {
		fprintf(stderr, "mkstemp %s: %s\n", buf, strerror(errno));
		t_failures++;
		return -1;
	}
	close(fd);
	return 0;
}

static inline int t_tmpdir(char *buf, size_t size, const char *what)
{
	if (t_tmpname(buf, size, what))
		return -1;
	if (!mkdtemp(buf)) {
		fprintf(stderr, "mkdtemp %s: %s\n", buf, strerror(errno));
		t_failures++;
		return -1;
	}
	return 0;
}

/* The whole file (at most 64 KiB), NUL-terminated, in a buffer the next call reuses; NULL when unreadable. */
static inline char *t_file(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The file name in directory dir, as t_file() reads it. */
static inline char *t_file_in(const char *dir, const char *name)
{
	char path[4096 + 256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return t_file(path);
}

/* valgrind runs the program with its own libraries preloaded. */
static inline int t_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload") != NULL;
}

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif

/*
 * AddressSanitizer does not follow the unwinding of a cancelled thread
 * (glibc's cleanup handlers are left by longjmp): the frames left behind stay
 * poisoned, and ASan reports its own reads there at the thread's exit.
 */
#ifdef T_ASAN
#define T_SKIP_CANCEL_UNDER_ASAN() T_SKIP("AddressSanitizer does not follow pthread_cancel()'s unwinding " \
	"(its frames stay poisoned): the tsan and valgrind tiers run this test")
#else
#define T_SKIP_CANCEL_UNDER_ASAN() do { } while (0)
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define T_SANITIZED 1
#endif
#endif

/*
 * Number of mappings of this process. Sanitizer runtimes and valgrind map
 * and unmap memory of their own as they go: there only perf event mappings
 * are counted.
 */
static inline int t_map_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0, all = !t_under_valgrind();

#ifdef T_SANITIZED
	all = 0;
#endif
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += all || strstr(line, "perf_event") != NULL;
	fclose(f);
	return n;
}

/* Faults in n pages never touched before, then unmaps them. (Not a function of its own to -finstrument-functions.) */
static inline __attribute__((no_instrument_function)) void t_touch_pages(long n)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *m = mmap(NULL, (size_t)(n * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return;
	/* one fault per page: a transparent huge page would take 512 at once, when memory allows */
	madvise((void *)m, (size_t)(n * ps), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		m[i * ps] = 1;
	munmap((void *)m, (size_t)(n * ps));
}

/* Under emulation (the arm64 tier) loops are cut down: PMU_TEST_QUICK=1. */
static inline long t_scale(long n)
{
	const char *q = getenv("PMU_TEST_QUICK");

	return q && *q && *q != '0' ? (n / 20 > 0 ? n / 20 : 1) : n;
}

#endif
