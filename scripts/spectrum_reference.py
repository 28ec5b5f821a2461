#!/usr/bin/python3
"""Independent numpy reference for `modelanalyzer spectrum`: the singular values of every matrix of one
safetensors file (F32, F16, BF16; float8 times the scale beside it) and what they say.

usage: spectrum_reference.py FILE.safetensors [--energy 0.9]
       spectrum_reference.py --alpha-of SPECTRUM.json   (alpha of each tensor's own singular values, from
                                                         `modelanalyzer spectrum --json --values`)

Prints {"tensors": {name: {...}}}; a stacked expert tensor [E, m, n] (".experts." in its name) gives the
matrices "name[e]"; other 3-D tensors (kernels) are no matrices. Everything is
computed in float64 from the file's own bytes (header parsed here with json + struct, BF16 widened here by a
bit shift), with LAPACK through numpy.linalg.svd, so nothing of the C++ implementation is trusted.

The definitions are the contract the C++ command is tested against (tests/e2e/spectrum_numpy_test.cpp):
  s                 numpy.linalg.svd(W as float64, compute_uv=False), descending
  rank_tolerance    s[0] * max(m, n) * eps_f32 whatever the stored dtype: numpy.linalg.matrix_rank's rule for
                    the float32 matrix the stored values upcast to (eps_f32 = 2**-23)
  actual_rank       count(s > rank_tolerance)
  numpy_matrix_rank numpy.linalg.matrix_rank(W as float32) itself: the same rule on numpy's own float32 SVD
                    (a σ within float32's error of the tolerance may fall on either side of it)
  storage_tolerance floats narrower than float32 only (F16, BF16, float8; null otherwise): a bound on the
                    spectral norm of the change rounding to the stored dtype made,
                      max(rank_tolerance,
                          u / (1 - u) * ||abs(W)||_2 + h * S * sqrt(count(abs(W) < 2**emin * S)))
                    u = 2**-(fraction bits + 1) the unit roundoff, ||abs(W)||_2 the largest singular value
                    of the elementwise absolute values (numpy.linalg.norm(abs(W), 2)), 2**emin the smallest
                    normal, h = 2**(emin - fraction bits - 1) half the subnormal spacing, S the largest
                    |scale| of a float8 weight dequantized with its scale (1 otherwise)
  storage_rank      count(s > storage_tolerance); null with storage_tolerance
  svd_90_percent_rank  searchsorted(cumsum(s**2) / sum(s**2), energy) + 1
  stable_rank       sum(s**2) / s[0]**2        effective_rank  exp(-sum(p log p)), p = s / sum(s)
  spectral_norm     s[0]                       condition_number  s[0] / s[-1] (null when s[-1] == 0)
  alpha             powerlaw.Fit(s**2) as the `powerlaw` package (and WeightWatcher) fits it, over the
                    eigenvalues s**2 > 1e-5 (WeightWatcher's EVALS_THRESH) whose s is above rank_tolerance
                    (what the rank counts; fewer than 3: null); --alpha-of fits the values it is given as
                    they are. Unbounded:
                    each distinct value but the largest as xmin, alpha = 1 + n / sum(log(x / xmin)) over
                    the n values >= xmin, D = max |searchsorted(tail, x, 'left') / n - (1 - (x / xmin)**(1 -
                    alpha))| over the tail's distinct values; the smallest D wins
"""

import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_reference  # noqa: E402  (its float8 decoders and dequantization, one definition of each)

FRACTION_BITS = {"F32": 23, "F16": 10, "BF16": 7, "F8_E4M3": 3, "F8_E5M2": 2}
# The exponent of the smallest normal of each float narrower than float32 (float8_e4m3fn: bias 7, so 2**-6).
MIN_NORMAL_EXPONENT = {"F16": -14, "BF16": -126, "F8_E4M3": -6, "F8_E5M2": -14}


def read_tensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        base = 8 + n
        out = []
        for name, info in header.items():
            if name == "__metadata__":
                continue
            begin, end = info["data_offsets"]
            f.seek(base + begin)
            raw = f.read(end - begin)
            dtype = info["dtype"]
            if dtype == "F32":
                x = np.frombuffer(raw, dtype="<f4").astype(np.float64)
            elif dtype == "F16":
                x = np.frombuffer(raw, dtype="<f2").astype(np.float64)
            elif dtype == "BF16":
                x = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            elif dtype in ("F8_E4M3", "F8_E5M2"):
                x = stats_reference.DECODERS[dtype][2](raw)
            else:
                continue
            out.append((begin, name, dtype, info["shape"], x))
    out.sort()
    # A float8 weight beside its scale is code x scale (stats_reference.dequantize); the scales are no
    # matrices of the model.
    # `scale`: the largest |scale| of a weight dequantized with its scales, 1 for any other.
    by_name = {name: (dtype, shape, x) for _, name, dtype, shape, x in out}
    result = []
    for _, name, dtype, shape, x in out:
        if name.endswith("_scale_inv") or name.endswith("_scale"):
            continue
        scale = 1.0
        if dtype.startswith("F8"):
            for scale_name in (name + "_scale_inv", name + "_scale"):
                if scale_name in by_name:
                    w = stats_reference.dequantize(x, shape, by_name[scale_name][2], by_name[scale_name][1])
                    if w is not None:
                        x = w
                        scale = float(np.max(np.abs(by_name[scale_name][2])))
                    break
        result.append((name, dtype, shape, x, scale))
    return result


ALPHA_EIGENVALUE_FLOOR = 1e-5  # WeightWatcher's EVALS_THRESH: smaller eigenvalues are rounding, not spectrum


def power_law(values):
    x = np.sort(values[values > 0])
    if len(x) < 3:
        return None
    best = None
    logs = np.log(x)
    for i in range(len(x) - 1):
        if i > 0 and x[i] == x[i - 1]:
            continue
        if x[i] == x[-1]:
            break
        tail = x[i:]
        n = len(tail)
        sum_log = logs[i:].sum() - n * logs[i]
        if sum_log <= 0:
            continue
        alpha = 1 + n / sum_log
        distinct, first = np.unique(tail, return_index=True)
        fitted = 1 - (distinct / x[i]) ** (1 - alpha)
        d = np.max(np.abs(first / n - fitted))
        if best is None or d < best[2]:
            best = (alpha, x[i], d, n)
    return best


def storage_tolerance(w, dtype, scale, tol):
    """The σ threshold rounding to a float narrower than float32 cannot reach (see the contract above)."""
    if dtype not in MIN_NORMAL_EXPONENT:
        return None
    bits, emin = FRACTION_BITS[dtype], MIN_NORMAL_EXPONENT[dtype]
    u = 2.0 ** -(bits + 1)
    abs_norm = float(np.linalg.norm(np.abs(w), 2))
    below = int(np.count_nonzero(np.abs(w) < 2.0 ** emin * scale))
    floor = 2.0 ** (emin - bits - 1) * scale * np.sqrt(below)
    return max(tol, u / (1 - u) * abs_norm + floor)


def metrics(w, dtype, energy, scale=1.0):
    m, n = w.shape
    s = np.linalg.svd(w, compute_uv=False)
    fro2 = float(np.sum(w * w))
    tol = float(s[0] * max(m, n) * float(np.finfo(np.float32).eps))
    storage_tol = storage_tolerance(w, dtype, scale, tol)
    sq = s * s
    cum = np.cumsum(sq) / sq.sum()
    p = s / s.sum()
    p = p[p > 0]
    fit = power_law(sq[(sq > ALPHA_EIGENVALUE_FLOOR) & (s > tol)])
    return {
        "singular_values": s.tolist(),
        "rank_tolerance": tol,
        "actual_rank": int(np.sum(s > tol)),
        "numpy_matrix_rank": int(np.linalg.matrix_rank(w.astype(np.float32))),
        "storage_tolerance": storage_tol,
        "storage_rank": int(np.sum(s > storage_tol)) if storage_tol is not None else None,
        "svd_90_percent_rank": int(np.searchsorted(cum, 0.9) + 1),
        "energy_rank": int(np.searchsorted(cum, energy) + 1),
        "stable_rank": float(sq.sum() / sq[0]),
        "effective_rank": float(np.exp(-np.sum(p * np.log(p)))),
        "spectral_norm": float(s[0]),
        "frobenius_norm": float(np.sqrt(fro2)),
        "condition_number": float(s[0] / s[-1]) if s[-1] > 0 else None,
        "alpha": fit[0] if fit else None,
        "alpha_xmin": fit[1] if fit else None,
    }


def main():
    if sys.argv[1] == "--alpha-of":
        with open(sys.argv[2]) as f:
            tensors = json.load(f)["tensors"]
        out = {}
        for t in tensors:
            fit = power_law(np.array(t["singular_values"]) ** 2)
            out[t["name"]] = {"alpha": fit[0] if fit else None, "alpha_xmin": fit[1] if fit else None}
        json.dump({"tensors": out}, sys.stdout)
        return
    path = sys.argv[1]
    energy = float(sys.argv[sys.argv.index("--energy") + 1]) if "--energy" in sys.argv else 0.9
    result = {}
    for name, dtype, shape, x, scale in read_tensors(path):
        if len(shape) == 2:
            result[name] = metrics(x.reshape(shape), dtype, energy, scale)
        elif len(shape) == 3 and ".experts." in name:  # stacked experts; other 3-D tensors are kernels
            for e, w in enumerate(x.reshape(shape)):
                result[f"{name}[{e}]"] = metrics(w, dtype, energy, scale)
    json.dump({"tensors": result}, sys.stdout)


if __name__ == "__main__":
    main()
