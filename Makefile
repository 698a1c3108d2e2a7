# Makefile: builds dagsched (core library, binaries) and runs its test suites.
#
#   make            build everything (bin/ and the core library) with -Werror
#   make test       install build/test dependencies, then run every test suite: unit tests (normal
#                   and under AddressSanitizer + UndefinedBehaviorSanitizer) and the integration
#                   suites that component makefiles (mk/*.mk) register in INTEGRATION_TESTS
#   make format     clang-format every C file;  make format-check  fails on unformatted files
#   make private-headers-check  fails when a header marked "Private to DIR/" is included elsewhere
#
# Component makefiles in mk/ add binaries to BINARIES and test targets to INTEGRATION_TESTS.

CC       ?= cc
BUILD    := build
BIN      := bin
PKG_CONFIG ?= pkg-config

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
CFLAGS_BASE := $(CSTD) $(WARN) -g -Ilib -MMD -MP
OPT_FLAGS := -O2
SAN_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# One version for every binary and image: the chart's appVersion, and the git commit built
# (`make DAGSCHED_GIT=...` where the tree has no .git, as in an image build).
DAGSCHED_VERSION := $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' helm/dagsched/Chart.yaml)
DAGSCHED_GIT     ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_FLAGS    := -DDAGSCHED_VERSION='"$(DAGSCHED_VERSION)"' -DDAGSCHED_GIT='"$(DAGSCHED_GIT)"'

# External libraries (Debian packages installed by hack/install-deps.sh).
YAML_LIBS    := -lyaml
CMOCKA_LIBS  := -lcmocka
LIBS_COMMON  := -lm

# Every variant builds the same sources into its own tree: rel (optimised) and asan (sanitizers).
LIB_SRCS   := $(wildcard lib/*.c)
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_NAMES := $(patsubst tests/unit/%.c,%,$(UNIT_SRCS))

BINARIES          :=
INTEGRATION_TESTS :=

.PHONY: all test unit-test unit-test-asan deps format format-check private-headers-check clean lib
all: lib

define variant
# $(1) = variant name, $(2) = extra flags
$(BUILD)/$(1)/lib/%.o: lib/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -c $$< -o $$@

$(BUILD)/$(1)/libdagsched.a: $$(patsubst lib/%.c,$(BUILD)/$(1)/lib/%.o,$$(LIB_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/unit/%: tests/unit/%.c $(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Itests/unit $$< -o $$@ $(BUILD)/$(1)/libdagsched.a \
		$$(YAML_LIBS) $$(CMOCKA_LIBS) $$(LIBS_COMMON)
endef

$(eval $(call variant,rel,$(OPT_FLAGS)))
$(eval $(call variant,asan,$(SAN_FLAGS)))

lib: $(BUILD)/rel/libdagsched.a

UNIT_REL  := $(addprefix $(BUILD)/rel/tests/unit/,$(UNIT_NAMES))
UNIT_ASAN := $(addprefix $(BUILD)/asan/tests/unit/,$(UNIT_NAMES))

# Run from the repository root so tests can read policies/ and tests/data/.
unit-test: $(UNIT_REL)
	@set -e; for t in $(UNIT_REL); do echo "== $$t"; $$t; done

unit-test-asan: $(UNIT_ASAN)
	@set -e; for t in $(UNIT_ASAN); do echo "== $$t (asan+ubsan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

deps:
	@hack/install-deps.sh

C_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(C_FILES)

format-check:
	@clang-format --dry-run --Werror $(C_FILES)

# A header marked "Private to DIR/" is included only in DIR/ and the tests (docs/contributing.md).
private-headers-check:
	@hack/check-private-headers.sh

# Component makefiles (binaries, integration suites, benchmarks).
-include $(sort $(wildcard mk/*.mk))

all: $(BINARIES)

# The README's test command. Suites run one after another so that their output stays readable.
test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory private-headers-check
	@$(MAKE) --no-print-directory unit-test
	@$(MAKE) --no-print-directory unit-test-asan
	@set -e; for t in $(INTEGRATION_TESTS); do $(MAKE) --no-print-directory $$t; done
	@echo "make test: all suites passed"

clean:
	rm -rf $(BUILD) $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
