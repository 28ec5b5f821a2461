#!/usr/bin/python3
"""The numpy baseline of bench/stats_bench.cpp: per-tensor weight statistics written the straightforward way.

usage: stats_numpy_baseline.py FILE.safetensors [--bins 64]

For every tensor: mean, std, min, max, the fraction of exact zeros and a 64-bin histogram over [min, max],
printed as JSON. This is the script a user writes without a dedicated tool: parse the header, np.memmap each
tensor, walk it in chunks (so a 500 MB embedding never becomes a 2 GB float32 copy), widen BF16 to float32 by
shifting its bits, accumulate sums in float64, and make a second pass for the histogram once the range is
known. Each tensor's memmap is dropped before the next, so the peak RSS is one tensor's pages plus one chunk's
temporaries rather than the whole file. Single-threaded, as numpy is. Assumes finite weights (the benchmark's
checkpoint has no NaN/Inf; a NaN would make the histogram range invalid, as it would in the user's script).
"""

import json
import math
import struct
import sys

import numpy as np

CHUNK = 1 << 24  # elements per chunk: 32 MiB of BF16, 64 MiB as float32

WIDEN = {
    # dtype -> (numpy storage type, function to float32)
    "BF16": (np.uint16, lambda u: (u.astype(np.uint32) << np.uint32(16)).view(np.float32)),
    "F16": (np.float16, lambda h: h.astype(np.float32)),
    "F32": (np.float32, lambda f: f),
}


def tensor_stats(path, offset, count, storage, widen, bins):
    mm = np.memmap(path, dtype=storage, mode="r", offset=offset, shape=(count,))
    total = total_sq = 0.0
    zeros = 0
    lo, hi = math.inf, -math.inf
    for i in range(0, count, CHUNK):
        x = widen(mm[i:i + CHUNK])
        total += float(x.sum(dtype=np.float64))
        total_sq += float(np.square(x, dtype=np.float64).sum())
        lo = min(lo, float(x.min()))
        hi = max(hi, float(x.max()))
        zeros += int(np.count_nonzero(x == 0))
    counts = np.zeros(bins, dtype=np.int64)
    hist_range = (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)  # numpy refuses an empty range (norms of ones)
    for i in range(0, count, CHUNK):
        counts += np.histogram(widen(mm[i:i + CHUNK]), bins=bins, range=hist_range)[0]
    del mm  # unmap: its pages stop counting towards RSS
    mean = total / count
    return {
        "mean": mean,
        "std": math.sqrt(max(total_sq / count - mean * mean, 0.0)),
        "min": lo,
        "max": hi,
        "zeros_fraction": zeros / count,
        "histogram": counts.tolist(),
    }


def main(argv):
    path = argv[1]
    bins = int(argv[argv.index("--bins") + 1]) if "--bins" in argv else 64
    with open(path, "rb") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(n))
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in WIDEN:
            continue
        storage, widen = WIDEN[info["dtype"]]
        begin, end = info["data_offsets"]
        count = (end - begin) // np.dtype(storage).itemsize
        if count:
            out[name] = tensor_stats(path, 8 + n + begin, count, storage, widen, bins)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
