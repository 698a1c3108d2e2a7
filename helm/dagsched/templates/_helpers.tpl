{{/* Names and labels shared by every template. */}}
{{/* The name in object names: "dagsched", or nameOverride. The app.kubernetes.io/name label stays
dagsched whatever it is, as on the policy ConfigMaps the CLI writes. */}}
{{- define "dagsched.name" -}}
{{- default "dagsched" .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* The prefix of every object's name: fullnameOverride; else the release name when it contains
the name (a release called dagsched: dagsched-controller...), else <release>-<name>. At most 40
characters, so that the longest suffix still fits a name's 63. */}}
{{- define "dagsched.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "dagsched.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "dagsched.labels" -}}
app.kubernetes.io/name: dagsched
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "dagsched.selector" -}}
app.kubernetes.io/name: dagsched
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The ServiceAccount a component's pods run as: call with (dict "root" $ "component" name).
<component>.serviceAccount.name, else <fullname>-<component>; the chart creates it unless
<component>.serviceAccount.create is false (then it must exist). */}}
{{- define "dagsched.serviceAccountName" -}}
{{- $sa := (get .root.Values .component).serviceAccount | default dict -}}
{{- $sa.name | default (printf "%s-%s" (include "dagsched.fullname" .root) .component) -}}
{{- end -}}

{{/* A pod template's metadata: call with (dict "root" $ "c" component-values "component" name
"annotations" chart-annotations). Labels: the component's selector labels, then podLabels (a
selector label cannot be replaced). Annotations: the chart's own, then podAnnotations. A
component's podLabels and podAnnotations replace the global ones when set (not empty). */}}
{{- define "dagsched.podMetadata" -}}
{{- $root := .root -}}
{{- $c := .c | default dict -}}
labels:
  {{- include "dagsched.selector" (dict "root" $root "component" .component) | nindent 2 }}
  {{- with omit ($c.podLabels | default $root.Values.podLabels | default dict) "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/component" }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- $own := .annotations | default dict }}
{{- $user := deepCopy ($c.podAnnotations | default $root.Values.podAnnotations | default dict) }}
{{- range $k, $v := $own }}
{{- $_ := unset $user $k }}
{{- end }}
{{- if or $own $user }}
annotations:
  {{- with $own }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- with $user }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* A name the controller gives one of its objects: the value of --<flag>=... in
controller.extraArgs (the last one, as the controller reads them), else the controller's default.
Call with (dict "root" $ "flag" name "default" name). */}}
{{- define "dagsched.controllerFlag" -}}
{{- $v := .default -}}
{{- $prefix := printf "--%s=" .flag -}}
{{- range .root.Values.controller.extraArgs -}}
{{- if hasPrefix $prefix . -}}
{{- $v = trimPrefix $prefix . -}}
{{- end -}}
{{- end -}}
{{- $v -}}
{{- end -}}

{{/* What dagsched writes at run time in the release namespace and nothing deletes with the
release, as YAML {configmaps: [...], leases: [...]}: the controller's eviction ledger and learned
run times (ConfigMaps), the controller's and the scheduler's leader-election Leases. */}}
{{- define "dagsched.runtimeObjects" -}}
{{- $cms := list (include "dagsched.controllerFlag" (dict "root" . "flag" "ledger-name" "default" "dagsched-controller-evictions")) (include "dagsched.controllerFlag" (dict "root" . "flag" "runtime-history-name" "default" "dagsched-runtime-history")) -}}
{{- $leases := list -}}
{{- if .Values.controller.leaderElection.enabled -}}
{{- $leases = append $leases (include "dagsched.controllerFlag" (dict "root" . "flag" "leader-elect-lease-name" "default" .Values.controller.leaderElection.leaseName)) -}}
{{- end -}}
{{- if and .Values.scheduler.enabled .Values.scheduler.leaderElect -}}
{{- $leases = append $leases (printf "%s-scheduler" (include "dagsched.fullname" .)) -}}
{{- end -}}
{{- toYaml (dict "configmaps" ($cms | uniq) "leases" ($leases | uniq)) -}}
{{- end -}}

{{- define "dagsched.image" -}}
{{- $tag := default .root.Chart.AppVersion .image.tag -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}

{{/* kube-scheduler's image: the tag given, else the cluster's own Kubernetes version (vX.Y.Z, a
vendor suffix such as -eks-1234 dropped), so that the second scheduler is never newer than the
API server (Kubernetes' version skew policy). */}}
{{- define "dagsched.schedulerImage" -}}
{{- $tag := .Values.scheduler.image.tag -}}
{{- if not $tag -}}
{{- $tag = regexFind "^v[0-9]+\\.[0-9]+\\.[0-9]+" .Capabilities.KubeVersion.Version -}}
{{- end -}}
{{- if not $tag -}}
{{- fail (printf "scheduler.image.tag: cannot derive a kube-scheduler tag from the cluster version %q; set it" .Capabilities.KubeVersion.Version) -}}
{{- end -}}
{{- printf "%s:%s" .Values.scheduler.image.repository $tag -}}
{{- end -}}

{{/* The extender Service's DNS name, the name its certificate is issued for and checked against. */}}
{{- define "dagsched.extenderHost" -}}
{{- printf "%s-extender.%s.svc" (include "dagsched.fullname" .) .Release.Namespace -}}
{{- end -}}

{{- define "dagsched.extenderURL" -}}
{{- $scheme := ternary "https" "http" .Values.extender.tls.enabled -}}
{{- printf "%s://%s:%d" $scheme (include "dagsched.extenderHost" .) (int .Values.extender.port) -}}
{{- end -}}

{{/* Name of the extender's port (Service and container): protocol-aware proxies read it. */}}
{{- define "dagsched.extenderPortName" -}}
{{- ternary "https" "http" .Values.extender.tls.enabled -}}
{{- end -}}

{{/* Where the extender's certificate comes from: off, secret, certManager or generated. */}}
{{- define "dagsched.tlsMode" -}}
{{- $t := .Values.extender.tls -}}
{{- if not $t.enabled -}}
off
{{- else if and $t.secretName $t.certManager.enabled -}}
{{- fail "extender.tls.secretName and extender.tls.certManager.enabled are exclusive: set one" -}}
{{- else if $t.secretName -}}
secret
{{- else if $t.certManager.enabled -}}
certManager
{{- else -}}
generated
{{- end -}}
{{- end -}}

{{/* The Secret that holds the extender's tls.crt, tls.key and ca.crt. */}}
{{- define "dagsched.tlsSecretName" -}}
{{- $mode := include "dagsched.tlsMode" . -}}
{{- if eq $mode "secret" -}}
{{- .Values.extender.tls.secretName -}}
{{- else if eq $mode "certManager" -}}
{{- printf "%s-extender-cert-manager-tls" (include "dagsched.fullname" .) -}}
{{- else -}}
{{- printf "%s-extender-tls" (include "dagsched.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The chart-generated certificate as YAML {ca.crt, tls.crt, tls.key}, values base64-encoded as in
a Secret's data. The Secret of a previous install or upgrade is reused when it holds all three
keys, so the certificate stays the same across upgrades; otherwise a new CA (its key is thrown
away) and a serving certificate for the Service's DNS names are generated. `lookup` finds nothing
under `helm template` and client-side dry-runs, which therefore show a new certificate each time.
The result is kept in .Values for the rest of the render, so that every template (the Secret,
the scheduler configuration and its checksum) sees the same certificate.
*/}}
{{- define "dagsched.generatedTLS" -}}
{{- if not (hasKey .Values "__dagschedGeneratedTLS") -}}
{{- $name := include "dagsched.tlsSecretName" . -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- $old := dict -}}
{{- if $existing -}}
{{- $old = $existing.data | default dict -}}
{{- end -}}
{{- $data := dict -}}
{{- if and (index $old "ca.crt") (index $old "tls.crt") (index $old "tls.key") -}}
{{- $data = dict "ca.crt" (index $old "ca.crt") "tls.crt" (index $old "tls.crt") "tls.key" (index $old "tls.key") -}}
{{- else -}}
{{- $days := int .Values.extender.tls.generated.validityDays -}}
{{- $host := include "dagsched.extenderHost" . -}}
{{- $svc := printf "%s-extender" (include "dagsched.fullname" .) -}}
{{- $ca := genCA (printf "%s-ca" $svc) $days -}}
{{- $sans := list $host (printf "%s.cluster.local" $host) (printf "%s.%s" $svc .Release.Namespace) $svc -}}
{{- $cert := genSignedCert $host nil $sans $days $ca -}}
{{- $data = dict "ca.crt" ($ca.Cert | b64enc) "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) -}}
{{- end -}}
{{- $_ := set .Values "__dagschedGeneratedTLS" $data -}}
{{- end -}}
{{- toYaml (get .Values "__dagschedGeneratedTLS") -}}
{{- end -}}

{{/* Pod-level settings common to the Deployments and Jobs: call with (dict "root" $ "c"
component-values), and for a Deployment "component" name and "replicas" count. A component's
nodeSelector, tolerations, affinity and topologySpreadConstraints replace the global ones when set
(not empty). A Deployment's pods get topologySpreadConstraints (a constraint without labelSelector
gets the component's selector labels); with none given and more than one replica they are spread
over nodes (kubernetes.io/hostname, ScheduleAnyway: a soft preference). */}}
{{- define "dagsched.podCommon" -}}
{{- $root := .root -}}
{{- $c := .c | default dict -}}
{{- with $root.Values.image.pullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with ($c.nodeSelector | default $root.Values.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($c.tolerations | default $root.Values.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($c.affinity | default $root.Values.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .component }}
{{- $match := dict "matchLabels" (include "dagsched.selector" (dict "root" $root "component" .component) | fromYaml) }}
{{- $spread := list }}
{{- range ($c.topologySpreadConstraints | default $root.Values.topologySpreadConstraints) }}
{{- $t := deepCopy . }}
{{- if not (hasKey $t "labelSelector") }}
{{- $_ := set $t "labelSelector" $match }}
{{- end }}
{{- $spread = append $spread $t }}
{{- end }}
{{- if and (not $spread) (gt (int .replicas) 1) }}
{{- $spread = list (dict "maxSkew" 1 "topologyKey" "kubernetes.io/hostname" "whenUnsatisfiable" "ScheduleAnyway" "labelSelector" $match) }}
{{- end }}
{{- with $spread }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
{{- with $root.Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}
