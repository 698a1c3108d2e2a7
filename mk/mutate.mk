# mk/mutate.mk: mutation testing of the core library against the unit tests (hack/mutate.py), and
# the checks of the test tooling itself.
#
#   make mutate             plant mutants in lib/*.c one at a time, rebuild, run the unit tests that
#                           link the file; prints a score per file and writes build/mutate/
#                           survivors.txt. Not part of make test (minutes). Options:
#                             MUTATE_FILES="lib/dsp.c lib/victim.c"  files (default: the scheduling core)
#                             MUTATE_MAX=60      mutants sampled per file (0 or unset: all)
#                             MUTATE_SEED=1      sample seed (same seed, same sample)
#                             MUTATE_TIMEOUT=20  seconds per test binary before a mutant counts as timeout
#   make mutate-selftest    the mutant generator's tests, and no cmocka float assertion in tests/

.PHONY: mutate mutate-selftest

mutate:
	@python3 hack/mutate.py

mutate-selftest:
	@python3 tests/mutate/test_mutate.py
	@if grep -rn --include='*.c' --include='*.h' -E 'assert_float_(not_)?equal *\(' tests \
		| grep -v '^tests/common/ds_assert.h:'; then \
		echo "use assert_double_near / assert_double_inf / assert_double_nan (tests/common/ds_assert.h)"; \
		exit 1; fi

INTEGRATION_TESTS += mutate-selftest
