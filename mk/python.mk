# The Python package (python/pmu) and its C extension, pmu/_pmu$(PY_EXT) from python/pmu/_pmu.c,
# for $(PYTHON) where its headers are (Debian: python3-dev). Without them the package serves every
# call through ctypes; with PYTHON set to nothing, or a $(PYTHON) for another machine than $(CC)'s
# (a cross build), there is no package: make says so.
PYTHON ?= python3
ifeq ($(filter clean,$(MAKECMDGOALS)),)
# include directory, extension suffix, version, multiarch tuple ("-" where there is none)
PY_CONF := $(if $(PYTHON),$(shell $(PYTHON) -c 'import sysconfig as s, sys; \
	print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"), "%d.%d" % sys.version_info[:2], \
	s.get_config_var("MULTIARCH") or "-")' 2>/dev/null))
endif
PY_INC := $(word 1,$(PY_CONF))
PYVER := $(word 3,$(PY_CONF))
PY_ARCH := $(word 4,$(PY_CONF))
# Why there is no package, or nothing.
PY_NONE = $(strip $(if $(PYTHON),$(if $(PYVER),$(if $(filter -,$(PY_ARCH))$(filter $(PY_ARCH),$(MULTIARCH))$(if $(MULTIARCH),,-),,\
	$(PYTHON) is for $(PY_ARCH) and $(CC) builds for $(MULTIARCH): give the target's Python with PYTHON=),\
	$(PYTHON) does not run here),PYTHON is empty))
PY_PKG := $(if $(PY_NONE),,yes)
# Debian's own directory for /usr, else the prefix's user-site layout ($HOME/.local gives the directory
# Python reads by itself).
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/site-packages)
PY_FILES := $(wildcard python/pmu/*.py)
PY_MOD := $(if $(PY_PKG),$(if $(wildcard $(PY_INC)/Python.h),$(O)/python/pmu/_pmu$(word 2,$(PY_CONF))))
# Installed, it finds libpmu.so.0 in LIBDIR by its path from the package; setup.py has a wheel's
# copy beside it (PY_RUNPATH=-Wl,-rpath,'$$ORIGIN').
PY_RUNPATH ?= $(if $(LIB_RUNPATH),-Wl$(comma)-rpath$(comma)'$$ORIGIN/$(shell realpath -m --relative-to=$(PYTHONDIR)/pmu $(LIBDIR))')
comma := ,

# What make python and make install say where the package is not whole.
PY_SAY = $(if $(PY_NONE),no Python package: $(PY_NONE),$(if $(PY_MOD),,no Python.h for $(PYTHON) (Debian: python3-dev): \
	the Python package will use ctypes alone))

python: $(PY_MOD)
	$(if $(PY_SAY),@echo "libpmu: $(PY_SAY)")

$(PY_MOD): python/pmu/_pmu.c $(SHARED_LIB) $(O)/install-paths
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -isystem $(PY_INC) -shared $(LDFLAGS) -o $@ $< -L$(O) -lpmu $(PY_RUNPATH)

# make install: the package, with the extension where it was built, and the library's place.
define stage-python
	$(if $(PY_PKG),install -d $(S)$(PYTHONDIR)/pmu && \
		install -m 644 $(PY_FILES) $(PY_MOD) $(S)$(PYTHONDIR)/pmu/ && \
		echo '__version__ = "$(VERSION)"' > $(S)$(PYTHONDIR)/pmu/_version.py && \
		realpath -m --relative-to=$(PYTHONDIR)/pmu $(LIBDIR) > $(S)$(PYTHONDIR)/pmu/libdir)
	$(if $(PY_SAY),@echo "libpmu: $(PY_SAY)")
endef
stage: $(PY_MOD)

.PHONY: python
