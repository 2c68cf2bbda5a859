// SPDX-License-Identifier: MIT
// libpmu-omp's names (test/compat.sh, omp_names): kernels that end with their
// parallel loop, which clang -O2 reaches by a tail call to the runtime,
// called from one place through a table; a C++ function in a namespace; a
// function whose name is longer than a region name holds, with two parallel
// regions. Each must stay a region of its own, named after its function
// (demangled) with its file:line.
#include <cstdio>
#include <omp.h>

#define N 4096
static double a[N], b[N];

namespace physics {
__attribute__((noinline)) void kernel_a()
{
#pragma omp parallel for
	for (int i = 0; i < N; i++)
		a[i] = 2.0 * b[i];
}

__attribute__((noinline)) void kernel_b()
{
#pragma omp parallel for
	for (int i = 0; i < N; i++)
		b[i] = 1.0 + a[i];
}
} // namespace physics

static void (*volatile table[])() = { physics::kernel_a, physics::kernel_b };

__attribute__((noinline)) static void
CalcCourantConstraintForElementsOfTheMeshWithAVeryLongNameThatGoesOnBeyondWhatOneRegionNameHoldsInItsBytes(double s)
{
#pragma omp parallel
	a[omp_get_thread_num()] += s;
#pragma omp parallel
	b[omp_get_thread_num()] += s;
}

int main()
{
	for (int r = 0; r < 20; r++)
		for (int k = 0; k < 2; k++)
			table[k]();
	for (int r = 0; r < 3; r++)
		CalcCourantConstraintForElementsOfTheMeshWithAVeryLongNameThatGoesOnBeyondWhatOneRegionNameHoldsInItsBytes(r);
	std::printf("%f\n", a[7] + b[9]);
	return 0;
}
