/* SPDX-License-Identifier: MIT */
/* A Fortran CHARACTER argument (its length passed apart, blank-padded) as a C string, for the drop-ins. */
#ifndef PMU_COMPAT_FORTRAN_H
#define PMU_COMPAT_FORTRAN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* s[0..len) without its trailing blanks into buf: false when that does not fit in cap bytes. */
static inline bool fortran_string(char *buf, size_t cap, const char *s, size_t len)
{
	while (len && s[len - 1] == ' ')
		len--;
	if (len >= cap)
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	return true;
}

#endif
