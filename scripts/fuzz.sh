#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, for FUZZTIME
# each (default 60s; any value go test -fuzztime takes: 10m, 500000x).
# FUZZ narrows the targets to names matching a regular expression. A
# failing input is written under the package's testdata/fuzz/ (commit it:
# plain go test then replays it) and the script goes on with the next
# target; it ends with a summary and fails if any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export TAMBUA_MODELS=${TAMBUA_MODELS:-$PWD/models}
export TAMBUA_TESTDATA=${TAMBUA_TESTDATA:-$(cd .. && pwd)/shared/testdata}
FUZZTIME=${FUZZTIME:-60s}
FUZZ=${FUZZ:-.}

# Every "func FuzzX(f *testing.F)" in a tracked test file, as "dir name".
targets=$(git ls-files '*_test.go' | xargs grep -H -o -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' |
  sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*|\1 \2|; s|^[^/ ]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*|. \1|' |
  grep -E " .*$FUZZ" | sort -u)
if [ -z "$targets" ]; then
  echo "no fuzz target matches $FUZZ"; exit 1
fi
n=$(echo "$targets" | wc -l)
echo "$n fuzz targets, $FUZZTIME each"
failed=()
while read -r dir name; do
  echo "== ./$dir $name"
  # -run '^$': only the fuzzing, the package's tests run in make test.
  # -timeout 0: go test's default 10 minute limit would end a 10m
  # campaign as a failure just before its time is up.
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -timeout 0 "./$dir" </dev/null; then
    failed+=("./$dir $name")
  fi
done <<< "$targets"
echo "fuzz targets: $((n - ${#failed[@]})) passed, ${#failed[@]} failed"
for t in "${failed[@]}"; do echo "FAILED: $t"; done
[ ${#failed[@]} -eq 0 ]
