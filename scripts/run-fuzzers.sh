#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a fixed time on a seed corpus of
# real inputs: the built-in example, and the reference configs, indexes and tiny checkpoints in
# ../shared/data when present. Inputs under fuzz/regressions/ (anything a fuzzer ever found) replay first.
# usage: run-fuzzers.sh SOURCE_DIR BUILD_DIR SECONDS_PER_FUZZER
set -euo pipefail
src=$(cd "$1" && pwd); build=$2; secs=${3:-20}
shared="$src/../shared/data"

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DMA_BUILD_TESTS=OFF -DMA_BUILD_FUZZERS=ON >/dev/null
if ! cmake --build "$build" >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log"
  echo "fuzzer build failed"
  exit 1
fi

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{safetensors_header_fuzzer,config_template_fuzzer,safetensors_index_fuzzer,tokenizer_fuzzer}
if [ -d "$shared" ]; then
  i=0
  for f in "$shared"/fixtures/*/model*.safetensors; do
    # Small checkpoints only: libFuzzer mutates whole inputs.
    if [ "$(stat -c %s "$f")" -le 600000 ]; then cp "$f" "$seeds/safetensors_header_fuzzer/$i"; i=$((i+1)); fi
  done
  i=0
  for f in "$shared"/hf-configs/*/config.json "$shared"/synthetic-configs/*/config.json "$shared"/fixtures/*/config.json; do
    cp "$f" "$seeds/config_template_fuzzer/$i"; i=$((i+1))
  done
  # Tokenizer seeds: the first byte picks the file the fuzzer writes (0 tokenizer.json, 1 tokenizer_config.json).
  i=0
  for f in "$shared"/fixtures/*/tokenizer.json; do
    { printf '\x00'; cat "$f"; } >"$seeds/tokenizer_fuzzer/$i"; i=$((i+1))
  done
  for f in "$shared"/hf-configs/*/tokenizer_config.json; do
    { printf '\x01'; cat "$f"; } >"$seeds/tokenizer_fuzzer/$i"; i=$((i+1))
  done
  i=0
  for f in "$shared"/hf-configs/*/*.index.json "$shared"/fixtures/*/*.index.json; do
    cp "$f" "$seeds/safetensors_index_fuzzer/$i"; i=$((i+1))
  done
fi
printf '{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4}' \
  >"$seeds/config_template_fuzzer/builtin"
printf '\x01{"tokenizer_class":"LlamaTokenizer","bos_token":"<s>","model_max_length":4096}' \
  >"$seeds/tokenizer_fuzzer/builtin"
printf '{"metadata":{"total_size":8},"weight_map":{"a":"m-1.safetensors","b":"sub/m-2.safetensors"}}' \
  >"$seeds/safetensors_index_fuzzer/builtin"
# A minimal valid safetensors file: one F32 tensor of two elements.
printf '\x48\x00\x00\x00\x00\x00\x00\x00{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}                \0\0\0\0\0\0\0\0' \
  >"$seeds/safetensors_header_fuzzer/builtin"

status=0
for fuzzer in safetensors_header_fuzzer config_template_fuzzer safetensors_index_fuzzer tokenizer_fuzzer; do
  bin="$build/fuzz/$fuzzer"
  corpus="$build/corpus/$fuzzer"
  mkdir -p "$corpus"
  regressions=("$src/fuzz/regressions/$fuzzer"/[!.]*)
  if [ -e "${regressions[0]}" ]; then
    "$bin" "${regressions[@]}" >/dev/null 2>&1 || { echo "$fuzzer: a regression input fails again"; status=1; }
  fi
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 \
      -artifact_prefix="$build/crash-$fuzzer-" "$corpus" "$seeds/$fuzzer" >"$build/$fuzzer.log" 2>&1; then
    echo "$fuzzer: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$build/$fuzzer.log" | grep -o '[0-9]*$') runs in ${secs}s, no finding"
  else
    echo "$fuzzer: FOUND A CRASH (see $build/$fuzzer.log; artifact $build/crash-$fuzzer-*)"
    tail -30 "$build/$fuzzer.log"
    status=1
  fi
done
exit $status
