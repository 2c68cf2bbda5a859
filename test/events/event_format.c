/* SPDX-License-Identifier: MIT */
/* Format specs, field packing, term lists and numbers, and the cache-name table. */
#include <errno.h>
#include <string.h>

#include "events/event.h"	/* pmu__cache_parse, and the grammar of format.h */
#include "field_get.h"
#include "test.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void formats(void)
{
	static const struct {
		const char *spec;
		unsigned word, width;
		uint64_t mask;
	} ok[] = {
		{ "config:0-7", 0, 8, 0xff },
		{ "config1:0", 1, 1, 1 },
		{ "config2:63", 2, 1, 1ull << 63 },
		{ "config3:0-63", 3, 64, ~0ull },
		{ "config:0-7,32-35", 0, 12, 0xf000000ffull },
		{ "config:0-7,32-35,59-60", 0, 14, 0x1800000f000000ffull },
		{ "config:21", 0, 1, 1 << 21 },
		{ " config1:0-15\n", 1, 16, 0xffff },
		{ "config:5,1,3", 0, 3, 0x2a },
	};
	static const char *const bad[] = {
		"", "config", "config:", "config:x", "config:7-0", "config:0-64", "config:64", "config4:0",
		"config0:1", "confog:0-3", "config:0-7,", "config:0-7,4-9", "config:0-7;8", "config:-1",
		"config:1-", "config:0-7 ,8", "config1:0:1", "config:00000000000000000000000000000000064",
		"config:0,1,2,3,4,5,6,7,8",
	};
	struct pmu__field f;
	char buf[96];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int r = pmu__format_parse(ok[i].spec, strlen(ok[i].spec), &f);

		CHECK_MSG(r == 0, "%s: %d", ok[i].spec, r);
		CHECK_MSG(f.word == ok[i].word && f.width == ok[i].width && f.mask == ok[i].mask,
			  "%s: word %u width %u mask 0x%llx", ok[i].spec, f.word, f.width, (unsigned long long)f.mask);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_MSG(pmu__format_parse(bad[i], strlen(bad[i]), &f) == -EINVAL, "'%s' accepted", bad[i]);

	/* spread low bits first: value 0xabc over config:0-7,32-35 */
	{
		uint64_t cfg[4] = { 0, 0, 0, 0 };

		CHECK(pmu__format_parse("config:0-7,32-35", 16, &f) == 0);
		CHECK(pmu__field_put(&f, 0xabc, cfg) == 0);
		CHECK_EQ(cfg[0], 0xa000000bcull);
		CHECK_EQ(field_get(&f, cfg), 0xabc);
		CHECK(pmu__field_put(&f, 0x1000, cfg) == -ERANGE);
		CHECK_EQ(cfg[0], 0xa000000bcull);	/* unchanged on error */
		cfg[0] = ~0ull;
		CHECK(pmu__field_put(&f, 0, cfg) == 0);	/* clears only the field */
		CHECK_EQ(cfg[0], ~0xf000000ffull);
		pmu__field_str(&f, buf, sizeof(buf));
		CHECK(!strcmp(buf, "config:0-7,32-35"));
	}
	/* ranges in written order, not bit order */
	{
		uint64_t cfg[4] = { 0, 0, 0, 0 };

		CHECK(pmu__format_parse("config2:8-11,0-3", 16, &f) == 0);
		CHECK(pmu__field_put(&f, 0x21, cfg) == 0);
		CHECK_EQ(cfg[2], 0x102);	/* low nibble 1 into bits 8-11, next 2 into 0-3 */
		pmu__field_str(&f, buf, sizeof(buf));
		CHECK(!strcmp(buf, "config2:8-11,0-3"));
	}
	/* round trips on random fields and values */
	for (int n = 0; n < t_scale(20000); n++) {
		char spec[128];
		uint64_t cfg[4] = { rnd(), rnd(), rnd(), rnd() }, before[4], v;
		unsigned lo = (unsigned)(rnd() % 64), hi = lo + (unsigned)(rnd() % (64 - lo));
		unsigned lo2 = (unsigned)(rnd() % 64), hi2 = lo2 + (unsigned)(rnd() % (64 - lo2));
		int two = (hi2 < lo || lo2 > hi) && (rnd() & 1);

		if (two)
			snprintf(spec, sizeof(spec), "config%u:%u-%u,%u-%u", (unsigned)(rnd() % 3 + 1), lo, hi, lo2, hi2);
		else
			snprintf(spec, sizeof(spec), "config:%u-%u", lo, hi);
		CHECK_MSG(pmu__format_parse(spec, strlen(spec), &f) == 0, "%s", spec);
		memcpy(before, cfg, sizeof(cfg));
		v = rnd();
		if (f.width < 64)
			v &= (1ull << f.width) - 1;
		CHECK(pmu__field_put(&f, v, cfg) == 0);
		CHECK_MSG(field_get(&f, cfg) == v, "%s: 0x%llx", spec, (unsigned long long)v);
		for (unsigned w = 0; w < 4; w++)
			CHECK(((cfg[w] ^ before[w]) & ~(w == f.word ? f.mask : 0)) == 0);
		CHECK((unsigned)__builtin_popcountll(f.mask) == f.width);
		if (f.width < 64)
			CHECK(pmu__field_put(&f, 1ull << f.width, cfg) == -ERANGE);
	}
}

static void terms(void)
{
	const char *list = "event=0x3c, umask = 1,any,ldlat=?,name=my-ev", *p = list, *end = list + strlen(list);
	struct pmu__term t;
	uint64_t v;
	int n = 0;

	while (pmu__term_next(&p, end, &t) > 0) {
		switch (n++) {
		case 0: CHECK(t.nlen == 5 && !memcmp(t.name, "event", 5) && t.vlen == 4); break;
		case 1: CHECK(t.nlen == 5 && t.vlen == 1 && t.val[0] == '1'); break;
		case 2: CHECK(t.nlen == 3 && !t.val); break;
		case 3: CHECK(t.vlen == 1 && pmu__term_value(t.val, t.vlen, &v) == 1); break;
		case 4: CHECK(t.vlen == 5 && !memcmp(t.val, "my-ev", 5)); break;
		}
	}
	CHECK(n == 5);
	{
		static const char *const bad[] = { ",", "a,", ",a", "a,,b", "=1", "a b=1", "a=", "a/b", "a=1,=2" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int r;

			p = bad[i];
			end = p + strlen(p);
			while ((r = pmu__term_next(&p, end, &t)) > 0)
				;
			CHECK_MSG(r == -EINVAL, "'%s' accepted", bad[i]);
		}
	}
	CHECK(pmu__term_value("0", 1, &v) == 0 && v == 0);
	CHECK(pmu__term_value("010", 3, &v) == 0 && v == 10);	/* decimal, as perf */
	CHECK(pmu__term_value("0x1F", 4, &v) == 0 && v == 0x1f);
	CHECK(pmu__term_value("18446744073709551615", 20, &v) == 0 && v == ~0ull);
	CHECK(pmu__term_value("18446744073709551616", 20, &v) == -ERANGE);
	CHECK(pmu__term_value("0xffffffffffffffff", 18, &v) == 0 && v == ~0ull);
	CHECK(pmu__term_value("0x10000000000000000", 19, &v) == -ERANGE);
	CHECK(pmu__term_value("0x", 2, &v) == -EINVAL);
	CHECK(pmu__term_value("12a", 3, &v) == -EINVAL);
	CHECK(pmu__term_value("-1", 2, &v) == -EINVAL);
	CHECK(pmu__term_value("", 0, &v) == -EINVAL);
}

static void cache(void)
{
	static const struct {
		const char *name;
		uint64_t config;
	} ok[] = {
		{ "L1-dcache-loads", 0x0 }, { "L1-dcache-load-misses", 0x10000 }, { "L1-dcache-stores", 0x100 },
		{ "L1-dcache-prefetch-misses", 0x10200 }, { "L1-icache-load-misses", 0x10001 },
		{ "LLC-loads", 0x2 }, { "LLC-load-misses", 0x10002 }, { "LLC-store-misses", 0x10102 },
		{ "dTLB-load-misses", 0x10003 }, { "dTLB-stores", 0x103 }, { "iTLB-load-misses", 0x10004 },
		{ "iTLB-loads", 0x4 }, { "branch-loads", 0x5 }, { "branch-load-misses", 0x10005 },
		{ "node-loads", 0x6 }, { "node-load-misses", 0x10006 }, { "node-stores", 0x106 },
		{ "L1-dcache", 0x0 }, { "l1d-miss", 0x10000 }, { "L1-data-read-access", 0 },
		{ "l1i-prefetches", 0x201 }, { "L2-speculative-read-miss", 0x10202 },
		{ "Data-TLB-write-refs", 0x103 }, { "i-tlb-load-miss", 0x10004 }, { "bpu-load", 5 },
		{ "btb-misses", 0x10005 }, { "bpc-ops", 5 }, { "llc-LOADS", 2 },
	};
	static const char *const not_cache[] = { "L1", "L1-dcache-", "LLC-loads-stores", "LLC-misses-refs",
		"node-loads-misses-x", "dTLBs", "L1-dcachex", "branch-loads-misses-misses", "" };
	static const char *const bad_op[] = { "L1-icache-stores", "iTLB-stores", "branch-prefetches",
		"iTLB-prefetch-misses", "branch-store-misses", "bpu-write" };
	uint64_t c, c2;
	char name[80];
	unsigned n;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int r = pmu__cache_parse(ok[i].name, strlen(ok[i].name), &c);

		CHECK_MSG(r == 1 && c == ok[i].config, "%s: %d 0x%llx", ok[i].name, r, (unsigned long long)c);
	}
	for (size_t i = 0; i < sizeof(not_cache) / sizeof(not_cache[0]); i++)
		CHECK_MSG(pmu__cache_parse(not_cache[i], strlen(not_cache[i]), &c) == 0, "%s", not_cache[i]);
	for (size_t i = 0; i < sizeof(bad_op) / sizeof(bad_op[0]); i++)
		CHECK_MSG(pmu__cache_parse(bad_op[i], strlen(bad_op[i]), &c) == -EINVAL, "%s", bad_op[i]);
	/* every listed name parses back to its config: 16 cache x op pairs, refs and misses */
	for (n = 0; pmu__cache_name(n, name, sizeof(name), &c); n++)
		CHECK_MSG(pmu__cache_parse(name, strlen(name), &c2) == 1 && c2 == c, "%s", name);
	CHECK_EQ(n, 32);
}

int main(void)
{
	formats();
	terms();
	cache();
	T_DONE();
}
