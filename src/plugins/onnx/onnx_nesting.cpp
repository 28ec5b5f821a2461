#include "plugins/onnx/onnx_nesting.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace ma {
namespace {

using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

// The messages on a path that can nest (onnx.proto's field numbers below); the others are skipped whole.
enum class Kind {
  Model,
  Graph,
  Function,
  TrainingInfo,
  Node,
  Attribute,
  ValueInfo,
  Type,
  TypeElement,
  TypeMap
};

// The kind of message field `field` of a `kind` holds, where it is one that can nest.
std::optional<Kind> child(Kind kind, uint32_t field) {
  switch (kind) {
    case Kind::Model:
      if (field == 7) return Kind::Graph;          // graph
      if (field == 25) return Kind::Function;      // functions
      if (field == 20) return Kind::TrainingInfo;  // training_info
      break;
    case Kind::TrainingInfo:
      if (field == 1 || field == 2) return Kind::Graph;  // initialization, algorithm
      break;
    case Kind::Graph:
      if (field == 1) return Kind::Node;                                      // node
      if (field == 11 || field == 12 || field == 13) return Kind::ValueInfo;  // input, output, value_info
      break;
    case Kind::Function:
      if (field == 7) return Kind::Node;  // node
      break;
    case Kind::Node:
      if (field == 5) return Kind::Attribute;  // attribute
      break;
    case Kind::Attribute:
      if (field == 6 || field == 11) return Kind::Graph;  // g, graphs
      if (field == 14 || field == 15) return Kind::Type;  // tp, type_protos
      break;
    case Kind::ValueInfo:
      if (field == 2) return Kind::Type;  // type
      break;
    case Kind::Type:
      if (field == 4 || field == 9) return Kind::TypeElement;  // sequence_type, optional_type
      if (field == 5) return Kind::TypeMap;                    // map_type
      break;
    case Kind::TypeElement:
      if (field == 1) return Kind::Type;  // elem_type
      break;
    case Kind::TypeMap:
      if (field == 2) return Kind::Type;  // value_type
      break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> onnx_nesting_depth(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return std::nullopt;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  struct Open {
    Kind kind;
    CodedInputStream::Limit limit;
  };
  std::vector<Open> open;  // the messages entered, innermost last; the model is the stream itself
  Kind kind = Kind::Model;
  int deepest = 0;
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      // The end of the innermost message (its limit reached) or of the model; a zero tag before either is
      // damage.
      if (open.empty())
        return in.CurrentPosition() == static_cast<int>(bytes.size()) ? std::optional(deepest) : std::nullopt;
      if (in.BytesUntilLimit() != 0) return std::nullopt;
      in.PopLimit(open.back().limit);
      open.pop_back();
      kind = open.empty() ? Kind::Model : open.back().kind;
      continue;
    }
    const uint32_t field = WireFormat::GetTagFieldNumber(tag);
    const std::optional<Kind> inner = child(kind, field);
    if (inner && WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length;
      // Every limit lies inside the bytes, so reaching one is always the end of its message.
      const int left =
          open.empty() ? static_cast<int>(bytes.size()) - in.CurrentPosition() : in.BytesUntilLimit();
      if (!in.ReadVarint32(&length) || length > static_cast<uint32_t>(left)) return std::nullopt;
      open.push_back({*inner, in.PushLimit(static_cast<int>(length))});
      kind = *inner;
      deepest = std::max(deepest, static_cast<int>(open.size()));
      continue;
    }
    if (!WireFormat::SkipField(&in, tag)) return std::nullopt;
  }
}

}  // namespace ma
