/* SPDX-License-Identifier: MIT */
/*
 * A program that closes the library's descriptors behind its back (closing
 * every descriptor it inherited, say) and opens files of its own, which may
 * get the same numbers: pmu_close() closes none of the program's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "pmu.h"
#include "set_peek.h"
#include "test.h"

int main(void)
{
	struct pmu_set *s;
	int fd = -1, mine;

	CHECK(pmu_open(&s, "task-clock,page-faults") == 0);
	CHECK(pmu__counter(s, 1, &fd, NULL, NULL) == 0);
	/* The program's own file now sits on the set's second descriptor. */
	mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(mine >= 0);
	CHECK(dup2(mine, fd) == fd);
	close(mine);
	pmu_close(s);
	CHECK_MSG(fcntl(fd, F_GETFD) >= 0, "pmu_close closed the program's file on descriptor %d", fd);
	close(fd);
	T_DONE();
}
