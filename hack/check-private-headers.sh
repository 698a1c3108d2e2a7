#!/usr/bin/env bash
# check-private-headers.sh: `make private-headers-check`. A header whose top comment says
# "Private to DIR/" may be included only by the files of DIR/ and by the tests (docs/contributing.md,
# "Private headers"); this lists every other file that includes one and fails if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r h; do
  # The folder named in the file's top comment, if any.
  dir="$(awk '{ print } /\*\// { exit }' "$h" | sed -n 's|.*Private to \([a-z_]*\)/.*|\1|p' | head -n 1)"
  [[ -n "$dir" ]] || continue
  if [[ "$dir" != "$(dirname "$h")" ]]; then
    echo "$h: says it is private to $dir/ but lives in $(dirname "$h")/" >&2
    bad=1
    continue
  fi
  name="$(basename "$h")"
  while IFS= read -r f; do
    [[ -e "$(dirname "$f")/$name" ]] && continue # a header of the same name beside f
    echo "$f includes $h, which is private to $dir/" >&2
    bad=1
  done < <(git grep -l -F "#include \"$name\"" -- '*.c' '*.h' ':!tests/' ":!$dir/")
done < <(git ls-files '*.h')
((bad == 0)) || exit 1
echo "private headers: included only in their own folder (and the tests)"
