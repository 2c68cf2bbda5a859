/* SPDX-License-Identifier: MIT */
/*
 * pmu stat: counts a command and its children the way perf stat does.
 *
 * The command is forked first and waits on a pipe; its counters are opened
 * on its pid (inherit, enable on exec, each event on its own), then it is
 * let go and execs: counting starts at the exec and follows every child.
 * Like perf stat run by a user allowed to, events without a modifier count
 * user and kernel space; where the kernel refuses that (perf_event_paranoid)
 * they count user space only, as perf stat does then.
 *
 * Here, the steps of one pmu stat in order; stat.h says which file does each.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "layers.h"
#include "cmds.h"
#include "stat.h"
#include "tool_err.h"

/*
 * The events resolved (nothing runs when one is wrong) and the output opened: 0, 1, or
 * TOOL_USAGE for an event list that is malformed or names no event, as perf's -e.
 */
static int prepare(struct stat_run *r)
{
	int bad_list = stat_events_resolve(r) < 0;

	if (bad_list || stat_metrics_resolve(r) < 0 || stat_events_ready(r) < 0) {
		fprintf(stderr, "pmu stat: %s\n", tool_errmsg());
		return bad_list ? TOOL_USAGE : 1;
	}
	if (r->outpath) {
		/* close-on-exec: not left open in the command */
		if (pmu__out_open(&r->out, r->outpath, r->append) < 0) {
			fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
			return 1;
		}
		r->so.out = r->out.f;
		/* as perf stat -o begins its file, in every layout */
		time_t t = time(NULL);
		char when[64];

		fprintf(r->so.out, "# started on %s\n", ctime_r(&t, when) ? when : "?\n");
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_run r = { .so = { .out = stderr, .tg = &r.tg } };
	int rc = stat_parse_args(&r, argc, argv), e;

	if (rc >= 0)	/* -h, or a usage error */
		goto out;
	rc = stat_target_resolve(&r.tg);
	if (rc >= 0)
		goto out;
	/* --emulate: the run's total in the table counts instructions, and QEMU runs the command */
	if (r.emulate && (emu_prepare(&r.emu, r.cmd, r.backend, "pmu stat") < 0 || pmu__emu_attach(r.emu.t) < 0)) {
		rc = 127;
		goto out;
	}
	rc = prepare(&r);
	/* -r: the runs, until one fails or is killed */
	if (rc == 0)
		rc = stat_runs(&r);
	if (rc <= 0 && r.so.el.n) {
		stat_report(&r);
		rc = WIFEXITED(r.status) ? WEXITSTATUS(r.status) :
		     WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : 1;
	}
out:
	if (r.out.f && (e = pmu__out_close(&r.out, true)) < 0) {
		fprintf(stderr, "pmu stat: %s: %s\n", r.outpath, strerror(-e));
		if (!rc)
			rc = 1;
	}
	stat_events_free(r.ev, r.n, r.tg.n);
	stat_metrics_free(&r);
	pmu__pj_free();
	free(r.events);
	free(r.metrics);
	stat_target_free(&r.tg);
	emu_free(&r.emu);
	if (r.interrupted) {	/* as perf stat: the figures, then the ^C that ended them */
		fflush(NULL);
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	return rc;
}
