// Whether a stored tensor's values can be read one by one — what `stats` and `compare` both need before they
// stream a tensor — and, when not, why, in the words both print.
#pragma once
#include <string>

#include "core/dtype.h"

namespace ma {

// Empty when they can; else the reason: a view with gaps in its storage (`strided`), ONNX varint fields
// (`encoded`), a block type with no decoder (none today: formats/ggml_dequant.h decodes every ggml type), or
// a type without scalar values (complex, 6-bit floats).
std::string why_values_unreadable(DType dtype, bool strided, bool encoded);

}  // namespace ma
