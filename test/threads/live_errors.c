/* SPDX-License-Identifier: MIT */
/* Bad input: -errno, *set NULL, a message that names the input; never a crash. */
#include <errno.h>
#include <string.h>

#include "pmu.h"
#include "test.h"

static void bad(const char *events, const char *expect_in_msg)
{
	struct pmu_set *s = (struct pmu_set *)&s;	/* must be reset to NULL */
	int r = pmu_open(&s, events);

	CHECK_MSG(r < 0 && r >= -4095, "%s: returned %d", events ? events : "(null)", r);
	CHECK_MSG(s == NULL, "%s: set not NULL", events ? events : "(null)");
	CHECK_MSG(pmu_errmsg()[0] != '\0', "%s: no message", events ? events : "(null)");
	if (expect_in_msg)
		CHECK_MSG(strstr(pmu_errmsg(), expect_in_msg), "%s: message '%s' lacks '%s'",
			  events ? events : "(null)", pmu_errmsg(), expect_in_msg);
	pmu_close(s);
}

int main(void)
{
	struct pmu_set *s;
	uint64_t v[1];
	const char *why;

	CHECK(pmu_open(NULL, "task-clock") == -EINVAL);
	bad(NULL, "NULL");
	bad("", NULL);
	bad(",,", NULL);
	bad("task-clock,,page-faults", NULL);
	bad("no-such-event", "no-such-event");
	bad("task-clock,no-such-event", "no-such-event");
	bad("task-clock:q", "task-clock:q");
	bad("r", "r");
	bad("rxyz", "rxyz");

	/* A 1 MB string: an error naming (the start of) it, no crash. */
	size_t n = 1 << 20;
	char *big = malloc(n + 1);
	if (big) {
		memset(big, 'a', n);
		big[n] = '\0';
		bad(big, "aaaa");
		CHECK(strlen(pmu_errmsg()) < 1024);
		free(big);
	}

	/* Hardware events on a machine without a PMU say so. */
	int r = pmu_open(&s, "cycles");
	if (r == 0) {
		printf("this machine has a PMU: the no-PMU message is not checked\n");
		pmu_close(s);
	} else {
		CHECK(s == NULL);
		CHECK_MSG(strstr(pmu_errmsg(), "cycles") && strstr(pmu_errmsg(), "no hardware PMU"),
			  "message: %s", pmu_errmsg());
	}

	/* NULL and out-of-range arguments to the other calls. */
	pmu_close(NULL);
	CHECK(pmu_read(NULL, v) == -EINVAL);
	CHECK(pmu_read_full(NULL, NULL) == -EINVAL);
	CHECK(pmu_enable(NULL) == -EINVAL);
	CHECK(pmu_disable(NULL) == -EINVAL);
	CHECK(pmu_reset(NULL) == -EINVAL);
	CHECK(pmu_count(NULL) == 0);
	CHECK(pmu_name(NULL, 0) == NULL);
	CHECK(pmu_user_read(NULL, 0, &why) == -EINVAL);
	CHECK(pmu_open(&s, "task-clock") == 0);
	CHECK(pmu_read(s, NULL) == -EINVAL);
	CHECK(pmu_user_read(s, 1, &why) == -EINVAL);
	CHECK(strstr(pmu_errmsg(), "out of range"));
	/* A newer caller's larger struct: refused when it sets a byte this library does not know. */
	struct { struct pmu_opts o; uint64_t tail; } newer = { { .size = sizeof(newer), .cpu = -1 }, 1 };
	struct pmu_opts o = { .size = sizeof(o), .cpu = -1 };
	struct pmu_set *s2;
	CHECK(pmu_open_opts(&s2, "task-clock", &newer.o) == -E2BIG);
	CHECK(strstr(pmu_errmsg(), "struct pmu_opts"));
	o.flags = 1u << 30;
	CHECK(pmu_open_opts(&s2, "task-clock", &o) == -EINVAL);
	CHECK(strstr(pmu_errmsg(), "flags"));
	pmu_close(s);
	T_DONE();
}
