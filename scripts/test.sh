#!/usr/bin/env bash
# The whole test suite: formatting, go vet, and go test over every package
# (with the race detector on the packages where it is affordable), then a
# one-line summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export TAMBUA_MODELS=${TAMBUA_MODELS:-$PWD/models}
export TAMBUA_TESTDATA=${TAMBUA_TESTDATA:-$(cd .. && pwd)/shared/testdata}

unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# -race where there is concurrency to check (engine, plugins, server,
# webhooks, checks' pools); the image and model crunching packages run
# without it, where it multiplies a long run for little gain.
heavy='/checks/(ocr|face|liveness|mrz|address|docauth)$|/(mrz|vision)$|/internal/(testkit/synth|bench/(sanctionsbench|livenessbench|facebench|docauthbench|addressbench))$'
race_pkgs=$(go list ./... | grep -v -E "$heavy" || true)
other_pkgs=$(go list ./... | grep -E "$heavy" || true)
go test -race -count=1 -timeout 20m $race_pkgs 2>&1 | tee -a "$log" || status=1
if [ -n "$other_pkgs" ]; then
  go test -count=1 -timeout 20m $other_pkgs 2>&1 | tee -a "$log" || status=1
fi
passed=$(grep -c '^ok ' "$log" || true)
# A failing package prints "FAIL<tab>its path"; the "--- FAIL" lines are its
# tests and a bare "FAIL" closes its output, so only the first kind counts.
failed=$(grep -c -E '^FAIL[[:space:]]+[^[:space:]]' "$log" || true)
echo "packages: $passed passed, $failed failed"
exit $status
