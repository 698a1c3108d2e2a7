#!/usr/bin/env bash
# gen-test-certs.sh DIR: writes a throw-away CA and two server certificates for 127.0.0.1/localhost
# (a.crt/a.key and b.crt/b.key, both signed by ca.crt) for the HTTPS tests. Never used in production.
set -euo pipefail
dir=${1:?usage: gen-test-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 \
  -subj "/CN=dagsched-test-ca" >/dev/null 2>&1
for n in a b; do
  openssl req -newkey rsa:2048 -nodes -keyout "$n.key" -out "$n.csr" \
    -subj "/CN=dagsched-test-$n" >/dev/null 2>&1
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$n.ext"
  openssl x509 -req -in "$n.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$n.crt" \
    -days 2 -extfile "$n.ext" >/dev/null 2>&1
done
