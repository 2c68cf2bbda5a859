// SPDX-License-Identifier: MIT
// A Kokkos program with labelled kernels of each kind, a profile region and
// a section, for libpmu-kokkos (KOKKOS_PROFILE_LIBRARY): unchanged Kokkos code.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
	Kokkos::initialize(argc, argv);
	{
		const int n = 100000;
		Kokkos::View<double *> a("a", n);
		double sum = 0;
		uint32_t sec;

		Kokkos::Profiling::pushRegion("setup");
		for (int r = 0; r < 3; r++)
			Kokkos::parallel_for("fill", n, KOKKOS_LAMBDA(int i) { a(i) = i * 0.5; });
		Kokkos::Profiling::popRegion();
		Kokkos::Profiling::createProfileSection("solve", &sec);
		Kokkos::Profiling::startSection(sec);
		Kokkos::parallel_reduce("sum", n, KOKKOS_LAMBDA(int i, double &s) { s += a(i); }, sum);
		Kokkos::parallel_scan("prefix", n, KOKKOS_LAMBDA(int i, double &s, bool final) {
			s += a(i);
			if (final)
				a(i) = s;
		});
		Kokkos::Profiling::stopSection(sec);
		Kokkos::Profiling::destroyProfileSection(sec);
		// a label longer than a region name: cut, with its kind kept
		Kokkos::parallel_for(std::string(150, 'x'), n, KOKKOS_LAMBDA(int i) { a(i) = 0; });
		std::printf("%.1f\n", sum);
	}
	Kokkos::finalize();
	return 0;
}
