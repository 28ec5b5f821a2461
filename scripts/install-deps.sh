#!/usr/bin/env bash
# Installs the Debian 12 packages ModelAnalyzer needs to build and test. Idempotent; run as root (or with sudo).
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev            # unit tests (GoogleTest)
  clang libclang-rt-14-dev  # libFuzzer targets for the parsers
  python3                 # benchmark reference scripts
  librsvg2-dev            # --visualize: SVG -> PNG with librsvg on cairo
  fonts-dejavu-core       # a sans-serif font for the diagrams' labels
  libxml2-utils           # xmllint: the diagram tests check the SVG is well-formed XML
)
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
