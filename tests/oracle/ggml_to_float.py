#!/usr/bin/python3
"""Expected dequantized values of ggml's block types, computed by llama.cpp's own library (libggml-base.so).

usage: ggml_to_float.py LIBGGML_BASE_SO OUTDIR SEED [TYPE_NAME,...]

For every ggml type whose type traits (ggml_get_type_traits) report a block size above 1 (or those of them
named, in any case, in the optional list, which may be empty: the IQ1/IQ2 grids take ggml seconds to
initialize), writes to OUTDIR
  <type_name>.blocks  the blocks, raw bytes, back to back
  <type_name>.f32     what the reference decodes them to: little-endian float32, block_size per block
and one table, types.tsv, with a row for every ggml type (element types and removed ones included):
  index  name  blck_size  type_size  to_float  reference  blocks  strict_blocks
to_float is 1 where the traits have a to_float function. reference names who decoded the blocks:
  to_float             the traits' to_float (every block type llama.cpp itself decodes)
  dequantize_row_q8_K  Q8_K's exported row function (its traits have no to_float: it is a dot-product format)
  numpy                Q8_1, which nothing in ggml decodes: float32(fp16 d) * qs in numpy, float32 arithmetic
  -                    no blocks written
The blocks come in three runs, in this order:
  1. realistic blocks: random weight-like floats quantized by ggml itself (the traits' from_float_ref and,
     with a random importance matrix, ggml_quantize_chunk), rows that are all zero, tiny (subnormal fp16
     scales) or carry outliers among them;
  2. random bytes whose fp16 scale fields are set to random *finite* halves (subnormals and zeros included);
  3. raw random bytes: a scale may be Inf or NaN here, so a decoder may only be held to "NaN where the
     reference has NaN" for these (NaN payloads are the hardware's business).
strict_blocks = runs 1 and 2: every output bit of those must match.

Nothing here decodes a block itself except the numpy Q8_1 reference; layouts appear only as the offsets of the
fp16 scale fields (ggml-common.h), to keep run 2 finite.
"""

import ctypes
import os
import sys

import numpy as np

from ggml_ctypes import TO_FLOAT, FROM_FLOAT, TypeTraits


# Byte offsets of the fp16 fields of each block (ggml-common.h), so that run 2 keeps them finite.
HALF_FIELDS = {
    "q1_0": [0], "q2_0": [0], "q4_0": [0], "q4_1": [0, 2], "q5_0": [0], "q5_1": [0, 2], "q8_0": [0],
    "q8_1": [0, 2], "q2_K": [80, 82], "q3_K": [108], "q4_K": [0, 2], "q5_K": [0, 2], "q6_K": [208],
    "iq2_xxs": [0], "iq2_xs": [0], "iq2_s": [0], "iq3_xxs": [0], "iq3_s": [0], "iq1_s": [0], "iq4_nl": [0],
    "iq4_xs": [0], "tq1_0": [52], "tq2_0": [64],
    "mxfp4": [], "nvfp4": [],  # their scales (E8M0, UE4M3 bytes) are finite for every byte
}
# Types ggml_quantize_chunk has long handled (with an importance matrix); others are quantized only through
# from_float_ref, so that an unhandled type cannot abort the process.
QUANTIZE_CHUNK = {"q4_0", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "iq2_xxs", "iq2_xs",
                  "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "iq4_nl", "iq4_xs"}

N_PER_ROW = 1024  # a multiple of every block size
ROWS = 8          # per quantizer
RANDOM_ELEMENTS = 32768  # run 2, in elements (whole blocks)
RAW_ELEMENTS = 8192      # run 3


def type_count(lib):
    """GGML_TYPE_COUNT, which the library does not export: the first type ggml_validate_row_data accepts,
    probing downward (probing upward would divide by the zero size of a removed type)."""
    lib.ggml_validate_row_data.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    lib.ggml_validate_row_data.restype = ctypes.c_bool
    buf = ctypes.create_string_buffer(16)
    sys.stdout.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # it prints a line per rejected type
    try:
        for t in range(255, -1, -1):
            if lib.ggml_validate_row_data(t, buf, 0):
                return t + 1
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)
    raise SystemExit("no valid ggml type found")


def finite_halves(rng, n):
    h = rng.integers(0, 1 << 16, size=n, dtype=np.uint32)
    inf_nan = (h & 0x7C00) == 0x7C00
    h[inf_nan] &= ~np.uint32(0x4000)
    return h.astype(np.uint16)


def weight_rows(rng, rows):
    x = rng.standard_normal((rows, N_PER_ROW)).astype(np.float32)
    x *= np.float32(0.02)
    outliers = rng.random((rows, N_PER_ROW)) < 0.01
    x[outliers] *= np.float32(30)
    x[0] = 0                                       # an all-zero row
    if rows > 1:
        x[1] *= np.float32(1e-4)                   # scales in fp16's subnormal range
    if rows > 2:
        x[2] = rng.uniform(-1, 1, N_PER_ROW).astype(np.float32)  # not centred, no tail
    if rows > 3:
        x[3, 5] = np.float32(1000)                 # one outlier swamping a block
    return np.ascontiguousarray(x)


def quantized_blocks(lib, t, tr, name, rng):
    out = []
    lib.ggml_quantize_init(t)  # the IQ types' grids; nothing for the others
    if tr.from_float_ref:
        x = weight_rows(rng, ROWS)
        dst = ctypes.create_string_buffer(ROWS * N_PER_ROW // tr.blck_size * tr.type_size)
        FROM_FLOAT(tr.from_float_ref)(x.ctypes.data, dst, x.size)
        out.append(dst.raw)
    if name in QUANTIZE_CHUNK:
        x = weight_rows(rng, ROWS)
        imatrix = rng.uniform(0.01, 2.0, N_PER_ROW).astype(np.float32)
        dst = ctypes.create_string_buffer(ROWS * N_PER_ROW // tr.blck_size * tr.type_size)
        written = lib.ggml_quantize_chunk(t, x.ctypes.data, dst, 0, ROWS, N_PER_ROW, imatrix.ctypes.data)
        if written != len(dst.raw):
            raise SystemExit(f"{name}: ggml_quantize_chunk wrote {written} bytes, expected {len(dst.raw)}")
        out.append(dst.raw)
    return b"".join(out)


def finite_random_blocks(name, tr, rng):
    n = RANDOM_ELEMENTS // tr.blck_size
    b = rng.integers(0, 256, size=(n, tr.type_size), dtype=np.uint8)
    if name == "q8_K":  # float d at 0: a normal float32 of moderate size
        d = (rng.standard_normal(n) * 1e-3).astype("<f4")
        b[:, 0:4] = d.view(np.uint8).reshape(n, 4)
    elif name == "iq1_m":  # the fp16 scale is the top nibbles of the four uint16 at 48..55; bit 14 is in byte 55
        b[:, 55] &= 0xBF
    elif name in HALF_FIELDS:
        for off in HALF_FIELDS[name]:
            b[:, off:off + 2] = finite_halves(rng, n).astype("<u2").view(np.uint8).reshape(n, 2)
    else:
        return b""
    return b.tobytes()


def raw_random_blocks(tr, rng):
    n = RAW_ELEMENTS // tr.blck_size
    return rng.integers(0, 256, size=n * tr.type_size, dtype=np.uint8).tobytes()


def q8_1_numpy(blocks, type_size):
    b = np.frombuffer(blocks, dtype=np.uint8).reshape(-1, type_size)
    d = b[:, 0:2].copy().view("<f2").astype(np.float32)  # exact widening
    qs = b[:, 4:36].view(np.int8).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # run 3 has Inf and NaN scales
        return (d * qs).astype("<f4")  # one float32 rounding, as d * qs in C


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    wanted = {n.lower() for n in sys.argv[4].split(",")} if len(sys.argv) == 5 else None
    lib = ctypes.CDLL(sys.argv[1])
    outdir = sys.argv[2]
    rng = np.random.default_rng(int(sys.argv[3]))
    lib.ggml_get_type_traits.argtypes = [ctypes.c_int]
    lib.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
    lib.ggml_quantize_init.argtypes = [ctypes.c_int]
    lib.ggml_quantize_init.restype = None
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    lib.ggml_quantize_chunk.restype = ctypes.c_size_t
    q8_k_row = getattr(lib, "dequantize_row_q8_K", None)

    rows = []
    for t in range(type_count(lib)):
        tr = lib.ggml_get_type_traits(t).contents
        name = tr.type_name.decode("ascii", "replace")
        if " " in name or not name:  # "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking"
            name = "removed"
        to_float = 1 if tr.to_float else 0
        reference, n_blocks, n_strict = "-", 0, 0
        if tr.blck_size > 1 and tr.type_size > 0 and (wanted is None or name.lower() in wanted):
            if tr.to_float:
                reference, decode = "to_float", TO_FLOAT(tr.to_float)
            elif name == "q8_K" and q8_k_row is not None:
                reference, decode = "dequantize_row_q8_K", TO_FLOAT(ctypes.cast(q8_k_row, ctypes.c_void_p).value)
            elif name == "q8_1":
                reference, decode = "numpy", None
            if reference != "-":
                strict = quantized_blocks(lib, t, tr, name, rng) + finite_random_blocks(name, tr, rng)
                blocks = strict + raw_random_blocks(tr, rng)
                n_blocks, n_strict = len(blocks) // tr.type_size, len(strict) // tr.type_size
                if decode is None:
                    y = q8_1_numpy(blocks, tr.type_size)
                else:
                    src = ctypes.create_string_buffer(blocks, len(blocks))
                    y = np.zeros(n_blocks * tr.blck_size, dtype="<f4")
                    decode(src, y.ctypes.data, y.size)
                with open(os.path.join(outdir, name + ".blocks"), "wb") as f:
                    f.write(blocks)
                with open(os.path.join(outdir, name + ".f32"), "wb") as f:
                    f.write(y.tobytes())
        rows.append(f"{t}\t{name}\t{tr.blck_size}\t{tr.type_size}\t{to_float}\t{reference}\t{n_blocks}\t{n_strict}")
    with open(os.path.join(outdir, "types.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
