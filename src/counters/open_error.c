/* SPDX-License-Identifier: MIT */
/*
 * Why a perf_event_open() failed, said for the event as the user wrote it:
 * the PMU missing or not supporting it, the permission the paranoid level
 * asks for (and the :u spelling that needs none) or a seccomp filter refuses, a group too big for the
 * PMU, descriptors, a busy PMU, a missing task.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "counters/emulated.h"
#include "counters/set_ops.h"
#include "events/sysfs.h"

/* Said after a paranoid cause where a seccomp filter is on too. */
#define SECCOMP_TOO " (a seccomp filter is on this process too, and may refuse it as well)"

static bool is_core_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/* The event counting user space only: "task-clock:k" as task-clock:u, "cpu/event=1/k" as cpu/event=1/u. */
static const char *user_only(char *buf, size_t size, const char *name)
{
	const char *slash = strrchr(name, '/');
	size_t n = pmu__mods_split(name, strlen(name), NULL);

	if (slash && memchr(name, '/', (size_t)(slash - name))) {
		snprintf(buf, size, "%.*su", (int)(slash + 1 - name), name);
		return buf;
	}
	snprintf(buf, size, "%.*s:u", (int)n, name);
	return buf;
}

bool pmu__seccomp_filtered(bool *capable)
{
	bool filtered = false;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long caps;

	*capable = false;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Seccomp:", 8))
			filtered = strtol(line + 8, NULL, 10) == 2;
		else if (sscanf(line, "CapEff: %llx", &caps) == 1)
			*capable = caps & (1ull << 38 | 1ull << 21);	/* CAP_PERFMON, CAP_SYS_ADMIN */
	}
	if (f)
		fclose(f);
	return filtered;
}

/*
 * A permission refused. In a container it is often the seccomp profile, not
 * the paranoid level: where a filter is on and the level (or a capability)
 * allows this counting, the filter is named, with its fixes.
 */
static int permission(int err, const char *name, const struct pmu__attr *a, pid_t pid, int cpu)
{
	char u[sizeof(struct pmu__shown) + 2];
	long paranoid = 2, need = pid == -1 && cpu >= 0 ? 0 : a->attr.exclude_kernel ? 2 : 1;
	bool have = pmu__sysctl("kernel.perf_event_paranoid", &paranoid), capable;
	bool filtered = pmu__seccomp_filtered(&capable);

	if (filtered && (capable || (have && paranoid <= need)))
		return pmu__err(-err, "%s: permission denied by this process's seccomp filter (Seccomp: 2 in "
				"/proc/self/status), not by kernel.perf_event_paranoid (%ld%s): a container's "
				"default profile refuses perf_event_open; give the container CAP_PERFMON (docker "
				"run --cap-add PERFMON) or a profile that allows perf_event_open, or count "
				"instructions under pmu emulate", name, paranoid,
				capable ? ", and this process holds CAP_PERFMON or CAP_SYS_ADMIN" : ", which allows it");
	/* every task on a CPU: the kernel's perf_paranoid_cpu() */
	if (pid == -1 && cpu >= 0 && have && paranoid > 0)
		return pmu__err(-err, "%s: permission denied: counting every task on CPU %d (the %s PMU's) "
				"needs CAP_PERFMON or kernel.perf_event_paranoid <= 0 (it is %ld)%s", name, cpu,
				a->pmu, paranoid, filtered ? SECCOMP_TOO : "");
	/* the usual cause at Debian's and the kernel's defaults: the kernel is counted */
	if (!a->attr.exclude_kernel && have && paranoid >= 2) {
		if (is_core_type(a->attr.type) || a->attr.type == PERF_TYPE_SOFTWARE)
			return pmu__err(-err, "%s: permission denied: kernel.perf_event_paranoid is %ld, "
					"and counting the kernel needs CAP_PERFMON or paranoid <= 1 (%s "
					"counts user space only)%s", name, paranoid, user_only(u, sizeof(u), name),
					filtered ? SECCOMP_TOO : "");
		/* uncore, msr, tracepoints: most cannot leave the kernel out */
		return pmu__err(-err, "%s: permission denied: kernel.perf_event_paranoid is %ld, and "
				"events of the %s PMU count the kernel too, which needs CAP_PERFMON or "
				"paranoid <= 1%s", name, paranoid, a->pmu, filtered ? SECCOMP_TOO : "");
	}
	if (pid > 0)
		return pmu__err(-err, "%s: permission denied counting task %d (it must be yours "
				"and traceable, or you need CAP_PERFMON)%s", name, (int)pid, filtered ? SECCOMP_TOO : "");
	return pmu__err(-err, "%s: permission denied; kernel.perf_event_paranoid is %ld "
			"(counting the kernel needs CAP_PERFMON or paranoid <= 1; "
			"any counting needs paranoid <= 2)%s", name, have ? paranoid : -1, filtered ? SECCOMP_TOO : "");
}

int pmu__open_error(int err, const char *name, const struct pmu__attr *a, unsigned group_size, pid_t pid, int cpu)
{
	bool hw = pmu__event_user_readable(a);
	struct pmu__shown b;
	char cpus[64];

	name = pmu__show(&b, name, strlen(name));	/* as written, escaped */
	/* Whatever else the kernel says (a permission first), such a PMU never counts a thread. */
	if (cpu < 0 && pmu__pmu_cpumask(a->pmu, cpus, sizeof(cpus)))
		return pmu__err(-err, "%s: the %s PMU counts per CPU (its cpumask: %s), not per thread: count it "
				"with pmu stat -a (or -C %s), socket-wide (pmu_open_opts() with PMU_SOCKET_WIDE, as "
				"pmu_thread_init() and PMU_EVENTS do), or on one of those CPUs (PMU_ON_CPU)", name,
				a->pmu, cpus, cpus);
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (is_core_type(a->attr.type) && !pmu__have_core_pmu())
			return pmu__err(-ENODEV, "%s: no hardware PMU on this machine (a virtual machine "
					"without a virtual PMU?)", name);
		return pmu__err(-err, "%s: the %s PMU does not support this event (%s)", name, a->pmu,
				strerror(err));
	case EACCES:
	case EPERM:
		return permission(err, name, a, pid, cpu);
	case EINVAL:
		if (group_size > 1 && hw)
			return pmu__err(-EINVAL, "%s: the kernel rejected the event in a group of %u "
					"(more events than the PMU has counters? open them in "
					"separate sets or with PMU_NO_GROUP)", name, group_size);
		return pmu__err(-EINVAL, "%s: the kernel rejected the event's attributes (unsupported "
				"modifier or config for the %s PMU?)", name, a->pmu);
	case EMFILE:
	case ENFILE:
		return pmu__err(-err, "%s: out of file descriptors (%s)", name, strerror(err));
	case EBUSY:
		return pmu__err(-EBUSY, "%s: the %s PMU is busy (used exclusively by someone else, "
				"e.g. the NMI watchdog?)", name, a->pmu);
	case ESRCH:
		return pmu__err(-ESRCH, "%s: no such task to count", name);
	case ENOSYS:
		if (pmu__emulated())	/* QEMU's user mode does not pass the system call on */
			return pmu__err(-ENOSYS, "%s: perf_event_open does not reach the kernel under emulation (%s): "
					"inside the program only instructions counts; pmu stat --emulate counts "
					"software events from outside", name, pmu__emulated());
		return pmu__err(-ENOSYS, "%s: perf_event_open is not implemented here (a kernel without "
				"CONFIG_PERF_EVENTS, an emulator, or a seccomp filter)", name);
	default:
		return pmu__err(-err, "%s: perf_event_open failed: %s", name, strerror(err));
	}
}
