#!/usr/bin/python3
"""The peer of `ma-bench-spectrum`: scipy's LAPACK gesdd on the float32 matrices of a safetensors file, as
seed 004's users run it (scipy.linalg.svd(W, compute_uv=False), the fastest of numpy / scipy / torch on this
machine per ../shared/reference/perf-baselines.md), and the Gram path numpy users write by hand
(numpy.linalg.eigvalsh(W @ W.T)).

usage: spectrum_scipy_baseline.py FILE.safetensors [--gram]
Prints {"seconds": in-process time of the decompositions alone, "matrices": n}.
"""

import json
import struct
import sys
import time

import numpy as np
import scipy.linalg


def matrices(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        base = 8 + n
        for name, info in header.items():
            if name == "__metadata__" or len(info["shape"]) != 2 or info["dtype"] != "F32":
                continue
            begin, end = info["data_offsets"]
            f.seek(base + begin)
            yield np.frombuffer(f.read(end - begin), dtype="<f4").reshape(info["shape"]).copy()


def main():
    gram = "--gram" in sys.argv
    total, count = 0.0, 0
    for w in matrices(sys.argv[1]):
        start = time.perf_counter()
        if gram:
            g = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
            np.linalg.eigvalsh(g)
        else:
            scipy.linalg.svd(w, compute_uv=False, lapack_driver="gesdd", check_finite=False, overwrite_a=True)
        total += time.perf_counter() - start
        count += 1
    json.dump({"seconds": total, "matrices": count}, sys.stdout)


if __name__ == "__main__":
    main()
