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
# Two tests of internal/cli skip under -race and run once here without:
# the console's end-to-end run in headless Chromium (the detector slows
# the real checks tenfold) and the replica test (its servers are its own
# binary, too slow under the detector for its shortened timeouts).
go test -count=1 -timeout 10m -run '^(TestConsoleEndToEnd|TestServeReplicas)$' ./internal/cli 2>&1 | tee -a "$log" || status=1
# Likewise the server's end-to-end test of address_verification with the
# real OCR and address checks (minutes under the detector, seconds without).
go test -count=1 -timeout 10m -run '^TestAddressVerificationEndToEnd$' ./server 2>&1 | tee -a "$log" || status=1

# The capture SDKs (sdk/): the committed web bundle must be a fresh build
# of sdk/web (byte for byte) within its size budget, the TypeScript must
# type-check, then Node's test runner runs the core, React Native and
# headless-Chromium tests against a real tambua serve built once here.
sdk_status=skipped
if [ -d sdk/node_modules ]; then
  bin_dir=$(mktemp -d)
  trap 'rm -f "$log"; rm -rf "$bin_dir"' EXIT
  go build -o "$bin_dir/tambua" ./cmd/tambua
  # Its TAP output goes to its own log: its "ok N" lines are not packages.
  if (cd sdk && node build.mjs --check && npx --no-install tsc -p tsconfig.json --noEmit &&
      TAMBUA_BIN="$bin_dir/tambua" node --test test/*.test.mjs) 2>&1 | tee "$bin_dir/sdk.log"; then
    sdk_status="$(grep -E '^# pass ' "$bin_dir/sdk.log" | cut -d' ' -f3) passed"
  else
    sdk_status="failed ($(grep -E '^# fail ' "$bin_dir/sdk.log" | cut -d' ' -f3) tests)"; status=1
  fi
elif [ -n "${CI:-}" ]; then
  echo "sdk/node_modules is missing: run scripts/setup.sh"; sdk_status=failed; status=1
fi
# Counted once per package: internal/cli runs twice (the end-to-end test).
passed=$(grep '^ok ' "$log" | awk '{print $2}' | sort -u | wc -l || true)
# A failing package prints "FAIL<tab>its path"; the "--- FAIL" lines are its
# tests and a bare "FAIL" closes its output, so only the first kind counts.
failed=$(grep -c -E '^FAIL[[:space:]]+[^[:space:]]' "$log" || true)
echo "packages: $passed passed, $failed failed; sdk tests: $sdk_status"
exit $status
