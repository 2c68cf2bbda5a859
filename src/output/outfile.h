/* SPDX-License-Identifier: MIT */
/*
 * Report files (outfile.c): every file the library and the tool write
 * (pmu_report_path, zero-code reports, pmu stat -o, pmu report merge -o).
 */
#ifndef PMU_OUTFILE_H
#define PMU_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/internal.h"

struct pmu__out {
	FILE *f;
	int dir;	/* the directory of the temporary file, or -1 when written in place */
	char tmp[NAME_MAX + 1], base[NAME_MAX + 1];
};

/*
 * Opens name for writing. A new name, an existing regular file or a symbolic
 * link (one another user planted, or one to a regular file) gets a temporary
 * file in the same directory (mode 0666 under the umask, or the old file's
 * permission bits), renamed into place by pmu__out_close(): a reader sees the
 * old file or the whole new one, and a link is replaced, never followed. A
 * terminal, pipe, socket or device (stdout, /dev/stderr, /dev/null, a FIFO)
 * is written in place, through a link only when root or the caller owns it.
 * An existing regular file in a directory that takes no new file (another
 * user's, read-only) is written in place, no link followed. With append,
 * the file is appended to in place, through no such link.
 * Descriptors are close-on-exec. 0, or -errno with a message naming the file.
 */
int pmu__out_open(struct pmu__out *o, const char *name, bool append);
/* The thread's message headed by file name (escaped as text): "NAME: message". Returns r. */
int pmu__out_err(int r, const char *name);
/* Closes o->f: with ok and every write done, the file is put in place, else the temporary removed. 0 or -errno. */
int pmu__out_close(struct pmu__out *o, bool ok);

/*
 * fill(f, arg) into the file name, opened and put in place as above when
 * fill returns 0 and every write was done. Opening and closing defer
 * cancellation; a cancel may act in fill's writes, and then the file is
 * closed and the temporary removed (fill frees its own state then). 0, or
 * -errno with a message naming the file.
 */
int pmu__out_write(const char *name, int (*fill)(FILE *f, void *arg), void *arg);

#endif
