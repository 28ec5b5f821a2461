#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "core/error.h"

namespace ma::cli {

std::string usage_text() {
  return "modelanalyzer " MA_VERSION " - exact architecture, parameters, memory and tensors of transformer models\n"
         "\n"
         "usage:\n"
         "  modelanalyzer MODEL [MODEL...] [options]\n"
         "      the report: family, exact parameters, architecture, attention per layer, MoE, layer map,\n"
         "      quantization, memory and KV cache, tokenizer, capabilities; several MODELs: a comparison table\n"
         "  modelanalyzer tensors MODEL [--json] [--csv FILE] [--quiet]\n"
         "      every tensor: name, shape, dtype, parameters, bytes, layer, block, role, kind\n"
         "  modelanalyzer stats MODEL [--json] [--csv F] [--markdown F] [--plot F.png|svg] [--trends F.png|svg]\n"
         "                [--include GLOB] [--exclude GLOB] [--layers A-B] [--eps E] [--bins N]\n"
         "      per-tensor statistics of the weights: mean, std, min, max, abs max, L2, zeros, |x|<=eps, NaN/Inf,\n"
         "      percentiles, kurtosis, histogram; trainable vs frozen for PEFT adapters; distribution plots\n"
         "  modelanalyzer compare A B [--json] [--csv F] [--markdown F] [--plot F] [--threshold T] [--top N]\n"
         "      per-tensor drift between two checkpoints: mean drift, std ratio, ||B-A||/||A||, cosine, max |B-A|\n"
         "  modelanalyzer perf MODEL [--hw NAME|FILE.json] [--mode prefill|decode|train] [--batch N] [--seq N]\n"
         "                [--kv-len N] [--dtype D] [--kv-dtype D] [--profile naive|efficient] [--wrf F] [--tp N]\n"
         "                [--pp N] [--ep N] [--json] [--report F.md] [--plot F.png|svg]\n"
         "      seed 001's efficiency study: FLOPs, bytes, AI, roofline, T_est, regime, MFU, tokens/s per step\n"
         "  modelanalyzer download MODEL [--include GLOB]... [--exclude GLOB]... [--out DIR] [--quiet]\n"
         "      a Hub repo's files (all, or those matching the globs) into the cache or DIR, in parallel, each\n"
         "      checked against its size and hash; prints where they are\n"
         "\n"
         "report options:\n"
         "  --detailed               every section in full (per-layer tables, formulas)\n"
         "  --json                   the JSON export on stdout\n"
         "  --export FILE.json       write the JSON export      --export-markdown FILE.md   the Markdown export\n"
         "  --visualize              draw the architecture (--viz-style simple|detailed, --viz-output FILE.png|.svg;\n"
         "                           default model_architecture.png)\n"
         "  --batch N --context N    KV cache and memory for N sequences of N tokens (default 1 x max context)\n"
         "  --kv-dtype DTYPE         KV cache dtype: fp32, bf16, fp16, fp8, ... (default: the model's dtype)\n"
         "  --skip-tokenizer         do not read tokenizer files\n"
         "  --verbose | --quiet      more detail on stderr | nothing but errors\n"
         "\n"
         "MODEL: a model directory (config.json and/or *.safetensors, sharded or not), a .safetensors file,\n"
         "       a config.json (dry run: the tensors the architecture implies, without weights), or a Hub model\n"
         "\n" +
         std::string(kHubHelp) +
         "\n"
         "exit codes: 0 ok, 1 internal error, 2 usage, 3 malformed file, 4 unsafe content, 5 resource limit,\n"
         "            6 network, 7 authentication (gated, private, token rejected), 8 not found, 9 local I/O,\n"
         "            10 unsupported architecture\n";
}

}  // namespace ma::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::fputs(ma::cli::usage_text().c_str(), args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::puts("modelanalyzer " MA_VERSION);
      return 0;
    }
    if (args[0] == "tensors") return ma::cli::run_tensors({args.begin() + 1, args.end()});
    if (args[0] == "download") return ma::cli::run_download({args.begin() + 1, args.end()});
    if (args[0] == "stats") return ma::cli::run_stats({args.begin() + 1, args.end()});
    if (args[0] == "compare") return ma::cli::run_compare({args.begin() + 1, args.end()});
    if (args[0] == "perf") return ma::cli::run_perf({args.begin() + 1, args.end()});
    return ma::cli::run_summary(args);
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "modelanalyzer: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "modelanalyzer: error: out of memory\n");
    return static_cast<int>(ma::ErrorKind::Limit);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "modelanalyzer: internal error: %s\n", e.what());
    return 1;
  }
}
