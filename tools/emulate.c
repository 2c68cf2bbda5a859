/* SPDX-License-Identifier: MIT */
/* Running a program under QEMU with libpmu-qemu: see emulate.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "emulate.h"

#ifndef PMU_PLUGIN_DIR
#define PMU_PLUGIN_DIR "../lib/libpmu"	/* from the tool's directory: BINDIR to LIBDIR/libpmu */
#endif

/* path, or cmd found in PATH as execvp() would: 0, or -1. */
static int find_program(const char *cmd, char *path, size_t size)
{
	const char *p = getenv("PATH");

	if (strchr(cmd, '/'))
		return snprintf(path, size, "%s", cmd) < (int)size ? 0 : -1;
	for (p = p && *p ? p : "/usr/local/bin:/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (snprintf(path, size, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd) < (int)size &&
		    access(path, X_OK) == 0)
			return 0;
		p += n;
	}
	return -1;
}

/* QEMU's name for the machine of the ELF program at path ("x86_64"...), or NULL with why. */
static const char *machine_of(const char *path, const char **why)
{
	unsigned char h[EI_NIDENT + 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, h, sizeof(h)) : -1;
	unsigned m;

	if (fd >= 0)
		close(fd);
	*why = n < 0 ? strerror(errno) : "not an ELF program (a script? name its interpreter: pmu emulate -- sh SCRIPT)";
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return NULL;
	m = h[EI_NIDENT + 2] | (unsigned)h[EI_NIDENT + 3] << 8;
	*why = "a machine libpmu-qemu does not count (it counts x86-64, arm64 and riscv64 programs)";
	if (h[EI_DATA] != ELFDATA2LSB || h[EI_CLASS] != ELFCLASS64)
		return NULL;
	return m == EM_X86_64 ? "x86_64" : m == EM_AARCH64 ? "aarch64" : m == EM_RISCV ? "riscv64" : NULL;
}

/* libpmu-qemu.so: PMU_QEMU_PLUGIN, beside the tool (a build tree), or installed. 0, or -1. */
static int plugin_path(char *buf, size_t size)
{
	const char *env = getenv("PMU_QEMU_PLUGIN");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (env && *env)
		return snprintf(buf, size, "%s", env) < (int)size && access(buf, R_OK) == 0 ? 0 : -1;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	dirname(exe);
	if (snprintf(buf, size, "%s/libpmu-qemu.so", exe) < (int)size && access(buf, R_OK) == 0)
		return 0;
	return snprintf(buf, size, "%s/" PMU_PLUGIN_DIR "/libpmu-qemu.so", exe) < (int)size &&
	       access(buf, R_OK) == 0 ? 0 : -1;
}

/* "7.2.22": the version qemu --version prints, into v ("" when it says none). */
static void qemu_version(const char *qemu, char *v, size_t size)
{
	char line[256] = "", *p;
	int fd[2];
	pid_t pid;

	v[0] = '\0';
	if (pipe2(fd, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		execl(qemu, qemu, "--version", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	if (pid > 0 && read(fd[0], line, sizeof(line) - 1) > 0 && (p = strstr(line, " version ")))
		snprintf(v, size, "%.*s", (int)strcspn(p + 9, " \n"), p + 9);
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* The table, in a memfd QEMU inherits (no close-on-exec); the plugin checks it and takes it. 0, or -1. */
static int make_table(struct emu_launch *l)
{
	char num[16];

	l->fd = memfd_create("libpmu-qemu", 0);
	if (l->fd < 0 || ftruncate(l->fd, sizeof(*l->t)) < 0)
		return -1;
	l->t = mmap(NULL, sizeof(*l->t), PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
	if (l->t == MAP_FAILED) {
		l->t = NULL;
		return -1;
	}
	l->t->magic = PMU_EMU_MAGIC;
	l->t->size = sizeof(*l->t);
	l->t->nslots = PMU_EMU_SLOTS;
	snprintf(l->t->target, sizeof(l->t->target), "%s", l->machine);
	qemu_version(l->qemu, l->t->qemu, sizeof(l->t->qemu));
	snprintf(num, sizeof(num), "%d", l->fd);
	return setenv(PMU_EMU_FD_VAR, num, 1);
}

/*
 * qemu -plugin libpmu-qemu.so,fd=N [-E LD_PRELOAD=...] -0 CMD PATH ARGS: LD_PRELOAD is the
 * program's, not QEMU's; QEMU runs the path found in PATH, and the program sees argv[0] as typed.
 */
static int make_argv(struct emu_launch *l, char **cmd)
{
	const char *pre = getenv("LD_PRELOAD");
	static char preload[4096];
	size_t n = 0, k = 0;

	while (cmd[n])
		n++;
	if (!(l->argv = calloc(n + 8, sizeof(*l->argv))))
		return -1;
	l->argv[k++] = l->qemu;
	l->argv[k++] = "-plugin";
	l->argv[k++] = l->plugin;
	if (pre && *pre && snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", pre) < (int)sizeof(preload)) {
		l->argv[k++] = "-E";
		l->argv[k++] = preload;
		unsetenv("LD_PRELOAD");
	}
	l->argv[k++] = "-0";
	l->argv[k++] = cmd[0];
	l->argv[k++] = l->prog;
	memcpy(&l->argv[k], cmd + 1, n * sizeof(*cmd));
	return 0;
}

/* A foreign program's libraries: Debian's cross sysroot (/usr/aarch64-linux-gnu) unless QEMU_LD_PREFIX says. */
static void sysroot(const char *machine)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/usr/%s-linux-gnu", machine);
	if (!getenv("QEMU_LD_PREFIX") && strcmp(machine, PMU_ARCH_NAME) && access(dir, R_OK) == 0)
		setenv("QEMU_LD_PREFIX", dir, 1);
}

int emu_prepare(struct emu_launch *l, char **cmd, const char *who)
{
	char plugin[PATH_MAX], name[32];
	const char *machine, *why;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (!cmd[0] || find_program(cmd[0], l->prog, sizeof(l->prog)) < 0)
		return fprintf(stderr, "%s: %s: no such program (in PATH)\n", who, cmd[0] ? cmd[0] : "(none)"), -1;
	if (!(machine = machine_of(l->prog, &why)))
		return fprintf(stderr, "%s: %s: %s\n", who, l->prog, why), -1;
	snprintf(name, sizeof(name), "qemu-%s", machine);
	l->machine = machine;
	if (find_program(name, l->qemu, sizeof(l->qemu)) < 0)
		return fprintf(stderr, "%s: %s: %s is not installed (Debian and Ubuntu: apt-get install qemu-user)\n",
			       who, cmd[0], name), -1;
	if (plugin_path(plugin, sizeof(plugin)) < 0)
		return fprintf(stderr, "%s: libpmu-qemu.so is not beside pmu nor in its libpmu directory "
			       "(PMU_QEMU_PLUGIN names it)\n", who), -1;
	if (make_table(l) < 0 ||
	    snprintf(l->plugin, sizeof(l->plugin), "%s,fd=%d", plugin, l->fd) >= (int)sizeof(l->plugin) ||
	    make_argv(l, cmd) < 0)
		return fprintf(stderr, "%s: cannot set up the emulation: %s\n", who, strerror(errno)), -1;
	sysroot(machine);
	return 0;
}

void emu_free(struct emu_launch *l)
{
	if (!l->t && !l->argv)	/* never prepared: fd 0 is not its */
		return;
	if (l->t)
		munmap(l->t, sizeof(*l->t));
	if (l->fd >= 0)
		close(l->fd);
	free(l->argv);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu emulate [--] CMD [ARGS...]\n"
		"  runs CMD under QEMU's user-mode emulation (qemu-x86_64, qemu-aarch64 or\n"
		"  qemu-riscv64, as CMD's machine says) with libpmu-qemu, which counts each\n"
		"  thread's instructions: in CMD, the event instructions is that exact count,\n"
		"  read with a load (regions, reports, PMU_EVENTS, the drop-ins), where the\n"
		"  machine has no PMU. The exit status is CMD's.\n");
	return f == stdout ? 0 : TOOL_USAGE;
}

int cmd_emulate(int argc, char **argv)
{
	struct emu_launch l;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout);
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || (argv[i][0] == '-' && strcmp(argv[i - 1], "--"))) {
		if (i < argc)
			fprintf(stderr, "pmu emulate: unknown option '%s'\n", argv[i]);
		return usage(stderr);
	}
	if (emu_prepare(&l, argv + i, "pmu emulate") < 0)
		return 127;
	execv(l.qemu, l.argv);
	fprintf(stderr, "pmu emulate: %s: %s\n", l.qemu, strerror(errno));
	return 127;
}
