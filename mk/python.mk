# The Python package's C extension, pmu/_pmu$(PY_EXT) from python/pmu/_pmu.c, for $(PYTHON) where its
# headers are (Debian: python3-dev). Without them the package serves every call through ctypes.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
PY_CONF := $(shell $(PYTHON) -c 'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
endif
PY_INC := $(word 1,$(PY_CONF))
PY_FILES := $(wildcard python/pmu/*.py)
PY_MOD := $(if $(wildcard $(PY_INC)/Python.h),$(O)/python/pmu/_pmu$(word 2,$(PY_CONF)))
# Installed, it finds libpmu.so.0 in LIBDIR by its path from the package; setup.py has a wheel's
# copy beside it (PY_RUNPATH=-Wl,-rpath,'$$ORIGIN').
PY_RUNPATH ?= $(if $(LIB_RUNPATH),-Wl$(comma)-rpath$(comma)'$$ORIGIN/$(shell realpath -m --relative-to=$(PYTHONDIR)/pmu $(LIBDIR))')
comma := ,

python: $(PY_MOD)
	$(if $(PY_MOD),,@echo "python: no Python.h for $(PYTHON) (Debian: python3-dev): the package will use ctypes alone")

$(PY_MOD): python/pmu/_pmu.c $(SHARED_LIB) $(O)/install-paths
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -isystem $(PY_INC) -shared $(LDFLAGS) -o $@ $< -L$(O) -lpmu $(PY_RUNPATH)

.PHONY: python
