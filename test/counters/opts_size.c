/* SPDX-License-Identifier: MIT */
/*
 * The size rule of the structs a caller sizes, in libbpf's manner: struct
 * pmu_opts of the first published size (fields up to flags, whatever lies
 * after), of this header's size (PMU_OPTS, with rubbish in unused), larger
 * with a zero tail (a newer header's, nothing asked of this library) and
 * larger with a non-zero tail (E2BIG), size 0 as 0.4's struct, too small (EINVAL); and the
 * results structs, which the library writes, smaller (refused, untouched) and
 * larger (the tail zeroed, nothing past it written).
 */
#include <errno.h>
#include <stddef.h>

#include "pmu.h"
#include "test.h"

#define GUARD 0xa5

/* Opens task-clock with the options at p, disabled: a value of 0 shows the flags were read. */
static int open_disabled(const void *p, struct pmu_set **s)
{
	uint64_t v = 1;
	int r = pmu_open_opts(s, "task-clock", p);

	if (r == 0) {
		CHECK(pmu_read(*s, &v) == 0);
		CHECK_MSG(v == 0, "opened with PMU_DISABLED but counting (%" PRIu64 ")", v);
		pmu_close(*s);
	}
	return r;
}

int main(void)
{
	union { struct pmu_opts o; unsigned char b[64]; } u;
	struct pmu_set *s;
	int r;

	r = pmu_open(&s, "task-clock");
	if (r == -EACCES || r == -EPERM || r == -ENOSYS)
		T_SKIP("perf_event_open is refused here: %s", pmu_errmsg());
	CHECK(r == 0);
	pmu_close(s);

	/* The first published struct: bytes past flags are never read. */
	memset(&u, 0xff, sizeof(u));
	u.o.size = offsetof(struct pmu_opts, flags) + sizeof(unsigned);
	u.o.pid = 0;
	u.o.cpu = -1;
	u.o.flags = PMU_DISABLED;
	CHECK_MSG(open_disabled(&u.o, &s) == 0, "the first published size: %s", pmu_errmsg());
	/* Size 0, which 0.4 documented as its whole struct: that struct, the bytes past flags unread. */
	u.o.size = 0;
	CHECK_MSG(open_disabled(&u.o, &s) == 0, "size 0 (a 0.4 program's): %s", pmu_errmsg());

	/* This header's: PMU_OPTS, and unused (0.4's padding) not read even when not zero. */
	{
		PMU_OPTS(o, .flags = PMU_DISABLED);

		CHECK_EQ(o.size, sizeof(struct pmu_opts));
		CHECK_EQ(sizeof(struct pmu_opts), offsetof(struct pmu_opts, unused) + sizeof(unsigned));
		CHECK(o.pid == 0 && o.cpu == 0 && o.unused == 0);
		CHECK_MSG(open_disabled(&o, &s) == 0, "PMU_OPTS: %s", pmu_errmsg());
		o.unused = 0xdeadbeef;
		CHECK_MSG(open_disabled(&o, &s) == 0, "unused not zero: %s", pmu_errmsg());
	}

	/* A newer header's larger struct with nothing set past this library's. */
	memset(&u, 0, sizeof(u));
	u.o.size = sizeof(u);
	u.o.flags = PMU_DISABLED;
	CHECK_MSG(open_disabled(&u.o, &s) == 0, "larger, zero tail: %s", pmu_errmsg());

	/* ... with a field set that this library does not know: E2BIG, nothing opened. */
	for (size_t at = sizeof(struct pmu_opts); at < sizeof(u); at += 13) {
		s = (struct pmu_set *)&u;
		u.b[at] = 1;
		CHECK_MSG(pmu_open_opts(&s, "task-clock", &u.o) == -E2BIG, "byte %zu of the tail set", at);
		CHECK(s == NULL);
		CHECK_MSG(strstr(pmu_errmsg(), "struct pmu_opts") && strstr(pmu_errmsg(), "past the"), "'%s'",
			  pmu_errmsg());
		u.b[at] = 0;
	}
	u.o.size = 1u << 20;	/* no struct is that big: refused before reading it */
	CHECK(pmu_open_opts(&s, "task-clock", &u.o) == -E2BIG);

	/* Sizes below the first struct: EINVAL, saying what to set. */
	static const size_t small[] = { 1, sizeof(size_t), offsetof(struct pmu_opts, flags) };
	for (size_t k = 0; k < sizeof(small) / sizeof(small[0]); k++) {
		memset(&u, 0, sizeof(u));
		u.o.size = small[k];
		CHECK_MSG(pmu_open_opts(&s, "task-clock", &u.o) == -EINVAL, "size %zu accepted", small[k]);
		CHECK_MSG(strstr(pmu_errmsg(), "set size to sizeof(struct pmu_opts)"), "size %zu: '%s'", small[k],
			  pmu_errmsg());
	}

	/* The results structs, which the library writes. */
	struct pmu_results *res;
	struct { struct pmu_region_result r; unsigned char more[16], guard[16]; } rr;
	struct { struct pmu_thread_result t; unsigned char more[16], guard[16]; } tr;

	CHECK(pmu_thread_init("task-clock") == 0);
	CHECK(pmu_region_begin("r") == 0 && pmu_region_end("r") == 0);
	res = pmu_results_take();
	CHECK(res != NULL);
	/* Equal. */
	memset(&rr, GUARD, sizeof(rr));
	rr.r.size = sizeof(rr.r);
	CHECK_MSG(pmu_results_get(res, 0, -1, &rr.r) == 0, "%s", pmu_errmsg());
	CHECK(rr.r.calls == 1 && rr.more[0] == GUARD);
	/* Larger: the tail zeroed, the guard after it untouched. */
	memset(&rr, GUARD, sizeof(rr));
	rr.r.size = sizeof(rr.r) + sizeof(rr.more);
	CHECK_MSG(pmu_results_get(res, 0, -1, &rr.r) == 0, "%s", pmu_errmsg());
	CHECK(rr.r.calls == 1 && rr.r.size == sizeof(rr.r) + sizeof(rr.more));
	for (size_t i = 0; i < sizeof(rr.more); i++)
		CHECK_MSG(rr.more[i] == 0 && rr.guard[i] == GUARD, "region result byte %zu past the struct", i);
	memset(&tr, GUARD, sizeof(tr));
	tr.t.size = sizeof(tr.t) + sizeof(tr.more);
	CHECK_MSG(pmu_results_thread(res, 0, &tr.t) == 0, "%s", pmu_errmsg());
	CHECK(tr.t.tid > 0);
	for (size_t i = 0; i < sizeof(tr.more); i++)
		CHECK_MSG(tr.more[i] == 0 && tr.guard[i] == GUARD, "thread result byte %zu past the struct", i);
	/* 0.4's, without 0.6's clamped and compensated: taken, nothing written past it. */
	memset(&rr, GUARD, sizeof(rr));
	rr.r.size = offsetof(struct pmu_region_result, clamped);
	CHECK_MSG(pmu_results_get(res, 0, -1, &rr.r) == 0, "%s", pmu_errmsg());
	CHECK(rr.r.calls == 1 && ((unsigned char *)&rr.r.clamped)[0] == GUARD);
	memset(&tr, GUARD, sizeof(tr));
	tr.t.size = offsetof(struct pmu_thread_result, compensated);
	CHECK_MSG(pmu_results_thread(res, 0, &tr.t) == 0, "%s", pmu_errmsg());
	CHECK(tr.t.tid > 0 && ((unsigned char *)&tr.t.compensated)[0] == GUARD);
	/* Smaller than 0.4's (the first) and 0: refused, nothing written. */
	static const size_t rsmall[] = { 0, sizeof(size_t), offsetof(struct pmu_region_result, clamped) - 8 };
	for (size_t k = 0; k < sizeof(rsmall) / sizeof(rsmall[0]); k++) {
		memset(&rr, GUARD, sizeof(rr));
		rr.r.size = rsmall[k];
		CHECK_MSG(pmu_results_get(res, 0, -1, &rr.r) == -EINVAL, "region result size %zu accepted", rsmall[k]);
		CHECK_MSG(strstr(pmu_errmsg(), "set size to sizeof(struct pmu_region_result)"), "'%s'", pmu_errmsg());
		CHECK(rr.r.size == rsmall[k] && ((unsigned char *)&rr.r)[sizeof(size_t)] == GUARD);
		memset(&tr, GUARD, sizeof(tr));
		tr.t.size = rsmall[k] < offsetof(struct pmu_thread_result, compensated) ? rsmall[k] :
			    offsetof(struct pmu_thread_result, compensated) - 4;
		CHECK(pmu_results_thread(res, 0, &tr.t) == -EINVAL);
		CHECK(((unsigned char *)&tr.t)[sizeof(size_t)] == GUARD);
	}
	pmu_results_free(res);
	CHECK(pmu_thread_fini() == 0);
	T_DONE();
}
