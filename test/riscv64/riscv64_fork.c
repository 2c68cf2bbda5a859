/* SPDX-License-Identifier: MIT */
/*
 * riscv64: a forked child never reads its parent's counters through csrr
 * (test/lib/guest_fork.h).
 */
#include "rv64.h"
#include "guest_fork.h"

/* The cycles on a programmable counter, past the fixed cycle/time/instret ones. */
static bool own_index(uint32_t idx)
{
	return idx > RV64_IDX_INSTRET;
}

int main(void)
{
	rv64_require();
	rv64_require_user_access();
	return guest_fork_main(&(struct guest_fork){ .events = "cycles,instructions", .user = 1,
						     .own_index = own_index });
}
