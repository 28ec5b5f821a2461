#include "generated_checkpoints.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "core/shape.h"
#include "formats/safetensors_writer.h"
#include "io/atomic_file.h"

namespace fs = std::filesystem;

namespace ma::bench {
namespace {

struct Planned {
  ma::TensorToWrite tensor;  // data left empty: only the header is built from it
  double mean, sigma;        // the weights' distribution
};

std::vector<Planned> llama_1b_layout() {
  constexpr uint64_t kHidden = 2048, kKv = 512, kMlp = 8192, kVocab = 128256, kLayers = 16;
  std::vector<Planned> t;
  auto add = [&](std::string name, ma::Shape shape, double mean, double sigma) {
    t.push_back({{std::move(name), ma::DType::BF16, std::move(shape), {}}, mean, sigma});
  };
  add("model.embed_tokens.weight", {kVocab, kHidden}, 0, 0.02);
  for (uint64_t l = 0; l < kLayers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {kHidden}, 1.0, 0.05);
    add(p + "self_attn.q_proj.weight", {kHidden, kHidden}, 0, 0.02);
    add(p + "self_attn.k_proj.weight", {kKv, kHidden}, 0, 0.02);
    add(p + "self_attn.v_proj.weight", {kKv, kHidden}, 0, 0.02);
    add(p + "self_attn.o_proj.weight", {kHidden, kHidden}, 0, 0.02 / std::sqrt(2.0 * kLayers));
    add(p + "post_attention_layernorm.weight", {kHidden}, 1.0, 0.05);
    add(p + "mlp.gate_proj.weight", {kMlp, kHidden}, 0, 0.02);
    add(p + "mlp.up_proj.weight", {kMlp, kHidden}, 0, 0.02);
    add(p + "mlp.down_proj.weight", {kHidden, kMlp}, 0, 0.02 / std::sqrt(2.0 * kLayers));
  }
  add("model.norm.weight", {kHidden}, 1.0, 0.05);
  return t;
}

// BERT-base as transformers' BertModel names it (vocabulary 30522, hidden 768, 12 layers, intermediate 3072).
std::vector<Planned> bert_base_layout() {
  constexpr uint64_t kHidden = 768, kMlp = 3072, kVocab = 30522, kLayers = 12;
  std::vector<Planned> t;
  auto add = [&](std::string name, ma::Shape shape, double mean, double sigma) {
    t.push_back({{std::move(name), ma::DType::F32, std::move(shape), {}}, mean, sigma});
  };
  auto layer_norm = [&](const std::string& p) {
    add(p + "LayerNorm.weight", {kHidden}, 1.0, 0.05);
    add(p + "LayerNorm.bias", {kHidden}, 0, 0.02);
  };
  add("embeddings.word_embeddings.weight", {kVocab, kHidden}, 0, 0.02);
  add("embeddings.position_embeddings.weight", {512, kHidden}, 0, 0.02);
  add("embeddings.token_type_embeddings.weight", {2, kHidden}, 0, 0.02);
  layer_norm("embeddings.");
  for (uint64_t l = 0; l < kLayers; ++l) {
    std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* m : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                          "attention.output.dense."}) {
      add(p + m + "weight", {kHidden, kHidden}, 0, 0.02);
      add(p + m + "bias", {kHidden}, 0, 0.02);
    }
    layer_norm(p + "attention.output.");
    add(p + "intermediate.dense.weight", {kMlp, kHidden}, 0, 0.02);
    add(p + "intermediate.dense.bias", {kMlp}, 0, 0.02);
    add(p + "output.dense.weight", {kHidden, kMlp}, 0, 0.02);
    add(p + "output.dense.bias", {kHidden}, 0, 0.02);
    layer_norm(p + "output.");
  }
  add("pooler.dense.weight", {kHidden, kHidden}, 0, 0.02);
  add("pooler.dense.bias", {kHidden}, 0, 0.02);
  return t;
}

uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint16_t to_bf16(float f) {  // round to nearest even (inputs are finite)
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7fff + ((b >> 16) & 1);
  return static_cast<uint16_t>(b >> 16);
}

// 65,536 normal samples of the tensor's distribution as BF16 or float32 bits; each element then picks one
// with 16 random bits (four elements per 64-bit draw), which is fast and gives a realistic spread of distinct
// values.
std::vector<uint32_t> value_table(double mean, double sigma, ma::DType dtype, uint64_t& rng) {
  std::vector<uint32_t> table(65536);
  for (auto& v : table) {
    double u = (static_cast<double>(splitmix64(rng) >> 11) + 0.5) * 0x1p-53;  // (0, 1)
    double w = static_cast<double>(splitmix64(rng) >> 11) * 0x1p-53;
    double z = std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * w);
    const float f = static_cast<float>(mean + sigma * z);
    v = dtype == ma::DType::BF16 ? to_bf16(f) : std::bit_cast<uint32_t>(f);
  }
  return table;
}

std::string padded_header(const std::vector<ma::TensorToWrite>& tensors) {
  std::string header = ma::safetensors_header_json(tensors, {{"format", "pt"}});
  while (header.size() % 8) header += ' ';  // as write_safetensors pads it
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header;
}

bool file_starts_with(const fs::path& p, const std::string& prefix) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return false;
  std::string got(prefix.size(), '\0');
  ssize_t n = ::pread(fd, got.data(), got.size(), 0);
  ::close(fd);
  return n == static_cast<ssize_t>(prefix.size()) && got == prefix;
}

// Writes (or reuses) the checkpoint of `plan` (all one dtype, BF16 or F32); returns its size in bytes.
uint64_t ensure_checkpoint(const fs::path& path, const std::vector<Planned>& plan, size_t& tensor_count) {
  std::vector<ma::TensorToWrite> tensors;
  uint64_t data_bytes = 0;
  const ma::DType dtype = plan.front().tensor.dtype;
  const size_t width = dtype == ma::DType::BF16 ? 2 : 4;
  for (const auto& p : plan) {
    tensors.push_back(p.tensor);
    data_bytes += ma::numel(p.tensor.shape) * width;
  }
  tensor_count = tensors.size();
  std::string head = padded_header(tensors);
  uint64_t size = head.size() + data_bytes;
  std::error_code ec;
  if (fs::file_size(path, ec) == size && !ec && file_starts_with(path, head)) {
    std::printf("reusing %s\n", path.c_str());
    return size;
  }
  std::printf("writing %s (%.2f GB)...\n", path.c_str(), static_cast<double>(size) / 1e9);
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  fs::create_directories(path.parent_path());
  ma::AtomicFile out(path);
  out.write(head);
  uint64_t rng = 0x5eed5eed5eedull;
  constexpr size_t kChunk = 16u << 20;  // elements per write: 32 or 64 MiB
  std::vector<char> buf(kChunk * width);
  for (const auto& p : plan) {
    std::vector<uint32_t> table = value_table(p.mean, p.sigma, dtype, rng);
    uint64_t left = ma::numel(p.tensor.shape);
    while (left) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
      for (size_t i = 0; i < n; i += 4) {
        uint64_t r = splitmix64(rng);
        // The table's low `width` bytes are the value on this little-endian machine.
        for (size_t j = 0; j < 4 && i + j < n; ++j)
          std::memcpy(buf.data() + (i + j) * width, &table[(r >> (16 * j)) & 0xffff], width);
      }
      out.write(std::string_view(buf.data(), n * width));
      left -= n;
    }
  }
  out.commit();
  std::printf("  written in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return size;
}

}  // namespace

uint64_t ensure_llama_1b_checkpoint(const fs::path& path, size_t& tensor_count) {
  return ensure_checkpoint(path, llama_1b_layout(), tensor_count);
}

uint64_t ensure_bert_base_checkpoint(const fs::path& path, size_t& tensor_count) {
  return ensure_checkpoint(path, bert_base_layout(), tensor_count);
}

}  // namespace ma::bench
