/* SPDX-License-Identifier: MIT */
/* Running a program under emulation, by QEMU or Valgrind: see emulate.h. */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>
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

/* A pmu with privileges (setuid, file capabilities) must not run what PATH and the environment name. */
#define SECURE_WHY "this pmu runs with privileges (setuid or file capabilities), and emulation runs programs " \
		   "that PATH and the environment name: use an unprivileged pmu"

/* why, said: -1, for the checks below to return. */
static __attribute__((format(printf, 3, 4))) int say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * A helper beside pmu (a build tree) or installed in its libpmu directory, unless env names it:
 * 0, or -1 with why (naming env's value, or where it looked; hint: how to get it).
 */
static int helper_path(const char *env, const char *file, char *buf, size_t size, const char *hint, char *why,
		       size_t wsize)
{
	const char *v = getenv(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (v && *v) {
		if (snprintf(buf, size, "%s", v) < (int)size && access(buf, R_OK) == 0)
			return 0;
		return say(why, wsize, "%s=%s: %s", env, v, strerror(errno));
	}
	if (n <= 0)
		return say(why, wsize, "/proc/self/exe: %s (%s names %s)", strerror(errno), env, file);
	exe[n] = '\0';
	dirname(exe);
	if (snprintf(buf, size, "%s/%s", exe, file) < (int)size && access(buf, R_OK) == 0)
		return 0;
	if (snprintf(buf, size, "%s/" PMU_PLUGIN_DIR "/%s", exe, file) < (int)size && access(buf, R_OK) == 0)
		return 0;
	return say(why, wsize, "%s is neither beside %s/pmu nor in %s/" PMU_PLUGIN_DIR " (%s; %s names another)",
		   file, exe, exe, hint, env);
}

/* Runs argv (execve with the environment), its stdout and stderr into out: its wait status, or -1. */
static int capture(char *const argv[], char *out, size_t size)
{
	int fd[2], st = -1;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && (n = read(fd[0], out + got, size - 1 - got)) > 0 && (got += (size_t)n) < size - 1)
		;
	out[got] = '\0';
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return st;
}

/* "7.2.22": the version exe --version prints after key (" version ", "valgrind-"), into v ("" if none). */
static void version_of(const char *exe, const char *key, char *v, size_t size)
{
	char out[512], *p;

	v[0] = '\0';
	if (capture((char *[]){ (char *)exe, "--version", NULL }, out, sizeof(out)) != -1 && (p = strstr(out, key)))
		snprintf(v, size, "%.*s", (int)strcspn(p + strlen(key), " \n"), p + strlen(key));
}

/* Whether path is an ELF program with no interpreter: a static build, which cannot dlopen() a plugin. */
static bool is_static(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool interp = false;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		interp = true;	/* a script, say: whatever it runs is looked at by the probe */
	else
		for (unsigned i = 0; i < eh.e_phnum && !interp; i++)
			interp = pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) ==
				 (ssize_t)sizeof(ph) && ph.p_type == PT_INTERP;
	close(fd);
	return !interp;
}

/* A table in a memfd the backend inherits (no close-on-exec), which it checks and takes. 0, or -1. */
static int new_table(struct emu_launch *l, const char *backend, const char *version)
{
	l->fd = memfd_create("libpmu-emulated", 0);
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
	snprintf(l->t->backend, sizeof(l->t->backend), "%s", backend);
	snprintf(l->t->version, sizeof(l->t->version), "%s", version);
	return 0;
}

static void drop_table(struct emu_launch *l)
{
	if (l->t)
		munmap(l->t, sizeof(*l->t));
	if (l->fd >= 0)
		close(l->fd);
	l->t = NULL;
	l->fd = -1;
}

/*
 * Whether QEMU's plugin attaches: QEMU loads plugins before it opens the program, so a run
 * with a program that does not exist attaches it and runs nothing. 0, or -1 with why.
 */
static int qemu_probe(struct emu_launch *l, const char *plugin, const char *what, char *why, size_t size)
{
	char arg[PATH_MAX + 16], out[1024], *nl;
	int attached;

	if (new_table(l, "qemu", "") < 0)
		return say(why, size, "cannot make a table: %s", strerror(errno));
	snprintf(arg, sizeof(arg), "%s,fd=%d", plugin, l->fd);
	capture((char *[]){ l->exe, "-plugin", arg, "/nonexistent/libpmu-probe", NULL }, out, sizeof(out));
	attached = l->t->pid != 0;
	drop_table(l);
	if (attached)
		return 0;
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	return say(why, size, "%s did not attach %s: %s%s", what, plugin, out,
		 strstr(out, "API version") ? " (the plugin's API does not match this QEMU's: a libpmu older than "
					      "this QEMU? update libpmu, or use --backend valgrind)" : "");
}

/* Whether QEMU can count cmd's machine here: 0, or -1 with why and what to do instead. */
static int qemu_ready(struct emu_launch *l, char *why, size_t size)
{
	char name[32], v[40], what[PATH_MAX + 64], help[16384], plugin[PATH_MAX];

	snprintf(name, sizeof(name), "qemu-%s", l->machine);
	if (find_program(name, l->exe, sizeof(l->exe)) < 0)
		return say(why, size, "%s is not installed (apt-get install qemu-user)", name);
	version_of(l->exe, " version ", v, sizeof(v));
	snprintf(what, sizeof(what), "%s (QEMU %s)", l->exe, *v ? v : "of no known version");
	if (is_static(l->exe))
		return say(why, size, "%s is a static build, which cannot load plugins (Debian 13's and Ubuntu "
				"26.04's qemu-user are): use --backend valgrind, or put a QEMU built with "
				"--enable-plugins first in PATH", what);
	capture((char *[]){ l->exe, "-h", NULL }, help, sizeof(help));
	if (!strstr(help, "\n-plugin"))
		return say(why, size, "%s was built without plugin support (no -plugin option): use --backend "
				"valgrind, or a QEMU configured with --enable-plugins", what);
	if (helper_path("PMU_QEMU_PLUGIN", "libpmu-qemu.so", plugin, sizeof(plugin), "make builds it", help,
			sizeof(help)) < 0)
		return say(why, size, "%s found, but no plugin for it: %s", what, help);
	if (qemu_probe(l, plugin, what, why, size) < 0)
		return -1;
	if (new_table(l, "qemu", v) < 0)
		return say(why, size, "cannot make a table: %s", strerror(errno));
	snprintf(l->arg, sizeof(l->arg), "%s,fd=%d", plugin, l->fd);
	return 0;
}
/* Valgrind's directory of preloaded libraries: VALGRIND_LIB, or beside its launcher's prefix. 0, or -1. */
static int valgrind_lib(const char *launcher, const char *platform, char *dir, size_t size)
{
	static const char *const sub[] = { "libexec/valgrind", "lib/valgrind", "lib/" PMU_ARCH_NAME "-linux-gnu/valgrind" };
	const char *env = getenv("VALGRIND_LIB");
	char real[PATH_MAX], so[PATH_MAX + 64], *slash;

	if (env && *env)
		return snprintf(dir, size, "%s", env) < (int)size ? 0 : -1;
	if (!realpath(launcher, real) || !(slash = strrchr(real, '/')))
		return -1;
	*slash = '\0';	/* PREFIX/bin */
	if ((slash = strrchr(real, '/')))
		*slash = '\0';
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		if (snprintf(dir, size, "%s/%s", real, sub[i]) < (int)size &&
		    snprintf(so, sizeof(so), "%s/vgpreload_core-%s.so", dir, platform) < (int)sizeof(so) &&
		    access(so, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* Whether Valgrind can count cmd here: 0, or -1 with why and what to do instead. */
static int valgrind_ready(struct emu_launch *l, char *why, size_t size)
{
	const char *platform = !strcmp(PMU_ARCH_NAME, "x86_64") ? "amd64-linux" : "arm64-linux";
	char launcher[PATH_MAX], lib[PATH_MAX], v[40], built[40];

	if (strcmp(l->machine, PMU_ARCH_NAME))
		return say(why, size, "Valgrind runs programs of this machine (%s) only", PMU_ARCH_NAME);
	if (find_program("valgrind", launcher, sizeof(launcher)) < 0)
		return say(why, size, "valgrind is not installed (apt-get install valgrind)");
	if (helper_path("PMU_VALGRIND_TOOL", "libpmu-valgrind", l->exe, sizeof(l->exe), "make builds it where "
			"Valgrind's tool libraries are: apt-get install valgrind, then make again", why, size) < 0)
		return -1;
	if (setenv("VALGRIND_LAUNCHER", launcher, 1) < 0 || valgrind_lib(launcher, platform, lib, sizeof(lib)) < 0 ||
	    setenv("VALGRIND_LIB", lib, 1) < 0)
		return say(why, size, "%s: no vgpreload_core-%s.so in its libexec directory (VALGRIND_LIB names "
				"it)", launcher, platform);
	version_of(launcher, "valgrind-", v, sizeof(v));
	version_of(l->exe, "valgrind-", built, sizeof(built));
	if (!*v || strcmp(v, built))
		return say(why, size, "%s was built against Valgrind %s, and %s is %s: build libpmu again",
				l->exe, *built ? built : "of no known version", launcher, *v ? v : "of no known version");
	if (new_table(l, "valgrind", v) < 0)
		return say(why, size, "cannot make a table: %s", strerror(errno));
	snprintf(l->arg, sizeof(l->arg), "--pmu-fd=%d", l->fd);
	return 0;
}

/*
 * The backend's command line. QEMU: qemu -plugin libpmu-qemu.so,fd=N [-E LD_PRELOAD=...] -0 CMD
 * PATH ARGS (LD_PRELOAD is the program's, not QEMU's; the program sees argv[0] as typed).
 * Valgrind: libpmu-valgrind --tool=libpmu --pmu-fd=N --vex-guest-chase=no -q PATH ARGS (a block ends at each
 * jump, as the read's constant needs; Valgrind hands LD_PRELOAD to the program itself).
 */
static int make_argv(struct emu_launch *l, char **cmd, bool vg)
{
	const char *pre = getenv("LD_PRELOAD");
	static char preload[4096];
	size_t n = 0, k = 0;

	while (cmd[n])
		n++;
	if (!(l->argv = calloc(n + 8, sizeof(*l->argv))))
		return -1;
	l->argv[k++] = l->exe;
	if (vg) {
		l->argv[k++] = "--tool=libpmu";	/* else the core takes itself for memcheck, and preloads its malloc */
		l->argv[k++] = l->arg;
		l->argv[k++] = "--vex-guest-chase=no";
		l->argv[k++] = "-q";
	} else {
		l->argv[k++] = "-plugin";
		l->argv[k++] = l->arg;
		if (pre && *pre && snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", pre) < (int)sizeof(preload)) {
			l->argv[k++] = "-E";
			l->argv[k++] = preload;
			unsetenv("LD_PRELOAD");
		}
		l->argv[k++] = "-0";
		l->argv[k++] = cmd[0];
	}
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

/*
 * The backend asked for, or the first that counts here: QEMU, which starts in tens of milliseconds
 * where Valgrind takes 0.15 s (a suite of short runs), then Valgrind. 0, or -1 with a message.
 */
static int pick(struct emu_launch *l, const char *backend, const char *who, bool *vg)
{
	char qwhy[PATH_MAX + 512] = "", vwhy[PATH_MAX + 512] = "";

	if (backend && strcmp(backend, "qemu") && strcmp(backend, "valgrind"))
		return fprintf(stderr, "%s: --backend %s: not a backend (qemu or valgrind)\n", who, backend), -1;
	*vg = false;
	if ((!backend || !strcmp(backend, "qemu")) && qemu_ready(l, qwhy, sizeof(qwhy)) == 0)
		return 0;
	*vg = true;
	if ((!backend || !strcmp(backend, "valgrind")) && valgrind_ready(l, vwhy, sizeof(vwhy)) == 0)
		return 0;
	if (backend)
		fprintf(stderr, "%s: %s: not counted: %s\n", who, l->prog, *qwhy ? qwhy : vwhy);
	else
		fprintf(stderr, "%s: %s: no emulation backend counts here, so nothing is counted:\n  qemu: %s\n"
			"  valgrind: %s\n", who, l->prog, qwhy, vwhy);
	return -1;
}

int emu_prepare(struct emu_launch *l, char **cmd, const char *backend, const char *who)
{
	const char *why;
	char num[16];
	bool vg;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (getauxval(AT_SECURE))
		return fprintf(stderr, "%s: %s\n", who, SECURE_WHY), -1;
	if (!cmd[0] || find_program(cmd[0], l->prog, sizeof(l->prog)) < 0)
		return fprintf(stderr, "%s: %s: no such program (in PATH)\n", who, cmd[0] ? cmd[0] : "(none)"), -1;
	if (!(l->machine = machine_of(l->prog, &why)))
		return fprintf(stderr, "%s: %s: %s\n", who, l->prog, why), -1;
	if (pick(l, backend, who, &vg) < 0) {
		drop_table(l);
		return -1;
	}
	snprintf(num, sizeof(num), "%d", l->fd);
	if (setenv(PMU_EMU_FD_VAR, num, 1) < 0 || make_argv(l, cmd, vg) < 0) {
		fprintf(stderr, "%s: cannot set up the emulation: %s\n", who, strerror(errno));
		emu_free(l);
		return -1;
	}
	if (!vg)
		sysroot(l->machine);
	personality(ADDR_NO_RANDOMIZE);	/* the program's addresses, and so its counts, repeat */
	return 0;
}

void emu_free(struct emu_launch *l)
{
	drop_table(l);
	free(l->argv);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pmu emulate [--backend qemu|valgrind] [--] CMD [ARGS...]\n"
		"  runs CMD where each thread's instructions are counted exactly without a PMU:\n"
		"  under QEMU's user-mode emulation with libpmu-qemu (qemu-x86_64, qemu-aarch64 or\n"
		"  qemu-riscv64, as CMD's machine says), or under Valgrind with libpmu-valgrind\n"
		"  (programs of this machine). Without --backend, QEMU where it counts (it starts\n"
		"  faster), else Valgrind (on long runs as fast or faster: --backend valgrind).\n"
		"  In CMD, the event instructions is that count, read with a load (regions,\n"
		"  reports, PMU_EVENTS, the drop-ins). Address randomisation is off for CMD, so\n"
		"  that its runs repeat. Where no backend counts, CMD does not run and the\n"
		"  message says why. The exit status is CMD's.\n");
	return f == stdout ? 0 : TOOL_USAGE;
}

int cmd_emulate(int argc, char **argv)
{
	const char *backend = NULL;
	struct emu_launch l;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout);
	for (; i < argc && !strncmp(argv[i], "--backend", 9); i++) {
		if (argv[i][9] == '=')
			backend = argv[i] + 10;
		else if (!argv[i][9] && i + 1 < argc)
			backend = argv[++i];
		else
			break;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || (argv[i][0] == '-' && strcmp(argv[i - 1], "--"))) {
		if (i < argc)
			fprintf(stderr, "pmu emulate: unknown option '%s'\n", argv[i]);
		return usage(stderr);
	}
	if (emu_prepare(&l, argv + i, backend, "pmu emulate") < 0)
		return 127;
	execv(l.exe, l.argv);
	fprintf(stderr, "pmu emulate: %s: %s\n", l.exe, strerror(errno));
	return 127;
}

void emu_backends(void)
{
	static const char *const name[] = { "qemu", "valgrind" };
	int (*const ready[])(struct emu_launch *, char *, size_t) = { qemu_ready, valgrind_ready };
	char why[PATH_MAX + 512];
	struct emu_launch l;

	printf("\nEmulation (pmu emulate: instructions counted exactly, without a PMU):\n");
	if (getauxval(AT_SECURE)) {
		printf("  not looked at: %s\n", SECURE_WHY);
		return;
	}
	for (unsigned i = 0; i < 2; i++) {
		memset(&l, 0, sizeof(l));
		l.fd = -1;
		l.machine = PMU_ARCH_NAME;
		if (ready[i](&l, why, sizeof(why)) == 0)
			printf("  %-9s counts: %s %s (%s)\n", name[i], i ? "Valgrind" : "QEMU", l.t->version, l.exe);
		else
			printf("  %-9s no: %s\n", name[i], why);
		drop_table(&l);
	}
}
