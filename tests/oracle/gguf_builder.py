"""Writing a GGUF file through llama.cpp's own gguf API (gguf_init_empty, gguf_set_val_*, gguf_set_arr_*,
gguf_add_tensor of tensors made in a no_alloc ggml context, gguf_set_tensor_data, gguf_write_to_file): the
oracles never write GGUF bytes themselves. `lx` is llama_gguf_oracle.Llama, whose libraries are loaded."""

import ctypes

import numpy as np

GGML_TYPE_F32 = 0
GGUF_TYPE_UINT32, GGUF_TYPE_INT32, GGUF_TYPE_FLOAT32, GGUF_TYPE_BOOL = 4, 5, 6, 7


class GgmlInitParams(ctypes.Structure):  # ggml.h: struct ggml_init_params, passed by value
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


class GgufBuilder:
    MAX_TENSORS = 1024  # tensor infos the ggml context has room for (no data: a few hundred KiB)

    def __init__(self, lx):
        self.lx = lx
        self.ctx = lx.base.gguf_init_empty()
        # Tensor infos only (no_alloc): the data stays in numpy arrays, handed over by gguf_set_tensor_data.
        self.gctx = lx.base.ggml_init(GgmlInitParams(lx.base.ggml_tensor_overhead() * self.MAX_TENSORS, None, True))
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

    def value(self, key, v):
        """`v` by its Python type: a bool a flag, an int a u32, a float an f32, a str a string, a numpy
        uint32 or float32 array an array of u32 or f32, a numpy bool array an array of flags (one byte each)."""
        if isinstance(v, bool):
            self.flag(key, v)
        elif isinstance(v, int):
            self.u32(key, v)
        elif isinstance(v, float):
            self.f32(key, v)
        elif isinstance(v, str):
            self.text(key, v)
        elif isinstance(v, np.ndarray) and v.dtype == np.uint32:
            self.num_array(key, GGUF_TYPE_UINT32, v)
        elif isinstance(v, np.ndarray) and v.dtype == np.float32:
            self.num_array(key, GGUF_TYPE_FLOAT32, v)
        elif isinstance(v, np.ndarray) and v.dtype == np.bool_:
            self.num_array(key, GGUF_TYPE_BOOL, v.astype(np.uint8))
        else:
            raise TypeError(f"{key}: no GGUF type for {type(v).__name__}")

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
