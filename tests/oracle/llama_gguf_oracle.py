#!/usr/bin/python3
"""What llama.cpp itself reads from GGUF models it wrote, quantized and loaded: the oracle of
tests/unit/gguf_llama_oracle_test.cpp.

usage: llama_gguf_oracle.py LIB_DIR OUTDIR

LIB_DIR holds llama.cpp's shared libraries (the pinned node-llama-cpp build under tests/peer: libggml-base.so,
libggml*.so with the CPU backends, libllama*.so). Everything below goes through them; nothing here parses or
writes GGUF bytes itself.

1. Writes, with llama.cpp's gguf API (gguf_init_empty, gguf_set_val_*, gguf_set_arr_*, gguf_add_tensor of
   tensors made in a no_alloc ggml context, gguf_set_tensor_data, gguf_write_to_file), two tiny F32 models
   that llama.cpp loads:
     llama-F32.gguf     llama: GQA (4 heads, 2 kv heads), untied output, rope_freqs, an SPM ("llama") vocab
     qwen3moe-F32.gguf  qwen3moe: 8 experts, 2 used, 3-D expert tensors, q/k norms, tied output (no
                        output.weight), a byte-level BPE ("gpt2", pre "qwen2") vocab with merges
   Every matrix width is a multiple of 256, so that the K-quants apply to every tensor. Eleven more, in F32
   only (RECORD_ONLY), check the record of what llama.cpp builds of other architectures:
     llama4-F32.gguf    llama4: no sliding_window key (llama.cpp then chunks attention by 8192), MoE with a
                        shared expert on every second layer, dense MLPs between
     t5-F32.gguf        t5: an encoder ("enc.blk") and a decoder ("dec.blk") with cross-attention, d_kv apart
                        from hidden / heads, relative position buckets
     glm4moe-F32.gguf   glm4moe: a dense first layer, MoE with a shared expert and a router bias, and a
                        last layer that is the multi-token-prediction module (nextn_predict_layers)
     qwen2, gemma2, gemma3, phi3, deepseek2, gpt-oss, bert, mamba: biased q/k/v; a window of 4096 that no
                        key states; a sliding window on five layers of six; fused qkv and gate-up; latent
                        attention (MLA); attention sinks and biased experts; an encoder with learned
                        positions; a state-space model without attention
2. Quantizes the first two with llama_model_quantize into the file types of FTYPES (MXFP4_MOE for the MoE model only).
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

# ------------------------------------------------------------------------------------------------------
# Constants of the pinned build (ggml.h, gguf.h, llama.h).

GGML_TYPE_F32 = 0
GGUF_TYPE_UINT32, GGUF_TYPE_INT32, GGUF_TYPE_FLOAT32 = 4, 5, 6

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

class GgmlInitParams(ctypes.Structure):  # ggml.h: struct ggml_init_params, passed by value
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


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
# Writing a model with llama.cpp's gguf API.

class GgufBuilder:
    def __init__(self, lx, n_tensors):
        self.lx = lx
        self.ctx = lx.base.gguf_init_empty()
        # Tensor infos only (no_alloc): the data stays in numpy arrays, handed over by gguf_set_tensor_data.
        self.gctx = lx.base.ggml_init(GgmlInitParams(lx.base.ggml_tensor_overhead() * (n_tensors + 8), None, True))
        self.keep = []  # what llama.cpp holds pointers to until the file is written

    def text(self, key, v):
        self.lx.base.gguf_set_val_str(self.ctx, key.encode(), v.encode())

    def u32(self, key, v):
        self.lx.base.gguf_set_val_u32(self.ctx, key.encode(), v)

    def f32(self, key, v):
        self.lx.base.gguf_set_val_f32(self.ctx, key.encode(), v)

    def flag(self, key, v):
        self.lx.base.gguf_set_val_bool(self.ctx, key.encode(), v)

    def str_array(self, key, values):
        arr = (ctypes.c_char_p * len(values))(*[v.encode("utf-8") for v in values])
        self.keep.append(arr)
        self.lx.base.gguf_set_arr_str(self.ctx, key.encode(), arr, len(values))

    def num_array(self, key, gguf_type, values):
        self.keep.append(values)
        self.lx.base.gguf_set_arr_data(self.ctx, key.encode(), gguf_type, values.ctypes.data, values.size)

    def tensor(self, name, data):
        """`data`: a float32 array in PyTorch's row-major order, whose reversed shape is ggml's ne."""
        data = np.ascontiguousarray(data, dtype=np.float32)
        ne = (ctypes.c_int64 * data.ndim)(*reversed(data.shape))
        t = self.lx.base.ggml_new_tensor(self.gctx, GGML_TYPE_F32, data.ndim, ne)
        self.lx.base.ggml_set_name(t, name.encode())
        self.lx.base.gguf_add_tensor(self.ctx, t)
        self.keep.append(data)
        self.lx.base.gguf_set_tensor_data(self.ctx, name.encode(), data.ctypes.data)

    def write(self, path):
        ok = self.lx.base.gguf_write_to_file(self.ctx, path.encode(), False)
        self.lx.base.gguf_free(self.ctx)
        self.lx.base.ggml_free(self.gctx)
        self.keep.clear()
        if not ok:
            raise SystemExit(f"gguf_write_to_file failed for {path}")


def bytes_to_unicode():
    """GPT-2's byte-level alphabet: the 256 characters byte-level BPE spells bytes with (llama.cpp's
    unicode_byte_to_utf8 maps them back, and refuses a token holding any other character)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def spm_vocab(b, n_vocab, specials=()):
    """A SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the 256 byte tokens <0xXX> (llama.cpp
    finds the newline through <0x0A>), `specials` and word pieces, with scores and token types."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)] + list(specials)
    types = [2, 3, 3] + [6] * 256 + [3] * len(specials)  # UNKNOWN, CONTROL, CONTROL, BYTE, CONTROL
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(tokens) < n_vocab:
        tokens.append("\u2581" + letters[i % 26] + (letters[i // 26] if i >= 26 else ""))
        types.append(1)  # NORMAL
        i += 1
    fixed = 259 + len(specials)
    scores = np.array([0.0] * fixed + [-float(k) for k in range(n_vocab - fixed)], dtype=np.float32)
    b.text("tokenizer.ggml.model", "llama")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    b.u32("tokenizer.ggml.unknown_token_id", 0)
    b.u32("tokenizer.ggml.bos_token_id", 1)
    b.u32("tokenizer.ggml.eos_token_id", 2)
    b.flag("tokenizer.ggml.add_bos_token", True)


def bpe_vocab(b, n_vocab):
    """A byte-level BPE ("gpt2") vocabulary: the 256 byte characters, merged pairs of letters with their
    merges, and Qwen's special tokens; pre-tokenizer "qwen2" (an unknown one is refused)."""
    alphabet = bytes_to_unicode()
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>"]
    letters = "etaoinshrdlu"
    merges, merged = [], []
    for x in letters:
        for y in letters:
            if len(alphabet) + len(merged) + len(specials) >= n_vocab:
                break
            merges.append(f"{x} {y}")
            merged.append(x + y)
    tokens = alphabet + merged + specials
    types = [1] * (len(alphabet) + len(merged)) + [3] * len(specials)  # NORMAL, CONTROL
    b.text("tokenizer.ggml.model", "gpt2")
    b.text("tokenizer.ggml.pre", "qwen2")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    b.str_array("tokenizer.ggml.merges", merges)
    b.u32("tokenizer.ggml.eos_token_id", tokens.index("<|im_end|>"))
    b.u32("tokenizer.ggml.padding_token_id", tokens.index("<|endoftext|>"))
    b.u32("tokenizer.ggml.bos_token_id", tokens.index("<|endoftext|>"))
    b.flag("tokenizer.ggml.add_bos_token", False)
    return len(tokens)


def weights(rng, *shape):
    return (rng.standard_normal(shape) * 0.02).astype(np.float32)


def norm(rng, n):
    return (1.0 + rng.standard_normal(n) * 0.01).astype(np.float32)


LLAMA_ATTENTION = ("attn_q", "attn_k", "attn_v", "attn_output")


def general(b, a):
    b.text("general.architecture", a)
    b.text("general.name", f"oracle {a}")
    b.u32("general.file_type", 0)  # ALL_F32


def header(b, a, layers, ctx, hidden, ffn, heads, eps):
    """The keys every model here states: its architecture, the F32 file type and the stack's sizes."""
    general(b, a)
    b.u32(f"{a}.block_count", layers)
    b.u32(f"{a}.context_length", ctx)
    b.u32(f"{a}.embedding_length", hidden)
    b.u32(f"{a}.feed_forward_length", ffn)
    b.u32(f"{a}.attention.head_count", heads)
    b.f32(f"{a}.attention.layer_norm_rms_epsilon", eps)


def grouped_attention_keys(b, a, kv_heads, head_dim, freq_base):
    """K/V heads, a head width of its own (key_length, value_length) and the rope base."""
    b.u32(f"{a}.attention.head_count_kv", kv_heads)
    b.u32(f"{a}.attention.key_length", head_dim)
    b.u32(f"{a}.attention.value_length", head_dim)
    b.f32(f"{a}.rope.freq_base", freq_base)


def expert_keys(b, a, count, used, width):
    b.u32(f"{a}.expert_count", count)
    b.u32(f"{a}.expert_used_count", used)
    b.u32(f"{a}.expert_feed_forward_length", width)


def attention(b, rng, p, hidden, heads, kv_heads, head_dim, names=LLAMA_ATTENTION):
    """q, k, v and the output projection of one layer, under `names`."""
    q, k, v, o = names
    b.tensor(p + q + ".weight", weights(rng, heads * head_dim, hidden))
    b.tensor(p + k + ".weight", weights(rng, kv_heads * head_dim, hidden))
    b.tensor(p + v + ".weight", weights(rng, kv_heads * head_dim, hidden))
    b.tensor(p + o + ".weight", weights(rng, hidden, heads * head_dim))


def qk_norms(b, rng, p, head_dim):
    """Qwen3's and Gemma 3's RMS norms of each query and key head."""
    b.tensor(p + "attn_q_norm.weight", norm(rng, head_dim))
    b.tensor(p + "attn_k_norm.weight", norm(rng, head_dim))


def qkv_biases(b, rng, p, heads, kv_heads, head_dim):
    for name, width in (("attn_q", heads), ("attn_k", kv_heads), ("attn_v", kv_heads)):
        b.tensor(p + name + ".bias", weights(rng, width * head_dim))


def gated_mlp(b, rng, p, hidden, width, suffix=""):
    b.tensor(p + f"ffn_gate{suffix}.weight", weights(rng, width, hidden))
    b.tensor(p + f"ffn_up{suffix}.weight", weights(rng, width, hidden))
    b.tensor(p + f"ffn_down{suffix}.weight", weights(rng, hidden, width))


def shared_expert_keys(b, a, shared, scale):
    """DeepSeek's MoE as GLM-4.5 also has it: dense leading layer, shared experts, sigmoid scores."""
    b.u32(f"{a}.expert_shared_count", shared)
    b.u32(f"{a}.leading_dense_block_count", 1)
    b.f32(f"{a}.expert_weights_scale", scale)
    b.flag(f"{a}.expert_weights_norm", True)
    b.u32(f"{a}.expert_gating_func", 2)  # sigmoid


def experts(b, rng, p, hidden, count, width):
    """The router and 3-D expert tensors (ne: hidden, width, experts) of one MoE layer."""
    b.tensor(p + "ffn_gate_inp.weight", weights(rng, count, hidden))
    b.tensor(p + "ffn_gate_exps.weight", weights(rng, count, width, hidden))
    b.tensor(p + "ffn_up_exps.weight", weights(rng, count, width, hidden))
    b.tensor(p + "ffn_down_exps.weight", weights(rng, count, hidden, width))


def experts_with_shared(b, rng, p, hidden, count, width, shared):
    """A DeepSeek-style MoE layer: routed experts, the router's score bias, the shared experts as one MLP."""
    experts(b, rng, p, hidden, count, width)
    b.tensor(p + "exp_probs_b.bias", weights(rng, count))
    gated_mlp(b, rng, p, hidden, width * shared, "_shexp")


def dense_decoder(b, rng, layers, hidden, heads, kv_heads, head_dim, ffn, vocab, biased=False):
    """Llama's layers (Qwen2's, `biased`, with biases on q, k and v), the last norm and an untied output."""
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        if biased:
            qkv_biases(b, rng, p, heads, kv_heads, head_dim)
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        gated_mlp(b, rng, p, hidden, ffn)
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))


def write_llama(lx, path, rng):
    a, hidden, heads, kv_heads, ffn, layers, vocab, ctx = "llama", 256, 4, 2, 512, 2, 300, 8192
    head_dim = hidden // heads
    b = GgufBuilder(lx, 3 + 10 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-5)
    b.u32(f"{a}.attention.head_count_kv", kv_heads)
    b.f32(f"{a}.rope.freq_base", 500000.0)
    b.u32(f"{a}.rope.dimension_count", head_dim)
    b.u32(f"{a}.vocab_size", vocab)
    spm_vocab(b, vocab)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    # Llama 3.1's long-context frequency factors: one tensor llama.cpp shares between all layers.
    b.tensor("rope_freqs.weight", np.linspace(1.0, 8.0, head_dim // 2, dtype=np.float32))
    dense_decoder(b, rng, layers, hidden, heads, kv_heads, head_dim, ffn, vocab)
    b.write(path)


def write_qwen3moe(lx, path, rng):
    a, hidden, heads, kv_heads, head_dim, layers, ctx = "qwen3moe", 256, 4, 2, 64, 2, 32768
    count, used, expert_ffn = 8, 2, 256
    b = GgufBuilder(lx, 3 + 11 * layers)
    # The dense width 768: as Qwen3-30B-A3B's file states its (unused) one.
    header(b, a, layers, ctx, hidden, 768, heads, 1e-6)
    grouped_attention_keys(b, a, kv_heads, head_dim, 1000000.0)
    expert_keys(b, a, count, used, expert_ffn)
    vocab = bpe_vocab(b, 300)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        qk_norms(b, rng, p, head_dim)
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        experts(b, rng, p, hidden, count, expert_ffn)
    b.tensor("output_norm.weight", norm(rng, hidden))
    # No output.weight: tied to token_embd, as in the small Qwen3 models.
    b.write(path)


def write_llama4(lx, path, rng):
    """Llama-4 as llama.cpp runs it: no sliding_window key, so chunked attention of 8192 on three layers of
    every four; MoE (routed experts and a shared one) on every second layer, dense MLPs between."""
    a, hidden, heads, kv_heads, head_dim, layers, ctx = "llama4", 256, 4, 2, 64, 4, 262144
    count, used, expert_ffn, ffn, vocab = 4, 1, 256, 512, 300
    b = GgufBuilder(lx, 3 + 13 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-5)
    grouped_attention_keys(b, a, kv_heads, head_dim, 500000.0)
    b.u32(f"{a}.rope.dimension_count", head_dim)
    expert_keys(b, a, count, used, expert_ffn)
    b.u32(f"{a}.interleave_moe_layer_step", 2)
    b.u32(f"{a}.vocab_size", vocab)
    spm_vocab(b, vocab)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        if (l + 1) % 2 == 0:  # llama.cpp: a MoE layer when (il + 1) % n_moe_layer_step == 0
            experts(b, rng, p, hidden, count, expert_ffn)
            gated_mlp(b, rng, p, hidden, expert_ffn, "_shexp")
        else:
            gated_mlp(b, rng, p, hidden, ffn)
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))
    b.write(path)


def write_glm4moe(lx, path, rng):
    """GLM-4.5 as llama.cpp holds it: a dense first layer (leading_dense_block_count), MoE layers with
    routed experts, a shared one and the router's score bias (exp_probs_b), biased q/k/v, partial rotary,
    and a last layer that is the multi-token-prediction module (nextn_predict_layers: a whole MoE layer
    plus its nextn.* projections and norms), stored in block_count as GLM's converter keeps it."""
    a, hidden, heads, kv_heads, head_dim, layers, ctx = "glm4moe", 256, 4, 2, 64, 3, 131072
    count, used, shared, expert_ffn, ffn, vocab_size = 4, 2, 1, 256, 512, 300
    b = GgufBuilder(lx, 3 + 30 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-5)
    grouped_attention_keys(b, a, kv_heads, head_dim, 1000000.0)
    b.u32(f"{a}.rope.dimension_count", head_dim // 2)  # partial rotary
    expert_keys(b, a, count, used, expert_ffn)
    shared_expert_keys(b, a, shared, 1.0)
    b.u32(f"{a}.nextn_predict_layers", 1)
    vocab = bpe_vocab(b, vocab_size)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        qkv_biases(b, rng, p, heads, kv_heads, head_dim)
        b.tensor(p + "post_attention_norm.weight", norm(rng, hidden))
        if l == 0:
            gated_mlp(b, rng, p, hidden, ffn)
            continue
        experts_with_shared(b, rng, p, hidden, count, expert_ffn, shared)
        if l == layers - 1:  # the multi-token-prediction layer
            b.tensor(p + "nextn.eh_proj.weight", weights(rng, hidden, 2 * hidden))
            b.tensor(p + "nextn.embed_tokens.weight", weights(rng, vocab, hidden))
            b.tensor(p + "nextn.enorm.weight", norm(rng, hidden))
            b.tensor(p + "nextn.hnorm.weight", norm(rng, hidden))
            b.tensor(p + "nextn.shared_head_head.weight", weights(rng, vocab, hidden))
            b.tensor(p + "nextn.shared_head_norm.weight", norm(rng, hidden))
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))
    b.write(path)


def write_t5(lx, path, rng):
    """A FLAN-T5-shaped encoder-decoder: gated MLPs, d_kv (key_length) apart from hidden / heads, relative
    position buckets in layer 0 of each stack, the decoder attending the encoder, an untied output."""
    a, hidden, heads, head_dim, ffn, layers, buckets, ctx, vocab = "t5", 256, 4, 32, 512, 2, 32, 512, 300
    b = GgufBuilder(lx, 5 + 24 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-6)
    b.u32(f"{a}.attention.key_length", head_dim)
    b.u32(f"{a}.attention.value_length", head_dim)
    b.u32(f"{a}.attention.relative_buckets_count", buckets)
    b.u32(f"{a}.decoder_start_token_id", 0)
    spm_vocab(b, vocab)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for stack in ("enc", "dec"):
        for l in range(layers):
            p = f"{stack}.blk.{l}."
            b.tensor(p + "attn_norm.weight", norm(rng, hidden))
            if l == 0:
                b.tensor(p + "attn_rel_b.weight", weights(rng, buckets, heads))
            attention(b, rng, p, hidden, heads, heads, head_dim, ("attn_q", "attn_k", "attn_v", "attn_o"))
            if stack == "dec":
                b.tensor(p + "cross_attn_norm.weight", norm(rng, hidden))
                attention(b, rng, p, hidden, heads, heads, head_dim,
                          ("cross_attn_q", "cross_attn_k", "cross_attn_v", "cross_attn_o"))
            b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
            gated_mlp(b, rng, p, hidden, ffn)
        b.tensor(f"{stack}.output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))
    b.write(path)


def write_qwen2(lx, path, rng):
    """Qwen2: biased q/k/v, grouped K/V heads, an untied output (as Qwen2-7B)."""
    a, hidden, heads, kv_heads, head_dim, ffn, layers, ctx = "qwen2", 256, 4, 2, 64, 512, 2, 32768
    b = GgufBuilder(lx, 3 + 12 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-6)
    b.u32(f"{a}.attention.head_count_kv", kv_heads)
    b.f32(f"{a}.rope.freq_base", 1000000.0)
    vocab = bpe_vocab(b, 300)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    dense_decoder(b, rng, layers, hidden, heads, kv_heads, head_dim, ffn, vocab, biased=True)
    b.write(path)


def write_gemma(lx, path, rng, a, kv_heads, head_dim, layers, ctx, theta, qk_norm, keys):
    """Gemma 2's and 3's shape: norms before and after attention and MLP (Gemma 3's with q/k norms), a
    tied output; `keys(b)` adds the generation's own metadata."""
    hidden, heads, ffn = 256, 4, 512
    b = GgufBuilder(lx, 3 + 15 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-6)
    grouped_attention_keys(b, a, kv_heads, head_dim, theta)
    keys(b)
    spm_vocab(b, 300)
    b.tensor("token_embd.weight", weights(rng, 300, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        if qk_norm:
            qk_norms(b, rng, p, head_dim)
        b.tensor(p + "post_attention_norm.weight", norm(rng, hidden))
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        gated_mlp(b, rng, p, hidden, ffn)
        b.tensor(p + "post_ffw_norm.weight", norm(rng, hidden))
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.write(path)


def write_gemma2(lx, path, rng):
    """Gemma 2 as its first GGUF files were written: no sliding_window key (llama.cpp then assumes 4096 on
    every second layer), logit soft-capping."""
    def keys(b):
        b.f32("gemma2.attn_logit_softcapping", 50.0)
        b.f32("gemma2.final_logit_softcapping", 30.0)
    write_gemma(lx, path, rng, "gemma2", 2, 64, 3, 8192, 10000.0, False, keys)


def write_gemma3(lx, path, rng):
    """Gemma 3 (1B-shaped): one K/V head of its own width, q/k norms, a sliding window that llama.cpp
    applies on five layers of every six."""
    write_gemma(lx, path, rng, "gemma3", 1, 32, 7, 32768, 1000000.0, True,
                lambda b: b.u32("gemma3.attention.sliding_window", 512))


def write_phi3(lx, path, rng):
    """Phi-3 mini: q, k and v fused in one matrix (attn_qkv), gate and up fused in ffn_up (twice the MLP
    width), an untied output."""
    a, hidden, heads, ffn, layers, ctx = "phi3", 256, 4, 512, 2, 4096
    head_dim = hidden // heads
    b = GgufBuilder(lx, 3 + 6 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-5)
    b.u32(f"{a}.attention.head_count_kv", heads)
    b.u32(f"{a}.rope.dimension_count", head_dim)
    b.u32(f"{a}.rope.scaling.original_context_length", ctx)
    # Phi-3's chat tokens: llama.cpp looks its end-of-turn token up by text.
    spm_vocab(b, 300, ["<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>"])
    b.tensor("token_embd.weight", weights(rng, 300, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        b.tensor(p + "attn_qkv.weight", weights(rng, 3 * heads * head_dim, hidden))
        b.tensor(p + "attn_output.weight", weights(rng, hidden, heads * head_dim))
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        b.tensor(p + "ffn_up.weight", weights(rng, 2 * ffn, hidden))
        b.tensor(p + "ffn_down.weight", weights(rng, hidden, ffn))
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, 300, hidden))
    b.write(path)


def write_deepseek2(lx, path, rng):
    """DeepSeek-V3-shaped: multi-head latent attention (a low-rank query, a compressed K/V latent shared by
    the heads, decoupled rotary dims), a dense first layer, then MoE with a shared expert and the router's
    score bias, sigmoid gating."""
    a, hidden, heads, layers, ctx = "deepseek2", 256, 4, 3, 163840
    q_rank, kv_rank, nope, rope, v_dim = 128, 64, 32, 16, 32
    count, used, shared, expert_ffn, ffn = 4, 2, 1, 256, 512
    b = GgufBuilder(lx, 3 + 24 * layers)
    header(b, a, layers, ctx, hidden, ffn, heads, 1e-6)
    b.u32(f"{a}.attention.head_count_kv", heads)
    b.u32(f"{a}.attention.q_lora_rank", q_rank)
    b.u32(f"{a}.attention.kv_lora_rank", kv_rank)
    b.u32(f"{a}.attention.key_length", nope + rope)
    b.u32(f"{a}.attention.value_length", v_dim)
    b.u32(f"{a}.rope.dimension_count", rope)
    b.f32(f"{a}.rope.freq_base", 10000.0)
    expert_keys(b, a, count, used, expert_ffn)
    shared_expert_keys(b, a, shared, 2.5)
    vocab = bpe_vocab(b, 300)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        b.tensor(p + "attn_q_a.weight", weights(rng, q_rank, hidden))
        b.tensor(p + "attn_q_a_norm.weight", norm(rng, q_rank))
        b.tensor(p + "attn_q_b.weight", weights(rng, heads * (nope + rope), q_rank))
        b.tensor(p + "attn_kv_a_mqa.weight", weights(rng, kv_rank + rope, hidden))
        b.tensor(p + "attn_kv_a_norm.weight", norm(rng, kv_rank))
        b.tensor(p + "attn_kv_b.weight", weights(rng, heads * (nope + v_dim), kv_rank))
        b.tensor(p + "attn_output.weight", weights(rng, hidden, heads * v_dim))
        b.tensor(p + "ffn_norm.weight", norm(rng, hidden))
        if l == 0:
            gated_mlp(b, rng, p, hidden, ffn)
            continue
        experts_with_shared(b, rng, p, hidden, count, expert_ffn, shared)
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))
    b.write(path)


def write_gpt_oss(lx, path, rng):
    """gpt-oss: biased attention with a learned sink per head, a sliding window on every second layer,
    MoE with biased experts and router, no shared expert, an untied output."""
    a, hidden, heads, kv_heads, head_dim, layers, ctx = "gpt-oss", 256, 4, 2, 64, 2, 131072
    count, used, expert_ffn = 4, 2, 256
    b = GgufBuilder(lx, 3 + 20 * layers)
    header(b, a, layers, ctx, hidden, expert_ffn, heads, 1e-5)
    grouped_attention_keys(b, a, kv_heads, head_dim, 150000.0)
    b.u32(f"{a}.attention.sliding_window", 128)
    expert_keys(b, a, count, used, expert_ffn)
    vocab = bpe_vocab(b, 300)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        attention(b, rng, p, hidden, heads, kv_heads, head_dim)
        qkv_biases(b, rng, p, heads, kv_heads, head_dim)
        b.tensor(p + "attn_output.bias", weights(rng, hidden))
        b.tensor(p + "attn_sinks.weight", weights(rng, heads))
        b.tensor(p + "post_attention_norm.weight", norm(rng, hidden))
        experts(b, rng, p, hidden, count, expert_ffn)
        b.tensor(p + "ffn_gate_inp.bias", weights(rng, count))
        for name, width in (("ffn_gate_exps", expert_ffn), ("ffn_up_exps", expert_ffn), ("ffn_down_exps", hidden)):
            b.tensor(p + name + ".bias", weights(rng, count, width))
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.tensor("output.weight", weights(rng, vocab, hidden))
    b.write(path)


def wpm_vocab(b, n_vocab):
    """A WordPiece ("bert") vocabulary: BERT's special tokens, then letters and ## continuations."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = "abcdefghijklmnopqrstuvwxyz"
    tokens = specials + list(letters) + ["##" + c for c in letters]
    i = 0
    while len(tokens) < n_vocab:
        tokens.append(letters[i % 26] + letters[(i // 26) % 26] + letters[(i // 676) % 26])
        i += 1
    types = [3] * len(specials) + [1] * (len(tokens) - len(specials))
    b.text("tokenizer.ggml.model", "bert")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    for key, token in (("unknown", "[UNK]"), ("seperator", "[SEP]"), ("padding", "[PAD]"), ("cls", "[CLS]"),
                       ("mask", "[MASK]")):
        b.u32(f"tokenizer.ggml.{key}_token_id", tokens.index(token))


def write_bert(lx, path, rng):
    """BERT (an encoder): learned positions and token types, layer norms with biases after each block,
    biased projections, a plain (not gated) MLP, no output head."""
    a, hidden, heads, ffn, layers, ctx, vocab, types = "bert", 256, 4, 512, 2, 512, 300, 2
    head_dim = hidden // heads
    b = GgufBuilder(lx, 6 + 16 * layers)
    general(b, a)
    for key, v in (("block_count", layers), ("context_length", ctx), ("embedding_length", hidden),
                   ("feed_forward_length", ffn), ("attention.head_count", heads), ("pooling_type", 2)):
        b.u32(f"{a}.{key}", v)
    b.f32(f"{a}.attention.layer_norm_epsilon", 1e-12)
    b.flag(f"{a}.attention.causal", False)
    b.u32("tokenizer.ggml.token_type_count", types)
    wpm_vocab(b, vocab)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    b.tensor("token_types.weight", weights(rng, types, hidden))
    b.tensor("position_embd.weight", weights(rng, ctx, hidden))
    b.tensor("token_embd_norm.weight", norm(rng, hidden))
    b.tensor("token_embd_norm.bias", weights(rng, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        attention(b, rng, p, hidden, heads, heads, head_dim)
        for name, width in (("attn_q", hidden), ("attn_k", hidden), ("attn_v", hidden), ("attn_output", hidden),
                            ("ffn_up", ffn), ("ffn_down", hidden)):
            b.tensor(p + name + ".bias", weights(rng, width))
        b.tensor(p + "attn_output_norm.weight", norm(rng, hidden))
        b.tensor(p + "attn_output_norm.bias", weights(rng, hidden))
        b.tensor(p + "ffn_up.weight", weights(rng, ffn, hidden))
        b.tensor(p + "ffn_down.weight", weights(rng, hidden, ffn))
        b.tensor(p + "layer_output_norm.weight", norm(rng, hidden))
        b.tensor(p + "layer_output_norm.bias", weights(rng, hidden))
    b.write(path)


def write_mamba(lx, path, rng):
    """Mamba (1): no attention; each layer's selective state space (in projection, causal convolution,
    x projection to the step and B, C; A and D per channel and state), a tied output."""
    a, hidden, layers, ctx, vocab = "mamba", 256, 2, 1048576, 300
    inner, state, conv, dt_rank = 2 * hidden, 16, 4, 16
    b = GgufBuilder(lx, 3 + 11 * layers)
    general(b, a)
    for key, v in (("block_count", layers), ("context_length", ctx), ("embedding_length", hidden),
                   ("feed_forward_length", 0), ("attention.head_count", 0), ("ssm.conv_kernel", conv),
                   ("ssm.inner_size", inner), ("ssm.state_size", state), ("ssm.time_step_rank", dt_rank)):
        b.u32(f"{a}.{key}", v)
    b.f32(f"{a}.attention.layer_norm_rms_epsilon", 1e-5)
    vocab = bpe_vocab(b, vocab)
    b.tensor("token_embd.weight", weights(rng, vocab, hidden))
    for l in range(layers):
        p = f"blk.{l}."
        b.tensor(p + "attn_norm.weight", norm(rng, hidden))
        b.tensor(p + "ssm_in.weight", weights(rng, 2 * inner, hidden))
        b.tensor(p + "ssm_conv1d.weight", weights(rng, inner, conv))
        b.tensor(p + "ssm_conv1d.bias", weights(rng, inner))
        b.tensor(p + "ssm_x.weight", weights(rng, dt_rank + 2 * state, inner))
        b.tensor(p + "ssm_dt.weight", weights(rng, inner, dt_rank))
        b.tensor(p + "ssm_dt.bias", weights(rng, inner))
        b.tensor(p + "ssm_a", -np.abs(weights(rng, inner, state)))
        b.tensor(p + "ssm_d", norm(rng, inner))
        b.tensor(p + "ssm_out.weight", weights(rng, hidden, inner))
    b.tensor("output_norm.weight", norm(rng, hidden))
    b.write(path)


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


# Written in F32 only: what llama.cpp builds of each architecture (parameters, bytes, its record).
RECORD_ONLY = [("llama4", write_llama4), ("t5", write_t5), ("glm4moe", write_glm4moe), ("qwen2", write_qwen2),
               ("gemma2", write_gemma2), ("gemma3", write_gemma3), ("phi3", write_phi3),
               ("deepseek2", write_deepseek2), ("gpt-oss", write_gpt_oss), ("bert", write_bert),
               ("mamba", write_mamba)]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    lib_dir, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    try:
        lx = Llama(lib_dir, os.path.join(outdir, "llama.log"))
        rng = np.random.default_rng(20250611)
        sources = [("llama", write_llama), ("qwen3moe", write_qwen3moe)]
        files, skipped = [], []
        for arch, writer in sources + RECORD_ONLY:
            src = os.path.join(outdir, f"{arch}-F32.gguf")
            writer(lx, src, rng)
            files.append((src, arch, "F32"))
            if (arch, writer) not in sources:  # the record's shapes only: F32 is enough
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
