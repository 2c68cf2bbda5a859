/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpmu-valgrind: a Valgrind tool that counts each thread's guest
 * instructions into the table of counters/emu_table.h, in the memfd the
 * launcher (pmu emulate --backend valgrind, pmu stat --emulate) hands it
 * as --pmu-fd=N: the table libpmu-qemu keeps under QEMU, so that the
 * program under Valgrind reads its own thread's count with the same load
 * (counters/emulated.c). It links Valgrind's GPL-2.0 libraries, and is
 * therefore a separate program under the GPL (COPYING in this directory);
 * the rest of libpmu is MIT.
 *
 * A block's count is added as each of its pieces starts (a piece ends at a
 * side exit, or at the block's end), as QEMU's plugin adds a block's: a
 * load of the count is exact but for the instructions left in its piece,
 * which the launcher makes end at the next jump (--vex-guest-chase=no), so
 * that the library's one read constant serves both backends.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "counters/emu_table.h"

/* Valgrind's core, not its tool interface: a shared mapping of a file, and a raw system call. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4, RegWord a5,
			      RegWord a6, RegWord a7, RegWord a8);
#define MFD_CLOEXEC 1u
#define O_CLOEXEC 02000000u	/* x86-64's and arm64's */
#define SYS3(n, a, b, c) VG_(do_syscall)((n), (RegWord)(a), (RegWord)(b), (RegWord)(c), 0, 0, 0, 0, 0)

static Long table_fd = -1;		/* --pmu-fd=N: the table's descriptor, which the program finds too */
static struct pmu__emu_table *own;	/* this process's: its threads' slots */
static struct pmu__emu_table *root;	/* the launcher's: the run's ended total (own, but in a forked child) */
static uint64_t overflow;			/* a thread past the table's slots counts here, then into the totals */
static uint64_t *cur = &overflow;		/* the running thread's count, which each piece of a block adds to */
static ThreadId cur_tid;
static ULong exec_added;		/* what an execve in progress added to ended, taken back if it fails */

static uint64_t *slot_count(ThreadId tid)
{
	return tid < PMU_EMU_SLOTS ? &own->slot[tid].count : &overflow;
}

/* The thread about to run: its slot takes its kernel thread id at its first block. */
static void start_client(ThreadId tid, ULong blocks)
{
	(void)blocks;
	if (tid < PMU_EMU_SLOTS && !own->slot[tid].tid)
		own->slot[tid].tid = VG_(gettid)();
	cur = slot_count(tid);
	cur_tid = tid;
}

static void add_ended(ULong n)
{
	__atomic_fetch_add(&own->ended, n, __ATOMIC_RELAXED);
	if (root != own)
		__atomic_fetch_add(&root->ended, n, __ATOMIC_RELAXED);
}

/* A thread's count into the totals, its slot cleared for the next thread it serves. */
static void end_thread(ThreadId tid)
{
	if (tid >= PMU_EMU_SLOTS) {
		add_ended(overflow);
		overflow = 0;
		return;
	}
	add_ended(own->slot[tid].count);
	VG_(memset)(&own->slot[tid], 0, sizeof(own->slot[tid]));
}

static void thread_create(ThreadId parent, ThreadId child)
{
	(void)parent;
	if (child < PMU_EMU_SLOTS)
		VG_(memset)(&own->slot[child], 0, sizeof(own->slot[child]));
}

/* IR that adds n to *cur: the running thread's count. */
static void add_count(IRSB *sb, ULong n)
{
	IRTemp p = newIRTemp(sb->tyenv, Ity_I64), v = newIRTemp(sb->tyenv, Ity_I64);
	IRTemp w = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(p, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&cur))));
	addStmtToIRSB(sb, IRStmt_WrTmp(v, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(p))));
	addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(v), IRExpr_Const(IRConst_U64(n)))));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(p), IRExpr_RdTmp(w)));
}

/* The instructions from statement i to the piece's end: the next side exit (its own included), or the block's. */
static ULong piece(const IRSB *in, Int i)
{
	ULong n = 0;

	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_Exit; i++)
		n += in->stmts[i]->tag == Ist_IMark;
	return n;
}

static IRSB *instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy, IRType hWordTy)
{
	IRSB *sb = deepCopyIRSBExceptStmts(in);
	Bool start = True;
	ULong n;

	(void)closure, (void)layout, (void)vge, (void)archinfo;
	if (gWordTy != hWordTy)
		VG_(tool_panic)("libpmu-valgrind: host and guest word sizes differ");
	for (Int i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (start && st->tag == Ist_IMark) {	/* a piece begins: its whole count, once */
			if ((n = piece(in, i)))
				add_count(sb, n);
			start = False;
		}
		addStmtToIRSB(sb, st);
		if (st->tag == Ist_Exit)
			start = True;
	}
	return sb;
}

static Bool is_exec(UInt sysno)
{
	return sysno == __NR_execve || sysno == __NR_execveat;
}

/* Before an execve, the run's total takes in this process's threads (Valgrind does not follow it here). */
static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid, (void)args, (void)nargs;
	if (is_exec(sysno)) {
		exec_added = pmu__emu_live(own) + overflow;
		add_ended(exec_added);
	}
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid, (void)args, (void)nargs;
	if (is_exec(sysno) && exec_added && sr_isError(res))
		add_ended(-exec_added);
	if (is_exec(sysno))
		exec_added = 0;
}

static struct pmu__emu_table *map_table(Int fd)
{
	SysRes r = VG_(am_shared_mmap_file_float_valgrind)(sizeof(struct pmu__emu_table),
							   VKI_PROT_READ | VKI_PROT_WRITE, fd, 0);

	return sr_isError(r) ? NULL : (struct pmu__emu_table *)sr_Res(r);
}

/* A forked child counts into a table of its own at the same descriptor; it keeps the launcher's for the total. */
static void after_fork(ThreadId tid)
{
	SysRes r = SYS3(__NR_memfd_create, "libpmu-valgrind", MFD_CLOEXEC, 0);
	Int fd = sr_isError(r) ? -1 : (Int)sr_Res(r);
	struct pmu__emu_table *t = NULL;

	if (fd >= 0 && !sr_isError(SYS3(__NR_ftruncate, fd, sizeof(*t), 0)))
		t = map_table(fd);
	if (!t || sr_isError(SYS3(__NR_dup3, fd, table_fd, O_CLOEXEC))) {
		VG_(umsg)("libpmu-valgrind: a forked process gets no table of its own: its counts go unread\n");
		if (fd >= 0)
			VG_(close)(fd);
		return;
	}
	VG_(close)(fd);
	VG_(memcpy)(t, own, offsetof(struct pmu__emu_table, slot));
	t->pid = VG_(getpid)();
	t->ended = 0;
	own = t;
	overflow = 0;
	start_client(tid, 0);
}

static Bool option(const HChar *arg)
{
	if VG_INT_CLO(arg, "--pmu-fd", table_fd) {}
	else
		return False;
	return True;
}

static void usage(void)
{
	VG_(printf)("    --pmu-fd=N        the table of counts, which pmu emulate gives\n");
}

static void post_clo_init(void)
{
	if (table_fd < 0) {
		VG_(fmsg)("libpmu-valgrind: no --pmu-fd=N: run programs with pmu emulate or pmu stat --emulate\n");
		VG_(exit)(1);
	}
	root = own = map_table((Int)table_fd);
	if (!own || own->magic != PMU_EMU_MAGIC || own->size != sizeof(*own)) {
		VG_(fmsg)("libpmu-valgrind: --pmu-fd=%lld: not a table of pmu's launcher\n", table_fd);
		VG_(exit)(1);
	}
	SYS3(__NR_fcntl, table_fd, VKI_F_SETFD, VKI_FD_CLOEXEC);	/* a program exec'd is not under Valgrind */
	own->pid = VG_(getpid)();
	VG_(atfork)(NULL, NULL, after_fork);
}

static void fini(Int exitcode)
{
	(void)exitcode;
	for (ThreadId t = 0; t < PMU_EMU_SLOTS; t++)
		end_thread(t);
	end_thread(PMU_EMU_SLOTS);
}

static void pre_clo_init(void)
{
	VG_(details_name)("libpmu-valgrind");
	VG_(details_version)(NULL);
	VG_(details_description)("each thread's instructions, for libpmu's emulated counter");
	VG_(details_copyright_author)("libpmu's authors; GPL-2.0-or-later, as Valgrind");
	VG_(details_bug_reports_to)("libpmu's issues");
	VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
	VG_(needs_command_line_options)(option, usage, NULL);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(track_start_client_code)(start_client);
	VG_(track_pre_thread_ll_create)(thread_create);
	VG_(track_pre_thread_ll_exit)(end_thread);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
