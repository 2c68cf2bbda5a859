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
 * Where rdpmc does not fault natively (a hypervisor that lets it run), the
 * test runs again under qemu-x86_64, whose user mode raises #GP on rdpmc as
 * a kernel without a PMU open to user space does; where it does fault, a
 * second pass under qemu-x86_64 follows the native one when QEMU is
 * installed, so that both ways stay proven on every machine. Under QEMU:
 *  - perf_event_open(2) is not implemented (ENOSYS): each event the test
 *    opens gets a stand-in descriptor (/dev/null), which mmap() and read()
 *    answer as before and ioctl() through syscall() takes as done;
 *  - PR_SET_TSC is refused: rdtsc is caught by single-stepping (the trap
 *    flag) while armed, the same instruction emulated at the same point.
 *    Natively, where PR_SET_TSC succeeds but rdtsc does not fault (some AMD
 *    hypervisors), or with PMU_TEST_TSC=step, rdtsc is single-stepped to too.
 * The test defines emu_rdpmc() and emu_rdtsc(), and its read() interposer;
 * syscall() is interposed too, perf_event_open going to emu_open_hook when
 * set, and ioctl(), going to emu_ioctl_hook first.
 * x86-64 only, not under ThreadSanitizer.
 */
#ifndef PMU_X86_EMU_H
#define PMU_X86_EMU_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <linux/perf_event.h>
#include "test.h"

#define EMU_MAX_PAGES 16
#define EMU_TF 0x100		/* EFLAGS' trap flag */
#define EMU_QEMU_ENV "PMU_TEST_UNDER_QEMU"
#define EMU_TSC_ENV "PMU_TEST_TSC"	/* "step": rdtsc single-stepped to natively too */
#ifdef T_SANITIZED
#define EMU_SANITIZED 1
#else
#define EMU_SANITIZED 0
#endif

static uint64_t emu_rdpmc(uint32_t ecx, void *ip);
static uint64_t emu_rdtsc(void);

static struct perf_event_mmap_page *emu_wpage[EMU_MAX_PAGES];	/* the simulation's view of the pages */
static int emu_memfd = -1;
static long emu_ps;
static int emu_qemu;		/* this run is the one under qemu-x86_64 */

/* What the library mapped: fds in mmap order (the first is the group leader), up to max. */
static struct {
	int active, n, max;
	int fd[EMU_MAX_PAGES];
} emu_cap;

static struct {
	volatile int armed, probe, probed;
	int step;		/* rdtsc caught by single-stepping, PR_SET_TSC being refused */
	int step_left;		/* instructions still stepped since the last rdpmc */
} emu_sig;

/* How far behind its rdpmc the library's clock read may come (a few dozen instructions). */
#define EMU_STEPS 256

/* Under qemu-x86_64: the stand-in descriptors of the perf events opened, until closed. */
static struct {
	int n;
	int fd[64];
} emu_standin;

static int emu_standin_index(int fd)
{
	for (int i = 0; i < emu_standin.n; i++)
		if (emu_standin.fd[i] == fd)
			return i;
	return -1;
}

static int emu_perf_fd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	if (emu_standin_index(fd) >= 0)
		return 1;
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

/* perf_event_open(2) as the test's events need it (-errno on failure); a stand-in under QEMU. */
static long emu_perf_open(struct perf_event_attr *at, long pid, long cpu, long group, long flags)
{
	long r = emu_raw_syscall(SYS_perf_event_open, (long)at, pid, cpu, group, flags, 0);

	if (r != -ENOSYS || !emu_qemu)
		return r;
	if (emu_standin.n == (int)(sizeof(emu_standin.fd) / sizeof(emu_standin.fd[0])))
		return -EMFILE;
	r = emu_raw_syscall(SYS_open, (long)"/dev/null", O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
	if (r >= 0)
		emu_standin.fd[emu_standin.n++] = (int)r;
	return r;
}

/* When set, what perf_event_open(2) through syscall() does instead (-errno on failure). */
static long (*emu_open_hook)(struct perf_event_attr *at, long pid, long cpu, long group, long flags);

/* Interposes syscall, which the library opens events with; a stand-in takes every ioctl. */
INTERPOSE long syscall(long n, ...)
{
	long a[6], r;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_perf_event_open)
		r = (emu_open_hook ? emu_open_hook : emu_perf_open)((struct perf_event_attr *)a[0], a[1], a[2],
								    a[3], a[4]);
	else if (n == SYS_ioctl && emu_standin_index((int)a[0]) >= 0)
		r = 0;
	else
		r = emu_raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* When set, what the test's kernel does with the library's ioctl(2) of a perf event (disable, reset, ...). */
static void (*emu_ioctl_hook)(int fd, unsigned long req);

/* Interposes ioctl: the hook first, then the kernel's (a stand-in's through syscall()). */
INTERPOSE int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	long arg;

	va_start(ap, req);
	arg = va_arg(ap, long);
	va_end(ap);
	if (emu_ioctl_hook)
		emu_ioctl_hook(fd, req);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/* Interposes close: a stand-in's number is free again. */
INTERPOSE int close(int fd)
{
	int i = emu_standin_index(fd);

	if (i >= 0)
		emu_standin.fd[i] = emu_standin.fd[--emu_standin.n];
	return (int)syscall(SYS_close, fd);
}

/* Which of the captured descriptors fd is, or -1. */
static inline int emu_cap_index(int fd)
{
	for (int i = 0; i < emu_cap.n; i++)
		if (emu_cap.fd[i] == fd)
			return i;
	return -1;
}

/* Emulates the rdpmc (0f 33) or rdtsc (0f 31) at the context's ip, and any right behind it; how many. */
static int emu_take(greg_t *g)
{
	int n = 0;

	for (;;) {
		const unsigned char *ip = (const unsigned char *)g[REG_RIP];
		uint64_t v;

		if (ip[0] != 0x0f || (ip[1] != 0x33 && ip[1] != 0x31))
			return n;
		if (emu_sig.probe) {
			emu_sig.probed++;
			v = 0;
		} else if (ip[1] == 0x33) {
			v = emu_rdpmc((uint32_t)g[REG_RCX], (void *)ip);
		} else {
			v = emu_rdtsc();
		}
		/* Stepping: from an rdpmc to the clock read behind it, if any. */
		if (emu_sig.step && !emu_sig.probe) {
			emu_sig.step_left = ip[1] == 0x33 ? EMU_STEPS : 0;
			g[REG_EFL] = ip[1] == 0x33 ? g[REG_EFL] | EMU_TF : g[REG_EFL] & ~(greg_t)EMU_TF;
		}
		g[REG_RAX] = (uint32_t)v;
		g[REG_RDX] = v >> 32;
		g[REG_RIP] += 2;
		n++;
	}
}

static void emu_on_segv(int sig, siginfo_t *si, void *uctx)
{
	greg_t *g = ((ucontext_t *)uctx)->uc_mcontext.gregs;

	/* Only a #GP (SI_KERNEL) from our instructions; anything else crashes as it would have. */
	if (!emu_sig.armed || si->si_code != SI_KERNEL || !emu_take(g))
		signal(sig, SIG_DFL);
}

/*
 * Single-stepping after each emulated rdpmc: the rdtsc about to run is
 * emulated; disarmed, or EMU_STEPS on with none, the stepping stops. (An
 * rdtsc that escaped would show in the test's count of clock reads.)
 */
static void emu_on_trap(int sig, siginfo_t *si, void *uctx)
{
	greg_t *g = ((ucontext_t *)uctx)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	if (!emu_sig.armed || !emu_sig.step || (!emu_take(g) && --emu_sig.step_left <= 0))
		g[REG_EFL] &= ~(greg_t)EMU_TF;
}

static void emu_trap_flag(int on)
{
	if (on)
		__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(EMU_TF) : "memory", "cc");
	else
		__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~EMU_TF) : "memory", "cc");
}

/* Around each library call: rdtsc faults only there (the vDSO clock uses it too). */
static void emu_arm(void)
{
	emu_sig.armed = 1;
	if (!emu_sig.step)
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
}

static void emu_disarm(void)
{
	if (emu_sig.step)
		emu_trap_flag(0);
	else
		prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
	emu_sig.armed = 0;
}

/* The core PMU named in sysfs, for what a skip says: "cpu", "cpu_core", ..., or NULL. */
static const char *emu_core_pmu(void)
{
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", names[i]);
		if (access(path, F_OK) == 0)
			return names[i];
	}
	return NULL;
}

/* qemu-x86_64 on PATH (Debian's qemu-user, or qemu-user-static's), into buf; 0, or -1. */
static int emu_find_qemu(char *buf, size_t size)
{
	static const char *const names[] = { "qemu-x86_64", "qemu-x86_64-static" };
	const char *path = getenv("PATH");

	for (unsigned i = 0; i < 2; i++)
		for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
			size_t len = strcspn(p, ":");

			snprintf(buf, size, "%.*s/%s", (int)len, p, names[i]);
			if (len && access(buf, X_OK) == 0)
				return 0;
			p += len + (p[len] == ':');
		}
	return -1;
}

/* This test under qemu-x86_64, in place of this process (replace) or as a child; the child's exit status. */
static int emu_run_qemu(const char *qemu, int replace)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t pid;
	int st;

	if (n <= 0)
		T_SKIP("/proc/self/exe: %s: the test cannot run itself under %s", strerror(errno), qemu);
	exe[n] = '\0';
	setenv(EMU_QEMU_ENV, "1", 1);
	fflush(stdout);
	fflush(stderr);
	pid = replace ? 0 : fork();
	if (pid == 0) {
		execl(qemu, qemu, exe, (char *)NULL);
		printf("exec %s: %s\n", qemu, strerror(errno));
		_exit(1);
	}
	unsetenv(EMU_QEMU_ENV);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* x86_rdpmc_emu_step: the native pass alone, rdtsc single-stepped to (QEMU's pass is x86_rdpmc_emu's). */
static int emu_forced_step(void)
{
#ifdef EMU_TSC_STEP
	return 1;
#else
	return 0;
#endif
}

/* Where rdpmc does not fault: this test under QEMU instead; where it does: QEMU's pass first, then native. */
static void emu_choose(int rdpmc_faults)
{
	char qemu[4096];
	const char *core = emu_core_pmu() ? "a core PMU is in sysfs" : "no core PMU in sysfs: the hypervisor lets it run";
	const char *noqemu = EMU_SANITIZED ? "a sanitizer's shadow memory does not map under qemu-x86_64"
					   : "qemu-x86_64, where it does, is not installed (Debian: qemu-user)";
	int found = !EMU_SANITIZED && emu_find_qemu(qemu, sizeof(qemu)) == 0;
	int rc;

	if (emu_qemu) {
		if (!rdpmc_faults)
			T_SKIP("rdpmc did not fault under qemu-x86_64: nothing to emulate");
		printf("# under qemu-x86_64: rdpmc raises #GP; perf events are stand-ins, rdtsc is single-stepped\n");
		return;
	}
	if (!found && !rdpmc_faults)
		T_SKIP("rdpmc does not fault natively here (%s), and %s", core, noqemu);
	if (!found || (rdpmc_faults && emu_forced_step()))
		return;
	if (!rdpmc_faults) {
		printf("# rdpmc does not fault natively here (%s): the test runs under %s\n", core, qemu);
		emu_run_qemu(qemu, 1);
		T_SKIP("exec %s failed", qemu);
	}
	printf("# rdpmc faults natively: the test runs under %s, then natively\n", qemu);
	rc = emu_run_qemu(qemu, 0);
	if (rc != 0 && rc != 77)
		t_failures++;
	printf("# under %s: %s; natively:\n", qemu, rc == 0 ? "passed" : rc == 77 ? "skipped" : "FAILED");
}

static void emu_handler(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL))
		T_SKIP("cannot install a handler of signal %d: %s", sig, strerror(errno));
}

/* rdtsc's probe under single-stepping (the trap flag): the instruction behind a nop caught. */
static void emu_probe_step(void)
{
	uint32_t lo, hi;

	emu_sig.step = 1;
	emu_sig.probed = 0;
	emu_trap_flag(1);
	__asm__ volatile("nop; rdtsc" : "=a"(lo), "=d"(hi));
	emu_trap_flag(0);
}

/*
 * Whether the clock read of each emulated instruction can be taken over:
 * made to fault (PR_SET_TSC), or else stepped to with the trap flag, as under
 * QEMU, which refuses PR_SET_TSC, and on hypervisors where the prctl succeeds
 * but rdtsc does not fault (an AMD VM's). EMU_TSC_ENV=step takes the second
 * way here too; x86_rdpmc_emu_step is built so, and every machine proves both.
 */
static void emu_setup_tsc(void)
{
	const char *how = emu_forced_step() ? "step" : getenv(EMU_TSC_ENV);
	uint32_t lo, hi;

	emu_sig.probe = emu_sig.armed = 1;
	emu_sig.probed = 0;
	if (!emu_qemu && !(how && !strcmp(how, "step")) && prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0) {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
		if (emu_sig.probed != 1)
			printf("# rdtsc does not fault here under PR_SET_TSC: it is single-stepped to instead\n");
	}
	if (emu_sig.probed != 1)
		emu_probe_step();
	emu_sig.probe = emu_sig.armed = 0;
	if (emu_sig.probed != 1)
		T_SKIP("rdtsc could not be caught here, by PR_SET_TSC or single-stepping");
	if (emu_sig.step && !emu_qemu)
		printf("# natively: rdtsc single-stepped to (the trap flag), not made to fault\n");
	if (emu_forced_step())	/* the same reads as x86_rdpmc_emu's, a twentieth of them: a signal a step */
		setenv("PMU_TEST_QUICK", "1", 1);
}

/* npages simulated pages; skips unless both instructions can be taken over, here or under QEMU. */
static void emu_setup(unsigned npages)
{
	uint32_t lo, hi;

	emu_qemu = getenv(EMU_QEMU_ENV) != NULL;
	emu_ps = sysconf(_SC_PAGESIZE);
	emu_memfd = (int)syscall(SYS_memfd_create, "pmu_sim_pages", 0);
	CHECK(emu_memfd >= 0 && npages <= EMU_MAX_PAGES && ftruncate(emu_memfd, npages * emu_ps) == 0);
	emu_wpage[0] = (void *)syscall(SYS_mmap, NULL, npages * emu_ps, PROT_READ | PROT_WRITE, MAP_SHARED,
				       emu_memfd, 0);
	CHECK(emu_wpage[0] != MAP_FAILED);
	for (unsigned i = 1; i < npages; i++)
		emu_wpage[i] = (void *)((char *)emu_wpage[0] + i * emu_ps);
	emu_handler(SIGSEGV, emu_on_segv);
	emu_handler(SIGTRAP, emu_on_trap);
	emu_sig.probe = emu_sig.armed = 1;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0));
	emu_sig.probe = emu_sig.armed = 0;
	emu_choose(emu_sig.probed == 1);
	emu_setup_tsc();
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
