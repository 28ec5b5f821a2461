#!/usr/bin/env bash
# Installs the Debian 12 packages ModelAnalyzer needs to build and test. Idempotent; run as root (or with sudo).
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev            # unit tests (GoogleTest)
  clang libclang-rt-14-dev  # libFuzzer targets for the parsers
  clang-format            # .ci/run checks the layout of every C++ file (scripts/check-format.sh)
  python3                 # benchmark reference scripts
  python3-numpy           # the independent float64 reference the weight-statistics tests compare against
  libopenblas0-pthread    # `spectrum`: LAPACK and BLAS (loaded at run time; Debian's alternatives point
                          # liblapack.so.3 at OpenBLAS, 3-5x the reference LAPACK's speed)
  python3-scipy           # `spectrum`'s benchmark peer (scipy.linalg.svd, gesdd)
  python3-sklearn         # `embeddings`' test reference and benchmark peer (KMeans, silhouette_score)
  librsvg2-dev            # --visualize: SVG -> PNG with librsvg on cairo
  fonts-dejavu-core       # a sans-serif font for the diagrams' labels
  libxml2-utils           # xmllint: the diagram tests check the SVG is well-formed XML
  libcurl4-openssl-dev    # the Hub client's HTTP(S)
  libssl-dev              # SHA-256 / SHA-1 of downloads (OpenSSL libcrypto)
  libonnx-dev libprotobuf-dev  # ONNX models: ONNX's own ModelProto parser and shape inference
  python3-onnx            # the ONNX tests' independent reference (onnx.load, shape_inference)
  python3-torch           # torch.load(weights_only=True) itself: the PyTorch tests' oracle, ma-bench-torch's peer
  libsimdjson-dev         # ma-bench-inventory's anchor: a minimal simdjson parse of the same headers
  curl nginx-light        # the fake Hugging Face Hub (tests/hub): nginx serves it, its self-test drives it with curl
  chromium                # the HTML report's test opens it in headless Chromium (screenshots, scripts, console)
)
# The peer check runs the official @huggingface/hub JS client. Debian's nodejs and npm only when no node is
# installed: a NodeSource nodejs already carries npm and conflicts with Debian's npm package.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then PACKAGES+=(nodejs npm); fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The peer's node modules (pinned by tests/peer/package-lock.json); a failure only skips the peer test.
bash "$(dirname "${BASH_SOURCE[0]}")/install-peer.sh" || echo "install-deps: the peer check's node modules were not installed" >&2
