# mk/victim.mk: benchmark of victim selection (ds_select_victims, DSP Algorithm 1).
#
#   make bench-victim    large generated instances: CPU time per call of the current
#                        implementation and of the previous one (bench/victim_ref.c), whose
#                        decisions must be identical

BENCH_VICTIM := $(BUILD)/rel/bench/bench_victim

$(BENCH_VICTIM): bench/bench_victim.c bench/victim_ref.c bench/victim_ref.h $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Ibench bench/bench_victim.c bench/victim_ref.c -o $@ \
		$(BUILD)/rel/libdagsched.a $(LIBS_COMMON)

.PHONY: bench-victim
bench-victim: $(BENCH_VICTIM)
	$(BENCH_VICTIM)
