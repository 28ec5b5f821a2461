#!/usr/bin/python3
"""The memory llama.cpp itself allocates for a context: the oracle of tests/unit/plan_llama_cpp_test.cpp.

usage: llama_context_oracle.py LIB_DIR OUTDIR

Writes the tiny llama and qwen3moe models of llama_oracle_models.py (llama.cpp's own gguf API), quantizes the
llama one to Q8_0, writes the recurrent mamba2, falcon-h1 and qwen3next ones, the windowed gemma3, gemma3n
and gemma4 ones and the deepseek32 one (latent attention and a sparse-attention indexer), and for each file
and each n_ctx of N_CTX creates a context with llama_init_from_model (CPU, one sequence, f16 K and V, flash
attention as the library's default, windowed caches as llama-server keeps them: swa_full off) and records
the buffers llama.cpp's log reports: "model buffer size", "KV buffer size", "RS buffer size" (the recurrent
state), "compute buffer size", "output buffer size" (MiB with two decimals; the KV cache of these models is a
whole number of KiB). Writes OUTDIR/contexts.json:
  [{"file", "n_ctx", "model_mib", "kv_mib", "rs_mib", "compute_mib", "output_mib", "log": [lines]}, ...]
(a buffer the model has none of is absent).
Exit status 3 when llama.cpp's libraries do not start (the caller skips).
"""

import ctypes
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_gguf_oracle as oracle  # noqa: E402
import llama_oracle_models as models  # noqa: E402

N_CTX = [512, 1000, 4096]  # 4096: past Gemma 3's window of 512 plus a batch
RECURRENT = [("mamba2", models.write_mamba2), ("falcon-h1", models.write_falcon_h1),
             ("qwen3next", models.write_qwen3next)]
# Caches smaller than every layer times the context: windows (Gemma 3: five layers of six), and layers that
# read an earlier layer's cache (Gemma 3n, Gemma 4, whose windowed layers' heads are narrower).
WINDOWED = [("gemma3", models.write_gemma3), ("gemma3n", models.write_gemma3n), ("gemma4", models.write_gemma4)]
# Latent attention with a sparse-attention indexer, whose keys llama.cpp caches beside the latent.
LATENT = [("deepseek32", models.write_deepseek32)]
# struct llama_context_params begins n_ctx, n_batch, n_ubatch, n_seq_max (uint32 each); the rest is carried
# through from llama_context_default_params() as bytes, its size what that function writes.
CONTEXT_HEAD = 16


def context_params_type(lib):
    fn = lib.llama_context_default_params
    extent = oracle.written_extent(fn, 512)
    size = (extent + 7) // 8 * 8

    class ContextParams(ctypes.Structure):
        _fields_ = [("n_ctx", ctypes.c_uint32), ("n_batch", ctypes.c_uint32), ("n_ubatch", ctypes.c_uint32),
                    ("n_seq_max", ctypes.c_uint32), ("_rest", ctypes.c_uint64 * ((size - CONTEXT_HEAD) // 8))]

    fn.restype, fn.argtypes = ContextParams, []
    d = fn()
    if not (d.n_ctx in (0, 512, 4096) and d.n_batch == 2048 and d.n_ubatch == 512 and d.n_seq_max == 1):
        raise SystemExit(f"struct layout: llama_context_default_params() starts {d.n_ctx}, {d.n_batch}, "
                         f"{d.n_ubatch}, {d.n_seq_max}")
    return ContextParams


# The flags after abort_callback_data: embeddings, offload_kqv, no_perf, op_offload, swa_full, kv_unified, as
# llama_context_default_params() sets them. They follow type_k and type_v (f16, ggml type 1) and two null
# pointers; a build laid out otherwise is refused rather than written into at a guess.
FLAGS_DEFAULT = bytes([0, 1, 1, 1, 1, 0])
SWA_FULL = 4


def swa_full_offset(defaults):
    """Where swa_full lies in the bytes of llama_context_default_params()."""
    raw = bytes(defaults)
    anchor = (1).to_bytes(4, "little") * 2 + bytes(16) + FLAGS_DEFAULT
    at = raw.find(anchor)
    if at < 0 or at % 8 or raw.find(anchor, at + 1) >= 0:
        raise SystemExit("struct layout: llama_context_default_params() has no flags where expected")
    return at + 24 + SWA_FULL


BUFFER = re.compile(r"(model|KV|RS|compute|output) buffer size\s*=\s*([0-9.]+) MiB")


def measure(lx, ContextParams, path, n_ctx):
    params = lx.llama.llama_model_default_params()
    params.n_gpu_layers = 0
    lines = []
    lx.log_hook = lines
    model = lx.llama.llama_model_load_from_file(path.encode(), params)
    if not model:
        raise oracle.Fatal(f"llama.cpp could not load {path}")
    c = lx.llama.llama_context_default_params()
    c.n_ctx, c.n_batch, c.n_ubatch, c.n_seq_max = n_ctx, 512, 512, 1
    # As llama-server and llama-cli run (common_params.swa_full is false; the library's default is true): a
    # sliding-window layer keeps its window and a batch of cells, not the whole context.
    flags = bytearray(bytes(c))
    flags[swa_full_offset(c)] = 0
    c = ContextParams.from_buffer_copy(bytes(flags))
    ctx = lx.llama.llama_init_from_model(model, c)
    if not ctx:
        raise oracle.Fatal(f"llama_init_from_model failed for {path} at n_ctx {n_ctx}")
    lx.llama.llama_free(ctx)
    lx.llama.llama_model_free(model)
    lx.log_hook = None
    out = {"file": os.path.basename(path), "n_ctx": n_ctx, "log": [l.strip() for l in lines if "buffer" in l]}
    for kind, mib in BUFFER.findall("".join(lines)):
        key = kind.lower() + "_mib"
        out[key] = out.get(key, 0) + float(mib)
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    lib_dir, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    try:
        lx = oracle.Llama(lib_dir, os.path.join(outdir, "llama.log"))
        lx.log_hook = None
        previous = lx._log_cb

        def on_log(level, text, user):
            if lx.log_hook is not None:
                lx.log_hook.append((text or b"").decode("utf-8", "replace"))
            previous(level, text, user)

        lx._log_cb_ctx = oracle.LOG_CALLBACK(on_log)
        lx.llama.llama_log_set(lx._log_cb_ctx, None)
        ContextParams = context_params_type(lx.llama)
        lx.llama.llama_init_from_model.restype = ctypes.c_void_p
        lx.llama.llama_init_from_model.argtypes = [ctypes.c_void_p, ContextParams]
        lx.llama.llama_free.restype, lx.llama.llama_free.argtypes = None, [ctypes.c_void_p]
        rng = np.random.default_rng(20250611)
        files = []
        for arch, writer in models.QUANTIZED:
            src = os.path.join(outdir, f"{arch}-F32.gguf")
            writer(lx, src, rng)
            files.append(src)
        q = lx.llama.llama_model_quantize_default_params()
        q.nthread, q.ftype = 2, 7  # Q8_0
        dst = os.path.join(outdir, "llama-Q8_0.gguf")
        if lx.llama.llama_model_quantize(files[0].encode(), dst.encode(), ctypes.byref(q)) != 0:
            raise SystemExit("llama_model_quantize to Q8_0 failed")
        files.append(dst)
        # Recurrent state: Mamba-2 alone, beside attention in every layer (Falcon-H1), a gated DeltaNet
        # (Qwen3-Next); then the windowed and shared caches, and the latent one.
        for arch, writer in RECURRENT + WINDOWED + LATENT:
            src = os.path.join(outdir, f"{arch}-F32.gguf")
            writer(lx, src, rng)
            files.append(src)
        results = [measure(lx, ContextParams, f, n) for f in files for n in N_CTX]
        with open(os.path.join(outdir, "contexts.json"), "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    except oracle.Fatal as e:
        sys.stderr.write(f"{e}\n")
        sys.exit(oracle.LOAD_FAILED)


if __name__ == "__main__":
    main()
