#!/usr/bin/python3
"""The peer of `ma-bench-embeddings`: scikit-learn's KMeans on a token embedding, as seed 004's
embedding_analysis.py runs it (and as ../shared/reference/perf-baselines.md measured it: n_init=1,
max_iter=50, Lloyd, float32 rows).

usage: embeddings_sklearn_baseline.py FILE.safetensors TENSOR K
Prints {"seconds": the fit alone, "inertia": ..., "iterations": ...}.
"""

import json
import struct
import sys
import time

import numpy as np
from sklearn.cluster import KMeans


def read_tensor(path, wanted):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        info = header[wanted]
        begin, end = info["data_offsets"]
        f.seek(8 + n + begin)
        return np.frombuffer(f.read(end - begin), dtype="<f4").reshape(info["shape"])


def main():
    path, tensor, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    x = read_tensor(path, tensor)
    start = time.perf_counter()
    km = KMeans(n_clusters=k, n_init=1, max_iter=50, algorithm="lloyd", random_state=0).fit(x)
    seconds = time.perf_counter() - start
    json.dump({"seconds": seconds, "inertia": float(km.inertia_), "iterations": int(km.n_iter_)}, sys.stdout)


if __name__ == "__main__":
    main()
