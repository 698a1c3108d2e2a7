# mk/runtime.mk: runtime support shared by the binaries (HTTP(S) server, metrics registry), built
# into $(BUILD)/<variant>/libdsruntime.a, and its tests (real servers on loopback, driven by libcurl).

RUNTIME_SRCS  := $(wildcard runtime/*.c)
RUNTIME_TESTS := $(patsubst tests/runtime/%.c,%,$(wildcard tests/runtime/test_*.c))
RUNTIME_LIBS  := -lwebsockets -lssl -lcrypto -lpthread
RUNTIME_TEST_LIBS := -lcurl $(CMOCKA_LIBS) $(LIBS_COMMON)

define runtime_variant
$(BUILD)/$(1)/runtime/%.o: runtime/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Iruntime -c $$< -o $$@

$(BUILD)/$(1)/libdsruntime.a: $$(patsubst runtime/%.c,$(BUILD)/$(1)/runtime/%.o,$$(RUNTIME_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@
	ar rcs $$@ $$^

$(BUILD)/$(1)/tests/runtime/%: tests/runtime/%.c $(BUILD)/$(1)/libdsruntime.a $(BUILD)/$(1)/libdagsched.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_BASE) $(2) -Iruntime $$< -o $$@ $(BUILD)/$(1)/libdsruntime.a \
		$(BUILD)/$(1)/libdagsched.a $$(RUNTIME_LIBS) $$(RUNTIME_TEST_LIBS)
endef

$(eval $(call runtime_variant,rel,$(OPT_FLAGS)))
$(eval $(call runtime_variant,asan,$(SAN_FLAGS)))

# Test certificates for the HTTPS tests (generated, never committed).
RUNTIME_CERTS := $(BUILD)/testcerts/a.crt
$(RUNTIME_CERTS): hack/gen-test-certs.sh
	@hack/gen-test-certs.sh $(BUILD)/testcerts

.PHONY: runtime-test runtime-test-asan
runtime-test: $(addprefix $(BUILD)/rel/tests/runtime/,$(RUNTIME_TESTS)) $(RUNTIME_CERTS)
	@set -e; for t in $(filter $(BUILD)/rel/tests/%,$^); do echo "== $$t"; \
		DAGSCHED_TEST_CERTS=$(BUILD)/testcerts $$t; done

runtime-test-asan: $(addprefix $(BUILD)/asan/tests/runtime/,$(RUNTIME_TESTS)) $(RUNTIME_CERTS)
	@set -e; for t in $(filter $(BUILD)/asan/tests/%,$^); do echo "== $$t (asan+ubsan)"; \
		DAGSCHED_TEST_CERTS=$(BUILD)/testcerts ASAN_OPTIONS=detect_leaks=1 $$t; done

INTEGRATION_TESTS += runtime-test runtime-test-asan
