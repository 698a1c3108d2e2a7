# mk/demo.mk: the demo (README's first command) and its tests.
#
#   make demo               the sample DAG workloads of examples/ under dagsched and under the default
#                           kube-scheduler, on two fresh local clusters, with a live progress table
#                           and a per-job summary (hack/demo.sh; options in its header, docs/demo.md)
#   make demo-test          the whole demo in CI mode (plain output, strict timeout), then asserts
#                           its key claims: every job completed, no dependency violation under
#                           dagsched, the urgent job's deadline met under dagsched
#   make demo-summary-test  the summary tool's metrics on recorded runs (tests/demo/)
#   make demo-fresh-clone-test  `make demo-test` as a new user runs it: the current commit cloned
#                           into an empty folder, nothing built, only ~/.cache/dagsched may be warm

.PHONY: demo demo-test demo-summary-test demo-fresh-clone-test

demo:
	@hack/demo.sh

DEMO_TEST_TIMEOUT ?= 600
demo-test:
	@DEMO_PLAIN=1 DEMO_CHECK=1 DEMO_TIMEOUT=300 timeout --signal=TERM --kill-after=30 $(DEMO_TEST_TIMEOUT) hack/demo.sh

demo-summary-test:
	@python3 tests/demo/test_summary.py

demo-fresh-clone-test:
	@tests/demo/fresh-clone.sh

# The summary tool's tests take a second; the demo about 3.5 minutes plus the clone's build.
# make test runs the demo from a fresh clone only: it makes the same assertions as demo-test, and
# also proves that the README's first command builds everything it needs.
INTEGRATION_TESTS += demo-summary-test demo-fresh-clone-test
