# libpmu: make, make check, make install PREFIX=/usr/local
# Cross build: make O=build/arm64 CC=aarch64-linux-gnu-gcc STATIC=1
O ?= build
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PKGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/libpmu
LDCONFIG ?= ldconfig
# What make install wrote, for make uninstall and the next install (not in a DESTDIR staging: a
# package manager keeps its own list).
MANIFEST ?= $(if $(DESTDIR),,$(PREFIX)/share/libpmu/installed)

# The version is defined once, in include/pmu.h.
ver = $(shell sed -n 's/^\#define PMU_VERSION_$(1) //p' include/pmu.h)
VERSION := $(call ver,MAJOR).$(call ver,MINOR).$(call ver,PATCH)
SOMAJOR := $(call ver,MAJOR)

CC ?= cc
AR ?= ar
# Warnings fail the build only where asked (the test tiers and CI set WERROR=1): a packager's make warns.
WARN := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
# src/uapi: the library's own linux/perf_event.h, ahead of the system's. -MMD -MP: header dependencies.
# -fno-math-errno: sqrt is one instruction, and libpmu.so needs no libm (one library less to load).
BASE_CFLAGS := -std=gnu11 $(WARN) -fvisibility=hidden -fPIC -pthread -Isrc/uapi -Iinclude -Isrc -D_GNU_SOURCE \
	-fno-math-errno -MMD -MP
LDLIBS := -pthread -lm
# A one-byte atomic exchange is a call into libatomic on some ISAs (riscv64 with GCC 12): the
# library links it then, and libpmu.pc and the CMake package say so for a static link.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ATOMIC_LIBS := $(shell printf 'static char c;\nint main(void) { return __atomic_exchange_n(&c, 1, 5); }\n' | \
	$(CC) -x c - -o /dev/null >/dev/null 2>&1 || echo -latomic)
endif
LDLIBS += $(ATOMIC_LIBS)

# Sanitizer builds: SAN=asan (ASan+UBSan) or SAN=tsan.
ifeq ($(SAN),asan)
BASE_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDLIBS += -fsanitize=address,undefined
endif
ifeq ($(SAN),tsan)
BASE_CFLAGS += -fsanitize=thread -DPMU_TSAN
LDLIBS += -fsanitize=thread
endif
ifeq ($(STATIC),1)
PROG_LDFLAGS := -static
endif

# Probes of the compiler and its C library, left out of make clean.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
# libpfm4 for vendor event names: LIBPFM=auto (when it links), yes (required) or no. Nothing links
# it: libpfm.so.4 is opened at the first vendor name (src/events/event_pfm.c); a static build has none.
LIBPFM ?= auto
ifneq ($(LIBPFM),no)
HAVE_LIBPFM ?= $(if $(filter 1,$(STATIC)),,$(shell printf 'int main(void){return pfm_initialize();}\n' | \
	$(CC) -x c -include perfmon/pfmlib.h - -o /dev/null -lpfm >/dev/null 2>&1 && echo 1))
ifeq ($(LIBPFM)$(HAVE_LIBPFM),yes)
$(error LIBPFM=yes, but libpfm4 does not link with $(CC)$(if $(filter 1,$(STATIC)), in a static build) (Debian: apt-get install libpfm4-dev))
endif
endif
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
# The C library's version of _exit, under which libpmu.so exports its own (src/zerocode/exit.c).
LIBC_EXIT_VER := $(shell readelf --dyn-syms -W $$($(CC) -print-file-name=libc.so.6) 2>/dev/null | \
	sed -n 's/.* _exit@@\(GLIBC_[0-9.]*\)$$/\1/p')
endif
ifeq ($(HAVE_LIBPFM),1)
BASE_CFLAGS += -DHAVE_LIBPFM
endif

# Installed plugins find libpmu.so.0 relative to themselves ($ORIGIN), so a prefix
# anywhere, or moved, needs no LD_LIBRARY_PATH; the system's own directories get no RUNPATH.
SYSTEM_LIBDIRS := /lib /usr/lib /lib64 /usr/lib64 $(if $(MULTIARCH),/lib/$(MULTIARCH) /usr/lib/$(MULTIARCH))
ifeq ($(filter $(abspath $(LIBDIR)),$(SYSTEM_LIBDIRS)),)
LIB_RUNPATH = -Wl,-rpath,'$$ORIGIN'
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS)

# src/ holds one folder per layer (HACKING.md): base, events, counters, metrics, regions, report, zerocode.
LIB_SRCS := $(wildcard src/*/*.c)
LIB_OBJS := $(LIB_SRCS:src/%.c=$(O)/src/%.o)
# exit.o only in libpmu.so, and only where the C library's _exit version is known.
AR_OBJS := $(filter-out $(O)/src/zerocode/exit.o,$(LIB_OBJS))
SO_OBJS := $(if $(LIBC_EXIT_VER),$(LIB_OBJS),$(AR_OBJS))
TOOL_SRCS := $(wildcard tools/*.c)
TOOL_OBJS := $(TOOL_SRCS:tools/%.c=$(O)/tools/%.o)
# The tool's code but its main(), for the tests that drive its parts.
TOOL_LIB := $(O)/libpmu-tool.a
# The test programs, grouped by what they test (test/README.md), built side by side in $(O)/test/.
TEST_GROUPS := counters events threads regions report tool
TESTS := $(foreach g,$(TEST_GROUPS),$(patsubst test/$(g)/%.c,$(O)/test/%,$(wildcard test/$(g)/*.c)))
# The architecture's own tests (test/arm64/, test/riscv64/), built for that architecture only.
TARGET_ARCH_DIR := $(if $(filter clean,$(MAKECMDGOALS)),,$(patsubst aarch64%,arm64,$(patsubst riscv64%,riscv64,\
	$(filter aarch64% riscv64%,$(shell $(CC) -dumpmachine 2>/dev/null)))))
TESTS += $(patsubst test/$(TARGET_ARCH_DIR)/%.c,$(O)/test/%,$(wildcard test/$(TARGET_ARCH_DIR)/$(TARGET_ARCH_DIR)_*.c))
# The x86 rdpmc emulations once more against libpmu.so, whose calls their mmap and read interpose.
ifneq ($(STATIC),1)
TESTS += $(O)/test/x86_rdpmc_emu_so $(O)/test/x86_topdown_emu_so $(O)/test/x86_rdpmc_emu_step
endif
# bench/omp is an OpenMP program: the compat tier builds it with clang -fopenmp (libomp)
BENCHES := $(patsubst bench/%.c,$(O)/bench/%,$(filter-out bench/omp.c,$(wildcard bench/*.c)))
ifeq ($(STATIC),1)
BENCHES := $(filter-out $(O)/bench/startup,$(BENCHES))	# it preloads libpmu.so.0, which a static build has not
endif
EXAMPLES := $(patsubst examples/%.c,$(O)/examples/%,$(wildcard examples/*.c))
TOOL_CFLAGS := -Itools

STATIC_LIB := $(O)/libpmu.a
SHARED_LIB := $(O)/libpmu.so.$(VERSION)

all: lib $(O)/pmu examples
lib: $(STATIC_LIB) $(SHARED_LIB)
tests: $(TESTS)
bench: $(BENCHES)
examples: $(EXAMPLES)

# What carries a RUNPATH is linked again when the paths that decide it change.
$(O)/install-paths: FORCE
	@mkdir -p $(@D)
	@echo '$(BINDIR) $(LIBDIR) $(PYTHONDIR) $(SYSTEM_LIBDIRS)' | cmp -s - $@ 2>/dev/null || \
		echo '$(BINDIR) $(LIBDIR) $(PYTHONDIR) $(SYSTEM_LIBDIRS)' > $@
FORCE:

# PMU_INL_LIBRARY: the inline read's form for the library's own reads (pmu/inline.h).
$(O)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DPMU_INL_LIBRARY -c -o $@ $<

$(O)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TOOL_CFLAGS) -c -o $@ $<

# pmu emulate finds libpmu-qemu.so beside it (a build tree), else at this path from BINDIR (installed).
$(O)/tools/emulate.o: BASE_CFLAGS += -DPMU_PLUGIN_DIR='"$(shell realpath -m --relative-to=$(BINDIR) $(LIBDIR))/libpmu"'
$(O)/tools/emulate.o: $(O)/install-paths

$(TOOL_LIB): $(filter-out $(O)/tools/main.o,$(TOOL_OBJS))
	@rm -f $@
	$(AR) rcs $@ $^

$(STATIC_LIB): $(AR_OBJS)
	@rm -f $@
	@echo "libpmu: libpfm4 $(if $(HAVE_LIBPFM),used,not used) (LIBPFM=$(LIBPFM))"
	$(AR) rcs $@ $^

# The public nodes, then the plugins' private one (src/plugin.map), named by this exact version.
$(O)/libpmu.map: src/libpmu.map src/plugin.map Makefile include/pmu.h
	@mkdir -p $(@D)
	{ cat src/libpmu.map; echo; sed 's/@VERSION@/$(VERSION)/' src/plugin.map; \
	  $(if $(LIBC_EXIT_VER),printf '\n%s {\n\tglobal:\n\t\t_exit;\n\t\t_Exit;\n};\n' $(LIBC_EXIT_VER);) } > $@

$(SHARED_LIB): $(SO_OBJS) $(O)/libpmu.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libpmu.so.$(SOMAJOR) -Wl,--version-script=$(O)/libpmu.map \
		-Wl,--no-undefined -o $@ $(SO_OBJS) -Wl,--as-needed $(LDLIBS)
	ln -sf libpmu.so.$(VERSION) $(O)/libpmu.so.$(SOMAJOR)
	ln -sf libpmu.so.$(SOMAJOR) $(O)/libpmu.so

# The pmu tool links libpmu.a, as bpftool links libbpf: it stands alone, needs none of
# libpmu.so's private exports (src/plugin.h, the plugins' alone), and runs beside any
# libpmu.so.0, or none.
$(O)/pmu: $(TOOL_OBJS) $(STATIC_LIB)
	$(CC) $(ALL_CFLAGS) $(PROG_LDFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(STATIC_LIB) $(LDLIBS)

# Tests and benchmarks link the static library: they may use internal headers,
# and the tool's code (its JSON reader, its /proc readers) from its archive.
define test_group
$$(O)/test/%: test/$(1)/%.c $$(TOOL_LIB) $$(STATIC_LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) $$(TOOL_CFLAGS) -Itest/lib $$(PROG_LDFLAGS) -o $$@ $$< $$(TOOL_LIB) $$(STATIC_LIB) $$(LDLIBS)
endef
$(foreach g,$(TEST_GROUPS),$(eval $(call test_group,$(g))))

ifneq ($(TARGET_ARCH_DIR),)
$(O)/test/$(TARGET_ARCH_DIR)_%: test/$(TARGET_ARCH_DIR)/$(TARGET_ARCH_DIR)_%.c $(TOOL_LIB) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TOOL_CFLAGS) -Itest/lib $(PROG_LDFLAGS) -o $@ $< $(TOOL_LIB) $(STATIC_LIB) $(LDLIBS)
endif

# rdtsc single-stepped to natively, as where PR_SET_TSC does not make it fault
$(O)/test/x86_rdpmc_emu_step: test/counters/x86_rdpmc_emu.c $(TOOL_LIB) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TOOL_CFLAGS) -Itest/lib -DEMU_TSC_STEP $(PROG_LDFLAGS) -o $@ $< $(TOOL_LIB) $(STATIC_LIB) $(LDLIBS)

$(O)/test/x86_%_emu_so: test/counters/x86_%_emu.c $(SHARED_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itest/lib -o $@ $< $(SHARED_LIB) -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

# Makes the cost of a region pair, as measured, far dearer than it is.
$(O)/test/region_compensate: LDLIBS += -Wl,--wrap=pmu_read,--wrap=pmu__read_group_times

# Every function a region: built as a user's program with -finstrument-functions (itself alone).
$(O)/test/region_functions $(O)/test/arm64_functions: private CFLAGS += -finstrument-functions

# Puts a thread's first region between a snapshot's count and its copy.
$(O)/test/region_results_race: LDLIBS += -Wl,--wrap=pmu__region_used

# Zero-code mode (zero.o) is in a static link only when asked for; these use it.
ZERO_LDFLAGS := -Wl,-u,pmu__zero_linked
$(O)/test/region_zero $(O)/test/region_exec $(O)/test/zero_children $(O)/test/cloexec $(O)/examples/zero_code: LDLIBS += $(ZERO_LDFLAGS)

# The cancellation sweep puts a cancellation point of its own in each C library call
# that is one (or may be) which the library makes.
$(O)/test/cancel_sweep: LDLIBS += $(ZERO_LDFLAGS) -Wl,--wrap=open,--wrap=openat,--wrap=read,--wrap=close \
	-Wl,--wrap=opendir,--wrap=closedir,--wrap=fopen,--wrap=fclose,--wrap=fflush,--wrap=fgets \
	-Wl,--wrap=fputs,--wrap=fputc,--wrap=fwrite,--wrap=fprintf

# The fault-injection test puts its own allocator under the library's calls
# and the tool's subcommands (which it includes).
$(O)/test/fault_alloc: $(TOOL_SRCS)
$(O)/test/fault_alloc: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
	-Wl,--wrap=strdup,--wrap=strndup
# thread_recover fails the allocation of a thread's record.
$(O)/test/thread_recover: LDLIBS += -Wl,--wrap=calloc
# fork_signal counts the allocations and locks of a read in a signal handler.
$(O)/test/fork_signal: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=pthread_mutex_lock

$(O)/bench/%: bench/%.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PROG_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

# Examples use only the public header, as an outside program would.
$(O)/examples/%: examples/%.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -MMD -MP $(CPPFLAGS) $(CFLAGS) -Iinclude $(PROG_LDFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

# All test tiers; the last line is the total: "N passed, N failed, N skipped".
check: all tests bench
	@test/check.sh

check-host: all tests
	@test/run.sh $(O)/test

# Long runs with figures, not part of make check (run it under nice): the
# torn-read stress for 10^8 reads, each fuzzer for FUZZ_RUNS executions,
# 10^5 open/close and 10^4 thread create/exit cycles with descriptors and RSS checked.
FUZZ_RUNS ?= 10000000
stress: all tests bench
	PMU_STRESS_READS=100000000 $(O)/test/sim_stress
	$(O)/bench/stress 100000 10000
	FUZZ_RUNS=$(FUZZ_RUNS) test/fuzz/run.sh

# Mutations of the read, scaling, region, results and merge code (test/mutations), each run
# against its tests: which survive. Not part of make check.
mutate:
	@test/mutate.sh

check-arm64:
	@test/arm64/run.sh

check-riscv64:
	@test/riscv64/run.sh

# Debian packages (libpmu0, libpmu-dev, libpmu-tools) into $(O)/deb, checked
# with lintian; needs dpkg-dev, debhelper, lintian and the Build-Depends.
deb:
	@test/deb.sh $(O)/deb

# Installed files: every public header under include/, never one from src/.
PUB_HDRS := $(wildcard include/*.h)
PUB_SUBHDRS := $(wildcard include/pmu/*.h)
MAN1 := $(wildcard man/*.1)
MAN3 := $(wildcard man/*.3)
MAN7 := $(wildcard man/*.7)
SIZEOF_VOID_P := $(shell $(CC) -dM -E -x c /dev/null | sed -n 's/^\#define __SIZEOF_POINTER__ //p')
SUBST_IN = sed -e 's|@PREFIX@|$(PREFIX)|g; s|@LIBDIR@|$(LIBDIR)|g; s|@INCDIR@|$(INCDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g; s|@SOMAJOR@|$(SOMAJOR)|g; s|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g' \
	-e 's|@CMAKEDIR@|$(CMAKEDIR)|g; s|@ATOMIC_LIBS@|$(ATOMIC_LIBS)|g; s|@ATOMIC_LIB@|$(ATOMIC_LIBS:-l%=;%)|g'

# make install stages every file below $(O)/stage, then mk/install.sh checks that each directory can
# be written before it copies anything, copies, and removes what an earlier install's manifest names
# and this one no longer ships. make uninstall removes what the stage and the manifest name.
STAGE := $(O)/stage
define stage-lib
	install -d $(S)$(LIBDIR) $(S)$(INCDIR) $(S)$(BINDIR) $(S)$(PKGDIR) \
		$(S)$(CMAKEDIR) $(S)$(MANDIR)/man3 $(S)$(MANDIR)/man1 $(S)$(MANDIR)/man7 $(S)$(BASHCOMPDIR)
	install -m 644 $(PUB_HDRS) $(S)$(INCDIR)/
	$(if $(PUB_SUBHDRS),install -d $(S)$(INCDIR)/pmu && install -m 644 $(PUB_SUBHDRS) $(S)$(INCDIR)/pmu/)
	install -m 644 $(STATIC_LIB) $(SHARED_LIB) $(S)$(LIBDIR)/
	ln -sf libpmu.so.$(VERSION) $(S)$(LIBDIR)/libpmu.so.$(SOMAJOR)
	ln -sf libpmu.so.$(SOMAJOR) $(S)$(LIBDIR)/libpmu.so
	$(SUBST_IN) libpmu.pc.in > $(S)$(PKGDIR)/libpmu.pc
	$(SUBST_IN) cmake/libpmuConfig.cmake.in > $(S)$(CMAKEDIR)/libpmuConfig.cmake
	$(SUBST_IN) cmake/libpmuConfigVersion.cmake.in > $(S)$(CMAKEDIR)/libpmuConfigVersion.cmake
	install -m 755 $(O)/pmu $(S)$(BINDIR)/
	$(if $(MAN1),install -m 644 $(MAN1) $(S)$(MANDIR)/man1/)
	$(if $(MAN3),install -m 644 $(MAN3) $(S)$(MANDIR)/man3/)
	$(if $(MAN7),install -m 644 $(MAN7) $(S)$(MANDIR)/man7/)
	install -m 644 completion/pmu.bash $(S)$(BASHCOMPDIR)/pmu
endef

# The stage: what this tree installs, with these variables, and nothing else.
stage: S = $(STAGE)
stage: lib $(O)/pmu
	@rm -rf $(STAGE)
	$(stage-lib)
	$(stage-compat)
	$(stage-runtimes)
	$(stage-python)

install: stage
	@sh mk/install.sh install $(STAGE) '$(DESTDIR)' '$(MANIFEST)'
	@$(if $(DESTDIR),:,sh mk/ldconfig.sh $(LIBDIR) $(LDCONFIG))

uninstall: stage
	@sh mk/install.sh uninstall $(STAGE) '$(DESTDIR)' '$(MANIFEST)'

# O=dir cleans that directory; plain make clean, build and the tiers' build-*.
clean:
	rm -rf $(if $(filter command line,$(origin O)),$(O),build build-*)

-include $(wildcard $(O)/*/*.d $(O)/*/*/*.d)
include mk/abi.mk

.PHONY: FORCE all lib tests bench examples check check-host mutate check-arm64 check-riscv64 stress deb stage install uninstall clean
.DELETE_ON_ERROR:
include mk/compat.mk
include mk/python.mk
