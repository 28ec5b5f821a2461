#!/usr/bin/python3
"""Independent scikit-learn reference for `modelanalyzer embeddings`: k-means from the same initial centres.

usage: embeddings_reference.py FILE.safetensors TENSOR OURS.json

Reads TENSOR (F32 or BF16) from the safetensors file with its own parser, takes the initial centre rows and
max_iter from our JSON (`initial_center_rows`), and runs sklearn.cluster.KMeans(n_clusters=k,
init=X[rows], n_init=1, algorithm="lloyd", tol=1e-4) on float32 rows; prints {"inertia", "sizes" (sorted by
cluster id), "labels_hash", "silhouette" (sklearn.metrics.silhouette_score over every row), "norm_p50",
"explained_variance_ratio" (the two leading shares of the centred rows' variance, from numpy's float64 SVD:
exact, where sklearn's PCA may choose an iterative solver)}.
"""

import hashlib
import json
import struct
import sys

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score


def read_tensor(path, wanted):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        info = header[wanted]
        begin, end = info["data_offsets"]
        f.seek(8 + n + begin)
        raw = f.read(end - begin)
    if info["dtype"] == "F32":
        x = np.frombuffer(raw, dtype="<f4")
    elif info["dtype"] == "BF16":
        x = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    else:
        raise SystemExit("unsupported dtype " + info["dtype"])
    return x.reshape(info["shape"]).astype(np.float32)


def main():
    path, tensor, ours_path = sys.argv[1:4]
    with open(ours_path) as f:
        ours = json.load(f)
    x = read_tensor(path, tensor)
    rows = ours["initial_center_rows"]
    km = KMeans(n_clusters=len(rows), init=x[rows], n_init=1, algorithm="lloyd", tol=1e-4, max_iter=300)
    km.fit(x)
    labels = km.labels_.astype(np.int64)
    out = {
        "inertia": float(km.inertia_),
        "sizes": np.bincount(labels, minlength=len(rows)).tolist(),
        "labels_hash": hashlib.sha256(labels.tobytes()).hexdigest(),
        "silhouette": float(silhouette_score(x, labels)) if len(rows) > 1 else 0.0,
        "norm_p50": float(np.percentile(np.linalg.norm(x.astype(np.float64), axis=1), 50)),
    }
    centred = x.astype(np.float64) - x.astype(np.float64).mean(axis=0)
    variance = np.linalg.svd(centred, compute_uv=False) ** 2
    out["explained_variance_ratio"] = (variance[:2] / variance.sum()).tolist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
