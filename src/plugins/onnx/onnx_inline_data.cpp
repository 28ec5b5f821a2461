#include "plugins/onnx/onnx_inline_data.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>

namespace ma {
namespace {

using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

// Field numbers of onnx.proto.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorFloatData = 4;
constexpr uint32_t kTensorRawData = 9;
constexpr uint32_t kTensorDoubleData = 10;
// Integer fields whose values are varints: a tensor using them has no contiguous bytes.
constexpr uint32_t kTensorVarintFields[] = {5 /*int32_data*/, 7 /*int64_data*/, 11 /*uint64_data*/};

// Reads a length-delimited field's header and limits the stream to its payload.
bool enter(CodedInputStream& in, CodedInputStream::Limit& limit, uint64_t& begin, uint64_t& end) {
  uint32_t len;
  if (!in.ReadVarint32(&len) || len > INT_MAX) return false;
  begin = static_cast<uint64_t>(in.CurrentPosition());
  end = begin + len;
  limit = in.PushLimit(static_cast<int>(len));
  return true;
}

bool walk_tensor(CodedInputStream& in, OnnxInlineData& out) {
  bool raw = false;
  int typed_runs = 0;
  OnnxInlineData typed;
  while (uint32_t tag = in.ReadTag()) {
    const uint32_t field = WireFormat::GetTagFieldNumber(tag);
    const auto type = WireFormat::GetTagWireType(tag);
    const bool delimited = type == WireFormat::WIRETYPE_LENGTH_DELIMITED;
    if ((field == kTensorRawData || field == kTensorFloatData || field == kTensorDoubleData) && delimited) {
      CodedInputStream::Limit limit;
      uint64_t begin, end;
      if (!enter(in, limit, begin, end) || !in.Skip(static_cast<int>(end - begin))) return false;
      in.PopLimit(limit);
      if (field == kTensorRawData) {
        out = {begin, end, true};  // the last raw_data wins, as in the parsed message
        raw = true;
      } else {
        typed = {begin, end, true};
        ++typed_runs;
      }
      continue;
    }
    if (field == kTensorFloatData || field == kTensorDoubleData) ++typed_runs;  // unpacked: one per value
    for (uint32_t f : kTensorVarintFields)
      if (field == f) typed_runs = 2;  // never contiguous
    if (!WireFormat::SkipField(&in, tag)) return false;
  }
  if (!raw && typed_runs == 1) out = typed;
  return true;
}

bool walk_graph(CodedInputStream& in, std::vector<OnnxInlineData>& out) {
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormat::GetTagFieldNumber(tag) == kGraphInitializer &&
        WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
      CodedInputStream::Limit limit;
      uint64_t begin, end;
      if (!enter(in, limit, begin, end)) return false;
      OnnxInlineData d;
      if (!walk_tensor(in, d) || !in.ConsumedEntireMessage()) return false;
      in.PopLimit(limit);
      out.push_back(d);
      continue;
    }
    if (!WireFormat::SkipField(&in, tag)) return false;
  }
  return true;
}

}  // namespace

std::vector<OnnxInlineData> onnx_inline_data(std::string_view model_bytes) {
  if (model_bytes.size() > INT_MAX) return {};
  CodedInputStream in(reinterpret_cast<const uint8_t*>(model_bytes.data()),
                      static_cast<int>(model_bytes.size()));
  std::vector<OnnxInlineData> out;
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormat::GetTagFieldNumber(tag) == kModelGraph &&
        WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
      CodedInputStream::Limit limit;
      uint64_t begin, end;
      if (!enter(in, limit, begin, end) || !walk_graph(in, out) || !in.ConsumedEntireMessage()) return {};
      in.PopLimit(limit);
      continue;
    }
    if (!WireFormat::SkipField(&in, tag)) return {};
  }
  return out;
}

}  // namespace ma
