#!/usr/bin/env bash
# Timed fuzzing, apart from the test run (which only replays the committed corpora, see fuzz/CMakeLists.txt).
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS on its committed corpus
# (fuzz/corpus/NAME), plus real files from ../shared/data as extra seeds when present. New inputs go to a
# scratch corpus under BUILD_DIR; --update-corpus (which leaves ../shared out) merges the ones that add
# coverage back into fuzz/corpus.
# usage: run-fuzzers.sh [--update-corpus] [SECONDS_PER_FUZZER] [BUILD_DIR]
set -euo pipefail
update=0
if [ "${1:-}" = "--update-corpus" ]; then update=1; shift; fi
src=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
build=${2:-$src/build/fuzz}
shared="$src/../shared/data"
fuzzers=$(sed -n '/set(MA_FUZZERS/,/)/p' "$src/fuzz/fuzzers.cmake" | grep -v 'set(\|)' | tr -d ' ')

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DMA_BUILD_TESTS=OFF -DMA_BUILD_FUZZERS=ON >/dev/null
if ! cmake --build "$build" >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log"
  echo "fuzzer build failed"
  exit 1
fi

# Extra seeds from the reference data. They are other people's files and must not reach the repo, not even
# mutated: with --update-corpus they are left out.
extra="$build/shared-seeds"
rm -rf "$extra"
for f in $fuzzers; do mkdir -p "$extra/$f"; done
if [ -d "$shared" ] && [ $update = 0 ]; then
  i=0
  for f in "$shared"/fixtures/*/model*.safetensors; do
    if [ "$(stat -c %s "$f")" -le 600000 ]; then cp "$f" "$extra/safetensors_header_fuzzer/$i"; i=$((i+1)); fi
  done
  i=0
  for f in "$shared"/hf-configs/*/config.json "$shared"/synthetic-configs/*/config.json; do
    cp "$f" "$extra/config_template_fuzzer/$i"
    { printf '\x07\x1f\x05\x01'; cat "$f"; } >"$extra/perf_model_fuzzer/$i"  # batch 8, seq 497, tp 2 / ep 2
    i=$((i+1))
  done
  i=0
  for f in "$shared"/fixtures/*/tokenizer.json; do { printf '\x00'; cat "$f"; } >"$extra/tokenizer_fuzzer/$i"; i=$((i+1)); done
  for f in "$shared"/hf-configs/*/tokenizer_config.json; do
    { printf '\x01'; cat "$f"; } >"$extra/tokenizer_fuzzer/$i"; i=$((i+1))
  done
  i=0
  for f in "$shared"/fixtures/*/*.onnx; do cp "$f" "$extra/onnx_fuzzer/$i"; i=$((i+1)); done
  i=0
  for f in "$shared"/hf-configs/*/*.index.json; do cp "$f" "$extra/safetensors_index_fuzzer/$i"; i=$((i+1)); done
fi

status=0
for fuzzer in $fuzzers; do
  bin="$build/fuzz/$fuzzer"
  scratch="$build/corpus/$fuzzer"
  if [ $update = 1 ]; then scratch="$build/corpus-update/$fuzzer"; rm -rf "$scratch"; fi  # nothing from ../shared
  mkdir -p "$scratch" "$src/fuzz/regressions/$fuzzer"
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/crash-$fuzzer-" "$scratch" "$src/fuzz/corpus/$fuzzer" "$extra/$fuzzer" \
      >"$build/$fuzzer.log" 2>&1; then
    echo "$fuzzer: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$build/$fuzzer.log" | grep -o '[0-9]*$') runs in ${secs}s, no finding"
  else
    echo "$fuzzer: FOUND A CRASH (see $build/$fuzzer.log; keep the artifact in fuzz/regressions/$fuzzer once fixed)"
    tail -30 "$build/$fuzzer.log"
    status=1
  fi
  if [ $update = 1 ]; then
    "$bin" -merge=1 -max_len=16384 "$src/fuzz/corpus/$fuzzer" "$scratch" >"$build/$fuzzer.merge.log" 2>&1
    echo "$fuzzer: corpus now $(ls "$src/fuzz/corpus/$fuzzer" | wc -l) files"
  fi
done
exit $status
