# admission-webhook.sh: the MutatingWebhookConfiguration of the chart
# (helm/dagsched/templates/admission-webhook.yaml, default values: failurePolicy Ignore, every Pod
# CREATE outside kube-system and the excluded namespaces) with a url instead of a Service, for an
# extender running as a local process: make demo (hack/demo.sh) and the cluster suites
# (tests/common/cluster_suite.sh). Sourced, not run.

# admission_webhook_yaml NAME PORT CA_FILE EXCLUDED_NS...: prints the configuration NAME that
# sends pods to https://127.0.0.1:PORT/mutate-pods, trusting the CA in CA_FILE.
admission_webhook_yaml() {
  local name="$1" port="$2" ca="$3" ns excluded="kube-system"
  shift 3
  for ns in "$@"; do excluded="$excluded, $ns"; done
  cat <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: $name}
webhooks:
  - name: gate.dagsched.io
    admissionReviewVersions: [v1]
    sideEffects: None
    timeoutSeconds: 5
    failurePolicy: Ignore
    reinvocationPolicy: IfNeeded
    matchPolicy: Equivalent
    clientConfig:
      url: https://127.0.0.1:$port/mutate-pods
      caBundle: $(base64 -w0 "$ca")
    rules:
      - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Namespaced}
    namespaceSelector:
      matchExpressions:
        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [$excluded]}
YAML
}
