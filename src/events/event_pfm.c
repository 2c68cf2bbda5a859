/* SPDX-License-Identifier: MIT */
/* Vendor event names through libpfm4, when it was found at build time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event_pfm.h"
#include "base/internal.h"

int pmu__err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef HAVE_LIBPFM
#include <dlfcn.h>
#include <pthread.h>
#include <perfmon/pfmlib_perf_event.h>

/*
 * libpfm.so.4 is opened at the first vendor name, not linked: it is 2.7 MB with about
 * 41,000 relocations, which every process that loads libpmu would otherwise pay.
 */
static struct {
	pfm_err_t (*initialize)(void);
	int (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
	const char *(*strerror)(int);
	pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	int (*get_event_next)(int);
	pfm_err_t (*get_event_attr_info)(int, int, pfm_os_t, pfm_event_attr_info_t *);
} pfm;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int pfm_ok;
/* libpfm4 keeps state between calls: one caller at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int lock_cs;	/* the holder's cancel state, under lock */

static void lock_pfm(void)
{
	int cs = pmu__lock(&lock);

	lock_cs = cs;
}

static void unlock_pfm(void)
{
	pmu__unlock(&lock, lock_cs);
}

/* 1 when libpfm.so.4 is there with every function used here. */
static int pfm_load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	void **f = (void **)&pfm;
	static const char *const names[] = {
		"pfm_initialize", "pfm_get_os_event_encoding", "pfm_strerror", "pfm_get_event_info",
		"pfm_get_pmu_info", "pfm_get_event_next", "pfm_get_event_attr_info",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) == sizeof(pfm) / sizeof(void *), "one name a function");
	if (!h)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(f[i] = dlsym(h, names[i]))) {
			dlclose(h);
			return 0;
		}
	return 1;
}

static void pfm_init(void)
{
	int cs = pmu__nocancel();	/* run whole: a cancelled pthread_once() runs it again */

	pfm_ok = pfm_load() && pfm.initialize() == PFM_SUCCESS;
	/* A child forked while another thread held the lock would wait on it forever. */
	if (pfm_ok && pthread_atfork(lock_pfm, unlock_pfm, unlock_pfm) != 0)
		pfm_ok = 0;
	pmu__cancel_restore(cs);
}

int pmu__pfm_available(void)
{
	pthread_once(&once, pfm_init);
	return pfm_ok;
}

int pmu__pfm_encode(const char *name, size_t len, uint32_t *type, uint64_t cfg[3],
		    char *pmu, size_t psize)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr attr;
	pfm_event_info_t ev;
	pfm_pmu_info_t pi;
	char *s, *dot;
	int r;

	if (!pmu__pfm_available() || len > 1024)
		return 0;
	s = strndup(name, len);
	if (!s)
		return pmu__err(-ENOMEM, "out of memory");
	memset(&arg, 0, sizeof(arg));
	memset(&attr, 0, sizeof(attr));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	lock_pfm();
	r = pfm.get_os_event_encoding(s, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (r == PFM_ERR_NOTFOUND && (dot = strchr(s, '.'))) {
		/* vendor spelling EVENT.UMASK is libpfm4's EVENT:UMASK */
		*dot = ':';
		r = pfm.get_os_event_encoding(s, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
		*dot = '.';
	}
	unlock_pfm();
	if (r == PFM_ERR_NOTFOUND || r == PFM_ERR_NOTSUPP) {
		free(s);
		return 0;
	}
	if (r != PFM_SUCCESS) {
		/* s passed pmu__name_ok(): printable */
		r = pmu__err(r == PFM_ERR_NOMEM ? -ENOMEM : -EINVAL, "%.64s: libpfm4: %s", s, pfm.strerror(r));
		free(s);
		return r;
	}
	free(s);
	*type = attr.type;
	cfg[0] = attr.config;
	cfg[1] = attr.config1;
	cfg[2] = attr.config2;
	memset(&ev, 0, sizeof(ev));
	memset(&pi, 0, sizeof(pi));
	ev.size = sizeof(ev);
	pi.size = sizeof(pi);
	if (pfm.get_event_info(arg.idx, PFM_OS_PERF_EVENT, &ev) == PFM_SUCCESS &&
	    pfm.get_pmu_info(ev.pmu, &pi) == PFM_SUCCESS && pi.name)
		snprintf(pmu, psize, "%s", pi.name);
	else
		snprintf(pmu, psize, "libpfm4");
	return 1;
}

int pmu__pfm_list(void (*cb)(void *arg, const char *pmu, const char *ev, const char *desc), void *arg)
{
	int n = 0, i;
	pfm_pmu_t p;

	if (!pmu__pfm_available())
		return 0;
	lock_pfm();	/* cb must not call back into libpfm4 */
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		/* perf and perf_raw repeat the generic names the library lists itself */
		if (pfm.get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    !strcmp(pi.name, "perf") || !strcmp(pi.name, "perf_raw"))
			continue;
		for (i = pi.first_event; i != -1; i = pfm.get_event_next(i)) {
			pfm_event_info_t ev;
			char name[256];

			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (pfm.get_event_info(i, PFM_OS_PERF_EVENT, &ev) != PFM_SUCCESS)
				continue;
			cb(arg, pi.name, ev.name, ev.desc ? ev.desc : "");
			n++;
			for (int k = 0; k < ev.nattrs; k++) {
				pfm_event_attr_info_t a;

				memset(&a, 0, sizeof(a));
				a.size = sizeof(a);
				if (pfm.get_event_attr_info(i, k, PFM_OS_PERF_EVENT, &a) != PFM_SUCCESS ||
				    a.type != PFM_ATTR_UMASK)
					continue;
				snprintf(name, sizeof(name), "%s:%s", ev.name, a.name);
				cb(arg, pi.name, name, a.desc ? a.desc : "");
				n++;
			}
		}
	}
	unlock_pfm();
	return n;
}

#else

int pmu__pfm_available(void)
{
	return 0;
}

int pmu__pfm_encode(const char *name, size_t len, uint32_t *type, uint64_t cfg[3],
		    char *pmu, size_t psize)
{
	(void)name, (void)len, (void)type, (void)cfg, (void)pmu, (void)psize;
	return 0;
}

int pmu__pfm_list(void (*cb)(void *arg, const char *pmu, const char *ev, const char *desc), void *arg)
{
	(void)cb, (void)arg;
	return 0;
}

#endif
