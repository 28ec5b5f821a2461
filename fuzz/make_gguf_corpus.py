#!/usr/bin/env python3
# Regenerates fuzz/corpus/gguf_fuzzer (run: python3 fuzz/make_gguf_corpus.py fuzz/corpus/gguf_fuzzer).
# Small GGUF v3 files written from the format's definition with the standard library only: every metadata
# value type (a nested array and a tokenizer among them), element and block tensor types, a custom alignment,
# and a split part.
import hashlib, os, struct, sys

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
FIXED = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?", U64: "<Q",
         I64: "<q", F64: "<d"}

def s(x): b = x.encode(); return struct.pack("<Q", len(b)) + b
def val(t, v):
    if t == STR: return s(v)
    if t == ARR:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(val(et, i) for i in items)
    return struct.pack(FIXED[t], v)

# ggml type: (id, elements per block, bytes per block)
TYPES = {"f32": (0, 1, 4), "f16": (1, 1, 2), "q4_0": (2, 32, 18), "q8_0": (8, 32, 34), "q4_k": (12, 256, 144)}

def gguf(kv, tensors, align=32):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for k, t, v in kv: out += s(k) + struct.pack("<I", t) + val(t, v)
    off, data = 0, []
    for name, shape, ty in tensors:
        tid, be, bb = TYPES[ty]
        n = 1
        for d in shape: n *= d
        nbytes = n // be * bb
        out += s(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", d) for d in reversed(shape))
        out += struct.pack("<IQ", tid, off)
        data.append((off, bytes((i * 37 + 11) & 0x3f for i in range(nbytes))))
        off += (nbytes + align - 1) // align * align
    pad = (-len(out)) % align
    blob = bytearray(off)
    for o, b in data: blob[o:o + len(b)] = b
    return out + b"\0" * pad + bytes(blob)

def llama(ty="f32", extra=(), align=32):
    a = "llama"
    kv = [("general.architecture", STR, a), (a + ".block_count", U32, 1), (a + ".context_length", U32, 128),
          (a + ".embedding_length", U32, 32), (a + ".feed_forward_length", U32, 64),
          (a + ".attention.head_count", U32, 2), (a + ".attention.head_count_kv", U32, 1),
          (a + ".rope.freq_base", F32, 10000.0), (a + ".attention.layer_norm_rms_epsilon", F32, 1e-5)]
    kv += list(extra)
    if align != 32: kv.append(("general.alignment", U32, align))
    t = [("token_embd.weight", (8, 32), "f32"), ("blk.0.attn_norm.weight", (32,), "f32"),
         ("blk.0.attn_q.weight", (32, 32), ty), ("blk.0.attn_k.weight", (16, 32), ty),
         ("blk.0.ffn_down.weight", (32, 64), ty), ("output_norm.weight", (32,), "f32")]
    return gguf(kv, t, align)

tokens = [("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.tokens", ARR, (STR, ["<s>", "a", "b", "ab"])),
          ("tokenizer.ggml.token_type", ARR, (I32, [3, 1, 1, 1])), ("tokenizer.ggml.merges", ARR, (STR, ["a b"])),
          ("tokenizer.ggml.bos_token_id", U32, 0), ("tokenizer.chat_template", STR, "{{ messages }}")]
every_type = [("u8", U8, 1), ("i8", I8, -1), ("u16", U16, 2), ("i16", I16, -2), ("i32", I32, -3), ("u64", U64, 4),
              ("i64", I64, -5), ("f64", F64, 0.5), ("b", BOOL, True),
              ("nested", ARR, (ARR, [(U8, [1, 2]), (U8, [3])])), ("per_layer", ARR, (U32, [2]))]
files = [llama(), llama("q8_0", tokens), llama("f16", every_type, align=64),
         llama("q4_0", [("split.no", U16, 0), ("split.count", U16, 1)]),
         gguf([("general.architecture", STR, "mamba")], [("blk.0.ssm_in.weight", (64, 256), "q4_k")]),
         gguf([], [])]
os.makedirs(sys.argv[1], exist_ok=True)
for f in files:
    with open(os.path.join(sys.argv[1], hashlib.sha1(f).hexdigest()), "wb") as out: out.write(f)
