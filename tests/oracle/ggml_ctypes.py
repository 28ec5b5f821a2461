"""llama.cpp's type-traits table as ctypes sees it, shared by the oracle scripts that call libggml-base.so."""

import ctypes


class TypeTraits(ctypes.Structure):
    # struct ggml_type_traits (ggml.h) in the pinned build.
    _fields_ = [
        ("type_name", ctypes.c_char_p),
        ("blck_size", ctypes.c_int64),
        ("blck_size_interleave", ctypes.c_int64),
        ("type_size", ctypes.c_size_t),
        ("is_quantized", ctypes.c_bool),
        ("to_float", ctypes.c_void_p),
        ("from_float_ref", ctypes.c_void_p),
    ]


# to_float(x, y, k) and from_float_ref(x, y, k): k elements between a block row and float32.
TO_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
FROM_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
