# mk/version.mk: one version for both binaries and the images (DAGSCHED_VERSION, the chart's
# appVersion, and DAGSCHED_GIT, defined in the top-level Makefile).
#
#   make version-test   both binaries' --version name the chart's appVersion and the same commit;
#                       `kubectl-dagsched version` names the chart's appVersion

.PHONY: version-test
version-test: $(BIN)/dagsched-extender $(BIN)/dagsched-controller $(BIN)/kubectl-dagsched
	@tests/version/check.sh $(BIN)/dagsched-extender $(BIN)/dagsched-controller \
		$(BIN)/kubectl-dagsched

INTEGRATION_TESTS += version-test
