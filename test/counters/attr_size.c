/* SPDX-License-Identifier: MIT */
/*
 * pmu_event_attr() writes no byte past attr->size, whatever size the
 * caller's headers gave its struct: every size from PERF_ATTR_SIZE_VER0 to
 * VER8 with a guard pattern after it, 0 (a 0.4 caller: VER0), a struct larger
 * than the library's, E2BIG naming config2 and config3 when the encoding needs
 * them past the caller's size, and the sizes no struct has.
 */
#include <errno.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "pmu.h"
#include "test.h"

#define GUARD 0xa5
#define BUF 256

static unsigned char buf[BUF];

/* buf as a caller's struct of size bytes (the field set, the rest of its bytes 0x11), a guard after. */
static struct perf_event_attr *attr_of(uint32_t size, uint32_t field)
{
	memset(buf, GUARD, sizeof(buf));
	memset(buf, 0x11, size);
	memcpy(buf + offsetof(struct perf_event_attr, size), &field, sizeof(field));
	return (struct perf_event_attr *)buf;
}

static int guard_ok(size_t from)
{
	for (size_t i = from; i < BUF; i++)
		if (buf[i] != GUARD)
			return 0;
	return 1;
}

static const uint32_t sizes[] = {
	PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3,
	PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7,
	PERF_ATTR_SIZE_VER8,
};

int main(void)
{
	struct perf_event_attr full = { .size = sizeof(full) }, *a;
	int fixtures = access("test/fixtures/intel/cpu/type", R_OK) == 0;

	_Static_assert(sizeof(struct perf_event_attr) >= PERF_ATTR_SIZE_VER8, "the library's header has config3");
	CHECK(pmu_event_attr("task-clock:u", &full) == 0);
	CHECK_EQ(full.size, sizeof(full));
	for (size_t k = 0; k < (sizeof(sizes) / sizeof(sizes[0])); k++) {
		uint32_t size = sizes[k];

		a = attr_of(size, size);
		CHECK_MSG(pmu_event_attr("task-clock:u", a) == 0, "size %u: %s", size, pmu_errmsg());
		CHECK_MSG(guard_ok(size), "size %u: a byte past the caller's struct was written", size);
		CHECK_EQ(a->size, size);
		CHECK_MSG(!memcmp(buf + 8, (const char *)&full + 8, size - 8),
			  "size %u: the struct differs from the library's own within its size", size);
	}
	/* A 0.4 caller that left size 0: PERF_ATTR_SIZE_VER0, as the kernel takes it. */
	a = attr_of(sizeof(full), 0);
	CHECK(pmu_event_attr("task-clock:u", a) == 0);
	CHECK_EQ(a->size, PERF_ATTR_SIZE_VER0);
	CHECK(a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_TASK_CLOCK && a->exclude_kernel);
	for (size_t i = PERF_ATTR_SIZE_VER0; i < sizeof(full); i++)
		CHECK_MSG(buf[i] == 0x11, "size 0: byte %zu past 64 was written", i);
	/* A newer caller's larger struct: its tail is zeroed, nothing past it touched. */
	a = attr_of(sizeof(full) + 16, sizeof(full) + 16);
	CHECK(pmu_event_attr("task-clock:u", a) == 0);
	CHECK_EQ(a->size, sizeof(full) + 16);
	CHECK(!memcmp(buf + 8, (const char *)&full + 8, sizeof(full) - 8));
	for (size_t i = sizeof(full); i < sizeof(full) + 16; i++)
		CHECK_MSG(buf[i] == 0, "larger struct: byte %zu not zeroed", i);
	CHECK(guard_ok(sizeof(full) + 16));
	/* Sizes no struct has: refused, the message saying what to set, nothing written. */
	static const uint32_t bad[] = { 8, PERF_ATTR_SIZE_VER0 - 8, PERF_ATTR_SIZE_VER0 + 1, 5000, 0xffffffffu };
	for (size_t k = 0; k < (sizeof(bad) / sizeof(bad[0])); k++) {
		a = attr_of(sizeof(full), bad[k]);
		CHECK_MSG(pmu_event_attr("task-clock", a) == -EINVAL, "size %u accepted", bad[k]);
		CHECK_MSG(strstr(pmu_errmsg(), "attr->size") && strstr(pmu_errmsg(), "set it to sizeof(struct perf_event_attr)"),
			  "size %u: message '%s'", bad[k], pmu_errmsg());
		CHECK_EQ(a->size, bad[k]);
		CHECK(buf[8] == 0x11 && guard_ok(sizeof(full)));
	}
	/* Encodings that need config2 (past 64 bytes) and config3 (past 128), from a fixture PMU. */
	if (!fixtures) {
		printf("config2/config3 cases left out: test/fixtures not here (run from the source tree)\n");
		T_DONE();
	}
	setenv("PMU_SYSFS_DEVICES", "test/fixtures/intel", 1);
	a = attr_of(PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER0);
	CHECK(pmu_event_attr("cpu/config=0x12,config2=0x77/", a) == -E2BIG);
	CHECK_MSG(strstr(pmu_errmsg(), "config2") && strstr(pmu_errmsg(), "64 bytes"), "'%s'", pmu_errmsg());
	CHECK(buf[8] == 0x11 && guard_ok(PERF_ATTR_SIZE_VER0));
	a = attr_of(0, 0);	/* size 0 is VER0 too */
	CHECK(pmu_event_attr("cpu/config=0x12,config2=0x77/", a) == -E2BIG);
	a = attr_of(PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER1);
	CHECK_MSG(pmu_event_attr("cpu/config=0x12,config2=0x77/", a) == 0, "%s", pmu_errmsg());
	CHECK(a->config == 0x12 && a->config2 == 0x77 && guard_ok(PERF_ATTR_SIZE_VER1));
	/* config 0 past the size is fine: only a field the encoding sets needs room. */
	a = attr_of(PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER0);
	CHECK_MSG(pmu_event_attr("cpu/config=0x12/", a) == 0, "%s", pmu_errmsg());
	for (size_t k = 0; k < (sizeof(sizes) / sizeof(sizes[0])); k++) {
		uint32_t size = sizes[k];
		int r;

		a = attr_of(size, size);
		r = pmu_event_attr("cpu/config=0x12,config3=0x5/", a);
		if (size < PERF_ATTR_SIZE_VER8) {
			CHECK_MSG(r == -E2BIG && strstr(pmu_errmsg(), "config3"), "size %u: %d '%s'", size, r,
				  pmu_errmsg());
			CHECK_MSG(buf[8] == 0x11, "size %u: written on failure", size);
		} else {
			CHECK_MSG(r == 0 && a->config3 == 0x5, "size %u: %d '%s'", size, r, pmu_errmsg());
		}
		CHECK_MSG(guard_ok(size), "size %u: a byte past the caller's struct was written", size);
	}
	T_DONE();
}
