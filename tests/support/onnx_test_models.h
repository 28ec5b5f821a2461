// Tiny ONNX models for tests, built with ONNX's own protobuf classes (libonnx), so that tests without Python
// can write valid models and break them one field at a time.
#pragma once
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ma::test {

// x [batch, 3] F32 -> MatMul with "model.layers.0.mlp.up_proj.weight" [3, 2] F32 (raw_data: the values
// below) -> y [batch, 2]; node "/model/layers.0/mlp/up_proj/MatMul", opset 17, IR version 8.
onnx::ModelProto tiny_onnx_model();
inline const std::vector<float> kTinyOnnxWeights = {1.0f, -2.0f, 0.5f, 4.0f, -0.25f, 3.0f};

// Moves the weight to external data: `location` (relative to the model), at `offset`, with "length" set to
// `length` unless it is empty; writes the data file (offset zero bytes, then the weights) when `data_file`
// is not empty.
void make_weight_external(onnx::ModelProto& m, const std::string& location, const std::string& offset,
                          const std::string& length, const std::filesystem::path& data_file);

void write_onnx(const std::filesystem::path& path, const onnx::ModelProto& m);

// A tiny Llama's config.json, for an export read beside one (its shapes are not the tiny model's).
inline const char* const kTinyLlamaConfig =
    R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
        "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "vocab_size": 256, "max_position_embeddings": 512, "torch_dtype": "float32"})";

}  // namespace ma::test
