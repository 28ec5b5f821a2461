#!/usr/bin/python3
"""Recovers ggml's IQ lookup grids from llama.cpp's own library (libggml-base.so) and prints them as C++.

usage: ggml_iq_grids.py LIBGGML_BASE_SO > src/formats/ggml_iq_grids.cpp

The IQ1/IQ2/IQ3 block types store, per 8 (IQ2, IQ1) or 4 (IQ3) elements, an index into a constant grid of
small magnitudes (one byte each). This script observes every grid entry: it builds blocks whose fp16 scale is
1.0, whose scale fields make the multiplier a power of two (so every decoded value is exact), whose sign
fields are clear and whose index fields walk through the whole grid; decodes them with the library's own
to_float; and reads each entry back from the decoded floats. It also checks, by observation, the rule the
decoders use for the 7-bit sign fields (bit 7 is the parity of the other seven).

Only the block layouts appear here (ggml-common.h): where each index, scale and sign field lies.
"""

import ctypes
import sys

import numpy as np

from ggml_ctypes import TO_FLOAT, TypeTraits


GGML_TYPES = {"iq2_xxs": 16, "iq2_xs": 17, "iq3_xxs": 18, "iq1_s": 19, "iq3_s": 21, "iq2_s": 22}
QK_K = 256
HALF_ONE = (0x00, 0x3C)  # fp16 1.0, little-endian


def decode(lib, name, blocks):
    """The library's to_float of `blocks` (uint8 array, one row per block) as float32, one row per block."""
    tr = lib.ggml_get_type_traits(GGML_TYPES[name]).contents
    if tr.type_name.decode() != name or tr.blck_size != QK_K or tr.type_size != blocks.shape[1]:
        raise SystemExit(f"ggml type {GGML_TYPES[name]} is not {name} with {blocks.shape[1]}-byte blocks")
    src = ctypes.create_string_buffer(blocks.tobytes(), blocks.size)
    y = np.zeros(blocks.shape[0] * QK_K, dtype=np.float32)
    TO_FLOAT(tr.to_float)(src, y.ctypes.data, y.size)
    return y.reshape(blocks.shape[0], QK_K)


def new_blocks(n, size):
    b = np.zeros((n, size), dtype=np.uint8)
    b[:, 0], b[:, 1] = HALF_ONE
    return b


def entries(values, multiplier, offset, width):
    """Grid entries from decoded values: value = multiplier * (byte + offset), `width` bytes per entry."""
    q = values.reshape(-1) / np.float32(multiplier) - np.float32(offset)
    ints = np.rint(q).astype(np.int64)
    if not np.array_equal(ints.astype(np.float32), q) or ints.min() < -128 or ints.max() > 255:
        raise SystemExit("a decoded value is not multiplier * (byte + offset)")
    return (ints & 0xFF).reshape(-1, width).astype(np.uint64)


def pack(bytes_per_entry):
    """Entries of `width` bytes, byte j of an entry being element j, as little-endian integers."""
    return [int(sum(int(v) << (8 * j) for j, v in enumerate(row))) for row in bytes_per_entry]


def iq2_xxs(lib):
    # 66 bytes: fp16 d, then per 32 elements 4 one-byte grid indices and a uint32 of four 7-bit sign fields
    # and a 4-bit scale (all 0 here: d * (0.5 + 0) * 0.25 = 1/8).
    n = 256 // 32
    b = new_blocks(n, 66)
    idx = np.arange(256).reshape(n, 8, 4)
    for g in range(8):
        b[:, 2 + 8 * g:6 + 8 * g] = idx[:, g, :]
    return pack(entries(decode(lib, "iq2_xxs", b), 0.125, 0, 8))


def iq2_xs(lib):
    # 74 bytes: fp16 d, 32 uint16 (9-bit grid index, 7-bit sign field), 8 bytes of two 4-bit scales.
    n = 512 // 32
    b = new_blocks(n, 74)
    idx = np.arange(512, dtype="<u2").reshape(n, 32)
    b[:, 2:66] = idx.view(np.uint8)
    return pack(entries(decode(lib, "iq2_xs", b), 0.125, 0, 8))


def iq2_s(lib):
    # 82 bytes: fp16 d, 32 low index bytes, 32 sign bytes, 8 bytes of high index bits (bits 2k of byte k / 4
    # for index k), 8 bytes of scales.
    n = 1024 // 32
    b = new_blocks(n, 82)
    idx = np.arange(1024).reshape(n, 32)
    b[:, 2:34] = idx & 0xFF
    high = (idx >> 8).reshape(n, 8, 4)
    b[:, 66:74] = sum(high[:, :, k] << (2 * k) for k in range(4))
    return pack(entries(decode(lib, "iq2_s", b), 0.125, 0, 8))


def iq3_xxs(lib):
    # 98 bytes: fp16 d, 64 one-byte indices (4 elements each), 32 bytes of sign fields and 4-bit scales
    # (0 here: d * (0.5 + 0) * 0.5 = 1/4).
    n = 256 // 64
    b = new_blocks(n, 98)
    b[:, 2:66] = np.arange(256).reshape(n, 64)
    return pack(entries(decode(lib, "iq3_xxs", b), 0.25, 0, 4))


def iq3_s(lib):
    # 110 bytes: fp16 d, 64 low index bytes, 8 bytes of ninth bits (bit k % 8 of byte k / 8 for index k),
    # 32 sign bytes, 4 bytes of two 4-bit scales (0 here: d * (1 + 2 * 0) = 1).
    n = 512 // 64
    b = new_blocks(n, 110)
    idx = np.arange(512).reshape(n, 64)
    b[:, 2:66] = idx & 0xFF
    high = (idx >> 8).reshape(n, 8, 8)
    b[:, 66:74] = sum(high[:, :, k] << k for k in range(8))
    return pack(entries(decode(lib, "iq3_s", b), 1, 0, 4))


def iq1_s(lib):
    # 50 bytes: fp16 d, 32 low index bytes, 8 uint16 per 32 elements: bits 3k..3k+2 the high index bits of
    # group k, 12..14 a 3-bit scale (0 here: d * (2 * 0 + 1) = 1), 15 the sign of the shift (clear: +1/8).
    # Values are grid + 1/8 with grid in {-1, 0, 1}: bytes are int8.
    n = 2048 // 32
    b = new_blocks(n, 50)
    idx = np.arange(2048).reshape(n, 32)
    b[:, 2:34] = idx & 0xFF
    high = (idx >> 8).reshape(n, 8, 4)
    qh = sum(high[:, :, k] << (3 * k) for k in range(4)).astype("<u2")
    b[:, 34:50] = qh.view(np.uint8)
    return pack(entries(decode(lib, "iq1_s", b), 1, 0.125, 8))


def check_sign_fields(lib, grid):
    """IQ2_XXS's 7-bit sign fields against the rule the decoders compute: field s negates element j < 7 when
    bit j of s is set, and element 7 when s has an odd number of bits set."""
    magnitude = next(i for i, e in enumerate(grid) if all((e >> (8 * j)) & 0xFF for j in range(8)))
    n = 128 // 32
    b = new_blocks(n, 66)
    fields = np.arange(128).reshape(n, 8, 4)
    for g in range(8):
        b[:, 2 + 8 * g:6 + 8 * g] = magnitude
        aux = sum(fields[:, g, k].astype(np.uint32) << (7 * k) for k in range(4))
        b[:, 6 + 8 * g:10 + 8 * g] = aux.astype("<u4").reshape(n, 1).view(np.uint8)
    negative = (decode(lib, "iq2_xxs", b).reshape(128, 8) < 0)
    for s in range(128):
        want = [bool(s >> j & 1) for j in range(7)] + [bin(s).count("1") % 2 == 1]
        if list(negative[s]) != want:
            raise SystemExit(f"sign field {s} negates {list(negative[s])}, not {want}")


def table(ctype, name, values, digits, per_line):
    lines = [f"const {ctype} {name}[{len(values)}] = {{"]
    for i in range(0, len(values), per_line):
        lines.append("    " + " ".join(f"0x{v:0{digits}x}," for v in values[i:i + per_line]))
    lines.append("};")
    return "\n".join(lines)


HEADER = """\
// GENERATED FILE, DO NOT EDIT. ggml's lookup grids for the IQ1/IQ2/IQ3 block types, observed from
// node-llama-cpp 3.21.1's libggml-base.so (linux-x64) by tests/oracle/ggml_iq_grids.py, run from the
// repository root as
//   lib=tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so
//   /usr/bin/python3 tests/oracle/ggml_iq_grids.py $lib > src/formats/ggml_iq_grids.cpp
// Each entry is read back from the floats the library's to_float decodes crafted blocks to; their layout is
// described in ggml_iq_grids.h.
#include "formats/ggml_iq_grids.h"

namespace ma {

// clang-format off
"""

FOOTER = """\
// clang-format on

}  // namespace ma
"""


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    lib = ctypes.CDLL(sys.argv[1])
    lib.ggml_get_type_traits.argtypes = [ctypes.c_int]
    lib.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
    grids = [
        ("uint64_t", "kIq2xxsGrid", iq2_xxs(lib), 16, 5),
        ("uint64_t", "kIq2xsGrid", iq2_xs(lib), 16, 5),
        ("uint64_t", "kIq2sGrid", iq2_s(lib), 16, 5),
        ("uint32_t", "kIq3xxsGrid", iq3_xxs(lib), 8, 8),
        ("uint32_t", "kIq3sGrid", iq3_s(lib), 8, 8),
        ("uint64_t", "kIq1sGrid", iq1_s(lib), 16, 5),
    ]
    check_sign_fields(lib, grids[0][2])
    body = "\n\n".join(table(*g) for g in grids)
    sys.stdout.write(HEADER + body + "\n" + FOOTER)


if __name__ == "__main__":
    main()
