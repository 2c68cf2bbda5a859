/* SPDX-License-Identifier: MIT */
/*
 * arm64: a forked child never reads its parent's counters through mrs
 * (test/lib/guest_fork.h). Before Linux 5.17 (no user access) the same holds of
 * the read(2) path.
 */
#include "a64.h"
#include "guest_fork.h"

static int user;

/* PMCCNTR_EL0 with user access, else no index. */
static bool own_index(uint32_t idx)
{
	return idx == (user ? A64_CYCLE_IDX : 0);
}

int main(void)
{
	a64_require();
	a64_require_user_access();
	user = !a64_before_user_access();
	return guest_fork_main(&(struct guest_fork){ .events = "cycles,r3c", .user = user,
						     .own_index = own_index });
}
