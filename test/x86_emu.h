/* SPDX-License-Identifier: MIT */
/*
 * The x86 emulation harness of x86_rdpmc_emu and x86_topdown_emu: the
 * library's own user-space read run on a machine without a PMU.
 *  - the test's mmap() hands the library a page of the simulation (memfd
 *    pages, writable through emu_wpage[]) in place of each perf event's page
 *    it maps while emu_cap.active, recording the descriptors in mmap order;
 *  - rdpmc faults (#GP, SIGSEGV) and so does rdtsc (PR_SET_TSC) while
 *    emu_sig.armed: the handler checks the bytes are 0f 33 / 0f 31, returns
 *    the test's emu_rdpmc(ECX, ip) or emu_rdtsc() in EDX:EAX and steps over
 *    the instruction.
 * The test defines emu_rdpmc() and emu_rdtsc(), and its read() interposer;
 * syscall() is interposed too, perf_event_open going to emu_open_hook when set.
 * x86-64 only, not under ThreadSanitizer.
 */
#ifndef PMU_X86_EMU_H
#define PMU_X86_EMU_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <linux/perf_event.h>
#include "test.h"

#define EMU_MAX_PAGES 16

static uint64_t emu_rdpmc(uint32_t ecx, void *ip);
static uint64_t emu_rdtsc(void);

static struct perf_event_mmap_page *emu_wpage[EMU_MAX_PAGES];	/* the simulation's view of the pages */
static int emu_memfd = -1;
static long emu_ps;

/* What the library mapped: fds in mmap order (the first is the group leader), up to max. */
static struct {
	int active, n, max;
	int fd[EMU_MAX_PAGES];
} emu_cap;

static struct {
	volatile int armed, probe, probed;
} emu_sig;

static int emu_perf_fd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:[perf_event]");
}

/* The interposers are exported, so that libpmu.so's calls bind to them too. */
#define INTERPOSE __attribute__((visibility("default")))

/* Interposes mmap: a perf event's page becomes the simulation's, read-only. */
INTERPOSE void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (emu_cap.active && fd >= 0 && (flags & MAP_SHARED) && emu_cap.n < emu_cap.max && emu_perf_fd(fd)) {
		emu_cap.fd[emu_cap.n] = fd;
		return (void *)syscall(SYS_mmap, NULL, (size_t)emu_ps, PROT_READ, MAP_SHARED, emu_memfd,
				       (off_t)(emu_cap.n++ * emu_ps));
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* A system call as glibc's syscall() makes it, without it: -errno on failure. */
static long emu_raw_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* When set, what perf_event_open(2) through syscall() does instead (-errno on failure). */
static long (*emu_open_hook)(struct perf_event_attr *at, long pid, long cpu, long group, long flags);

/* Interposes syscall, which the library opens events with. */
INTERPOSE long syscall(long n, ...)
{
	long a[6], r;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_perf_event_open && emu_open_hook)
		r = emu_open_hook((struct perf_event_attr *)a[0], a[1], a[2], a[3], a[4]);
	else
		r = emu_raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Which of the captured descriptors fd is, or -1. */
static inline int emu_cap_index(int fd)
{
	for (int i = 0; i < emu_cap.n; i++)
		if (emu_cap.fd[i] == fd)
			return i;
	return -1;
}

static void emu_on_segv(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	greg_t *g = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)g[REG_RIP];
	uint64_t v;

	/* Only a #GP (SI_KERNEL) from our instructions; anything else crashes as it would have. */
	if (!emu_sig.armed || si->si_code != SI_KERNEL || ip[0] != 0x0f || (ip[1] != 0x33 && ip[1] != 0x31)) {
		signal(sig, SIG_DFL);
		return;
	}
	if (emu_sig.probe) {
		emu_sig.probed++;
		v = 0;
	} else if (ip[1] == 0x33) {
		v = emu_rdpmc((uint32_t)g[REG_RCX], (void *)ip);
	} else {
		v = emu_rdtsc();
	}
	g[REG_RAX] = (uint32_t)v;
	g[REG_RDX] = v >> 32;
	g[REG_RIP] += 2;
}

/* Around each library call: rdtsc faults only there (the vDSO clock uses it too). */
static void emu_arm(void)
{
	emu_sig.armed = 1;
	prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
}

static void emu_disarm(void)
{
	prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
	emu_sig.armed = 0;
}

/* npages simulated pages; skips unless both instructions fault here and the handler can take them over. */
static void emu_setup(unsigned npages)
{
	struct sigaction sa;
	uint32_t lo, hi;

	emu_ps = sysconf(_SC_PAGESIZE);
	emu_memfd = (int)syscall(SYS_memfd_create, "pmu_sim_pages", 0);
	CHECK(emu_memfd >= 0 && npages <= EMU_MAX_PAGES && ftruncate(emu_memfd, npages * emu_ps) == 0);
	emu_wpage[0] = (void *)syscall(SYS_mmap, NULL, npages * emu_ps, PROT_READ | PROT_WRITE, MAP_SHARED,
				       emu_memfd, 0);
	CHECK(emu_wpage[0] != MAP_FAILED);
	for (unsigned i = 1; i < npages; i++)
		emu_wpage[i] = (void *)((char *)emu_wpage[0] + i * emu_ps);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emu_on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		T_SKIP("cannot install a SIGSEGV handler: %s", strerror(errno));
	emu_sig.probe = emu_sig.armed = 1;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0));
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
		T_SKIP("prctl(PR_SET_TSC) failed (%s): rdtsc cannot be made to fault", strerror(errno));
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
	emu_sig.probe = emu_sig.armed = 0;
	if (emu_sig.probed != 2)
		T_SKIP("rdpmc does not fault on this machine (it has a PMU open to user space): "
		       "nothing to emulate");
}

/* A failure, printed for the first 10. */
static int emu_nerr;

static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	t_failures++;
	if (emu_nerr++ >= 10)
		return;
	fprintf(stderr, "%s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#endif
