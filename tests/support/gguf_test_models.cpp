#include "gguf_test_models.h"

namespace ma::test {
namespace {

TensorToWrite tensor(std::string name, DType dtype, Shape shape, bool with_data) {
  TensorToWrite t{std::move(name), dtype, std::move(shape), {}};
  if (with_data) {
    // Deterministic non-zero bytes; for block types any bytes decode (scales included).
    t.data.resize(dtype_bytes(numel(t.shape), dtype));
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<char>((i * 37 + 11) & 0x3f);
  }
  return t;
}

}  // namespace

std::vector<GgufValueToWrite> tiny_gguf_metadata(const TinyGguf& m) {
  const std::string a = m.arch;
  return {
      gguf_string("general.architecture", a),
      gguf_string("general.name", "tiny"),
      gguf_u32(a + ".block_count", m.layers),
      gguf_u32(a + ".context_length", m.context),
      gguf_u32(a + ".embedding_length", m.hidden),
      gguf_u32(a + ".feed_forward_length", m.ffn),
      gguf_u32(a + ".attention.head_count", m.heads),
      gguf_u32(a + ".attention.head_count_kv", m.kv_heads),
      gguf_f32(a + ".attention.layer_norm_rms_epsilon", 1e-5f),
      gguf_f32(a + ".rope.freq_base", 500000.0f),
      gguf_u32(a + ".rope.dimension_count", m.hidden / m.heads),
      gguf_u32(a + ".vocab_size", m.vocab),
      gguf_string("tokenizer.ggml.model", "gpt2"),
  };
}

std::vector<TensorToWrite> tiny_gguf_tensors(const TinyGguf& m) {
  const uint64_t h = m.hidden, kv = static_cast<uint64_t>(m.kv_heads) * (m.hidden / m.heads);
  const DType w = m.matrix_type;
  std::vector<TensorToWrite> t;
  t.push_back(tensor("token_embd.weight", DType::F32, {m.vocab, h}, m.with_data));
  for (uint32_t l = 0; l < m.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    t.push_back(tensor(p + "attn_norm.weight", DType::F32, {h}, m.with_data));
    t.push_back(tensor(p + "attn_q.weight", w, {h, h}, m.with_data));
    t.push_back(tensor(p + "attn_k.weight", w, {kv, h}, m.with_data));
    t.push_back(tensor(p + "attn_v.weight", w, {kv, h}, m.with_data));
    t.push_back(tensor(p + "attn_output.weight", w, {h, h}, m.with_data));
    t.push_back(tensor(p + "ffn_norm.weight", DType::F32, {h}, m.with_data));
    t.push_back(tensor(p + "ffn_gate.weight", w, {m.ffn, h}, m.with_data));
    t.push_back(tensor(p + "ffn_up.weight", w, {m.ffn, h}, m.with_data));
    t.push_back(tensor(p + "ffn_down.weight", w, {h, m.ffn}, m.with_data));
  }
  t.push_back(tensor("output_norm.weight", DType::F32, {h}, m.with_data));
  if (!m.tied) t.push_back(tensor("output.weight", w, {m.vocab, h}, m.with_data));
  return t;
}

uint64_t tiny_gguf_parameters(const TinyGguf& m) {
  const uint64_t h = m.hidden, kv = static_cast<uint64_t>(m.kv_heads) * (m.hidden / m.heads);
  const uint64_t layer = h + h * h + 2 * kv * h + h * h + h + 3 * m.ffn * h;
  return m.vocab * h + m.layers * layer + h + (m.tied ? 0 : m.vocab * h);
}

void write_tiny_gguf(const std::filesystem::path& path, const TinyGguf& m) {
  write_gguf(path, tiny_gguf_metadata(m), tiny_gguf_tensors(m));
}

}  // namespace ma::test
