# The ABI of libpmu.so (abigail-tools): the last release's is abi/libpmu.so.MAJOR.abi.
#   make abi           compares the built library with it (test/abi.sh, the abi tier of make check)
#   make abi-baseline  writes it from the built library: at a release, with the version bump
ABI_BASELINE := abi/libpmu.so.$(SOMAJOR).abi

abi: $(SHARED_LIB)
	@O=$(O) test/abi.sh

abi-baseline: $(SHARED_LIB)
	abidw --no-corpus-path --no-comp-dir-path --drop-undefined-syms $(SHARED_LIB) > $(ABI_BASELINE)

.PHONY: abi abi-baseline
