/* SPDX-License-Identifier: MIT */
/* The thread's explanation of its last failure, and where the library's own messages go. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static __thread char msg[PMU_MSG_SIZE];

/* What marks a message cut to fit: never mid-word, never unsaid. */
static const char cut_mark[] = " [...]";

/* m (size bytes, NUL included) held a longer message: cut at the last space that leaves room for the mark. */
static void mark_cut(char *m, size_t size)
{
	size_t end = size - sizeof(cut_mark);

	while (end > size / 2 && m[end] != ' ')
		end--;
	if (m[end] != ' ')	/* one long word: cut at a character's start */
		for (end = size - sizeof(cut_mark); end > 0 && ((unsigned char)m[end] & 0xc0) == 0x80; end--)
			;
	memcpy(m + end, cut_mark, sizeof(cut_mark));
}

/*
 * vsnprintf() into buf at n, the whole buffer's text marked when it did not
 * fit. Written apart, then copied: an argument may be the message itself
 * (pmu_errmsg()), which a new head then quotes.
 */
static void put(char *buf, size_t size, size_t n, const char *fmt, va_list ap)
{
	char tmp[PMU_MSG_SIZE];
	int len;

	memcpy(tmp, buf, n);
	len = vsnprintf(tmp + n, size - n, fmt, ap);
	if (len >= 0 && (size_t)len >= size - n)
		mark_cut(tmp, size);
	memcpy(buf, tmp, size);
}

int pmu__err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put(msg, sizeof(msg), 0, fmt, ap);
	va_end(ap);
	if (err < 0)
		errno = -err;
	return err;
}

void pmu__err_append(const char *fmt, ...)
{
	size_t n = strlen(msg);
	va_list ap;

	va_start(ap, fmt);
	put(msg, sizeof(msg), n, fmt, ap);
	va_end(ap);
}

static int print_stderr(enum pmu_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static pmu_print_fn print_fn = print_stderr;

PMU_API pmu_print_fn pmu_set_print(pmu_print_fn fn)
{
	return PMU_EXCHANGE(print_fn, fn);
}

void pmu__print(enum pmu_print_level level, const char *fmt, ...)
{
	pmu_print_fn fn = PMU_LOAD_ACQUIRE(print_fn);
	int saved = errno, cs;
	va_list ap;

	if (!fn)
		return;
	cs = pmu__nocancel();	/* a message is said whole, or not at all */
	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
	pmu__cancel_restore(cs);
	errno = saved;
}

int pmu__check_size(const char *who, const char *what, const void *p, size_t size, size_t first,
		    size_t known, int check_tail)
{
	const unsigned char *b = p;

	if (size == 0)
		return pmu__err(-EINVAL, "%s: %s has size 0: set size to sizeof(%s)", who, what, what);
	if (size < first)
		return pmu__err(-EINVAL, "%s: %s of size %zu is smaller than any libpmu's (%zu bytes): "
				"set size to sizeof(%s)", who, what, size, first, what);
	if (size > PMU_SIZE_MAX)
		return pmu__err(-E2BIG, "%s: %s of size %zu cannot be (more than %d bytes): set size to "
				"sizeof(%s)", who, what, size, PMU_SIZE_MAX, what);
	for (size_t i = known; check_tail && i < size; i++)
		if (b[i])
			return pmu__err(-E2BIG, "%s: %s of size %zu sets byte %zu, past the %zu bytes libpmu %s "
					"knows: a newer libpmu's field, which this one cannot honour", who, what,
					size, i, known, pmu_version());
	return 0;
}

void pmu__err_clear(void)
{
	msg[0] = '\0';
}

PMU_API const char *pmu_errmsg(void)
{
	return msg;
}

#define PMU_STR(x) #x
#define PMU_XSTR(x) PMU_STR(x)

PMU_API const char *pmu_version(void)
{
	return PMU_XSTR(PMU_VERSION_MAJOR) "." PMU_XSTR(PMU_VERSION_MINOR) "." PMU_XSTR(PMU_VERSION_PATCH);
}

PMU_API unsigned pmu_version_major(void)
{
	return PMU_VERSION_MAJOR;
}

PMU_API unsigned pmu_version_minor(void)
{
	return PMU_VERSION_MINOR;
}

PMU_API unsigned pmu_version_patch(void)
{
	return PMU_VERSION_PATCH;
}
