/* SPDX-License-Identifier: MIT */
/*
 * libpmu-qemu: a plugin of QEMU's user-mode emulation that counts each
 * thread's instructions into the table of counters/emu_table.h, in the
 * memfd the launcher (pmu emulate, pmu stat --emulate) hands it as
 * fd=N. The program under QEMU reads its own thread's count with a load
 * (counters/emulated.c). See libpmu-qemu(7).
 *
 * QEMU's plugin header is GPL-2.0-or-later: the few calls used here are
 * declared below from its documented API, so that this file and the
 * plugin built from it stay MIT. They are the same in API versions 1 to 4
 * (QEMU 6.0 to 10.x); what changed between them (inline ops became
 * per-vCPU scoreboards in 2, insn_data in 3) is not used here.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/internal.h"	/* header-only: branch hints */
#include "counters/emu_table.h"

/* ---- QEMU's plugin API, version 1: what this plugin calls ---- */

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, unsigned int));
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, unsigned int));
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, void (*cb)(unsigned int, void *),
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
					  void (*cb)(qemu_plugin_id_t, unsigned int, int64_t, uint64_t, uint64_t,
						     uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t));
void qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id,
					      void (*cb)(qemu_plugin_id_t, unsigned int, int64_t, int64_t));
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *), void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);

#define API __attribute__((visibility("default")))

/*
 * QEMU reads qemu_plugin_version as soon as the plugin is loaded, before
 * qemu_plugin_install, and refuses one below its minimum: so a constructor
 * picks it from the API symbols this QEMU exports. 9.0 removed
 * qemu_plugin_n_vcpus (version 2, the minimum since); 9.2 added
 * qemu_plugin_read_memory_vaddr (version 4). The emulated tier builds with
 * -DPLUGIN_API=N to see a version QEMU refuses.
 */
#ifdef PLUGIN_API
API int qemu_plugin_version = PLUGIN_API;
#else
API int qemu_plugin_version = 1;

__attribute__((constructor)) static void pick_version(void)
{
	if (dlsym(RTLD_DEFAULT, "qemu_plugin_read_memory_vaddr"))
		qemu_plugin_version = 4;
	else if (!dlsym(RTLD_DEFAULT, "qemu_plugin_n_vcpus"))
		qemu_plugin_version = 2;
}
#endif

/* ---- the tables ---- */

static struct pmu__emu_table *own;	/* this process's: its threads' slots */
static struct pmu__emu_table *root;	/* the launcher's: the whole run's ended total (own, but in a forked child) */
static int table_fd;			/* own's descriptor number, which the program finds in PMU_EMULATED_FD */
static int64_t nr_execve, nr_execveat;	/* the target's numbers of the two */
static uint64_t exec_added;		/* what an execve in progress added to ended, taken back if it fails */

static void tb_exec(unsigned int vcpu, void *n)
{
	struct pmu__emu_slot *s;

	if (unlikely(vcpu >= PMU_EMU_SLOTS)) {	/* a thread past the table: counted in the total alone */
		PMU_ADD(root->ended, (uintptr_t)n);
		return;
	}
	s = &own->slot[vcpu];
	if (unlikely(!s->tid))
		s->tid = (int32_t)syscall(SYS_gettid);
	PMU_WRITE_ONCE(s->count, s->count + (uintptr_t)n);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

/* n instructions into the totals of the threads that ended: this process's, and the run's. */
static void add_ended(uint64_t n)
{
	PMU_ADD(own->ended, n);
	if (root != own)
		PMU_ADD(root->ended, n);
}

/* Slot vcpu's count into the totals, the slot cleared for the next thread it serves. */
static void end_slot(unsigned int vcpu)
{
	add_ended(own->slot[vcpu].count);
	memset(&own->slot[vcpu], 0, sizeof(own->slot[vcpu]));
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu < PMU_EMU_SLOTS)
		memset(&own->slot[vcpu], 0, sizeof(own->slot[vcpu]));
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu < PMU_EMU_SLOTS)
		end_slot(vcpu);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	for (unsigned int v = 0; v < PMU_EMU_SLOTS; v++)
		end_slot(v);
}

static bool is_exec(int64_t num)
{
	return num == nr_execve || num == nr_execveat;
}

/* Before an execve, the run's total takes in this process's threads; taken back if it fails. */
static void syscall_in(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
		       uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	(void)id, (void)vcpu, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
	if (is_exec(num)) {
		exec_added = pmu__emu_live(own);	/* QEMU does not run the new program */
		add_ended(exec_added);
	}
}

static void syscall_out(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id, (void)vcpu, (void)ret;
	if (is_exec(num) && exec_added) {
		add_ended(-exec_added);
		exec_added = 0;
	}
}

static struct pmu__emu_table *map_table(int fd)
{
	void *p = mmap(NULL, sizeof(struct pmu__emu_table), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A forked child counts into a table of its own, at the same descriptor
 * number, so that its threads never add into its parent's slots; it keeps
 * the launcher's mapped for the run's total. Only the forking thread runs.
 */
static void after_fork(void)
{
	int fd = memfd_create("libpmu-qemu", MFD_CLOEXEC);
	struct pmu__emu_table *t = NULL;

	if (fd >= 0 && ftruncate(fd, sizeof(*t)) == 0)
		t = map_table(fd);
	if (!t || dup3(fd, table_fd, O_CLOEXEC) < 0) {
		fprintf(stderr, "libpmu-qemu: a forked process gets no table of its own: its counts go unread\n");
		if (t)
			munmap(t, sizeof(*t));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	memcpy(t, own, offsetof(struct pmu__emu_table, slot));
	t->pid = getpid();
	t->ended = 0;
	if (own != root)
		munmap(own, sizeof(*own));
	own = t;
}

/* The target's execve and execveat numbers: x86-64's, or the generic table's (arm64, riscv64). */
static bool exec_numbers(const char *target)
{
	if (!strcmp(target, "x86_64")) {
		nr_execve = 59;
		nr_execveat = 322;
	} else if (!strcmp(target, "aarch64") || !strcmp(target, "riscv64")) {
		nr_execve = 221;
		nr_execveat = 281;
	} else {
		return false;
	}
	return true;
}

static __attribute__((format(printf, 1, 2))) int refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("libpmu-qemu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* fd=N: the table's descriptor, the launcher's memfd; the table checked, and taken for this process. */
static int take_table(int argc, char **argv)
{
	long fd = -1;
	char *end;

	for (int i = 0; i < argc; i++) {
		bool num = !strncmp(argv[i], "fd=", 3) && (fd = strtol(argv[i] + 3, &end, 10)) >= 0 && !*end &&
			   end > argv[i] + 3;

		if (!num)
			return refuse("%s: not an argument of this plugin (fd=N, which pmu emulate gives)", argv[i]);
	}
	if (fd < 0)
		return refuse("no fd=N: run programs with pmu emulate or pmu stat --emulate");
	table_fd = (int)fd;
	root = own = map_table(table_fd);
	if (!own || own->magic != PMU_EMU_MAGIC || own->size != sizeof(*own))
		return refuse("fd=%ld: not a table of pmu's launcher", fd);
	fcntl(table_fd, F_SETFD, FD_CLOEXEC);	/* a program QEMU no longer runs (after execve) finds none */
	own->pid = getpid();
	return 0;
}

API int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	if (info->system_emulation)
		return refuse("%s: runs under QEMU's user-mode emulation only (qemu-x86_64, qemu-aarch64...), not a "
			      "system emulator", info->target_name);
	if (info->version.min > qemu_plugin_version)
		return refuse("written for QEMU's plugin API %d, which this QEMU no longer gives (it takes %d to %d)",
			      qemu_plugin_version, info->version.min, info->version.cur);
	if (!exec_numbers(info->target_name))
		return refuse("%s: a target libpmu does not count (x86_64, aarch64, riscv64)", info->target_name);
	if (take_table(argc, argv) < 0)
		return -1;
	own->api = (uint32_t)info->version.cur;
	snprintf(own->target, sizeof(own->target), "%s", info->target_name);
	pthread_atfork(NULL, NULL, after_fork);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_in);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_out);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
