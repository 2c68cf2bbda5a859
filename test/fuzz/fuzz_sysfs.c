/* SPDX-License-Identifier: MIT */
/*
 * Whole sysfs files from the input: a scratch PMU whose events/fz alias and
 * format/fz term hold the input, resolved as perf-style events; and a scratch
 * tracefs whose fz:fz tracepoint id holds it, listed and resolved alike.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/event.h"
#include "events/sysfs.h"

static char root[PATH_MAX], alias[PATH_MAX + 32], format[PATH_MAX + 32], tpid[PATH_MAX + 64];

static void put(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

static void fmt(const char *name, const char *spec)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/cpu/format/%s", root, name);
	put(p, spec, strlen(spec));
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		return;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[PATH_MAX + 64];

	(void)argc, (void)argv;
	snprintf(root, sizeof(root), "/tmp/pmu-fuzz-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	snprintf(p, sizeof(p), "%s/cpu", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cpu/format", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cpu/events", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cpu/type", root);
	put(p, "4\n", 2);
	snprintf(p, sizeof(p), "%s/cpu/cpus", root);
	put(p, "0-3\n", 4);
	fmt("event", "config:0-7,32-35");
	fmt("umask", "config:8-15");
	fmt("ldlat", "config1:0-15");
	fmt("long", "config1:0");
	fmt("rdpmc", "config1:1");
	fmt("ext", "config2:0-63");
	snprintf(alias, sizeof(alias), "%s/cpu/events/fz", root);
	snprintf(format, sizeof(format), "%s/cpu/format/fz", root);
	setenv("PMU_SYSFS_DEVICES", root, 1);
	/* a dot directory: not a PMU of the root */
	snprintf(p, sizeof(p), "%s/.tracefs", root);
	mkdir(p, 0755);
	setenv("PMU_TRACEFS", p, 1);
	snprintf(p, sizeof(p), "%s/.tracefs/events", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.tracefs/events/fz", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.tracefs/events/fz/fz", root);
	mkdir(p, 0755);
	snprintf(tpid, sizeof(tpid), "%s/.tracefs/events/fz/fz/id", root);
	return 0;
}

static void parse(const char *e)
{
	struct pmu__event ev;
	int r = pmu__event_parse(e, strlen(e), &ev);

	if (r > 0 || (r == 0 && (ev.n != 1 || strcmp(ev.a[0].pmu, "cpu"))) || (r < 0 && !pmu_errmsg()[0]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the input as an alias file, then as a format file */
	put(alias, data, size);
	parse("cpu/fz/");
	parse("fz");
	parse("cpu/fz,ldlat=7,umask=0x12/k");
	unlink(alias);
	put(format, data, size);
	parse("cpu/fz=1/");
	parse("cpu/fz=0xffffffff,event=0x1/");
	parse("cycles");
	unlink(format);
	/* the input as a tracepoint id: listed exactly when it resolves, with the same id */
	{
		struct pmu__tracepoint *tp;
		uint64_t id = 0;
		size_t n;
		int r, found;

		put(tpid, data, size);
		r = pmu__tracepoints(&tp, &n);
		if (r < 0 || n > 1 || (n && strcmp(tp[0].name, "fz:fz")))
			abort();
		found = pmu__tracepoint_id("fz:fz", 5, &id);
		if (found < 0 && !pmu_errmsg()[0])
			abort();
		if ((n == 1) != (found == 1) || (n && tp[0].id != id))
			abort();
		pmu__tracepoints_free(tp, n);
		unlink(tpid);
	}
	return 0;
}
