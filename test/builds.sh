#!/bin/sh
# Everything builds warning-free (-Werror) with gcc, clang, the read(2)-only
# generic arch, and the arm64 and riscv64 cross compilers where installed.
# Prints "builds: N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0 skip=0
b() {
	name=$1 cc=$2
	shift 2
	if ! command -v "$cc" >/dev/null; then
		skip=$((skip + 1))
		echo "SKIP builds/$name: $cc is not installed"
		return
	fi
	if out=$(make -s --no-print-directory CC="$cc" "$@" 2>&1); then
		pass=$((pass + 1))
		echo "PASS builds/$name"
	else
		fail=$((fail + 1))
		echo "FAIL builds/$name"
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
	fi
}
b gcc gcc O=build all tests bench
b clang clang O=build-clang all tests bench
b generic gcc O=build-generic CFLAGS="-O2 -DPMU_ARCH_GENERIC" all tests bench
b aarch64 aarch64-linux-gnu-gcc O=build/arm64 STATIC=1 all tests bench
b riscv64 riscv64-linux-gnu-gcc O=build-riscv64 STATIC=1 all tests bench
echo "builds: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
