/* SPDX-License-Identifier: MIT */
/*
 * Emulated counters: see emulated.h. The table is emu_table.h's, written
 * by libpmu-qemu (emulation/qemu.c); a process finds its own through the
 * descriptor PMU_EMULATED_FD names, which the plugin gives a forked child
 * anew and which an execve closes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/escape.h"
#include "counters/emulated.h"
#include "counters/set_ops.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct pmu__emu_table *table;	/* this process's, or the launcher's run (attached) */
static pid_t table_pid;				/* the process table was looked for in */
static bool launcher;				/* attached: events count the whole run */
static char desc[128];				/* "QEMU 7.2.22 user mode, x86_64, libpmu-qemu" */
static char why[192];				/* an emulated counter's read path, as pmu_user_read() says it */

/* PMU_EMULATED_FD's table, checked: NULL where there is none (no plugin, or a program exec'd since). */
static const struct pmu__emu_table *map_own(void)
{
	const char *v = pmu__getenv(PMU_EMU_FD_VAR);
	const struct pmu__emu_table *t;
	struct stat st;
	char *end;
	long fd;

	if (!v || !*v)
		return NULL;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(*t))
		return NULL;
	t = mmap(NULL, sizeof(*t), PROT_READ, MAP_SHARED, (int)fd, 0);
	if (t == MAP_FAILED)
		return NULL;
	if (t->magic != PMU_EMU_MAGIC || t->size != sizeof(*t) || t->pid != getpid()) {
		munmap((void *)t, sizeof(*t));
		return NULL;
	}
	return t;
}

/* "QEMU 7.2.22 user mode, x86_64, libpmu-qemu", or "Valgrind 3.24.0, x86_64, libpmu-valgrind". */
static void describe(const struct pmu__emu_table *t)
{
	char target[sizeof(t->target) + 1], v[sizeof(t->version) + 1];
	bool vg = !strncmp(t->backend, "valgrind", sizeof(t->backend));

	snprintf(target, sizeof(target), "%.*s", (int)sizeof(t->target), t->target);
	snprintf(v, sizeof(v), "%.*s", (int)sizeof(t->version), t->version);
	snprintf(desc, sizeof(desc), "%s%s%s%s, %s, libpmu-%s", vg ? "Valgrind" : "QEMU", *v ? " " : "", v,
		 vg ? "" : " user mode", *target ? target : "?", vg ? "valgrind" : "qemu");
	snprintf(why, sizeof(why), "emulated (%s): a load of the %s's count, no PMU", desc, vg ? "tool" : "plugin");
}

/* The table for this process now: looked for once, and again in a forked child, which has one of its own. */
static const struct pmu__emu_table *current(void)
{
	int cs = pmu__lock(&lock);

	if (!launcher && table_pid != getpid()) {
		if (table)
			munmap((void *)table, sizeof(*table));
		table = map_own();
		table_pid = getpid();
		if (table)
			describe(table);
	}
	pmu__unlock(&lock, cs);
	return table;
}

const char *pmu__emulated(void)
{
	return current() ? desc : NULL;
}

const char *pmu__emu_why(void)
{
	return current() ? why : NULL;
}

int pmu__emu_attach(const struct pmu__emu_table *t)
{
	int cs = pmu__lock(&lock);

	table = t;
	table_pid = getpid();
	launcher = true;
	describe(t);	/* the launcher wrote QEMU's version and target before */
	pmu__unlock(&lock, cs);
	return 0;
}

/* The calling thread's slot, which its first block set. */
static const struct pmu__emu_slot *thread_slot(const struct pmu__emu_table *t)
{
	int32_t tid = (int32_t)syscall(SYS_gettid);

	for (unsigned i = 0; i < PMU_EMU_SLOTS; i++)
		if (PMU_READ_ONCE(t->slot[i].tid) == tid)
			return &t->slot[i];
	return NULL;
}

/* The run's instructions: the threads that ended, in every process, and the launched process's live ones. */
static uint64_t run_total(const struct pmu__emu_table *t)
{
	return PMU_READ_ONCE(t->ended) + pmu__emu_live(t);
}

static uint64_t source(const struct pmu__emu_ctr *e)
{
	if (e->slot)
		return pmu__arch_emu_load(&e->slot->count) - PMU_ARCH_EMU_AFTER;
	return run_total(table);
}

/* The launcher's clock for the time enabled; none in the emulated program. */
static uint64_t clock_ns(const struct pmu__emu_ctr *e)
{
	return e->slot ? 0 : pmu__mono_ns();
}

void pmu__emu_enable(struct pmu__emu_ctr *e)
{
	if (!e->enabled) {
		e->start = source(e);
		e->ns_start = clock_ns(e);
	}
	e->enabled = true;
}

void pmu__emu_disable(struct pmu__emu_ctr *e)
{
	if (e->enabled) {
		e->acc += source(e) - e->start;
		e->ns_acc += clock_ns(e) - e->ns_start;
	}
	e->enabled = false;
}

void pmu__emu_reset(struct pmu__emu_ctr *e)
{
	e->acc = e->ns_acc = 0;
	if (e->enabled) {
		e->start = source(e);
		e->ns_start = clock_ns(e);
	}
}

void pmu__emu_read(const struct pmu__emu_ctr *e, struct pmu_reading *rd)
{
	rd->value = e->acc + (e->enabled ? source(e) - e->start : 0);
	rd->enabled = rd->running = e->ns_acc + (e->enabled ? clock_ns(e) - e->ns_start : 0);
}

/* Why the counter for event a (named name, opened with o) cannot be emulated, or NULL. */
static const char *refusal(const struct pmu__attr *a, const struct pmu_opts *o)
{
	const struct perf_event_attr *at = &a->attr;

	if (at->type != PERF_TYPE_HARDWARE || (at->config & 0xffffffffu) != PERF_COUNT_HW_INSTRUCTIONS)
		return "it counts instructions only; cycles, cache, branch and other hardware events need a hardware "
		       "PMU";
	if (at->exclude_user || !at->exclude_kernel)
		return "it counts user-space instructions only (instructions or instructions:u)";
	if (o->cpu >= 0)
		return "an emulated event counts a thread, on no CPU of its own";
	if (!launcher && ((o->flags & PMU_INHERIT) || (o->pid != 0 && o->pid != (pid_t)syscall(SYS_gettid))))
		return "an emulated event counts the thread that opens it (pmu stat --emulate counts a whole command)";
	return NULL;
}

/* Leaves event i one counter: a hybrid machine's second core PMU would count the same instructions again. */
static void one_counter(struct pmu__cold *c, unsigned k)
{
	unsigned j = k + 1;

	while (j < c->nctr && c->ctr[j].event == c->ctr[k].event)
		j++;
	memmove(&c->ctr[k + 1], &c->ctr[j], (c->nctr - j) * sizeof(c->ctr[0]));
	memmove(&c->attr[k + 1], &c->attr[j], (c->nctr - j) * sizeof(c->attr[0]));
	c->nctr -= j - k - 1;
}

int pmu__emu_plan(struct pmu__cold *c, const struct pmu_opts *o)
{
	const struct pmu__emu_table *t = current();
	const struct pmu__emu_slot *slot = NULL;

	if (t)	/* QEMU takes MADV_WIPEONFORK and wipes nothing: a forked child is told by its pid */
		c->wiped = false;
	for (unsigned k = 0; t && k < c->nctr; k++) {
		const char *name = c->names[c->ctr[k].event], *no;
		struct pmu__shown b;

		if (!pmu__type_user_readable(&c->attr[k]))
			continue;	/* software, tracepoints: as without emulation */
		if ((no = refusal(&c->attr[k], o)))
			return pmu__err(-EOPNOTSUPP, "%s: not counted under emulation (%s): %s",
					pmu__show(&b, name, strlen(name)), desc, no);
		if (!launcher && !slot && !(slot = thread_slot(t)))
			return pmu__err(-ENOSPC, "%s: not counted under emulation (%s): this thread has no slot in the "
					"plugin's table (%d threads at once are counted)", pmu__show(&b, name, strlen(name)),
					desc, PMU_EMU_SLOTS);
		c->ctr[k].emu = (struct pmu__emu_ctr){ .on = true, .slot = slot };
		if (!(o->flags & PMU_DISABLED))	/* PMU_ENABLE_ON_EXEC too: QEMU has not run the program yet */
			pmu__emu_enable(&c->ctr[k].emu);
		one_counter(c, k);
	}
	return 0;
}
