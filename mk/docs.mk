# mk/docs.mk: the documentation's copy-paste snippets, checked against a fresh local control plane.
#
#   make docs-snippets-test   every marked YAML block of README.md, docs/*.md and examples/README.md,
#                             the files of examples/ and policies/: applied with
#                             kubectl apply --dry-run=server, policies through the validator
#                             (tests/docs/snippets.py says how blocks are marked)

.PHONY: docs-snippets-test
docs-snippets-test: $(BIN)/kubectl-dagsched $(BIN)/dagsched-sim
	@hack/cluster/with-cluster.sh python3 tests/docs/snippets.py $(BIN)/kubectl-dagsched $(BIN)/dagsched-sim

INTEGRATION_TESTS += docs-snippets-test
