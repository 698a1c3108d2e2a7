#!/usr/bin/env bash
# gen-jobs.sh: prints a batch/v1 Job manifest that is a one-task DAG job, for the controller's
# integration tests.
# Usage: gen-jobs.sh NAME CPU RUNTIME [DEADLINE_RFC3339|-] [PRIORITY_CLASS|-] [EXTRA_LABEL k=v|-]
#                    [NODE_SELECTOR k=v|-]
# With GATED=1 the pod template carries the dagsched.io/dependencies scheduling gate, as the
# admission webhook would add it; BACKOFF_LIMIT sets spec.backoffLimit (default 6).
set -euo pipefail
name="$1" cpu="$2" runtime="$3" deadline="${4:--}" pclass="${5:--}" extra="${6:--}" nsel="${7:--}"
echo "apiVersion: batch/v1"
echo "kind: Job"
echo "metadata:"
echo "  name: $name"
echo "spec:"
echo "  backoffLimit: ${BACKOFF_LIMIT:-6}"
echo "  template:"
echo "    metadata:"
echo "      labels:"
echo "        dagsched.io/job: $name"
echo "        dagsched.io/task: main"
[[ "$extra" == - ]] || echo "        ${extra%%=*}: \"${extra#*=}\""
echo "      annotations:"
echo "        dagsched.io/runtime: \"$runtime\""
[[ "$deadline" == - ]] || echo "        dagsched.io/deadline: \"$deadline\""
echo "    spec:"
echo "      restartPolicy: Never"
[[ "${GATED:-0}" != 1 ]] || echo "      schedulingGates: [{name: dagsched.io/dependencies}]"
[[ "$pclass" == - ]] || echo "      priorityClassName: $pclass"
[[ "$nsel" == - ]] || echo "      nodeSelector: {\"${nsel%%=*}\": \"${nsel#*=}\"}"
echo "      containers:"
echo "      - name: main"
echo "        image: busybox"
echo "        resources: {requests: {cpu: \"$cpu\"}}"
