/* SPDX-License-Identifier: MIT */
/*
 * This machine as perf's JSON files see it: which model directory of a
 * pmu-events tree is this CPU's (mapfile.csv: CPUID on x86, MIDR on arm64).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "events/perf_cpu.h"
#include "events/sysfs.h"

/* This CPU's identifier as perf writes it: x86 "GenuineIntel-6-8F-8", arm64 "0x00000000410fd0c0". */
static int cpu_id(bool arm, char *buf, size_t size)
{
	char line[256], vendor[64] = "";
	long fam = -1, model = -1, step = -1;
	FILE *f;

	if (arm) {
		char midr[64];
		unsigned long long v;

		if (pmu__read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr,
				   sizeof(midr)) < 0)
			return pmu__err(-ENOENT, "no MIDR (/sys/devices/system/cpu/cpu0/regs/identification/midr_el1)");
		v = strtoull(midr, NULL, 0);
		v &= ~((0xfULL << 20) | 0xfULL);	/* variant and revision, as perf */
		snprintf(buf, size, "0x%016llx", v);
		return 0;
	}
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return pmu__err(-errno, "/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && !(vendor[0] && fam >= 0 && model >= 0 && step >= 0)) {
		char *c = strchr(line, ':');

		if (!c)
			continue;
		if (!strncmp(line, "vendor_id", 9))
			sscanf(c + 1, " %63s", vendor);
		else if (!strncmp(line, "cpu family", 10))
			fam = strtol(c + 1, NULL, 10);
		else if (!strncmp(line, "model", 5) && line + 5 + strspn(line + 5, " \t") == c)
			model = strtol(c + 1, NULL, 10);
		else if (!strncmp(line, "stepping", 8))
			step = strtol(c + 1, NULL, 10);
	}
	fclose(f);
	if (!vendor[0] || fam < 0 || model < 0)
		return pmu__err(-ENOENT, "/proc/cpuinfo: no vendor_id, cpu family and model");
	snprintf(buf, size, "%s-%ld-%lX-%lX", vendor, fam, model, step < 0 ? 0 : step);
	return 0;
}

/* perf's strcmp_cpuid_str: the map's regex matches the whole id (without stepping unless the map has one). */
static bool cpuid_match(const char *map, const char *id, bool arm)
{
	regex_t re;
	regmatch_t m[1];
	size_t want = strlen(id);
	bool ok;

	if (arm)
		return !strcasecmp(map, id);
	if (regcomp(&re, map, REG_EXTENDED) != 0)
		return false;
	ok = !regexec(&re, id, 1, m, 0) && m[0].rm_so == 0;
	regfree(&re);
	if (!ok)
		return false;
	if (strchr(map, '-') && strchr(strchr(map, '-') + 1, '-') && !strchr(strchr(strchr(map, '-') + 1, '-') + 1, '-'))
		want = (size_t)(strrchr(id, '-') - id);	/* vendor-family-model: stepping left out */
	return (size_t)(m[0].rm_eo - m[0].rm_so) == want;
}

/* An arch/<arch> directory (with mapfile.csv): the running CPU's model directory into model. */
int pmu__pj_pick_model(const char *archdir, bool arm, char *model, size_t size)
{
	char path[PATH_MAX], line[1024], id[96];
	FILE *f;
	int r = cpu_id(arm, id, sizeof(id));

	if (r < 0)
		return pmu__err(r, "%s: the running CPU's directory cannot be picked: %s (name the model directory)",
				archdir, pmu_errmsg());
	snprintf(path, sizeof(path), "%s/mapfile.csv", archdir);
	f = fopen(path, "re");
	if (!f)
		return pmu__err(-errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *cols[4] = { 0 }, *p = line;

		if (line[0] == '#' || !strncmp(line, "Family-model", 12))
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		for (int k = 0; k < 4 && p; k++) {
			cols[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (!cols[2] || (cols[3] && strcmp(cols[3], "core")) || !cpuid_match(cols[0], id, arm))
			continue;
		fclose(f);
		snprintf(model, size, "%s/%s", archdir, cols[2]);
		return 0;
	}
	fclose(f);
	return pmu__err(-ENOENT, "%s: this CPU (%s) is not in its mapfile.csv (name a model directory, "
			"e.g. %s/<model>)", archdir, id, archdir);
}

/* The arch directory above a model directory (the one with mapfile.csv), for arm64's ArchStdEvent. */
bool pmu__pj_arch_above(const char *dir, char *out, size_t size)
{
	char p[PATH_MAX], m[PATH_MAX + 16];

	if (!realpath(dir, p))
		return false;
	for (int up = 0; up < 4; up++) {
		char *s = strrchr(p, '/');

		snprintf(m, sizeof(m), "%s/mapfile.csv", p);
		if (up && pmu__pj_is_file(m)) {
			snprintf(out, size, "%s", p);
			return true;
		}
		if (!s || s == p)
			return false;
		*s = '\0';
	}
	return false;
}

bool pmu__pj_arm_machine(const char *dir)
{
	struct utsname u;

	if (dir && strstr(dir, "/arm64"))
		return true;
	if (dir && strstr(dir, "/x86"))
		return false;
	return uname(&u) == 0 && !strcmp(u.machine, "aarch64");
}
