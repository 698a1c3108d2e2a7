# mk/cli.mk: kubectl-dagsched, the kubectl plugin (cli/), and its tests.
#
#   make bin/kubectl-dagsched   the plugin (put bin/ on PATH to call it as `kubectl dagsched`)
#   make cli-test               its commands on the shipped policies and on bad input, optimised
#                               and under ASan+UBSan

CLI_SRCS := $(wildcard cli/*.c)
CLI_LIBS := -ljansson -lyaml -lm

BINARIES          += $(BIN)/kubectl-dagsched
INTEGRATION_TESTS += cli-test

$(BUILD)/rel/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Icli -Ikube -c $< -o $@

$(BUILD)/asan/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) -Icli -Ikube -c $< -o $@

$(BIN)/kubectl-dagsched: $(patsubst cli/%.c,$(BUILD)/rel/cli/%.o,$(CLI_SRCS)) $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $^ -o $@ $(CLI_LIBS)

$(BUILD)/asan/bin/kubectl-dagsched: $(patsubst cli/%.c,$(BUILD)/asan/cli/%.o,$(CLI_SRCS)) $(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) $^ -o $@ $(CLI_LIBS)

.PHONY: cli-test
cli-test: $(BIN)/kubectl-dagsched $(BUILD)/asan/bin/kubectl-dagsched
	@python3 tests/cli/test_policy_cmd.py $(BIN)/kubectl-dagsched
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 python3 tests/cli/test_policy_cmd.py $(BUILD)/asan/bin/kubectl-dagsched
