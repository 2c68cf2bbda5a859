/* SPDX-License-Identifier: MIT */
/*
 * The per-thread layer: one set per thread, opened on the thread's first
 * read and closed by a pthread key destructor when the thread exits.
 *
 * Records live on a list under tlock, taken only when a thread sets up,
 * exits, or a report/fini/fork walks the list; reads take no lock. A record
 * is valid while its generation equals pmu__tgen: pmu_thread_fini() and a
 * forked child bump it, which retires every record at once (a thread checks
 * its own copy of the generation before touching its record).
 *
 * Fork: a pthread_atfork child handler closes the inherited sets and forgets
 * the parent's records (and lets the layers above reset theirs, through
 * pmu__thr_set_hooks()), so the child's threads open fresh counters on first
 * use. A child made without the handler (a raw fork system call) is caught
 * by pmu_read()'s -ECHILD and reset the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/escape.h"
#include "events/event.h"
#include "metrics/metric_use.h"
#include "counters/set_ops.h"	/* pmu__set_event_socket() */
#include "regions/thread.h"

static pthread_mutex_t tlock = PTHREAD_MUTEX_INITIALIZER;	/* the lists, the configuration */
static struct pmu__thr *tlist, *tlast;	/* oldest first */
static struct pmu__thr *tlive;		/* the threads alive: what a forked child closes, whatever the history */
static struct pmu__thr *forsaken;	/* the records a forked child had from its parent, kept reachable */
/*
 * Exited threads keep a record each, for the reports, up to PMU_KEEP_EXITED;
 * later ones are folded into one record of them all ("(N exited)", tid 0),
 * so that a process that churns threads keeps bounded memory. Under tlock.
 */
#define PMU_KEEP_EXITED 256
static unsigned nexited, nfolded;
static struct pmu__thr *folded;
static struct pmu__tconf *tconf;
int pmu__thr_on;
static const struct pmu__thr_hooks *hooks;
uint64_t pmu__tgen = 1;
__thread struct pmu__tls pmu__tls __attribute__((tls_model("initial-exec")));

static pthread_key_t key;
static bool key_made;
/* The process whose records the lists hold: a raw fork's child differs (pmu__thr_read_slow()). */
static pid_t tpid;
static bool atfork_done;

static void conf_free(struct pmu__tconf *c)
{
	if (!c)
		return;
	for (unsigned i = 0; c->names && i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->units);
	free(c->events);
	free(c->spec);
	free(c->metrics);
	free(c->skipped);
	free(c);
}

/* t at the end of the list of every thread, oldest first; under the lock, as the live list's. */
static void link_all(struct pmu__thr *t)
{
	t->prev = tlast;
	if (tlast)
		tlast->next = t;
	else
		tlist = t;
	tlast = t;
}

static void link_live(struct pmu__thr *t)
{
	t->lprev = NULL;
	t->lnext = tlive;
	if (tlive)
		tlive->lprev = t;
	tlive = t;
}

static void unlink_live(struct pmu__thr *t)
{
	if (t->lprev)
		t->lprev->lnext = t->lnext;
	else if (tlive == t)
		tlive = t->lnext;
	if (t->lnext)
		t->lnext->lprev = t->lprev;
	t->lprev = t->lnext = NULL;
}

static void unlink_thr(struct pmu__thr *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		tlist = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		tlast = t->prev;
}

/* Frees a record, its upper part through the hooks (set before any upper part is). */
static struct pmu__refusals refused;	/* under tlock */

static void free_thr(struct pmu__thr *t)
{
	const struct pmu__thr_hooks *h = PMU_LOAD_ACQUIRE(hooks);

	if (t->upper && h)
		h->drop(t->upper);
	free(t);
}

/* Closes every set and frees every record. Under tlock. */
/*
 * Every record is to become invalid: each live thread's pmu__tls.upper is
 * cleared before the generation moves on (pmu__tls), under the lock.
 */
static void new_generation(void)
{
	for (struct pmu__thr *t = tlive; t; t = t->lnext)
		if (t->tls)
			PMU_WRITE_ONCE(t->tls->upper, NULL);
	PMU_ADD(pmu__tgen, 1);
}

static void drop_all(void)
{
	struct pmu__thr *t, *next;

	new_generation();
	for (t = tlist; t; t = next) {
		next = t->next;
		pmu_close(t->set);
		free_thr(t);
	}
	tlist = tlast = tlive = folded = NULL;
	nexited = nfolded = 0;
}

/*
 * A forked child's reset, in time that depends on the threads alive, not
 * on how many the parent ever had: the sets of the parent's live threads
 * are closed (their descriptors are the child's too), and the records,
 * which only the parent's reports want, are left as they are (the child's
 * copy of the parent's memory), reachable from forsaken. Under tlock.
 */
static void drop_child(void)
{
	new_generation();
	for (struct pmu__thr *t = tlive; t; t = t->lnext) {
		pmu_close(t->set);
		t->set = NULL;
	}
	if (tlast) {
		tlast->next = forsaken;
		forsaken = tlist;
	}
	tlist = tlast = tlive = folded = NULL;
	nexited = nfolded = 0;
}

/* Exited thread t's figures into the record of the folded ones (made on the first): 0, or -ENOMEM. Under tlock. */
static int fold_thr(struct pmu__thr *t)
{
	const struct pmu__thr_hooks *h = PMU_LOAD_ACQUIRE(hooks);
	void *upper;

	if (!h || !h->fold)
		return -ENOMEM;
	if (!folded) {
		if (!(folded = calloc(1, sizeof(*folded))))
			return -ENOMEM;
		folded->n = t->n;
		folded->exited = 1;
		folded->keep = true;
		link_all(folded);
	}
	upper = folded->upper;
	if (h->fold(&upper, t->upper, t->n) < 0)
		return -ENOMEM;
	PMU_STORE_RELEASE(folded->upper, upper);
	nfolded++;
	snprintf(folded->tname, sizeof(folded->tname), nfolded < 1000000 ? "(%u exited)" : "(many exited)", nfolded);
	return 0;
}

/* A kept record of an exiting thread: kept, or past PMU_KEEP_EXITED folded and freed. Under tlock. */
static void keep_exited(struct pmu__thr *t)
{
	PMU_WRITE_ONCE(t->exited, 1);
	if (nexited < PMU_KEEP_EXITED || fold_thr(t) < 0) {
		nexited++;
		return;
	}
	unlink_thr(t);
	free_thr(t);
}

/* Thread exit: close the set; keep the record if the layer above asked to (figures for its report). */
static void thr_exit(void *p)
{
	struct pmu__thr *t = p;
	int cs = pmu__lock(&tlock);

	if (t == pmu__tls.thr && pmu__tls.gen == PMU_READ_ONCE(pmu__tgen)) {
		pmu_close(t->set);
		t->set = NULL;
		t->tls = NULL;	/* gone with the thread */
		unlink_live(t);
		if (PMU_READ_ONCE(t->keep)) {
			keep_exited(t);
		} else {
			unlink_thr(t);
			free_thr(t);
		}
	}
	pmu__tls = (struct pmu__tls){ 0 };
	pmu__unlock(&tlock, cs);
}

void pmu__thr_exit_self(void)
{
	int cs;

	if (!pmu__tls.thr)
		return;
	thr_exit(pmu__tls.thr);
	cs = pmu__lock(&tlock);
	if (key_made)
		pthread_setspecific(key, NULL);
	pmu__unlock(&tlock, cs);
}

void pmu__thr_set_hooks(const struct pmu__thr_hooks *h)
{
	PMU_STORE_RELEASE(hooks, h);
}

/* The hooks whose prepare ran, for parent and child: set meanwhile, the others must not run. */
static const struct pmu__thr_hooks *fork_hooks;

static void atfork_prepare(void)
{
	const struct pmu__thr_hooks *h = PMU_LOAD_ACQUIRE(hooks);

	if (h)
		h->prepare();
	/*
	 * Raw lock: a fork handler. pmu__lock()'s rule is for a lock held across a
	 * cancellation point; between fork()'s prepare and parent or child handlers
	 * none runs (fork() is not one, nor is any call of these handlers), and the
	 * lock is let go in another handler, which a saved cancel state cannot span.
	 */
	pthread_mutex_lock(&tlock);	/* raw: a fork handler */
	fork_hooks = h;
}

static void atfork_parent(void)
{
	const struct pmu__thr_hooks *h = fork_hooks;

	pthread_mutex_unlock(&tlock);	/* raw: a fork handler (atfork_prepare) */
	if (h)
		h->parent();
}

/* In the child, tlock held: after the atfork prepare handler, or made anew after a raw fork. */
static void reset_child(bool raw)
{
	const struct pmu__thr_hooks *h = raw ? PMU_LOAD_ACQUIRE(hooks) : fork_hooks;

	/* Closing is safe in the child: it touches descriptors and memory, not the parent's pages. */
	drop_child();
	refused = (struct pmu__refusals){ 0 };	/* the child's own threads are its report's */
	pmu__tls = (struct pmu__tls){ 0 };
	if (key_made)
		pthread_setspecific(key, NULL);
	PMU_WRITE_ONCE(tpid, getpid());
	pthread_mutex_unlock(&tlock);	/* raw: a fork handler (atfork_prepare) */
	if (h)
		h->child(raw);
}

/*
 * A thread's set: its events for the thread, and those of a per-CPU PMU
 * (RAPL, uncore) socket-wide, each CPU of its mask (LIKWID's semantics).
 */
static int open_set(struct pmu_set **set, const char *spec)
{
	PMU_OPTS(o, .flags = PMU_SOCKET_WIDE);

	return pmu_open_opts(set, spec, &o);
}

/*
 * The forking thread, when it had its counters, gets fresh ones now, in the
 * child's fork() (where allocating is allowed) and reads them once: its first
 * read in the child, from a signal handler say, then allocates, locks and
 * opens nothing, as in the parent (libpmu(7)'s promise). Failing here is
 * quiet: the first read then sets up as any thread's first read does.
 */
static void atfork_child(void)
{
	bool had = pmu__tls.thr && pmu__tls.gen == PMU_READ_ONCE(pmu__tgen);
	struct pmu__thr *t;
	int saved = errno;

	reset_child(false);
	if (had && pmu__thr_get(&t) == 0) {
		uint64_t *v = calloc(t->n ? t->n : 1, sizeof(*v));

		if (v)
			(void)pmu__thr_read(&t, v);
		free(v);
	}
	errno = saved;
}

/* The configuration of events, opened as set, which it closes; spec and metrics become its own. NULL: no memory. */
static struct pmu__tconf *conf_new(struct pmu_set *set, const char *events, char *spec, char *metrics)
{
	struct pmu__tconf *c = calloc(1, sizeof(*c));
	unsigned i;

	if (c) {
		c->n = pmu_count(set);
		c->spec = spec;
		c->metrics = metrics;
		spec = metrics = NULL;
		c->events = strdup(events);
		c->names = calloc(c->n, sizeof(*c->names));
		c->units = calloc(c->n, sizeof(*c->units));
		clock_gettime(CLOCK_REALTIME, &c->start);
	}
	for (i = 0; c && c->units && i < c->n; i++) {
		snprintf(c->units[i].unit, sizeof(c->units[i].unit), "%s", pmu_unit(set, i, &c->units[i].scale));
		c->units[i].socket = pmu__set_event_socket(set, i);
		c->units[i].emulated = pmu__set_event_emulated(set, i);
	}
	for (i = 0; c && c->names && i < c->n; i++)
		if (!(c->names[i] = strdup(pmu_name(set, i))))
			break;
	pmu_close(set);
	free(spec);
	free(metrics);
	if (!c || !c->events || !c->names || (c->n && (!c->units || !c->names[c->n - 1]))) {
		conf_free(c);
		return NULL;
	}
	return c;
}

PMU_API int pmu_thread_init(const char *events)
{
	struct pmu__tconf *c;
	struct pmu_set *set;
	char *spec, *metrics;
	int r;
	int cs;

	if (!events)
		return pmu__err(-EINVAL, "pmu_thread_init: the event list is NULL");
	cs = pmu__lock(&tlock);
	if (tconf) {
		r = strcmp(tconf->events, events) ? -EBUSY : 0;
		if (r)
			pmu__err(r, "pmu_thread_init: \"%s\": already initialised with \"%s\" "
				 "(call pmu_thread_fini() first)", events, tconf->events);
		pmu__unlock(&tlock, cs);
		return r;
	}
	r = pmu__metric_expand(events, &spec, &metrics);
	if (r < 0) {
		pmu__err_append(" (pmu_thread_init)");
		goto out;
	}
	/* Open once here so that a bad event fails now, with its message, not in some thread later. */
	r = open_set(&set, spec);
	if (r < 0) {
		free(spec);
		free(metrics);
		pmu__err_append(" (pmu_thread_init)");
		goto out;
	}
	c = conf_new(set, events, spec, metrics);	/* owns spec and metrics, set closed */
	if (!c) {
		r = pmu__err(-ENOMEM, "pmu_thread_init: out of memory");
		goto out;
	}
	if (!key_made) {
		r = pthread_key_create(&key, thr_exit);
		if (r) {
			conf_free(c);
			r = pmu__err(-r, "pmu_thread_init: pthread_key_create: %s", strerror(r));
			goto out;
		}
		key_made = true;
	}
	if (!atfork_done) {
		r = pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		if (r) {
			conf_free(c);
			r = pmu__err(-r, "pmu_thread_init: pthread_atfork: %s", strerror(r));
			goto out;
		}
		atfork_done = true;
	}
	tconf = c;
	PMU_WRITE_ONCE(pmu__thr_on, 1);
	refused = (struct pmu__refusals){ 0 };
	PMU_WRITE_ONCE(tpid, getpid());
	new_generation();
	r = 0;
out:
	pmu__unlock(&tlock, cs);
	return r;
}

/*
 * Whether events open for this thread: 0; errno when one does not open (the message says
 * why); -errno when one is no event at all: a typo stops everything, as in perf.
 */
static int try_open(const char *events)
{
	const char *p, *tok;
	char *spec, *metrics;
	struct pmu__event ev;
	struct pmu_set *set;
	size_t len;
	int r = pmu__metric_expand(events, &spec, &metrics);

	if (r < 0)	/* a metric group this machine cannot count (LIKWID's ENERGY without RAPL): left out */
		return r == -EOPNOTSUPP ? EOPNOTSUPP : r;
	for (p = spec; (r = pmu__event_next(&p, &tok, &len)) > 0 && (r = pmu__event_parse(tok, len, &ev)) == 0;)
		;
	if (r == 0)
		r = -open_set(&set, spec);
	free(spec);
	free(metrics);
	if (r == 0)
		pmu_close(set);
	return r;
}

/* Appends the n bytes at s and then the string tail to the malloc'd *out. 0 or -ENOMEM. */
static int append(char **out, const char *s, size_t n, const char *tail)
{
	size_t have = *out ? strlen(*out) : 0;
	char *p = realloc(*out, have + n + strlen(tail) + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + have, s, n);
	strcpy(p + have + n, tail);
	*out = p;
	return 0;
}

/* Files the unit (n bytes at u) under ok or, with its reason, under skip. */
static int sort_unit(const char *u, size_t n, char **ok, char **skip, int *first)
{
	char *one = strndup(u, n);
	const char *why;
	int r;

	if (!one)
		return -ENOMEM;
	r = try_open(one);
	if (r <= 0) {
		free(one);
		return r < 0 ? r : append(ok, u, n, ",");
	}
	*first = *first ? *first : -r;
	/* the reason without the name the message starts with */
	why = pmu_errmsg();
	if (!strncmp(why, one, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	free(one);
	return append(skip, u, n, "\t") < 0 || append(skip, why, strlen(why), "\n") < 0 ? -ENOMEM : 0;
}

const char *pmu__skipped_next(const char *p, char *name, size_t nsize, char *why, size_t wsize)
{
	const char *tab, *nl;

	if (!p || !(tab = strchr(p, '\t')) || !(nl = strchr(tab, '\n')))
		return NULL;
	snprintf(name, nsize, "%.*s", (int)(tab - p), p);
	snprintf(why, wsize, "%.*s", (int)(nl - tab - 1), tab + 1);
	return nl + 1;
}

/* Says once (pmu__print()), each unit of skip left out, for who: escaped for a terminal. */
static void say_skipped(const char *who, const char *skip)
{
	char name[512], why[1024], en[512], ew[1024];

	for (const char *p = skip; (p = pmu__skipped_next(p, name, sizeof(name), why, sizeof(why)));) {
		pmu__text_esc(en, sizeof(en), name, strlen(name));
		pmu__text_esc(ew, sizeof(ew), why, strlen(why));
		pmu__print(PMU_PRINT_WARN, "%s: PMU_EVENTS: %s <not supported>: %s (the others are counted)\n", who, en,
			   ew);
	}
}

/* None of the units opened: -err, each one's reason in the message ("A: why; B: why"). */
static int all_skipped(const char *skip, int err)
{
	char name[512], why[1024], msg[2048];
	size_t len = 0;

	msg[0] = '\0';
	for (const char *p = skip; len < sizeof(msg) && (p = pmu__skipped_next(p, name, sizeof(name), why, sizeof(why)));)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s: %s", len ? "; " : "", name, why);
	return *msg ? pmu__err(err, "%s", msg) : err;
}

PMU_PLUGIN int pmu__thread_init_avail(const char *events, bool by_group, const char *who)
{
	char *ok = NULL, *skip = NULL;
	const char *g = events, *bar, *p, *tok;
	int r = 0, first = 0;
	size_t len;
	int cs;

	if (!events)
		return pmu_thread_init(events);
	for (; g && r >= 0; g = bar ? bar + 1 : NULL) {
		bar = strchr(g, '|');
		len = bar ? (size_t)(bar - g) : strlen(g);
		if (by_group) {
			r = sort_unit(g, len, &ok, &skip, &first);
			continue;
		}
		char *grp = strndup(g, len);

		for (p = grp; grp && r >= 0 && (r = pmu__event_next(&p, &tok, &len)) > 0;)
			r = sort_unit(tok, len, &ok, &skip, &first);
		r = grp ? r : -ENOMEM;
		free(grp);
	}
	if (r < 0 || !ok) {
		free(ok);
		r = r < 0 ? (r == -ENOMEM ? pmu__err(r, "%s: out of memory", events) : r) : all_skipped(skip, first);
		free(skip);
		return r;
	}
	ok[strlen(ok) - 1] = '\0';
	r = pmu_thread_init(ok);
	free(ok);
	cs = pmu__lock(&tlock);
	if (r == 0 && tconf && !tconf->skipped && skip)
		tconf->skipped = strdup(skip);
	pmu__unlock(&tlock, cs);
	if (r == 0)
		say_skipped(who, skip);
	free(skip);
	return r;
}

PMU_API int pmu_thread_fini(void)
{
	const struct pmu__thr_hooks *h;
	int e = 0;
	int cs = pmu__lock(&tlock);

	drop_all();
	conf_free(tconf);
	tconf = NULL;
	PMU_WRITE_ONCE(pmu__thr_on, 0);
	pmu__tls = (struct pmu__tls){ 0 };
	if (key_made) {
		/* Threads still alive keep a value for the old key: deleting it means no destructor runs. */
		e = pthread_key_delete(key);
		key_made = false;
	}
	h = PMU_LOAD_ACQUIRE(hooks);
	pmu__unlock(&tlock, cs);
	if (h)
		h->fini();
	/* The layer is finished either way; a key the C library refused to delete is said. */
	if (e)
		return pmu__err(-e, "pmu_thread_fini: pthread_key_delete: %s", strerror(e));
	return 0;
}

PMU_API int pmu_thread_event_count(void)
{
	int n;
	int cs = pmu__lock(&tlock);

	n = tconf ? (int)tconf->n : 0;
	pmu__unlock(&tlock, cs);
	return n;
}

PMU_API const char *pmu_thread_event_name(unsigned i)
{
	const char *s;
	unsigned n;
	int cs = pmu__lock(&tlock);

	n = tconf ? tconf->n : 0;
	s = i < n ? tconf->names[i] : NULL;
	pmu__unlock(&tlock, cs);
	if (!s) {
		errno = EINVAL;
		pmu__err(-EINVAL, "pmu_thread_event_name: event %u out of range (the per-thread layer has %u)",
			 i, n);
	}
	return s;
}

/* The 0.1 names, kept (the same functions). */
PMU_API int pmu_thread_count(void)
{
	return pmu_thread_event_count();
}

PMU_API const char *pmu_thread_name(unsigned i)
{
	return pmu_thread_event_name(i);
}

static int walk_cs;	/* the walker's cancel state, under tlock */

const struct pmu__tconf *pmu__thr_walk_begin(void)
{
	int cs = pmu__lock(&tlock);

	walk_cs = cs;
	return tconf;
}

struct pmu__thr *pmu__thr_walk_next(const struct pmu__thr *t)
{
	return t ? t->next : tlist;
}

void pmu__thr_walk_end(void)
{
	pmu__unlock(&tlock, walk_cs);
}

void pmu__thr_refusals(struct pmu__refusals *out)
{
	int cs = pmu__lock(&tlock);

	*out = refused;
	pmu__unlock(&tlock, cs);
}

void pmu__thr_refusal_words(const struct pmu__refusals *n, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%u thread%s (tid", n->threads, n->threads == 1 ? "" : "s");

	for (unsigned i = 0; len < size && i < n->threads && i < PMU_REFUSED_TIDS; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s %d", i ? "," : "", (int)n->tids[i]);
	if (len < size)
		snprintf(buf + len, size - len, "%s), %llu call%s uncounted, the longest for %llu ms; %u counting again",
			 n->threads > PMU_REFUSED_TIDS ? ", ..." : "", (unsigned long long)n->calls, n->calls == 1 ? "" : "s",
			 (unsigned long long)n->longest_ms, n->again);
}

/*
 * Whether a set just opened leaves the program fewer descriptors than it is
 * kept: an eighth of the soft limit, at most 64. The kernel gives the lowest
 * free number, so a probe at or above the limit less the reserve means the
 * numbers below it are all taken.
 */
static bool fds_short(long *reserve, long *limit)
{
	struct rlimit rl;
	int probe;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return false;
	*limit = (long)rl.rlim_cur;
	*reserve = *limit / 8 < 64 ? *limit / 8 : 64;
	probe = eventfd(0, EFD_CLOEXEC);
	if (probe >= 0)
		close(probe);
	return probe < 0 || probe >= *limit - *reserve;
}

/* 0, or -EMFILE with the message when a set just opened leaves the program less than its reserve. */
static int over_budget(void)
{
	long reserve = 0, limit = 0;

	if (!fds_short(&reserve, &limit))
		return 0;
	return pmu__err(-EMFILE, "thread %d not counted: libpmu keeps %ld of its %ld file descriptors (ulimit -n) "
			"for the program", (int)syscall(SYS_gettid), reserve, limit);
}

/*
 * The calling thread's try for a set ended (r): its calls uncounted up to the last try, and the
 * time so far, into the refusals; refused again (-EMFILE, -ENFILE, -ENOMEM), the next try is due
 * in PMU_RETRY_CALLS calls or PMU_RETRY_MS. Under tlock.
 */
static void tried(int r, uint64_t gen)
{
	struct pmu__tls *me = &pmu__tls;
	bool was = me->refused == gen + 1, now_refused = r == -EMFILE || r == -ENFILE || r == -ENOMEM;
	uint64_t t = was || now_refused ? pmu__mono_ns() : 0;

	if (was) {
		refused.calls += me->uncounted;
		if ((t - me->refused_ns) / 1000000 > refused.longest_ms)
			refused.longest_ms = (t - me->refused_ns) / 1000000;
		refused.again += r == 0;	/* not when the try failed for another cause */
	} else if (now_refused) {
		if (!refused.why[0])
			snprintf(refused.why, sizeof(refused.why), "%s", pmu_errmsg());
		if (refused.threads < PMU_REFUSED_TIDS)
			refused.tids[refused.threads] = (pid_t)syscall(SYS_gettid);
		refused.threads++;
		me->refused_ns = t;
	}
	me->refused = now_refused ? gen + 1 : 0;
	me->refused_err = r;
	me->uncounted = now_refused;	/* this call, refused, went uncounted too */
	me->retry_ns = t + PMU_RETRY_MS * 1000000ull;
}

/* A refused thread's call: -errno while its next try is not due (the call went uncounted), else 0. */
static int not_yet(uint64_t gen)
{
	char why[sizeof(refused.why)];
	int cs;

	if (pmu__tls.refused != gen + 1 || pmu__tls.uncounted >= PMU_RETRY_CALLS || pmu__mono_ns() >= pmu__tls.retry_ns)
		return 0;
	pmu__tls.uncounted++;
	cs = pmu__lock(&tlock);
	snprintf(why, sizeof(why), "%s", refused.why);
	pmu__unlock(&tlock, cs);
	return pmu__err(pmu__tls.refused_err, "this thread is not counted: its set was refused (%s); it tries again "
			"within %d calls or %d ms", why, PMU_RETRY_CALLS, PMU_RETRY_MS);
}

int pmu__thr_get(struct pmu__thr **tp)
{
	uint64_t gen = PMU_READ_ONCE(pmu__tgen);
	struct pmu__thr *t;
	unsigned n;
	int r;
	int cs;

	if ((r = not_yet(gen)) < 0)	/* refused: not tried again at every call */
		return r;
	cs = pmu__lock(&tlock);
	if (!tconf) {
		pmu__unlock(&tlock, cs);
		return pmu__err(-EINVAL, "the per-thread layer is not set up: call pmu_thread_init() "
				"first (or set PMU_EVENTS in the environment)");
	}
	n = tconf->n;
	t = calloc(1, sizeof(*t));
	r = t ? open_set(&t->set, tconf->spec) : pmu__err(-ENOMEM, "pmu_thread: out of memory");
	if (r == 0 && (r = over_budget()) < 0) {	/* the set is given back: the reserve is the program's */
		pmu_close(t->set);
		t->set = NULL;
	}
	tried(r, gen);
	if (r < 0) {
		if (t)
			free_thr(t);
		pmu__unlock(&tlock, cs);
		return r;
	}
	t->n = n;
	t->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_GET_NAME, t->tname);
	r = pthread_setspecific(key, t);
	if (r) {
		pmu_close(t->set);
		free_thr(t);
		pmu__unlock(&tlock, cs);
		return pmu__err(-r, "pmu_thread: pthread_setspecific: %s", strerror(r));
	}
	link_all(t);
	link_live(t);
	t->tls = &pmu__tls;
	pmu__tls = (struct pmu__tls){ .gen = PMU_READ_ONCE(pmu__tgen), .thr = t };
	pmu__unlock(&tlock, cs);
	*tp = t;
	return 0;
}

/*
 * pmu_read() failed with err. -ECHILD in a process other than the one the
 * lists are of: this is a child forked without the atfork handler (only
 * its calling thread exists, the lock may have been held by a thread that
 * is not here): reset and open fresh counters. Anywhere else the lock is
 * never made anew: other threads may hold it.
 */
int pmu__thr_read_slow(struct pmu__thr **tp, uint64_t *values, int err)
{
	int r;

	if (err != -ECHILD || getpid() == PMU_READ_ONCE(tpid))
		return err;
	pthread_mutex_init(&tlock, NULL);
	/* raw: a fork handler's, for a raw fork (clone): the child's one thread, no cancellation point held */
	pthread_mutex_lock(&tlock);
	reset_child(true);
	r = pmu__thr_get(tp);
	if (r < 0)
		return r;
	return values ? pmu_read((*tp)->set, values) : 1;
}

PMU_API int pmu_thread_read(uint64_t *values)
{
	struct pmu__thr *t;
	int r;

	if (unlikely(!values))
		return pmu__err(-EINVAL, "pmu_thread_read: values is NULL");
	r = pmu__thr_current(&t);
	if (unlikely(r < 0))
		return r;
	return pmu__thr_read(&t, values);
}
