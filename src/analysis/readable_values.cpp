#include "analysis/readable_values.h"

#include "core/dtype_values.h"
#include "formats/ggml_dequant.h"

namespace ma {

std::string why_values_unreadable(DType dtype, bool strided, bool encoded) {
  if (strided) return "a view with gaps in its storage";
  if (encoded) return "values stored as protobuf varints, not raw bytes";
  if (is_block_type(dtype) && !can_dequantize(dtype))
    return std::string(dtype_info(dtype).name) + " blocks have no decoder built in";
  if (!is_block_type(dtype) && !has_element_values(dtype))
    return std::string(dtype_info(dtype).short_name) + " elements have no defined scalar values";
  return "";
}

}  // namespace ma
