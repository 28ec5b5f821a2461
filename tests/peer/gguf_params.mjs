#!/usr/bin/env node
// Peer check: the Hugging Face Hub's own GGUF parser (@huggingface/gguf, version pinned in package.json) on a
// local file: its tensor count and parameter count, so tests and benchmarks can compare ModelAnalyzer's.
//
// Usage: node gguf_params.mjs FILE.gguf
// Prints ONE line of JSON: {"tensors":n,"parameterCount":n,"architecture":s,"wall_ms":x}; wall_ms is the
// parse alone (node's start-up and module loading left out). Exit 1 with one line on stderr on failure.
import { gguf } from "@huggingface/gguf";

const file = process.argv[2];
if (!file) {
  console.error("usage: node gguf_params.mjs FILE.gguf");
  process.exit(2);
}
try {
  const start = performance.now();
  const out = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
  const wall_ms = performance.now() - start;
  console.log(JSON.stringify({
    tensors: out.tensorInfos.length,
    parameterCount: out.parameterCount,
    architecture: out.metadata["general.architecture"] ?? null,
    wall_ms,
  }));
} catch (e) {
  console.error(`gguf_params: ${e.message ?? e}`);
  process.exit(1);
}
