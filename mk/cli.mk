# mk/cli.mk: kubectl-dagsched, the kubectl plugin (cli/), and its tests.
#
#   make bin/kubectl-dagsched   the plugin (put bin/ on PATH to call it as `kubectl dagsched`), and
#                               bin/kubectl_complete-dagsched, which kubectl >= 1.26 runs to complete it
#   make cli-test               its terminal rule (tests/cli/test_term.c); a job's outlook, ETA
#                               and finish (tests/cli/test_outlook.c); the gantt chart's axis,
#                               bars and deadline label (tests/cli/test_gantt.c); the tenants of
#                               get tenants (tests/cli/test_tenant_view.c); its policy commands on the
#                               shipped policies and on bad input; optimised and under ASan+UBSan;
#                               shell completion (bash, zsh, and kubectl's). The plugin on Argo
#                               Workflows (live and after podGC) runs against the real Argo
#                               controller: the plugin scenario of make argo-integration-test
#   make cli-cluster-test       get jobs, describe job (the ETA's wait for room against real
#                               running tasks), gantt, explain pod and policy apply against a
#                               local control plane, both builds; job and pod name completion
#                               (bash, kubectl's, zsh)

CLI_SRCS := $(wildcard cli/*.c)
CLI_LIBS := -lcurl -ljansson -lyaml -lssl -lcrypto -lpthread -lm

BINARIES          += $(BIN)/kubectl-dagsched $(BIN)/kubectl_complete-dagsched
INTEGRATION_TESTS += cli-test

# The version command prints the version and commit the top-level Makefile passes (runtime/version.h).
$(BUILD)/rel/cli/version_cmd.o $(BUILD)/asan/cli/version_cmd.o: CLI_CFLAGS += $(VERSION_FLAGS)

$(BUILD)/rel/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $(CLI_CFLAGS) -Icli -Ikube -Icontroller -Iextender -Iruntime -c $< -o $@

$(BUILD)/asan/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) $(CLI_CFLAGS) -Icli -Ikube -Icontroller -Iextender -Iruntime -c $< -o $@

$(BIN)/kubectl-dagsched: $(patsubst cli/%.c,$(BUILD)/rel/cli/%.o,$(CLI_SRCS)) $(BUILD)/rel/libdsctl.a \
		$(BUILD)/rel/libdsextender.a $(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) $^ -o $@ $(CLI_LIBS)

$(BUILD)/asan/bin/kubectl-dagsched: $(patsubst cli/%.c,$(BUILD)/asan/cli/%.o,$(CLI_SRCS)) \
		$(BUILD)/asan/libdsctl.a $(BUILD)/asan/libdsextender.a $(BUILD)/asan/libdskube.a \
		$(BUILD)/asan/libdsruntime.a $(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) $^ -o $@ $(CLI_LIBS)

$(BIN)/kubectl_complete-dagsched: cli/kubectl_complete-dagsched
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/asan/bin/kubectl_complete-dagsched: cli/kubectl_complete-dagsched
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/rel/tests/cli/test_term: tests/cli/test_term.c $(BUILD)/rel/cli/term.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Icli $^ -o $@ $(CMOCKA_LIBS)

$(BUILD)/asan/tests/cli/test_term: tests/cli/test_term.c $(BUILD)/asan/cli/term.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) -Icli $^ -o $@ $(CMOCKA_LIBS)

# The unit tests of the modules that write times (fmt.o), over the core library (lib/room.h,
# lib/xml_escape.h): test_outlook of outlook.o, test_gantt of gantt_chart.o.
CLI_FMT_TESTS := test_outlook test_gantt
$(BUILD)/rel/tests/cli/test_outlook: $(BUILD)/rel/cli/outlook.o
$(BUILD)/asan/tests/cli/test_outlook: $(BUILD)/asan/cli/outlook.o
$(BUILD)/rel/tests/cli/test_gantt: $(BUILD)/rel/cli/gantt_chart.o
$(BUILD)/asan/tests/cli/test_gantt: $(BUILD)/asan/cli/gantt_chart.o

$(addprefix $(BUILD)/rel/tests/cli/,$(CLI_FMT_TESTS)): $(BUILD)/rel/tests/cli/%: tests/cli/%.c \
		$(BUILD)/rel/cli/fmt.o $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Icli $(filter %.c,$^) $(filter %.o,$^) $(filter %.a,$^) \
		-o $@ $(CMOCKA_LIBS) -lm

$(addprefix $(BUILD)/asan/tests/cli/,$(CLI_FMT_TESTS)): $(BUILD)/asan/tests/cli/%: tests/cli/%.c \
		$(BUILD)/asan/cli/fmt.o $(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) -Icli $(filter %.c,$^) $(filter %.o,$^) $(filter %.a,$^) \
		-o $@ $(CMOCKA_LIBS) -lm

# The tenants of `get tenants` (tenant_view.o) over the controller's tenants and release rule.
$(BUILD)/rel/tests/cli/test_tenant_view: tests/cli/test_tenant_view.c $(BUILD)/rel/cli/tenant_view.o \
		$(BUILD)/rel/libdsctl.a $(BUILD)/rel/libdskube.a $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Icli -Icontroller -Ikube -Iruntime $(filter %.c,$^) \
		$(filter %.o,$^) $(filter %.a,$^) -o $@ $(CMOCKA_LIBS) $(CLI_LIBS)

$(BUILD)/asan/tests/cli/test_tenant_view: tests/cli/test_tenant_view.c $(BUILD)/asan/cli/tenant_view.o \
		$(BUILD)/asan/libdsctl.a $(BUILD)/asan/libdskube.a $(BUILD)/asan/libdsruntime.a \
		$(BUILD)/asan/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(SAN_FLAGS) -Icli -Icontroller -Ikube -Iruntime $(filter %.c,$^) \
		$(filter %.o,$^) $(filter %.a,$^) -o $@ $(CMOCKA_LIBS) $(CLI_LIBS)

.PHONY: cli-test
cli-test: $(BIN)/kubectl-dagsched $(BUILD)/asan/bin/kubectl-dagsched $(BIN)/kubectl_complete-dagsched \
		$(BUILD)/asan/bin/kubectl_complete-dagsched $(BUILD)/rel/tests/cli/test_term \
		$(BUILD)/asan/tests/cli/test_term $(BUILD)/rel/tests/cli/test_outlook \
		$(BUILD)/asan/tests/cli/test_outlook $(BUILD)/rel/tests/cli/test_gantt \
		$(BUILD)/asan/tests/cli/test_gantt $(BUILD)/rel/tests/cli/test_tenant_view \
		$(BUILD)/asan/tests/cli/test_tenant_view
	@$(BUILD)/rel/tests/cli/test_term
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 $(BUILD)/asan/tests/cli/test_term
	@$(BUILD)/rel/tests/cli/test_outlook
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 $(BUILD)/asan/tests/cli/test_outlook
	@$(BUILD)/rel/tests/cli/test_gantt
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 $(BUILD)/asan/tests/cli/test_gantt
	@$(BUILD)/rel/tests/cli/test_tenant_view
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 $(BUILD)/asan/tests/cli/test_tenant_view
	@python3 tests/cli/test_policy_cmd.py $(BIN)/kubectl-dagsched
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 python3 tests/cli/test_policy_cmd.py $(BUILD)/asan/bin/kubectl-dagsched
	@DAGSCHED_EXTRA_PACKAGES="zsh" hack/install-deps.sh
	@tests/cli/test_completion.sh $(BIN) "$$(hack/install-helm.sh | tail -1)/kubectl"
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 tests/cli/test_completion.sh $(BUILD)/asan/bin

# The jobs commands against a real local control plane (hack/cluster), both builds.
.PHONY: cli-cluster-test
cli-cluster-test: $(BIN)/kubectl-dagsched $(BUILD)/asan/bin/kubectl-dagsched \
		$(BIN)/kubectl_complete-dagsched $(BUILD)/asan/bin/kubectl_complete-dagsched
	@DAGSCHED_EXTRA_PACKAGES="zsh" hack/install-deps.sh
	@hack/cluster/with-cluster.sh python3 tests/cli/test_jobs_cmd.py $(BIN)/kubectl-dagsched \
		$(BUILD)/asan/bin/kubectl-dagsched

INTEGRATION_TESTS += cli-cluster-test
