#!/usr/bin/python3
"""Independent numpy reference for `modelanalyzer stats`: per-tensor statistics of one safetensors file.

usage: stats_reference.py FILE.safetensors [--eps 1e-6] [--bins 64]
       stats_reference.py --self-test

Prints {"tensors": {name: {...}}} (tensors in data-offset order). Everything is computed in float64 from the
file's own bytes: the header is parsed here with json + struct and every element type is decoded here with
bit manipulation, so nothing of the C++ implementation (nor ml_dtypes, nor torch) is trusted.

The definitions below are the contract the C++ command is tested against (tests/unit/stats_numpy_test.cpp):
  x      every element converted exactly to float64 (see DECODERS; I64/U64 beyond 2^53 round to nearest,
         which is the one place the conversion is not exact: float64 has a 53-bit significand); a float8
         weight with its scale beside it (W.weight_scale_inv, W.weight_scale): code x scale in float32 (see
         dequantize), and scaled_by names the scale
  f      the finite elements of x, n = len(f); numel counts every element
  mean   fsum(f) / n                        var  fsum((f - mean)**2) / n  (population), std = sqrt(var)
  min, max, abs_max = max|f|                l2_norm = sqrt(fsum(f * f))
  kurtosis = m4 / m2**2 - 3, m_k = fsum((f - mean)**k) / n; null (undefined, m4 / m2**2 is 0 / 0) for a
         constant, as scipy.stats.kurtosis returns nan: m2 <= (1e-15 * mean)**2, 1e-15 being
         numpy.finfo(float64).resolution (a constant whose mean is an ulp off has such an m2, not 0)
  zeros_fraction = count(x == 0) / numel    near_zero_fraction = count(|x| <= eps) / numel (NaN never counts)
  nan_count, inf_count
  percentiles  np.percentile(f, [0.1, 1, 50, 99, 99.9]) (numpy's default "linear")
  histogram    np.histogram(f, bins, range=(min, max)) when max > min, else np.histogram(f, bins)
               (numpy widens a constant to [c - 0.5, c + 0.5]; where that rounds back to [c, c], which numpy
               cannot handle, every edge is c and the last bin holds all n values)
  n == 0       mean, var, std, min, max, abs_max, kurtosis, percentiles and histogram edges are null;
               l2_norm is 0 and the histogram counts are all zero
  numel == 0   zeros_fraction and near_zero_fraction are 0 (nothing to count; a choice, see the report)
  rows, cols, design_rank = shape[0], shape[1], min of both for 2-D tensors, else null
A statistic that comes out non-finite (e.g. an F64 sum of squares overflowing) is written as null.
"""

import json
import math
import struct
import sys

import numpy as np

PERCENTILES = [0.1, 1, 50, 99, 99.9]
# scipy.stats.kurtosis's test for a constant: m2 <= (resolution * mean)**2 gives nan.
RESOLUTION = float(np.finfo(np.float64).resolution)
PERCENTILE_KEYS = ["p0.1", "p1", "p50", "p99", "p99.9"]

# ---------------------------------------------------------------------------------------------------------
# Decoders: raw little-endian bytes -> exact float64.


def decode_minifloat(bits, ebits, mbits, bias, specials):
    """Decodes sign/exponent/mantissa fields held in an unsigned integer array, exactly.

    specials: "ieee"  all-ones exponent is Inf (mantissa 0) or NaN (F16, BF16, F32, F64, F8_E5M2)
              "fn"    no Inf; only all-ones exponent AND mantissa is NaN (F8_E4M3, i.e. float8_e4m3fn)
              "fnuz"  no Inf, no -0: the bit pattern of -0 (sign only) is the one NaN (the *FNUZ types)
    """
    b = bits.astype(np.uint64)
    sign = (b >> np.uint64(ebits + mbits)) & np.uint64(1)
    e = ((b >> np.uint64(mbits)) & np.uint64((1 << ebits) - 1)).astype(np.int64)
    m = (b & np.uint64((1 << mbits) - 1)).astype(np.int64)
    # value = significand * 2^exponent with an integer significand below 2^53, so float64 holds it exactly and
    # ldexp only moves the exponent (down to 2^-1074 for F64 subnormals, still exact).
    sig = np.where(e == 0, m, m + (1 << mbits))  # subnormals have no implicit leading 1...
    exp = np.where(e == 0, 1 - bias - mbits, e - bias - mbits)  # ...and the minimum normal exponent
    val = np.ldexp(sig.astype(np.float64), exp.astype(np.int32))
    val = np.where(sign == 1, -val, val)  # keeps -0.0
    emax = (1 << ebits) - 1
    if specials == "ieee":
        val = np.where((e == emax) & (m == 0), np.where(sign == 1, -np.inf, np.inf), val)
        val = np.where((e == emax) & (m != 0), np.nan, val)
    elif specials == "fn":
        val = np.where((e == emax) & (m == (1 << mbits) - 1), np.nan, val)
    elif specials == "fnuz":
        val = np.where((sign == 1) & (e == 0) & (m == 0), np.nan, val)
    else:
        raise ValueError(specials)
    return val


def decode_bf16(raw):
    # BF16 is the top half of an F32: widen the bits and let the hardware read them (exact, NaN stays NaN).
    u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << np.uint32(16)
    return u.view(np.float32).astype(np.float64)


def decode_f16(raw):
    return decode_minifloat(np.frombuffer(raw, dtype="<u2"), 5, 10, 15, "ieee")


def decode_e8m0(raw):
    # Exponent only, no sign, no zero: 2^(e - 127); e = 255 is NaN.
    e = np.frombuffer(raw, dtype=np.uint8).astype(np.int32)
    return np.where(e == 255, np.nan, np.ldexp(np.ones(e.shape), e - 127))


def int_decoder(dt):
    return lambda raw: np.frombuffer(raw, dtype=dt).astype(np.float64)


def decode_bool(raw):
    # Any nonzero byte is True (numpy's and torch's reading); writers only ever store 0 and 1.
    return (np.frombuffer(raw, dtype=np.uint8) != 0).astype(np.float64)


# safetensors dtype -> (short name as the CLI prints it, bits per element, decoder)
DECODERS = {
    "F64": ("f64", 64, lambda raw: np.frombuffer(raw, dtype="<f8").astype(np.float64)),
    "F32": ("f32", 32, lambda raw: np.frombuffer(raw, dtype="<f4").astype(np.float64)),
    "F16": ("f16", 16, decode_f16),
    "BF16": ("bf16", 16, decode_bf16),
    "F8_E4M3": ("f8_e4m3", 8, lambda raw: decode_minifloat(np.frombuffer(raw, np.uint8), 4, 3, 7, "fn")),
    "F8_E5M2": ("f8_e5m2", 8, lambda raw: decode_minifloat(np.frombuffer(raw, np.uint8), 5, 2, 15, "ieee")),
    "F8_E8M0": ("f8_e8m0", 8, decode_e8m0),
    # Not in the contract, decoded for completeness (bias 8 and 16, torch.float8_e4m3fnuz / e5m2fnuz).
    "F8_E4M3FNUZ": ("f8_e4m3fnuz", 8,
                    lambda raw: decode_minifloat(np.frombuffer(raw, np.uint8), 4, 3, 8, "fnuz")),
    "F8_E5M2FNUZ": ("f8_e5m2fnuz", 8,
                    lambda raw: decode_minifloat(np.frombuffer(raw, np.uint8), 5, 2, 16, "fnuz")),
    "I8": ("i8", 8, int_decoder("<i1")),
    "U8": ("u8", 8, int_decoder("<u1")),
    "I16": ("i16", 16, int_decoder("<i2")),
    "U16": ("u16", 16, int_decoder("<u2")),
    "I32": ("i32", 32, int_decoder("<i4")),
    "U32": ("u32", 32, int_decoder("<u4")),
    "I64": ("i64", 64, int_decoder("<i8")),  # |v| > 2^53 rounds to the nearest float64
    "U64": ("u64", 64, int_decoder("<u8")),
    "BOOL": ("bool", 8, decode_bool),
}

# ---------------------------------------------------------------------------------------------------------
# Statistics.


def num(v):
    """A float for JSON, or None when it is not finite (NaN/Inf are not JSON)."""
    v = float(v)
    return v if math.isfinite(v) else None


def exact_sum(terms):
    """math.fsum of a float64 array; ±Inf when the exact sum is beyond float64 (fsum raises there)."""
    try:
        return math.fsum(terms.tolist())
    except OverflowError:
        return math.copysign(math.inf, float(np.sum(terms)))


def tensor_stats(x, shape, eps, bins):
    numel = int(x.size)
    nan = np.isnan(x)
    inf = np.isinf(x)
    f = x[~(nan | inf)]
    n = int(f.size)
    s = {
        "numel": numel,
        "nan_count": int(nan.sum()),
        "inf_count": int(inf.sum()),
        # x == 0 is True for +0 and -0 and False for NaN; |NaN| <= eps is False, so NaN never counts.
        "zeros_fraction": float(np.count_nonzero(x == 0)) / numel if numel else 0.0,
        "near_zero_fraction": float(np.count_nonzero(np.abs(x) <= eps)) / numel if numel else 0.0,
        "rows": int(shape[0]) if len(shape) == 2 else None,
        "cols": int(shape[1]) if len(shape) == 2 else None,
        "design_rank": int(min(shape)) if len(shape) == 2 else None,
    }
    if n == 0:
        s.update({k: None for k in ("mean", "var", "std", "min", "max", "abs_max", "kurtosis")})
        s["l2_norm"] = 0.0
        s["percentiles"] = {k: None for k in PERCENTILE_KEYS}
        s["histogram"] = {"edges": None, "counts": [0] * bins}
        return s

    # math.fsum is the correctly rounded sum of the float64 terms, so the only roundings are in forming each
    # term and in the final division: an order-independent reference for any summation strategy. The divisions
    # and powers below are numpy float64 operations so that an overflow gives Inf (-> null), not an exception.
    mean = np.float64(exact_sum(f)) / n
    d = f - mean
    m2 = np.float64(exact_sum(d ** 2)) / n
    m4 = np.float64(exact_sum(d ** 4)) / n
    mn, mx = float(f.min()), float(f.max())
    s.update({
        "mean": num(mean),
        "var": num(m2),
        "std": num(np.sqrt(m2)),
        "min": num(mn),
        "max": num(mx),
        "abs_max": num(np.abs(f).max()),
        "l2_norm": num(np.sqrt(np.float64(exact_sum(f * f)))),
        "kurtosis": num(m4 / m2 ** 2 - 3) if m2 > (RESOLUTION * mean) ** 2 else None,
    })
    p = np.percentile(f, PERCENTILES)
    s["percentiles"] = {k: num(v) for k, v in zip(PERCENTILE_KEYS, p)}
    if mx > mn:
        counts, edges = np.histogram(f, bins=bins, range=(mn, mx))
    elif mn - 0.5 != mn + 0.5:
        counts, edges = np.histogram(f, bins=bins)  # numpy's own constant handling: [c - 0.5, c + 0.5]
    else:
        # A constant so large (|c| >= 2^53) that c ± 0.5 round back to c: numpy 1.24 fails here (an index out
        # of bounds). By the same rules every edge is c and only the last, closed bin [c, c] holds the values.
        edges = np.full(bins + 1, mn)
        counts = np.zeros(bins, dtype=np.int64)
        counts[-1] = n
    s["histogram"] = {"edges": [num(e) for e in edges], "counts": [int(c) for c in counts]}
    return s


# ---------------------------------------------------------------------------------------------------------
# The file.


def fail(msg, code=3):
    print("stats_reference: " + msg, file=sys.stderr)
    sys.exit(code)


def read_safetensors(path):
    """Yields (name, dtype, shape, raw bytes) in data-offset order, checking the header against the file."""
    with open(path, "rb") as fh:
        blob = fh.read()
    if len(blob) < 8:
        fail(f"{path}: shorter than the 8-byte header length")
    (hlen,) = struct.unpack("<Q", blob[:8])
    if 8 + hlen > len(blob):
        fail(f"{path}: header length {hlen} runs past the end of the file")
    header = json.loads(blob[8:8 + hlen].decode("utf-8"))
    base = 8 + hlen
    entries = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype, shape = info["dtype"], [int(d) for d in info["shape"]]
        begin, end = (int(o) for o in info["data_offsets"])
        if dtype not in DECODERS:
            fail(f"{path}: tensor {name}: dtype {dtype} has no reference decoder", 2)
        numel = math.prod(shape)
        if end - begin != numel * DECODERS[dtype][1] // 8 or begin > end or base + end > len(blob):
            fail(f"{path}: tensor {name}: data_offsets [{begin}, {end}] do not fit {dtype} {shape}")
        entries.append((begin, name, dtype, shape, blob[base + begin:base + end]))
    entries.sort(key=lambda e: e[0])
    for _, name, dtype, shape, raw in entries:
        yield name, dtype, shape, raw


def block_of(n, extent):
    """The smallest power of two b with ceil(n / b) == extent, or None."""
    b = 1
    while b <= 1 << 40:
        if -(-n // b) == extent:
            return b
        b *= 2
    return None


def dequantize(codes, shape, scale, scale_shape):
    """A float8 weight times the scale of its block (W.weight_scale_inv, or W.weight_scale), as DeepSeek's
    weight_dequant computes it: the code, exact in float32, times its float32 scale, rounded to float32. The
    blocks: per tensor for one scale, else for each axis the smallest power of two that splits it into the
    scale's extent (a 1-D scale over a 2-D weight is per row). None when the shapes fit no such grid."""
    if len(shape) not in (1, 2):
        return None
    rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
    s = scale.astype(np.float32)
    if s.size == 1:
        grid, blocks = (1, 1), (rows, cols)
    elif len(scale_shape) == 2:
        grid = (scale_shape[0], scale_shape[1])
    elif len(scale_shape) == 1:
        grid = (scale_shape[0], 1) if len(shape) == 2 else (1, scale_shape[0])
    else:
        return None
    if s.size != 1:
        blocks = (block_of(rows, grid[0]), block_of(cols, grid[1]))
        if None in blocks:
            return None
    full = np.repeat(np.repeat(s.reshape(grid), blocks[0], axis=0), blocks[1], axis=1)[:rows, :cols]
    w = codes.astype(np.float32).reshape(rows, cols) * full
    return w.astype(np.float32).astype(np.float64).reshape(-1)


def reference(path, eps, bins):
    out = {}
    tensors = list(read_safetensors(path))
    decoded = {name: (dtype, shape, DECODERS[dtype][2](raw)) for name, dtype, shape, raw in tensors}
    for name, dtype, shape, raw in tensors:
        short, bits, decode = DECODERS[dtype]
        x = decoded[name][2]
        entry = {"dtype": short, "shape": shape, "bytes": len(raw), "scaled_by": None}
        if dtype in ("F8_E4M3", "F8_E5M2"):
            for scale_name in (name + "_scale_inv", name + "_scale"):
                if scale_name in decoded and decoded[scale_name][0] in ("F32", "BF16", "F16"):
                    w = dequantize(x, shape, decoded[scale_name][2], decoded[scale_name][1])
                    if w is not None:
                        x, entry["scaled_by"] = w, scale_name
                    break
        entry.update(tensor_stats(x, shape, eps, bins))
        out[name] = entry
    return {"eps": eps, "bins": bins, "tensors": out}


# ---------------------------------------------------------------------------------------------------------
# Self-test of the decoders against values worked out by hand (and, where numpy has the type, against numpy).


def self_test():
    def check(dtype, byte_values, expected):
        raw = b"".join(v.to_bytes(DECODERS[dtype][1] // 8, "little") for v in byte_values)
        got = DECODERS[dtype][2](raw)
        for b, g, e in zip(byte_values, got, expected):
            ok = (math.isnan(g) and math.isnan(e)) or (g == e and math.copysign(1, g) == math.copysign(1, e))
            if not ok:
                fail(f"self-test: {dtype} 0x{b:x} decoded as {g!r}, expected {e!r}", 1)

    nan, inf = math.nan, math.inf
    # float8_e4m3fn: bias 7, 3 mantissa bits, subnormals m * 2^-9, max 0x7e = 1.75 * 2^8 = 448, no Inf.
    check("F8_E4M3", [0x00, 0x80, 0x01, 0x07, 0x08, 0x38, 0x40, 0x78, 0x7e, 0x7f, 0xfe, 0xff, 0xb8, 0x3c],
          [0.0, -0.0, 2**-9, 7 * 2**-9, 2**-6, 1.0, 2.0, 256.0, 448.0, nan, -448.0, nan, -1.0, 1.5])
    # float8_e5m2: bias 15, 2 mantissa bits, IEEE specials, max 0x7b = 1.75 * 2^15 = 57344.
    check("F8_E5M2", [0x00, 0x80, 0x01, 0x03, 0x04, 0x3c, 0x3d, 0x7b, 0x7c, 0xfc, 0x7d, 0x7f, 0xff],
          [0.0, -0.0, 2**-16, 3 * 2**-16, 2**-14, 1.0, 1.25, 57344.0, inf, -inf, nan, nan, nan])
    # float8_e8m0fnu: 2^(e - 127), 0xff NaN.
    check("F8_E8M0", [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff], [2.0**-127, 2.0**-126, 1.0, 2.0, 2.0**127, nan])
    check("F8_E4M3FNUZ", [0x00, 0x80, 0x40, 0x01, 0x7f, 0xff], [0.0, nan, 1.0, 2**-10, 240.0, -240.0])
    check("F8_E5M2FNUZ", [0x00, 0x80, 0x40, 0x01, 0x7f, 0xff], [0.0, nan, 1.0, 2**-17, 57344.0, -57344.0])
    check("F16",
          [0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3555, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0xc000],
          [0.0, -0.0, 2**-24, 1023 * 2**-24, 2**-14, 1.0, (1024 + 0x155) * 2**-12, 65504.0, inf, -inf, nan,
           -2.0])
    check("BF16", [0x0000, 0x8000, 0x0001, 0x3f80, 0xc000, 0x3e80, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x0080],
          [0.0, -0.0, 2.0**-133, 1.0, -2.0, 0.25, (2 - 2**-7) * 2.0**127, inf, -inf, nan, 2.0**-126])
    check("I64", [2**53 + 1, (-2**63) & (2**64 - 1), 2**63 - 1], [2.0**53, -2.0**63, 2.0**63])
    check("U64", [2**64 - 1, 2**53 + 3], [2.0**64, 2.0**53 + 4])  # nearest-even rounding beyond 2^53
    check("I8", [0x80, 0x7f, 0xff], [-128.0, 127.0, -1.0])
    check("BOOL", [0, 1], [0.0, 1.0])

    # Exhaustive cross-checks: every F16 pattern against numpy's float16; every BF16 pattern through the F32
    # view against the generic field decoder; the generic decoder against numpy's own F32 and F64.
    def same(a, b):  # equal values, equal signs of zero, NaN where NaN (a NaN's sign bit is irrelevant)
        ok = ~np.isnan(a)
        return np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a[ok]), np.signbit(b[ok]))

    allbits = np.arange(65536, dtype=np.uint16)
    assert same(decode_f16(allbits.tobytes()), allbits.view(np.float16).astype(np.float64))
    assert same(decode_bf16(allbits.tobytes()), decode_minifloat(allbits, 8, 7, 127, "ieee"))
    rng = np.random.default_rng(1)
    r32 = rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32)
    r32[:6] = [0, 0x80000000, 1, 0x7f800000, 0xff800000, 0x7f7fffff]
    assert same(decode_minifloat(r32, 8, 23, 127, "ieee"), r32.view(np.float32).astype(np.float64))
    r64 = rng.integers(0, 2**63, 200000, dtype=np.uint64)
    r64 |= rng.integers(0, 2, 200000, dtype=np.uint64) << np.uint64(63)
    r64[:4] = [0, 1, 0x7ff0000000000000, 0x000fffffffffffff]
    assert same(decode_minifloat(r64, 11, 52, 1023, "ieee"), r64.view(np.float64))

    # The statistics on a hand-checkable tensor: [1, 2, 3, 4, NaN, -Inf, 0].
    s = tensor_stats(np.array([1, 2, 3, 4, nan, -inf, 0.0]), [7], 1e-6, 4)
    assert s["mean"] == 2.0 and s["var"] == 2.0 and s["nan_count"] == 1 and s["inf_count"] == 1
    assert s["kurtosis"] == (34 / 5) / 4 - 3 and s["l2_norm"] == math.sqrt(30)
    assert s["zeros_fraction"] == 1 / 7
    assert s["histogram"] == {"edges": [0.0, 1.0, 2.0, 3.0, 4.0], "counts": [1, 1, 1, 2]}
    assert s["percentiles"]["p50"] == 2.0
    s = tensor_stats(np.array([nan, inf]), [1, 2], 1e-6, 3)
    assert s["mean"] is None and s["l2_norm"] == 0.0 and s["rows"] == 1
    assert s["histogram"] == {"edges": None, "counts": [0, 0, 0]}
    s = tensor_stats(np.array([1.5, 1.5]), [2], 1e-6, 2)
    assert s["histogram"] == {"edges": [1.0, 1.5, 2.0], "counts": [0, 2]} and s["kurtosis"] is None
    # A constant whose mean comes out an ulp off (fsum(0.1 x 3) / 3 != 0.1): m2 is not 0 but within
    # (1e-15 * mean)**2, where m4 / m2**2 - 3 would be -2 from rounding alone. scipy: nan; here null.
    c = np.full(3, 0.1)
    assert np.float64(math.fsum(c.tolist())) / 3 != 0.1
    s = tensor_stats(c, [3], 1e-6, 2)
    assert s["var"] > 0 and s["kurtosis"] is None
    # Two point masses, the least kurtosis there is: m4 / m2**2 = 1, kurtosis -2 (scipy.stats.kurtosis: -2.0).
    assert tensor_stats(np.array([-1.0, 1.0, -1.0, 1.0]), [4], 1e-6, 2)["kurtosis"] == -2.0
    print("stats_reference self-test: ok")


def main(argv):
    # Quiet numpy: casting a signalling NaN, ldexp on the all-ones exponent before it is replaced by Inf/NaN
    # and overflowing sums of squares are all expected; their results are handled (NaN/Inf -> null).
    np.seterr(over="ignore", invalid="ignore")
    if argv[1:] == ["--self-test"]:
        self_test()
        return
    path, eps, bins = None, 1e-6, 64
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--eps", "--bins") and i + 1 < len(argv):
            if a == "--eps":
                eps = float(argv[i + 1])
            else:
                bins = int(argv[i + 1])
            i += 2
        elif path is None and not a.startswith("--"):
            path = a
            i += 1
        else:
            fail(__doc__.split("\n\n")[1], 2)
    if path is None or bins < 1:
        fail(__doc__.split("\n\n")[1], 2)
    json.dump(reference(path, eps, bins), sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
