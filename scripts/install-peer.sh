#!/usr/bin/env bash
# Installs the peer checks' and oracles' node modules (pinned in tests/peer/package-lock.json) into
# tests/peer/node_modules: the official @huggingface/hub JS client, the Hub's GGUF parser @huggingface/gguf,
# and llama.cpp's own libraries (@node-llama-cpp/linux-x64) that the GGUF tests load with ctypes.
# Idempotent. Needs node >= 18 and npm
# (Debian 12: apt-get install nodejs npm). Without them it prints one notice and exits 0, so that the
# peer tests skip visibly instead of failing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEER="$ROOT/tests/peer"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-peer: node/npm not found; skipping the peer check's install (apt-get install nodejs npm)" >&2
  exit 0
fi
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 18 ]; then
  echo "install-peer: node $(node --version) is older than 18; skipping the peer check's install" >&2
  exit 0
fi
# Already installed at the locked versions? npm writes node_modules/.package-lock.json on install.
if [ -f "$PEER/node_modules/.package-lock.json" ] && [ -f "$PEER/node_modules/@huggingface/hub/package.json" ] \
  && [ "$PEER/node_modules/.package-lock.json" -nt "$PEER/package-lock.json" ]; then
  exit 0
fi
if ! npm ci --prefix "$PEER" --no-audit --no-fund --loglevel=error >/dev/null; then
  echo "install-peer: npm ci failed (no access to the npm registry?); the peer check will skip" >&2
  exit 0
fi
