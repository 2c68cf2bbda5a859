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
# Bash completion for pmu will be installed here (not written yet).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
LDCONFIG ?= ldconfig

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
BASE_CFLAGS := -std=gnu11 $(WARN) -fvisibility=hidden -fPIC -pthread -Isrc/uapi -Iinclude -Isrc -D_GNU_SOURCE \
	-MMD -MP
LDLIBS := -pthread -lm

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

# libpfm4 for vendor event names: LIBPFM=auto (when it links), yes (required) or no.
LIBPFM ?= auto
ifeq ($(LIBPFM),no)
HAVE_LIBPFM :=
else
HAVE_LIBPFM ?= $(shell printf 'int main(void){return pfm_initialize();}\n' | \
	$(CC) -x c -include perfmon/pfmlib.h - -o /dev/null -lpfm $(PROG_LDFLAGS) >/dev/null 2>&1 && echo 1)
ifeq ($(LIBPFM)$(HAVE_LIBPFM),yes)
$(error LIBPFM=yes, but libpfm4 does not link with $(CC) (Debian: apt-get install libpfm4-dev))
endif
endif
ifeq ($(HAVE_LIBPFM),1)
BASE_CFLAGS += -DHAVE_LIBPFM
LDLIBS += -lpfm
PC_LIBS_PRIVATE := -lpfm
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS)

LIB_SRCS := $(wildcard src/*.c)
LIB_OBJS := $(LIB_SRCS:src/%.c=$(O)/src/%.o)
TOOL_SRCS := $(wildcard tools/*.c)
TOOL_OBJS := $(TOOL_SRCS:tools/%.c=$(O)/tools/%.o)
# The tool's code but its main(), for the tests that drive its parts.
TOOL_LIB := $(O)/libpmu-tool.a
TESTS := $(patsubst test/%.c,$(O)/test/%,$(wildcard test/*.c))
# The x86 rdpmc emulations once more against libpmu.so, whose calls their mmap and read interpose.
ifneq ($(STATIC),1)
TESTS += $(O)/test/x86_rdpmc_emu_so $(O)/test/x86_topdown_emu_so
endif
BENCHES := $(patsubst bench/%.c,$(O)/bench/%,$(wildcard bench/*.c))
EXAMPLES := $(patsubst examples/%.c,$(O)/examples/%,$(wildcard examples/*.c))
TOOL_CFLAGS := -Itools

STATIC_LIB := $(O)/libpmu.a
SHARED_LIB := $(O)/libpmu.so.$(VERSION)

all: lib $(O)/pmu examples
lib: $(STATIC_LIB) $(SHARED_LIB)
tests: $(TESTS)
bench: $(BENCHES)
examples: $(EXAMPLES)

# PMU_INL_LIBRARY: the inline read's form for the library's own reads (pmu/inline.h).
$(O)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DPMU_INL_LIBRARY -c -o $@ $<

$(O)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TOOL_CFLAGS) -c -o $@ $<

$(TOOL_LIB): $(filter-out $(O)/tools/pmu.o,$(TOOL_OBJS))
	@rm -f $@
	$(AR) rcs $@ $^

$(STATIC_LIB): $(LIB_OBJS)
	@rm -f $@
	@echo "libpmu: libpfm4 $(if $(HAVE_LIBPFM),used,not used) (LIBPFM=$(LIBPFM))"
	$(AR) rcs $@ $^

# The public nodes, then the pmu tool's private one (src/private.h): every
# PMU_TOOL symbol, in a node named by this exact version.
$(O)/libpmu.map: src/libpmu.map Makefile include/pmu.h
	@mkdir -p $(@D)
	{ cat src/libpmu.map; printf '\nLIBPMU_PRIVATE_%s {\n\tglobal:\n\t\tpmu__*;\n};\n' $(VERSION); } > $@

$(SHARED_LIB): $(LIB_OBJS) $(O)/libpmu.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libpmu.so.$(SOMAJOR) -Wl,--version-script=$(O)/libpmu.map \
		-Wl,--no-undefined -o $@ $(LIB_OBJS) $(LDLIBS)
	ln -sf libpmu.so.$(VERSION) $(O)/libpmu.so.$(SOMAJOR)
	ln -sf libpmu.so.$(SOMAJOR) $(O)/libpmu.so

# The pmu tool links libpmu.so.0 (static builds: libpmu.a). In the build tree
# it finds the library beside it ($ORIGIN); the installed copy has no RUNPATH.
ifeq ($(STATIC),1)
TOOL_LINK = $(STATIC_LIB)
else
TOOL_LINK = -L$(O) -lpmu
endif
$(O)/pmu: $(TOOL_OBJS) $(if $(filter 1,$(STATIC)),$(STATIC_LIB),$(SHARED_LIB))
	$(CC) $(ALL_CFLAGS) $(PROG_LDFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(TOOL_LINK) \
		$(if $(filter 1,$(STATIC)),,-Wl,-rpath,'$$ORIGIN') $(LDLIBS)
$(O)/tools/pmu: $(TOOL_OBJS) $(if $(filter 1,$(STATIC)),$(STATIC_LIB),$(SHARED_LIB))
	$(CC) $(ALL_CFLAGS) $(PROG_LDFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(TOOL_LINK) $(LDLIBS)

# Tests and benchmarks link the static library: they may use internal headers,
# and the tool's code (its JSON reader, its /proc readers) from its archive.
$(O)/test/%: test/%.c $(TOOL_LIB) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TOOL_CFLAGS) $(PROG_LDFLAGS) -o $@ $< $(TOOL_LIB) $(STATIC_LIB) $(LDLIBS)

$(O)/test/x86_%_emu_so: test/x86_%_emu.c $(SHARED_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(SHARED_LIB) -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)

# Puts a thread's first region between a snapshot's count and its copy.
$(O)/test/region_results_race: LDLIBS += -Wl,--wrap=pmu__region_used

# Zero-code mode (zero.o) is in a static link only when asked for; these use it.
ZERO_LDFLAGS := -Wl,-u,pmu__zero_linked
$(O)/test/region_zero $(O)/test/region_exec $(O)/test/zero_children $(O)/test/cloexec $(O)/examples/zero_code: LDLIBS += $(ZERO_LDFLAGS)

# The fault-injection test puts its own allocator under the library's calls
# and the tool's subcommands (which it includes).
$(O)/test/fault_alloc: $(TOOL_SRCS)
$(O)/test/fault_alloc: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
	-Wl,--wrap=strdup,--wrap=strndup
# fork_signal counts the allocations and locks of a read in a signal handler.
$(O)/test/fork_signal: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=pthread_mutex_lock

$(O)/bench/%: bench/%.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PROG_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

# Examples use only the public header, as an outside program would.
$(O)/examples/%: examples/%.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -MMD -MP $(CFLAGS) -Iinclude $(PROG_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

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
	-e 's|@CMAKEDIR@|$(CMAKEDIR)|g' \
	-e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g; s|@STATIC_LIBS@|$(if $(HAVE_LIBPFM),;pfm)|g'

install: lib $(O)/tools/pmu
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGDIR) \
		$(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(PUB_HDRS) $(DESTDIR)$(INCDIR)/
	$(if $(PUB_SUBHDRS),install -d $(DESTDIR)$(INCDIR)/pmu && install -m 644 $(PUB_SUBHDRS) $(DESTDIR)$(INCDIR)/pmu/)
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libpmu.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libpmu.so.$(SOMAJOR)
	ln -sf libpmu.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libpmu.so
	$(SUBST_IN) libpmu.pc.in > $(DESTDIR)$(PKGDIR)/libpmu.pc
	$(SUBST_IN) cmake/libpmuConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/libpmuConfig.cmake
	$(SUBST_IN) cmake/libpmuConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/libpmuConfigVersion.cmake
	install -m 755 $(O)/tools/pmu $(DESTDIR)$(BINDIR)/
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN3),install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 completion/pmu.bash $(DESTDIR)$(BASHCOMPDIR)/pmu
	@$(if $(DESTDIR),:,sh mk/ldconfig.sh $(LIBDIR) $(LDCONFIG))

# Removes every file install writes, then the directories that are left empty
# below the prefix's standard ones (bin, lib, include, share/man stay).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/,$(notdir $(PUB_HDRS)))
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/pmu/,$(notdir $(PUB_SUBHDRS)))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libpmu.a libpmu.so.$(VERSION) libpmu.so.$(SOMAJOR) libpmu.so)
	rm -f $(DESTDIR)$(PKGDIR)/libpmu.pc
	rm -f $(DESTDIR)$(CMAKEDIR)/libpmuConfig.cmake $(DESTDIR)$(CMAKEDIR)/libpmuConfigVersion.cmake
	rm -f $(DESTDIR)$(BINDIR)/pmu
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7)))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/pmu
	for d in $(addprefix $(DESTDIR),$(INCDIR)/pmu $(CMAKEDIR) $(LIBDIR)/cmake $(PKGDIR) \
		$(MANDIR)/man1 $(MANDIR)/man3 $(MANDIR)/man7 $(BASHCOMPDIR) $(dir $(BASHCOMPDIR))); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; done

# O=dir cleans that directory; plain make clean, build and the tiers' build-*.
clean:
	rm -rf $(if $(filter command line,$(origin O)),$(O),build build-*)

-include $(wildcard $(O)/*/*.d)
include mk/abi.mk

.PHONY: all lib tests bench examples check check-host check-arm64 check-riscv64 stress deb install uninstall clean
.DELETE_ON_ERROR:
include mk/compat.mk
