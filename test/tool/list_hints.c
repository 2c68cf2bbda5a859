/* SPDX-License-Identifier: MIT */
/*
 * No dead ends: every hint the library and the tool give ("did you mean X",
 * "pmu list X", "e.g. X", "X counts user space only", "-v says why",
 * PMU_TRACEFS=DIR) is followed, and what it suggests must work: the event
 * resolves (pmu encode) or opens, the listing is not empty.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu.h"
#include "test.h"
#include "tool_run.h"

static unsigned followed;

/* The word after marker in msg up to one of stop (or the end), into buf; NULL when marker is absent. */
static const char *after(const char *msg, const char *marker, const char *stop, char *buf, size_t size)
{
	const char *p = strstr(msg, marker);
	size_t n;

	if (!p)
		return NULL;
	p += strlen(marker);
	n = strcspn(p, stop);
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
	return buf;
}

/*
 * Follows every hint in msg, the message of "pmu CMD EVENT" run with env and
 * sysfs ("--sysfs DIR" or ""). Returns how many hints were followed.
 */
static unsigned follow(const char *what, const char *msg, const char *env, const char *sysfs, const char *event)
{
	char m[sizeof(err)], buf[1024], args[1200];
	const char *h;
	unsigned n = 0;

	snprintf(m, sizeof(m), "%s", msg);
	/* "did you mean a, b?": each resolves; a PMU name in place of the event's PMU */
	if ((h = after(m, "did you mean ", "?", buf, sizeof(buf)))) {
		for (char *save, *c = strtok_r(buf, ", ", &save); c; c = strtok_r(NULL, ", ", &save)) {
			const char *slash = strchr(event, '/');

			if (strstr(m, "unknown PMU") && slash)
				snprintf(args, sizeof(args), "encode %s '%s%s'", sysfs, c, slash);
			else
				snprintf(args, sizeof(args), "encode %s '%s'", sysfs, c);
			CHECK_MSG(run(env, tool, "%s", args) == 0, "%s: hint 'did you mean %s' leads to: pmu %s: %s",
				  what, c, args, err);
			n++;
		}
	}
	/* "pmu list X": lists something */
	if ((h = after(m, "pmu list", ";)\n", buf, sizeof(buf)))) {
		const char *a = h;

		while (*a == ' ')
			a++;
		if (!strncmp(a, "shows", 5) || !strncmp(a, "for ", 4))
			a = "";
		CHECK_MSG(run(env, tool, *a ? "list %s '%s'" : "list %s%s", sysfs, a) == 0 && strlen(out) > 40,
			  "%s: hint 'pmu list %s' lists nothing: %s", what, a, err);
		if (!*a)	/* the whole list: exit 0 and not empty is enough */
			CHECK(strstr(out, "software events:"));
		n++;
	}
	/* "(e.g. X)" of an event */
	if ((h = after(m, "(e.g. ", ")", buf, sizeof(buf))) && !strchr(h, ' ')) {
		CHECK_MSG(run(env, tool, "encode --sysfs %s/intel '%s'", fix, h) == 0, "%s: hint 'e.g. %s': %s", what,
			  h, err);
		n++;
	}
	return n;
}

/* "pmu ARGS" fails, says something, and each of its hints works. */
static void scenario(const char *env, const char *sysfs, const char *event, const char *cmd, unsigned hints)
{
	char what[512];
	unsigned n;
	int st;

	snprintf(what, sizeof(what), "%s pmu %s %s '%s'", env, cmd, sysfs, event);
	st = run(env, tool, "%s %s '%s'%s", cmd, sysfs, event, !strcmp(cmd, "stat -e") ? " true" : "");
	CHECK_MSG(st != 0 && err[0], "%s: exit %d, no message", what, st);
	n = follow(what, err, env, sysfs, event);
	CHECK_MSG(n >= hints, "%s: %u hints followed, %u expected in: %s", what, n, hints, err);
	followed += n;
}

int main(void)
{
	char intel[PATH_MAX + 64], tracefs[PATH_MAX + 64], env[PATH_MAX + 128];
	struct pmu_set *hw;
	int st;

	if (find())
		T_SKIP("the pmu tool or test/fixtures not found next to this test");
	snprintf(intel, sizeof(intel), "--sysfs %s/intel", fix);
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs", fix);
	snprintf(env, sizeof(env), "PMU_TRACEFS='%s'", tracefs);

	/* unknown events and PMUs: the nearest names, and pmu list */
	scenario("", intel, "cyclez", "encode", 2);
	scenario("", intel, "mem-load", "encode", 2);
	scenario("", intel, "cpux/event=1/", "encode", 1);
	scenario("", intel, "task-clok", "encode", 2);
	scenario("", "", "task-clok", "encode", 2);
	/* unknown terms: the PMU's events, and pmu list PMU/ only when it lists something */
	scenario("", intel, "cpu/mem-load/", "encode", 2);
	scenario("", intel, "cpu/bogus=1/", "encode", 1);
	scenario("", intel, "msr/tsc2/", "encode", 2);
	scenario("", intel, "software/task-clock/", "encode", 2);
	scenario("", "", "software/task-clock/", "encode", 2);
	scenario("", "", "software/task-clock/", "stat -e", 2);
	scenario("", "", "software/bogus=1/", "encode", 1);
	scenario(env, "", "tracepoint/x/", "encode", 1);
	scenario("", intel, "breakpoint/x/", "encode", 0);
	CHECK_MSG(!strstr(err, "pmu list") && !strstr(err, "did you mean"), "%s", err);
	/* tracepoints: the nearest ones of tracefs */
	scenario(env, "", "sched:sched_swich", "encode", 2);
	scenario(env, intel, "sched:sched_wakeupp", "encode", 2);
	/* malformed names: an example that works, or the list */
	scenario("", intel, "r", "encode", 1);
	scenario("", intel, "L1-icache-stores", "encode", 1);
	/* a group is no event name: nothing to suggest */
	scenario("", intel, "{task-clock", "encode", 0);
	CHECK_MSG(strstr(err, "pmu stat form") && !strstr(err, "did you mean"), "%s", err);
	scenario("", intel, "page-faults}", "encode", 0);
	CHECK_MSG(strstr(err, "pmu stat form") && !strstr(err, "did you mean"), "%s", err);

	/* pmu list's own: tracepoints against a sysfs copy, then with PMU_TRACEFS as said */
	st = run("", tool, "list %s tracepoint", intel);
	CHECK_MSG(st == 1 && strstr(err, "PMU_TRACEFS=DIR"), "exit %d: %s", st, err);
	st = run(env, tool, "list %s tracepoint", intel);
	CHECK_MSG(st == 0 && strstr(out, "  sched:sched_switch ") && strstr(out, "[Tracepoint event]"), "exit %d: %s",
		  st, err);
	followed++;

	/* --available on a machine where cycles does not open: "-v says why", and it does */
	if (pmu_open(&hw, "cycles") == 0) {
		pmu_close(hw);
		st = run("", tool, "list --available hw");
		CHECK_MSG(st == 0 && strstr(out, "  cycles "), "exit %d: %s%s", st, out, err);
	} else {
		st = run("", tool, "list --available hw");
		CHECK_MSG(st == 1 && strstr(err, "-v says why") && !out[0], "exit %d: %s%s", st, out, err);
		st = run("", tool, "list --available -v hw");
		CHECK_MSG(st == 1 && strstr(err, "cycles: no hardware PMU on this machine"), "exit %d: %s", st, err);
		followed++;
	}

	/* as an ordinary user: "(X counts user space only)" opens */
	{
		long paranoid = 0;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		char dir[] = "/tmp/pmu-hints-XXXXXX", copy[64], as[3 * PATH_MAX + 512], buf[512];
		unsigned before = followed;

		if (f && fscanf(f, "%ld", &paranoid) != 1)
			paranoid = 0;
		if (f)
			fclose(f);
		if (geteuid() == 0 && paranoid >= 2 && !access("/usr/bin/setpriv", X_OK) && mkdtemp(dir)) {
			snprintf(copy, sizeof(copy), "%s/pmu", dir);
			/* the tool and, where it links it, the library beside it ($ORIGIN) */
			snprintf(as, sizeof(as), "cp '%s' %s && chmod 755 %s %s && l=\"$(dirname '%s')/libpmu.so.0\" && "
				 "{ [ ! -e \"$l\" ] || cp -L \"$l\" %s/; }", tool, copy, dir, copy, tool, dir);
			CHECK(system(as) == 0);
			snprintf(as, sizeof(as), "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all");
			for (const char *const *e = (const char *const[]){ "task-clock:k", "task-clock:ku",
									   "software/config=1/k", NULL }; *e; e++) {
				char cmd[sizeof(as) + 80];

				snprintf(cmd, sizeof(cmd), "%s %s", as, copy);
				st = run("", cmd, "stat -e '%s' true", *e);
				CHECK_MSG(st != 0 && after(err, "(", " counts user space only", buf, sizeof(buf)),
					  "%s: exit %d: %s", *e, st, err);
				if (!after(err, "(", " counts user space only", buf, sizeof(buf)))
					continue;
				/* the last "(" before the hint */
				{
					const char *end = strstr(err, " counts user space only"), *p = end;

					while (p > err && p[-1] != '(')
						p--;
					snprintf(buf, sizeof(buf), "%.*s", (int)(end - p), p);
				}
				st = run("", cmd, "stat -e '%s' true", buf);
				CHECK_MSG(st == 0, "%s: hint '%s counts user space only': exit %d: %s", *e, buf, st, err);
				followed++;
			}
			printf("as an ordinary user: %u hints followed\n", followed - before);
			snprintf(as, sizeof(as), "rm -rf %s", dir);
			CHECK(system(as) == 0);
		}
	}
	printf("%u hints followed\n", followed);
	T_DONE();
}
