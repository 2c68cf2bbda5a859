# libpmu-papi and libpmu-likwid: PAPI's high-level API and LIKWID's marker API
# on libpmu, each a small shared library of its own linking libpmu.so (PAPI's
# and LIKWID's names never go into libpmu.so). Included by the Makefile.
#   make compat                 both libraries in $(O)/
#   make install                with the library (stage-compat)
COMPAT_LIBS := papi likwid
COMPAT_SOS := $(foreach l,$(COMPAT_LIBS),$(O)/libpmu-$(l).so.$(VERSION))
COMPAT_MAN7 := $(foreach l,$(COMPAT_LIBS),man/libpmu-$(l).7)

# What a program needs to compile, installed under INCDIR/libpmu-papi and INCDIR/libpmu-likwid
# (pkg-config --cflags): papi.h and likwid.h are the prototypes the libraries build with.
FC ?= gfortran
HAVE_FC := $(if $(filter clean,$(MAKECMDGOALS)),,$(shell command -v $(FC) 2>/dev/null))
COMPAT_MOD := $(if $(HAVE_FC),$(O)/compat/likwid.mod)

compat: $(COMPAT_SOS) $(COMPAT_MOD)

# LIKWID's Fortran module (use likwid) for gfortran, from compat/dropins/likwid.f90.
$(O)/compat/likwid.mod: compat/dropins/likwid.f90
	@mkdir -p $(@D)
	$(FC) -c -J$(@D) -o $(@D)/likwid_f90.o $<

$(O)/compat/%.o: compat/dropins/%.c compat/dropins/papi_protos.h compat/dropins/likwid_protos.h include/pmu.h src/plugin.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(O)/compat/%.o: compat/runtimes/%.c compat/runtimes/connector.h include/pmu.h src/plugin.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(O)/emulation/%.o: emulation/%.c src/counters/emu_table.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Linked with libpmu.so from the same build, found beside them (LIB_RUNPATH) outside the system's directories.
$(O)/libpmu-%.so.$(VERSION): $(O)/compat/%.o compat/dropins/libpmu-%.map $(SHARED_LIB) $(O)/install-paths
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libpmu-$*.so.$(SOMAJOR) -Wl,--version-script=compat/dropins/libpmu-$*.map \
		-Wl,--no-undefined -o $@ $< -L$(O) -lpmu $(LIB_RUNPATH) $(LDLIBS)
	ln -sf libpmu-$*.so.$(VERSION) $(O)/libpmu-$*.so.$(SOMAJOR)
	ln -sf libpmu-$*.so.$(SOMAJOR) $(O)/libpmu-$*.so

# The cost of a region pair through each drop-in beside the real thing (test/compat.sh
# builds it with the real libraries where they are installed).
$(O)/bench/compat: bench/compat.c $(COMPAT_SOS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -L$(O) -lpmu -Wl,-rpath,'$$ORIGIN/..' -ldl $(LDLIBS)

define stage-compat
	install -d $(S)$(LIBDIR) $(S)$(PKGDIR) $(S)$(MANDIR)/man7 $(S)$(INCDIR)/libpmu-papi $(S)$(INCDIR)/libpmu-likwid
	install -m 644 compat/dropins/papi_protos.h $(S)$(INCDIR)/libpmu-papi/papi.h
	install -m 644 compat/dropins/likwid_protos.h $(S)$(INCDIR)/libpmu-likwid/likwid.h
	install -m 644 compat/dropins/likwid-marker.h $(COMPAT_MOD) $(S)$(INCDIR)/libpmu-likwid/
	$(foreach l,$(COMPAT_LIBS),install -m 644 $(O)/libpmu-$(l).so.$(VERSION) $(S)$(LIBDIR)/ && \
		ln -sf libpmu-$(l).so.$(VERSION) $(S)$(LIBDIR)/libpmu-$(l).so.$(SOMAJOR) && \
		ln -sf libpmu-$(l).so.$(SOMAJOR) $(S)$(LIBDIR)/libpmu-$(l).so && \
		$(SUBST_IN) compat/dropins/libpmu-$(l).pc.in > $(S)$(PKGDIR)/libpmu-$(l).pc;)
	install -m 644 $(COMPAT_MAN7) $(S)$(MANDIR)/man7/
endef
stage: $(COMPAT_SOS) $(COMPAT_MOD)

# libpmu-omp (an OMPT tool) and libpmu-kokkos (a Kokkos Tools connector): plugins the
# runtimes load by path (OMP_TOOL_LIBRARIES, KOKKOS_PROFILE_LIBRARY), installed in
# LIBDIR/libpmu/. libpmu-omp names constructs by file:line with elfutils' libdw where it links.
RUNTIME_LIBS := omp kokkos functions
RUNTIME_SOS := $(foreach l,$(RUNTIME_LIBS),$(O)/libpmu-$(l).so)
RUNTIME_MAN7 := $(foreach l,$(RUNTIME_LIBS),man/libpmu-$(l).7)
LIBDW ?= auto
ifneq ($(LIBDW),no)
HAVE_LIBDW ?= $(shell printf '\043include <elfutils/libdwfl.h>\nint main(void){return !dwfl_begin(0);}\n' | \
	$(CC) -x c - -ldw -o /dev/null 2>/dev/null && echo 1)
endif
$(O)/compat/omp.o: BASE_CFLAGS += $(if $(HAVE_LIBDW),-DHAVE_LIBDW)
LIBS_omp := $(if $(HAVE_LIBDW),-ldw)
# (libpmu-functions calls libpmu alone: libc linked all the same, as a library must be)
LIBS_functions := -Wl,--no-as-needed -lc -Wl,--as-needed
ifneq ($(LIB_RUNPATH),)
PLUGIN_RUNPATH = -Wl,-rpath,'$$ORIGIN/..:$$ORIGIN'
endif

# libpmu-qemu: a plugin of QEMU's user-mode emulation (pmu emulate, libpmu-qemu(7)). QEMU
# gives the calls it makes: it links nothing, and needs no libpmu.so.0.
RUNTIME_LIBS += qemu
RUNTIME_SOS += $(O)/libpmu-qemu.so
RUNTIME_MAN7 += man/libpmu-qemu.7
$(O)/libpmu-qemu.so: $(O)/emulation/qemu.o emulation/libpmu-qemu.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=emulation/libpmu-qemu.map -o $@ $< -ldl

# libpmu-valgrind: a Valgrind tool (pmu emulate --backend valgrind, libpmu-valgrind(7)), where
# Valgrind's tool libraries are (Debian's valgrind package) and CC builds for this machine. It links
# them, which are GPL-2.0, and so is a separate program under the GPL (emulation/valgrind/COPYING).
VG_PLATFORM := $(if $(filter clean,$(MAKECMDGOALS)),,$(shell [ "$$($(CC) -dumpmachine 2>/dev/null)" = \
	"$$(cc -dumpmachine 2>/dev/null)" ] && pkg-config --variable=platform valgrind 2>/dev/null))
VG_LIBDIR := $(if $(VG_PLATFORM),$(shell pkg-config --variable=libdir valgrind)/valgrind)
VG_ARCH := $(firstword $(subst -, ,$(VG_PLATFORM)))
HAVE_VG_TOOL := $(if $(VG_PLATFORM),$(wildcard $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a))
ifneq ($(HAVE_VG_TOOL),)
RUNTIME_MAN7 += man/libpmu-valgrind.7
VG_TOOL := $(O)/libpmu-valgrind
$(O)/emulation/valgrind/tool.o: emulation/valgrind/tool.c src/counters/emu_table.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -Wno-unused-parameter -O2 -g -fno-stack-protector -fno-builtin -fno-strict-aliasing \
		-fno-pie -DVGA_$(VG_ARCH)=1 -DVGO_linux=1 -DVGP_$(VG_ARCH)_linux=1 -DVGPV_$(VG_ARCH)_linux_vanilla=1 \
		$$(pkg-config --cflags valgrind) -Isrc -c -o $@ $<
# Linked as Valgrind links its own tools: static, at its tools' load address, with its libraries alone.
$(VG_TOOL): $(O)/emulation/valgrind/tool.o
	$(CC) -o $@ -static -nodefaultlibs -nostartfiles -u _start -no-pie -Wl,--build-id=none \
		-Wl,-Ttext-segment=$$(pkg-config --variable=valt_load_address valgrind) $< \
		$(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a \
		$(wildcard $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a) -lgcc
valgrind-tool: $(VG_TOOL)
else
VG_TOOL :=
valgrind-note:
	@echo "libpmu: Valgrind's tool libraries are not installed (apt-get install valgrind):" \
		"libpmu-valgrind is not built, and pmu emulate counts under QEMU alone"
.PHONY: valgrind-note
runtimes: valgrind-note
valgrind-tool: valgrind-note
endif
# The tool alone, or the note (setup.py asks for it beside the QEMU plugin).
.PHONY: valgrind-tool

$(O)/libpmu-%.so: $(O)/compat/%.o compat/runtimes/libpmu-%.map $(SHARED_LIB) $(O)/install-paths
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=compat/runtimes/libpmu-$*.map -Wl,--no-undefined -o $@ $< \
		-L$(O) -lpmu $(LIBS_$*) $(PLUGIN_RUNPATH) $(LDLIBS)

# libpmu-mpi: built where an MPI compiler wrapper is (MPICC, Open MPI's or MPICH's mpicc). It links
# libpmu.so.0 alone: the merge is the library's report layer, reached by private calls (src/plugin.h).
MPICC ?= mpicc
# (not in a cross build: the MPI wrapper compiles for this machine)
HAVE_MPI := $(if $(filter clean,$(MAKECMDGOALS)),,$(shell command -v $(MPICC) >/dev/null 2>&1 && \
	[ "$$($(MPICC) -dumpmachine 2>/dev/null)" = "$$($(CC) -dumpmachine 2>/dev/null)" ] && echo 1))
ifneq ($(HAVE_MPI),)
RUNTIME_LIBS += mpi
RUNTIME_SOS += $(O)/libpmu-mpi.so
RUNTIME_MAN7 += man/libpmu-mpi.7
endif
$(O)/compat/mpi.o: compat/runtimes/mpi.c include/pmu.h src/plugin.h
	@mkdir -p $(@D)
	$(MPICC) $(ALL_CFLAGS) -c -o $@ $<
$(O)/libpmu-mpi.so: $(O)/compat/mpi.o compat/runtimes/libpmu-mpi.map $(SHARED_LIB) $(O)/install-paths
	$(MPICC) -shared $(LDFLAGS) -Wl,--version-script=compat/runtimes/libpmu-mpi.map -Wl,--no-undefined -o $@ $< \
		-L$(O) -lpmu $(PLUGIN_RUNPATH) $(LDLIBS)

runtimes: $(RUNTIME_SOS) $(VG_TOOL)
compat: runtimes

define stage-runtimes
	install -d $(S)$(LIBDIR)/libpmu $(S)$(MANDIR)/man7
	install -m 644 $(RUNTIME_SOS) $(S)$(LIBDIR)/libpmu/
	$(if $(VG_TOOL),install -m 755 $(VG_TOOL) $(S)$(LIBDIR)/libpmu/)
	install -m 644 $(RUNTIME_MAN7) $(S)$(MANDIR)/man7/
endef
stage: $(RUNTIME_SOS) $(VG_TOOL)

.PHONY: compat runtimes
all: compat
