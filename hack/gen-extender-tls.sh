#!/usr/bin/env bash
# gen-extender-tls.sh [NAMESPACE [RELEASE]]: prints a Secret (YAML, on stdout) with a new CA
# (ca.crt) and a serving certificate and key (tls.crt, tls.key) for the dagsched extender's
# Service, for installs without Helm's certificate generation (the manifests/ bundle, GitOps):
#   hack/gen-extender-tls.sh | kubectl apply -f -
# NAMESPACE defaults to dagsched-system, RELEASE to dagsched (the bundle's names). The Secret is
# named <fullname>-extender-tls, as the bundle expects; the CA's key is not kept. Validity:
# DAYS (default 3650). Needs openssl and kubectl (client only).
set -euo pipefail
ns=${1:-dagsched-system}
release=${2:-dagsched}
days=${DAYS:-3650}
# The chart's fullname: the release name if it contains "dagsched", else <release>-dagsched.
if [[ $release == *dagsched* ]]; then full=$release; else full=$release-dagsched; fi
full=${full:0:40}
full=${full%-}
svc=$full-extender
host=$svc.$ns.svc
kubectl=${KUBECTL:-kubectl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$work/ca.crt" \
  -days "$days" -subj "/CN=$svc-ca" -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.csr" \
  -subj "/CN=$host" >/dev/null 2>&1
printf 'subjectAltName=DNS:%s,DNS:%s.cluster.local,DNS:%s.%s,DNS:%s\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n' \
  "$host" "$host" "$svc" "$ns" "$svc" >"$work/ext"
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
  -out "$work/tls.crt" -days "$days" -extfile "$work/ext" >/dev/null 2>&1
"$kubectl" create secret generic "$svc-tls" -n "$ns" --type=kubernetes.io/tls \
  --from-file=tls.crt="$work/tls.crt" --from-file=tls.key="$work/tls.key" \
  --from-file=ca.crt="$work/ca.crt" --dry-run=client -o yaml
