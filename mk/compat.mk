# libpmu-papi and libpmu-likwid: PAPI's high-level API and LIKWID's marker API
# on libpmu, each a small shared library of its own linking libpmu.so (PAPI's
# and LIKWID's names never go into libpmu.so). Included by the Makefile.
#   make compat                 both libraries in $(O)/
#   make install-compat         (and uninstall-compat) the same variables as install
COMPAT_LIBS := papi likwid
COMPAT_SOS := $(foreach l,$(COMPAT_LIBS),$(O)/libpmu-$(l).so.$(VERSION))
COMPAT_MAN7 := $(foreach l,$(COMPAT_LIBS),man/libpmu-$(l).7)

compat: $(COMPAT_SOS)

$(O)/compat/%.o: compat/%.c compat/papi_protos.h compat/likwid_protos.h include/pmu.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Linked with libpmu.so from the same build; the runtime path is the loader's (or the install's).
$(O)/libpmu-%.so.$(VERSION): $(O)/compat/%.o compat/libpmu-%.map $(SHARED_LIB)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libpmu-$*.so.$(SOMAJOR) -Wl,--version-script=compat/libpmu-$*.map \
		-Wl,--no-undefined -o $@ $< -L$(O) -lpmu $(filter-out -lpfm,$(LDLIBS))
	ln -sf libpmu-$*.so.$(VERSION) $(O)/libpmu-$*.so.$(SOMAJOR)
	ln -sf libpmu-$*.so.$(SOMAJOR) $(O)/libpmu-$*.so

# The cost of a region pair through each drop-in beside the real thing (test/compat.sh
# builds it with the real libraries where they are installed).
$(O)/bench/compat: bench/compat.c $(COMPAT_SOS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -L$(O) -lpmu -Wl,-rpath,'$$ORIGIN/..' -ldl $(LDLIBS)

install-compat: $(COMPAT_SOS)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGDIR) $(DESTDIR)$(MANDIR)/man7
	$(foreach l,$(COMPAT_LIBS),install -m 644 $(O)/libpmu-$(l).so.$(VERSION) $(DESTDIR)$(LIBDIR)/ && \
		ln -sf libpmu-$(l).so.$(VERSION) $(DESTDIR)$(LIBDIR)/libpmu-$(l).so.$(SOMAJOR) && \
		ln -sf libpmu-$(l).so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libpmu-$(l).so && \
		$(SUBST_IN) compat/libpmu-$(l).pc.in > $(DESTDIR)$(PKGDIR)/libpmu-$(l).pc;)
	install -m 644 $(COMPAT_MAN7) $(DESTDIR)$(MANDIR)/man7/

uninstall-compat:
	rm -f $(foreach l,$(COMPAT_LIBS),$(addprefix $(DESTDIR)$(LIBDIR)/,libpmu-$(l).so.$(VERSION) \
		libpmu-$(l).so.$(SOMAJOR) libpmu-$(l).so) $(DESTDIR)$(PKGDIR)/libpmu-$(l).pc)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(COMPAT_MAN7)))

.PHONY: compat install-compat uninstall-compat
all: compat
# make install and uninstall do the drop-ins too.
install: install-compat
uninstall: uninstall-compat
