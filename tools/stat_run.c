/* SPDX-License-Identifier: MIT */
/*
 * pmu stat's running: the command forked and held until its counters are
 * open on every unit (stat_target.c's threads or CPUs), enabled at its
 * exec or after -D's delay, -I's intervals and ^C while it runs or the
 * targets are watched, then each unit's readings summed; -r's runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "layers.h"
#include "stat.h"
#include "tool_err.h"

static double now_s(void)
{
	return (double)pmu__mono_ns() / 1e9;
}

/* The forked child: waits for go, then execs the command (its errno to ex on failure). */
static __attribute__((noreturn)) void child(char **cmd, int go[2], int ex[2])
{
	int err;
	char c;

	close(go[1]);
	close(ex[0]);
	if (read(go[0], &c, 1) != 1)	/* the parent gave up */
		_exit(127);
	execvp(cmd[0], cmd);
	err = errno;
	if (write(ex[1], &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* Opens group i on every unit; a thread that exited since it was listed is left out, as perf does. */
static int open_units(struct stat_run *r, unsigned i, const char *suffix)
{
	struct ev *e = &r->ev[i];
	char *spec = stat_group_spec(r->ev, i, suffix);
	struct pmu_set *first = NULL;
	int rc = spec ? 0 : tool_err(-ENOMEM, "out of memory"), cpus[1024];
	unsigned ncpu = stat_target_event_cpus(&r->tg, e->spec ? e->spec : e->name, cpus, 1024);

	for (unsigned u = 0; u < r->tg.n && rc == 0; u++) {
		struct pmu_opts o;
		unsigned k = 0;

		while (k < ncpu && cpus[k] != r->tg.u[u].cpu)
			k++;
		if (ncpu && k == ncpu)	/* not a CPU of the event's per-CPU PMU */
			continue;
		stat_target_opts(&r->tg, u, &o);
		if (r->delay && r->tg.kind == STAT_CMD)	/* -D: enabled once the delay is over, not at exec */
			o.flags = (o.flags & ~PMU_ENABLE_ON_EXEC) | PMU_DISABLED;
		rc = tool_err_lib(pmu_open_opts(&e->per[u].set, spec, &o));
		if (rc == -ESRCH && r->tg.kind == STAT_TASKS)
			rc = 0;
		if (!first)
			first = e->per[u].set;
	}
	free(spec);
	if (rc == 0 && !first)
		rc = tool_err(-ESRCH, "%s: every thread to count has exited", e->name);
	if (rc < 0) {
		stat_group_close(r->ev, i, r->tg.n);
		return rc;
	}
	for (unsigned k = i; k < i + e->gsize; k++)
		r->ev[k].set = first;	/* opened: the sets are the leader's, in per[] */
	return 0;
}

/*
 * Opens group i (an event alone or {a,b}); first with kernel counting when
 * the user named no modifier. r->user_only is set when the kernel refused that.
 */
static int open_event(struct stat_run *r, unsigned i)
{
	struct ev *e = &r->ev[i];
	bool refused = false;
	char buf[512];
	int rc;

	if (!stat_group_levels(r->ev, i)) {
		rc = open_units(r, i, ":uk");
		if (rc == 0)
			return 0;
		/* Refused: user space only, named :u as perf names it (context-switches:u counts 0 there). */
		refused = rc == -EACCES || rc == -EPERM;
		if (refused && open_units(r, i, ":u") == 0) {
			for (unsigned k = i; k < i + e->gsize; k++) {
				char *n = malloc(strlen(r->ev[k].name) + 3);

				if (n) {
					sprintf(n, "%s:u", r->ev[k].name);
					free(r->ev[k].name);
					r->ev[k].name = n;
				}
			}
			r->user_only = true;
			return 0;
		}
	}
	/* As written: the failure in the user's words. */
	rc = open_units(r, i, NULL);
	if (rc == 0) {
		r->user_only |= refused;
		return 0;
	}
	e->why = strdup(stat_target_refused(&r->tg, e->name, -rc, buf, sizeof(buf)) ?: tool_errmsg());
	return rc;
}

/* Opens every event on every unit; default hardware events the machine lacks are left out, as noise. */
static unsigned open_events(struct stat_run *r)
{
	unsigned opened = 0;

	for (unsigned i = 0; i < r->n;) {
		struct ev *ev = r->ev;
		int rc = open_event(r, i);

		if (rc < 0 && ev[i].optional) {	/* alone: not in a group */
			stat_event_free(&ev[i], r->tg.n);
			memmove(&ev[i], &ev[i + 1], (r->n - i - 1) * sizeof(*ev));
			r->n--;
			continue;
		}
		opened += rc == 0;
		i += ev[i].gsize;
	}
	return opened;
}

/* Every group on every unit starts counting. */
static void enable_events(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i += r->ev[i].gsize)
		for (unsigned u = 0; u < r->tg.n; u++)
			if (r->ev[i].per[u].set && pmu_enable(r->ev[i].per[u].set) < 0)
				fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
}

/* Threads and CPUs count from here (the command's events from its exec); with -D, after the delay. */
static void start_counting(struct stat_run *r)
{
	if (r->tg.kind != STAT_CMD && !r->delay)
		enable_events(r);
}

/* Adds unit u's reading of event e, scaled when the kernel multiplexed it; -I: since the last interval. */
static void add_count(struct ev *e, unsigned u, const struct pmu_reading *now, bool interval)
{
	struct ev_count *c = &e->per[u];
	/* counts and times only grow: an interval's are the differences */
	const struct pmu_reading d = { .value = now->value - c->last.value, .enabled = now->enabled - c->last.enabled,
				       .running = now->running - c->last.running }, *rd = &d;

	if (interval)
		c->last = *now;
	c->rd = *rd;
	c->counted = rd->running > 0 && rd->enabled > 0;
	c->value = (double)rd->value;
	if (c->counted && rd->running < rd->enabled)
		c->value = (double)rd->value * (double)rd->enabled / (double)rd->running;
	e->rd.value += rd->value;
	e->rd.enabled += rd->enabled;
	e->rd.running += rd->running;
	e->value += c->value;
	e->counted |= c->counted;
}

/* Each event's count on each unit (with -I, since the last interval), and their sum. */
static void read_counts(struct stat_run *r)
{
	for (unsigned i = 0; i < r->n; i += r->ev[i].gsize) {
		struct pmu_reading rd[r->ev[i].gsize];

		for (unsigned k = i; k < i + r->ev[i].gsize; k++) {
			struct ev *e = &r->ev[k];

			memset(&e->rd, 0, sizeof(e->rd));
			e->value = 0;
			e->counted = false;
			for (unsigned u = 0; u < r->tg.n; u++)
				e->per[u] = (struct ev_count){ .set = e->per[u].set, .last = e->per[u].last };
		}
		for (unsigned u = 0; r->ev[i].set && u < r->tg.n; u++) {
			struct pmu_set *set = r->ev[i].per[u].set;

			if (!set)
				continue;
			if (pmu_read_full(set, rd) < 0) {
				fprintf(stderr, "pmu stat: %s\n", pmu_errmsg());
				continue;
			}
			for (unsigned k = 0; k < r->ev[i].gsize; k++)
				add_count(&r->ev[i + k], u, &rd[k], r->interval);
		}
		for (unsigned k = i; r->verbose && k < i + r->ev[i].gsize; k++)
			stat_print_verbose(&r->ev[k]);
	}
}

/* -I: the counts since the last interval, then their lines. */
static void interval(struct stat_run *r, double t)
{
	read_counts(r);
	stat_print_interval(r, t);
}

/*
 * -D and -I: the delay, then each interval, ends at an absolute deadline
 * (late wake-ups do not add up).
 */
struct ticks {
	double t0;		/* when counting began; during the delay, when it was asked to */
	bool waiting;		/* for the delay to end */
	unsigned long k;	/* the next interval */
};

static void ticks_start(const struct stat_run *r, struct ticks *t, double t0)
{
	*t = (struct ticks){ .t0 = t0, .waiting = r->delay > 0, .k = 1 };
	if (r->delay)
		fprintf(stderr, "Events disabled\n");	/* perf stat's words */
}

/* The next deadline, -1 for none. */
static double tick_due(const struct stat_run *r, const struct ticks *t)
{
	if (t->waiting)
		return t->t0 + (double)r->delay / 1e3;
	return r->interval ? t->t0 + (double)t->k * r->interval / 1e3 : -1;
}

/* The deadline is past at now: the delay ends, or an interval is printed. */
static void tick(struct stat_run *r, struct ticks *t, double now)
{
	if (t->waiting) {
		enable_events(r);
		fprintf(stderr, "Events enabled\n");
		t->t0 = now_s();
		t->waiting = false;
	} else {
		interval(r, now - t->t0);
		t->k = (unsigned long)((now - t->t0) * 1e3 / r->interval) + 1;
	}
}

/* Counting is over: gone before the delay ended counts nothing (as perf stat); -I's last, partial interval. */
static double ticks_end(struct stat_run *r, struct ticks *t)
{
	if (t->waiting)
		t->t0 = now_s();
	else if (r->interval)
		interval(r, now_s() - t->t0);
	return t->t0;
}

static struct timespec ts_of(double s)
{
	return (struct timespec){ .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };
}

static void on_sigchld(int sig)
{
	(void)sig;	/* only ends ppoll */
}

static volatile sig_atomic_t got_sigint;

/* ^C while the command runs: noted, so that pmu stat ends by it once it printed (perf's skip_signal). */
static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

/*
 * -D and -I while the command runs. SIGCHLD is let through inside ppoll
 * only, so the command's exit is never missed between the check and the
 * wait. Returns the time counting began.
 */
static double watch(struct stat_run *r, pid_t pid, double t0)
{
	struct sigaction sa = { .sa_handler = on_sigchld }, old_sa;
	sigset_t chld, old, wake;
	struct ticks t;
	pid_t w;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	sigaction(SIGCHLD, &sa, &old_sa);
	wake = old;
	sigdelset(&wake, SIGCHLD);
	ticks_start(r, &t, t0);
	while ((w = wait4(pid, &r->status, WNOHANG, &r->ru)) == 0 || (w < 0 && errno == EINTR)) {
		double now = now_s(), due = tick_due(r, &t);
		struct timespec left = ts_of(due - now);

		if (due >= 0 && now >= due)
			tick(r, &t, now);
		else
			ppoll(NULL, 0, due >= 0 ? &left : NULL, &wake);
	}
	sigaction(SIGCHLD, &old_sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ticks_end(r, &t);
}

/* -D and -I without a command: until ^C, or the threads exit. True when interrupted. */
static bool watch_targets(struct stat_run *r, double *t0)
{
	enum stat_wait w;
	sigset_t intr, old;
	struct ticks t;

	/* ^C stays pending between waits, never lost nor fatal */
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	sigprocmask(SIG_BLOCK, &intr, &old);
	ticks_start(r, &t, *t0);
	for (;;) {
		double due = tick_due(r, &t);
		struct timespec at = ts_of(due);

		w = stat_target_wait(&r->tg, due >= 0 ? &at : NULL);
		if (w != STAT_WAIT_DUE)
			break;
		tick(r, &t, now_s());
	}
	*t0 = ticks_end(r, &t);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return w == STAT_WAIT_INT;
}

static void no_event(const struct stat_run *r)
{
	fprintf(stderr, "pmu stat: no event could be counted:\n");
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i].why || !r->ev[i].slot)
			fprintf(stderr, "  %s\n", r->ev[i].why ? r->ev[i].why : r->ev[i].name);
}

/* Without a command: threads until they exit or ^C, CPUs until ^C. -1, or an exit status. */
static int count_targets(struct stat_run *r)
{
	double t0;

	if (!open_events(r)) {
		no_event(r);
		return 1;
	}
	start_counting(r);
	t0 = now_s();
	r->interrupted = watch_targets(r, &t0);
	r->elapsed = now_s() - t0;
	r->status = 0;
	return -1;
}

/* Lets the child exec and waits for it. -1 when it ran, else the exit status. */
static int release_and_wait(struct stat_run *r, pid_t pid, int go[2], int ex[2])
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, note = { .sa_handler = on_sigint }, old_int, old_quit;
	int err = 0;
	double t0;
	ssize_t got;

	/*
	 * Like system(): the command gets ^C, we stay to print what it counted,
	 * then end by the ^C as perf stat does (a shell loop around us stops).
	 */
	got_sigint = 0;
	sigaction(SIGINT, &note, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	start_counting(r);
	t0 = now_s();
	if (write(go[1], "g", 1) != 1)
		err = errno;
	close(go[1]);
	go[1] = -1;
	got = read(ex[0], &err, sizeof(err));
	if (got != (ssize_t)sizeof(err) && (r->interval || r->delay))
		t0 = watch(r, pid, t0);
	else
		while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
			;
	r->elapsed = now_s() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	r->interrupted |= got_sigint != 0;
	if (got == (ssize_t)sizeof(err)) {
		fprintf(stderr, "pmu stat: %s: %s\n", r->cmd[0], strerror(err));
		return 127;
	}
	if (WIFSIGNALED(r->status))	/* as perf stat names it: "sleep: Interrupt" */
		psignal(WTERMSIG(r->status), r->cmd[0]);
	return -1;
}

/* Forks the command, counts it, waits for it: -1 when it ran, else the exit status. */
static int run(struct stat_run *r)
{
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 }, rc = 1;
	pid_t pid;

	if (!r->cmd[0])
		return count_targets(r);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		fprintf(stderr, "pmu stat: pipe: %s\n", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pmu stat: fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(r->emulate ? r->emu.argv : r->cmd, go, ex);
	close(go[0]);
	close(ex[1]);
	go[0] = ex[1] = -1;
	if (r->tg.kind == STAT_CMD)
		r->tg.u[0].pid = pid;
	if (!open_events(r)) {
		no_event(r);
		close(go[1]);	/* the child exits without running the command */
		go[1] = -1;
		waitpid(pid, NULL, 0);
		goto out;
	}
	rc = release_and_wait(r, pid, go, ex);
out:
	for (int k = 0; k < 2; k++) {
		if (go[k] >= 0)
			close(go[k]);
		if (ex[k] >= 0)
			close(ex[k]);
	}
	return rc;
}

/* A run's counts into the statistics; with several runs, each event's value is their mean. */
static void add_run(struct stat_run *r)
{
	runs_add(&r->so.el, r->elapsed);
	for (unsigned i = 0; i < r->n; i++) {
		struct ev *e = &r->ev[i];

		runs_add(&e->st, e->value);
		if (r->so.el.n > 1)
			e->value = e->st.mean;
	}
	if (r->so.el.n > 1)
		r->elapsed = r->so.el.mean;
}

int stat_runs(struct stat_run *r)
{
	int rc = 0;

	/* the events are opened anew for each run */
	while (rc == 0 && r->so.el.n < (r->so.repeat ? r->so.repeat : 1)) {
		if (r->so.el.n)
			stat_events_reset(r);
		rc = run(r);
		if (rc >= 0)
			break;
		if (!r->interval)
			read_counts(r);
		add_run(r);
		if (!WIFEXITED(r->status) || WEXITSTATUS(r->status))
			break;
		rc = 0;
	}
	return rc;
}
