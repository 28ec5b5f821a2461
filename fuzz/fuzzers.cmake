# The fuzz targets, one per parser of untrusted bytes: fuzz/NAME.cpp defines LLVMFuzzerTestOneInput, its
# committed corpus is fuzz/corpus/NAME/ and anything a fuzzer ever found is kept in fuzz/regressions/NAME/.
set(MA_FUZZERS
  safetensors_header_fuzzer
  safetensors_index_fuzzer
  config_template_fuzzer
  tokenizer_fuzzer
  hub_headers_fuzzer
  model_info_fuzzer
  cli_args_fuzzer
  perf_model_fuzzer
  torch_checkpoint_fuzzer
  gguf_fuzzer
  onnx_fuzzer
)
