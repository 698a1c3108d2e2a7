# mk/jobmodel.mk: benchmark of the job model (ds_jobs_build on large synthetic clusters).
#
#   make bench-jobmodel    time ds_jobs_build for growing job sizes and pod counts

BENCH_JOBMODEL := $(BUILD)/rel/bench/bench_jobmodel

$(BENCH_JOBMODEL): bench/bench_jobmodel.c $(BUILD)/rel/libdsruntime.a $(BUILD)/rel/libdagsched.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(OPT_FLAGS) -Iruntime $< -o $@ $(BUILD)/rel/libdsruntime.a \
		$(BUILD)/rel/libdagsched.a $(YAML_LIBS) $(LIBS_COMMON)

.PHONY: bench-jobmodel
bench-jobmodel: $(BENCH_JOBMODEL)
	$(BENCH_JOBMODEL)
