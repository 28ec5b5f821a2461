#!/usr/bin/python3
"""What llama.cpp itself reads from GGUF models it wrote, quantized and loaded: the oracle of
tests/unit/gguf_llama_oracle_test.cpp.

usage: llama_gguf_oracle.py LIB_DIR OUTDIR

LIB_DIR holds llama.cpp's shared libraries (the pinned node-llama-cpp build under tests/peer: libggml-base.so,
libggml*.so with the CPU backends, libllama*.so). Everything below goes through them; nothing here parses or
writes GGUF bytes itself.

1. Writes the tiny models of llama_oracle_models.py through llama.cpp's gguf API (gguf_builder.py): two
   that are quantized (QUANTIZED):
     llama-F32.gguf     llama: GQA (4 heads, 2 kv heads), untied output, rope_freqs, an SPM ("llama") vocab
     qwen3moe-F32.gguf  qwen3moe: 8 experts, 2 used, 3-D expert tensors, q/k norms, tied output (no
                        output.weight), a byte-level BPE ("gpt2", pre "qwen2") vocab with merges
   and, in F32 only (RECORD_ONLY), one of each other architecture the tests check llama.cpp's build of:
   Llama-4's chunked attention, T5's two stacks, GLM-4.5's MTP layer, biased q/k/v (Qwen2), a window of
   4096 no key states (Gemma 2), a window on five layers of six (Gemma 3), fused qkv and gate-up (Phi-3),
   latent attention (DeepSeek), attention sinks and biased experts (gpt-oss), encoders (BERT, nomic-bert's
   rotary one, ModernBERT's windowed one, T5's encoder alone), Mamba 1 and 2, the hybrids Nemotron-H,
   Granite 4.0-H, Jamba, Falcon-H1 and LFM2, Qwen3-Next's and Qwen3.5's gated DeltaNet, and one of each
   other family llama_oracle_models.py lists.
2. Quantizes QUANTIZED with llama_model_quantize into the file types of FTYPES (MXFP4_MOE for the MoE model
   only).
3. Loads every file with llama_model_load_from_file (CPU, no offload) and writes OUTDIR/<file>.json:
     file, arch, ftype, n_params, size, n_layer, n_embd, n_head, n_head_kv, n_swa, n_ctx_train, desc,
     print_info    {key: value}: the hyperparameters llama.cpp logs as it loads ("print_info: n_ff = 512")
     is_swa        [0 or 1 per layer]: whether llama.cpp runs that layer's attention in a sliding window
                   (from its log; it has no C API for either)
     meta          [[key, value], ...]: llama_model_meta_key_by_index / llama_model_meta_val_str_by_index
                   (llama.cpp's string forms of the scalar metadata; it leaves arrays out)
     data_offset, alignment, tensors [{name, type, type_name, ne[4], offset, size}] from gguf_init_from_file
                   (no_alloc): ggml's own view of the tensor infos
   and OUTDIR/manifest.json: {"files": [...], "skipped": [[file, why], ...]}.

Exit status: 0 done; 3 llama.cpp could not load a file it wrote itself (or its libraries would not start):
stderr says why, and the caller should skip rather than fail; anything else is a failure of this script.
llama.cpp's log goes to OUTDIR/llama.log.
"""

import ctypes
import glob
import json
import os
import re
import sys

import numpy as np

from gguf_builder import GgmlInitParams
from llama_oracle_models import QUANTIZED, RECORD_ONLY

# ------------------------------------------------------------------------------------------------------
# Constants of the pinned build (ggml.h, gguf.h, llama.h).

# llama_ftype values (llama.h). IQ4_XS needs no importance matrix; MXFP4_MOE quantizes only the experts.
FTYPES = [("Q8_0", 7), ("Q4_0", 2), ("Q4_K_M", 15), ("Q6_K", 18), ("IQ4_XS", 30), ("MXFP4_MOE", 38)]
OPTIONAL_FTYPES = {"IQ4_XS", "MXFP4_MOE"}  # a build without them is reported as skipped, not an error
MOE_ONLY_FTYPES = {"MXFP4_MOE"}

LOAD_FAILED = 3


class Fatal(Exception):
    """llama.cpp could not start or could not load its own file: the caller skips, saying why."""


# ------------------------------------------------------------------------------------------------------
# Structs. The pinned llama.h has moved past every published header we could compare with (its
# llama_model_params carries load/lazy mode fields, its quantize params 8 more bytes at the end), so only
# the fields this script sets or relies on are named, at the offsets the build's own default functions
# write (checked at run time in check_layout), and the rest is carried through from those defaults.

class GgufInitParams(ctypes.Structure):  # gguf.h: struct gguf_init_params, passed by value
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


class ModelParams(ctypes.Structure):
    # struct llama_model_params: devices, tensor_buft_overrides, n_gpu_layers, split_mode, two int32 mode
    # fields, main_gpu, tensor_split, progress_callback, its user data, kv_overrides, then the booleans
    # (vocab_only first). 80 bytes on x86-64.
    _fields_ = [
        ("devices", ctypes.c_void_p),
        ("tensor_buft_overrides", ctypes.c_void_p),
        ("n_gpu_layers", ctypes.c_int32),
        ("split_mode", ctypes.c_int32),
        ("_modes", ctypes.c_int32 * 2),
        ("main_gpu", ctypes.c_int32),
        ("tensor_split", ctypes.c_void_p),
        ("progress_callback", ctypes.c_void_p),
        ("progress_callback_user_data", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("vocab_only", ctypes.c_bool),
        ("_flags", ctypes.c_bool * 7),
    ]


class QuantizeParams(ctypes.Structure):
    # struct llama_model_quantize_params: nthread, ftype, output_tensor_type, token_embedding_type, six
    # booleans (allow_requantize, quantize_output_tensor, only_copy, pure, keep_split, dry_run), four
    # pointers (imatrix, kv_overrides, tensor type overrides, prune_layers), 8 bytes this build adds.
    _fields_ = [
        ("nthread", ctypes.c_int32),
        ("ftype", ctypes.c_int32),
        ("output_tensor_type", ctypes.c_int32),
        ("token_embedding_type", ctypes.c_int32),
        ("allow_requantize", ctypes.c_bool),
        ("quantize_output_tensor", ctypes.c_bool),
        ("only_copy", ctypes.c_bool),
        ("pure", ctypes.c_bool),
        ("keep_split", ctypes.c_bool),
        ("dry_run", ctypes.c_bool),
        ("imatrix", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("tensor_types", ctypes.c_void_p),
        ("prune_layers", ctypes.c_void_p),
        ("_tail", ctypes.c_int32 * 2),
    ]


def written_extent(fn, size):
    """How many bytes a defaults function returning a struct writes: it is called the way the x86-64 ABI
    calls it (a struct over 16 bytes comes back through a hidden pointer in the first argument register) on
    a buffer filled twice with different bytes; the last byte that changed either time bounds the struct."""
    proto = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(ctypes.cast(fn, ctypes.c_void_p).value)
    last = 0
    for fill in (0xA5, 0x5A):
        buf = ctypes.create_string_buffer(bytes([fill]) * (size + 64))
        proto(buf)
        changed = [i for i, b in enumerate(buf.raw[: size + 64]) if b != fill]
        last = max(last, changed[-1] + 1 if changed else 0)
    return last


def check_layout(lib):
    """The named fields must sit where this build's defaults put recognizable values, and the structs must
    be as large as what the defaults functions write (padding included)."""
    for fn, struct in ((lib.llama_model_default_params, ModelParams),
                       (lib.llama_model_quantize_default_params, QuantizeParams)):
        extent = written_extent(fn, ctypes.sizeof(struct))
        if not (ctypes.sizeof(struct) - 8 < extent <= ctypes.sizeof(struct)):
            raise SystemExit(f"struct layout: the build's defaults write {extent} bytes, "
                             f"{struct.__name__} has {ctypes.sizeof(struct)}")
    m = lib.llama_model_default_params()
    if not (m.devices is None and m.n_gpu_layers == -1 and not m.vocab_only and m.kv_overrides is None):
        raise SystemExit("struct layout: llama_model_default_params() does not look like the expected layout")
    q = lib.llama_model_quantize_default_params()
    if not (q.ftype == 7 and q.output_tensor_type == q.token_embedding_type and q.quantize_output_tensor
            and not q.allow_requantize and not q.only_copy and not q.pure and not q.dry_run
            and q.imatrix is None and q.tensor_types is None):
        raise SystemExit("struct layout: llama_model_quantize_default_params() does not look like the "
                         "expected layout")


# ------------------------------------------------------------------------------------------------------
# The libraries.

def find_lib(lib_dir, pattern, exclude=()):
    found = sorted(p for p in glob.glob(os.path.join(lib_dir, pattern))
                   if not any(x in os.path.basename(p) for x in exclude))
    if not found:
        raise Fatal(f"no {pattern} in {lib_dir}")
    return found[0]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class Llama:
    def __init__(self, lib_dir, log_path):
        try:
            mode = ctypes.RTLD_GLOBAL
            self.base = ctypes.CDLL(find_lib(lib_dir, "libggml-base.so*"), mode=mode)
            self.ggml = ctypes.CDLL(find_lib(lib_dir, "libggml.*so*", exclude=("base", "cpu")), mode=mode)
            self.llama = ctypes.CDLL(find_lib(lib_dir, "libllama.*so*", exclude=("common",)), mode=mode)
        except OSError as e:  # a library this machine cannot load (a missing dependency, another libc)
            raise Fatal(f"llama.cpp's libraries do not load: {e}") from e
        self._declare()
        check_layout(self.llama)

        self.log = open(log_path, "w", encoding="utf-8")
        self.recent = []  # the last warnings and errors, for a message saying why a load failed

        self.captured = None  # while a model loads: its log text, for what only the log states

        def on_log(level, text, _user):
            line = (text or b"").decode("utf-8", "replace")
            self.log.write(line)
            if self.captured is not None:
                self.captured.append(line)
            if level >= 3 and line.strip():  # GGML_LOG_LEVEL_WARN, _ERROR
                self.recent = (self.recent + [line.strip()])[-8:]

        self._log_cb = LOG_CALLBACK(on_log)  # kept alive as long as llama.cpp may call it
        self.llama.llama_log_set(self._log_cb, None)
        self.ggml.ggml_backend_load_all_from_path(lib_dir.encode())
        self.llama.llama_backend_init()
        if self.ggml.ggml_backend_dev_count() == 0:
            raise Fatal("no ggml backend device could be loaded from " + lib_dir)

    def _declare(self):
        c = ctypes
        b, g, l = self.base, self.ggml, self.llama
        sig = [
            (b, "ggml_init", c.c_void_p, [GgmlInitParams]),
            (b, "ggml_free", None, [c.c_void_p]),
            (b, "ggml_tensor_overhead", c.c_size_t, []),
            (b, "ggml_new_tensor", c.c_void_p, [c.c_void_p, c.c_int, c.c_int, c.POINTER(c.c_int64)]),
            (b, "ggml_set_name", c.c_void_p, [c.c_void_p, c.c_char_p]),
            (b, "ggml_type_name", c.c_char_p, [c.c_int]),
            (b, "gguf_init_empty", c.c_void_p, []),
            (b, "gguf_init_from_file", c.c_void_p, [c.c_char_p, GgufInitParams]),
            (b, "gguf_free", None, [c.c_void_p]),
            (b, "gguf_set_val_str", None, [c.c_void_p, c.c_char_p, c.c_char_p]),
            (b, "gguf_set_val_u32", None, [c.c_void_p, c.c_char_p, c.c_uint32]),
            (b, "gguf_set_val_f32", None, [c.c_void_p, c.c_char_p, c.c_float]),
            (b, "gguf_set_val_bool", None, [c.c_void_p, c.c_char_p, c.c_bool]),
            (b, "gguf_set_arr_str", None, [c.c_void_p, c.c_char_p, c.POINTER(c.c_char_p), c.c_size_t]),
            (b, "gguf_set_arr_data", None, [c.c_void_p, c.c_char_p, c.c_int, c.c_void_p, c.c_size_t]),
            (b, "gguf_add_tensor", None, [c.c_void_p, c.c_void_p]),
            (b, "gguf_set_tensor_data", None, [c.c_void_p, c.c_char_p, c.c_void_p]),
            (b, "gguf_write_to_file", c.c_bool, [c.c_void_p, c.c_char_p, c.c_bool]),
            (b, "gguf_get_data_offset", c.c_size_t, [c.c_void_p]),
            (b, "gguf_get_alignment", c.c_size_t, [c.c_void_p]),
            (b, "gguf_get_n_tensors", c.c_int64, [c.c_void_p]),
            (b, "gguf_get_tensor_name", c.c_char_p, [c.c_void_p, c.c_int64]),
            (b, "gguf_get_tensor_type", c.c_int, [c.c_void_p, c.c_int64]),
            (b, "gguf_get_tensor_offset", c.c_size_t, [c.c_void_p, c.c_int64]),
            (b, "gguf_get_tensor_size", c.c_size_t, [c.c_void_p, c.c_int64]),
            (b, "gguf_get_tensor_ne", c.POINTER(c.c_int64), [c.c_void_p, c.c_int64]),
            (g, "ggml_backend_load_all_from_path", None, [c.c_char_p]),
            (g, "ggml_backend_dev_count", c.c_size_t, []),
            (l, "llama_log_set", None, [LOG_CALLBACK, c.c_void_p]),
            (l, "llama_backend_init", None, []),
            (l, "llama_model_default_params", ModelParams, []),
            (l, "llama_model_quantize_default_params", QuantizeParams, []),
            (l, "llama_model_quantize", c.c_uint32, [c.c_char_p, c.c_char_p, c.POINTER(QuantizeParams)]),
            (l, "llama_model_load_from_file", c.c_void_p, [c.c_char_p, ModelParams]),
            (l, "llama_model_free", None, [c.c_void_p]),
            (l, "llama_model_n_params", c.c_uint64, [c.c_void_p]),
            (l, "llama_model_size", c.c_uint64, [c.c_void_p]),
            (l, "llama_model_n_layer", c.c_int32, [c.c_void_p]),
            (l, "llama_model_n_embd", c.c_int32, [c.c_void_p]),
            (l, "llama_model_n_head", c.c_int32, [c.c_void_p]),
            (l, "llama_model_n_ctx_train", c.c_int32, [c.c_void_p]),
            (l, "llama_model_meta_count", c.c_int32, [c.c_void_p]),
            (l, "llama_model_meta_key_by_index", c.c_int32, [c.c_void_p, c.c_int32, c.c_char_p, c.c_size_t]),
            (l, "llama_model_meta_val_str_by_index", c.c_int32,
             [c.c_void_p, c.c_int32, c.c_char_p, c.c_size_t]),
            (l, "llama_model_desc", c.c_int32, [c.c_void_p, c.c_char_p, c.c_size_t]),
        ]
        for lib, name, res, args in sig:
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        # Younger than the others: optional.
        self.n_head_kv = getattr(l, "llama_model_n_head_kv", None)
        self.n_swa = getattr(l, "llama_model_n_swa", None)
        for f in (self.n_head_kv, self.n_swa):
            if f is not None:
                f.restype, f.argtypes = c.c_int32, [c.c_void_p]


# ------------------------------------------------------------------------------------------------------
# Reading back.

def c_string(fn, *args):
    buf = ctypes.create_string_buffer(1 << 16)
    n = fn(*args, buf, len(buf))
    return None if n < 0 else buf.value.decode("utf-8", "replace")


def describe(lx, path, arch, ftype):
    params = lx.llama.llama_model_default_params()
    params.n_gpu_layers = 0
    params.vocab_only = False
    lx.recent = []
    lx.captured = []
    model = lx.llama.llama_model_load_from_file(path.encode(), params)
    log, lx.captured = "".join(lx.captured), None
    if not model:
        raise Fatal(f"llama.cpp could not load {os.path.basename(path)}: " + " | ".join(lx.recent))
    ll = lx.llama
    out = {
        "file": os.path.basename(path),
        "arch": arch,
        "ftype": ftype,
        "n_params": ll.llama_model_n_params(model),
        "size": ll.llama_model_size(model),
        "n_layer": ll.llama_model_n_layer(model),
        "n_embd": ll.llama_model_n_embd(model),
        "n_head": ll.llama_model_n_head(model),
        "n_ctx_train": ll.llama_model_n_ctx_train(model),
        "desc": c_string(ll.llama_model_desc, model),
        "meta": [],
    }
    if lx.n_head_kv is not None:
        out["n_head_kv"] = lx.n_head_kv(model)
    if lx.n_swa is not None:
        out["n_swa"] = lx.n_swa(model)
    # What the C API does not give, as llama.cpp logs it while loading: its hyperparameters ("print_info:
    # n_embd_head_k = 64") and which layers attend through a sliding window ("layer 3 assigned to device
    # CPU, is_swa = 1"; the one past the last is the output's).
    out["print_info"], out["is_swa"] = {}, []
    for line in log.splitlines():
        m = re.match(r"print_info: +(\w[\w ]*?) += (.*)$", line)
        if m:
            out["print_info"][m.group(1)] = m.group(2).strip()
        m = re.match(r"load_tensors: +layer +(\d+) assigned to device .*, is_swa = (\d)", line)
        if m and int(m.group(1)) < out["n_layer"]:
            out["is_swa"].append(int(m.group(2)))
    for i in range(ll.llama_model_meta_count(model)):
        out["meta"].append([c_string(ll.llama_model_meta_key_by_index, model, i),
                            c_string(ll.llama_model_meta_val_str_by_index, model, i)])
    ll.llama_model_free(model)

    b = lx.base
    g = b.gguf_init_from_file(path.encode(), GgufInitParams(True, None))
    if not g:
        raise SystemExit(f"gguf_init_from_file failed on {path}")
    out["data_offset"] = b.gguf_get_data_offset(g)
    out["alignment"] = b.gguf_get_alignment(g)
    out["tensors"] = []
    for i in range(b.gguf_get_n_tensors(g)):
        t = b.gguf_get_tensor_type(g, i)
        ne = b.gguf_get_tensor_ne(g, i)
        out["tensors"].append({
            "name": b.gguf_get_tensor_name(g, i).decode("utf-8", "replace"),
            "type": t,
            "type_name": b.ggml_type_name(t).decode(),
            "ne": [ne[k] for k in range(4)],
            "offset": b.gguf_get_tensor_offset(g, i),
            "size": b.gguf_get_tensor_size(g, i),
        })
    b.gguf_free(g)
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    lib_dir, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    try:
        lx = Llama(lib_dir, os.path.join(outdir, "llama.log"))
        rng = np.random.default_rng(20250611)
        files, skipped = [], []
        for arch, writer in QUANTIZED + RECORD_ONLY:
            src = os.path.join(outdir, f"{arch}-F32.gguf")
            writer(lx, src, rng)
            files.append((src, arch, "F32"))
            if (arch, writer) not in QUANTIZED:  # the record's shapes only: F32 is enough
                continue
            for name, ftype in FTYPES:
                if name in MOE_ONLY_FTYPES and arch != "qwen3moe":
                    continue
                dst = os.path.join(outdir, f"{arch}-{name}.gguf")
                q = lx.llama.llama_model_quantize_default_params()
                q.nthread = 2
                q.ftype = ftype
                lx.recent = []
                if lx.llama.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(q)) != 0:
                    why = f"llama_model_quantize to {name} failed: " + " | ".join(lx.recent)
                    if name not in OPTIONAL_FTYPES:
                        raise SystemExit(why)
                    skipped.append([os.path.basename(dst), why])
                    continue
                files.append((dst, arch, name))
        names = []
        for path, arch, ftype in files:
            d = describe(lx, path, arch, ftype)
            with open(path + ".json", "w", encoding="utf-8") as f:
                json.dump(d, f, indent=1)
            names.append(os.path.basename(path))
        with open(os.path.join(outdir, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump({"files": names, "skipped": skipped}, f, indent=1)
    except Fatal as e:
        sys.stderr.write(f"{e}\n")
        sys.exit(LOAD_FAILED)


if __name__ == "__main__":
    main()
