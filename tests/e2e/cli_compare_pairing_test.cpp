// `modelanalyzer compare` on the tensors it cannot compare and on tensors that share a place: a tensor whose
// values cannot be read (a PyTorch view with gaps, complex64) is listed, counted and exported, never read as
// if it were contiguous, and never used to pair others by likeness; a GGUF whose conversion swapped a layer's
// norms or forgot to permute q/k shows it in the console and the JSON.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/gguf_writer.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kCcpHidden = 32, kCcpHeads = 4, kCcpHeadDim = 8, kCcpKvHeads = 2;

// Deterministic values in [-1.5, 1.5) in steps of 0.01, shifted by `offset`.
std::vector<float> ccp_values(uint64_t n, uint32_t seed, float offset = 0) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 3;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = offset + static_cast<float>(static_cast<int32_t>((x >> 8) % 300) - 150) / 100.0f;
  }
  return v;
}

std::string ccp_bytes(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// llama.cpp's converter stores original row h*hd + i*hd/2 + j of a q/k projection at h*hd + 2j + i.
std::vector<float> ccp_rotary_rows(const std::vector<float>& w, uint64_t rows, uint64_t cols) {
  std::vector<float> out(w.size());
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t h = r / kCcpHeadDim, in = r % kCcpHeadDim, half = kCcpHeadDim / 2;
    std::memcpy(&out[(h * kCcpHeadDim + 2 * (in % half) + in / half) * cols], &w[r * cols], cols * 4);
  }
  return out;
}

std::vector<GgufValueToWrite> ccp_llama_metadata() {
  return {gguf_string("general.architecture", "llama"), gguf_u32("llama.embedding_length", kCcpHidden),
          gguf_u32("llama.attention.head_count", kCcpHeads),
          gguf_u32("llama.attention.head_count_kv", kCcpKvHeads), gguf_u32("llama.block_count", 1)};
}

json::Document ccp_compare_json(const fs::path& a, const fs::path& b) {
  const auto r = test::run_cli("compare " + test::quoted(a) + " " + test::quoted(b) + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "compare --json");
}

// The console's summary line ("N tensors compared, ...").
std::string ccp_summary_line(const std::string& console) {
  std::istringstream lines(console);
  std::string line;
  while (std::getline(lines, line))
    if (test::contains(line, "tensors compared")) return line;
  return "";
}

// A top-level count of the JSON; a test against a build without it fails here instead of crashing.
uint64_t ccp_count(const json::Document& d, const char* key) {
  const json::Value* v = d.root().find(key);
  if (!v) {
    ADD_FAILURE() << "no \"" << key << "\" in the JSON";
    return ~uint64_t{0};
  }
  return v->as_uint().value_or(~uint64_t{0});
}

// The JSON's not_compared entries (none, with a failure, when the key is absent).
const std::vector<json::Value>& ccp_not_compared_list(const json::Document& d) {
  static const std::vector<json::Value> kNone;
  const json::Value* v = d.root().find("not_compared");
  if (!v) {
    ADD_FAILURE() << "no \"not_compared\" in the JSON";
    return kNone;
  }
  return v->items();
}

// A field of a compared tensor's object, or a failure.
const json::Value* ccp_field(const json::Value& t, const char* key) {
  const json::Value* v = t.find(key);
  if (!v) ADD_FAILURE() << "no \"" << key << "\" in a tensor's object";
  return v;
}

// A CSV row's cells (quotes kept out, "" inside quotes read as one ").
std::vector<std::string> ccp_csv_cells(const std::string& row) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char ch = row[i];
    if (ch == '"') {
      if (quoted && i + 1 < row.size() && row[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// Whether a tensor of that name is among the compared ones.
bool ccp_compared(const json::Document& d, const std::string& name) {
  for (const json::Value& t : d.root().find("tensors")->items())
    if (t.find("name")->as_string() == name) return true;
  return false;
}

// The not_compared entry of A's `name` (or of B's `name_b` when `name` is empty).
const json::Value* ccp_not_compared(const json::Document& d, const std::string& name,
                                    const std::string& name_b = "") {
  for (const json::Value& n : ccp_not_compared_list(d)) {
    const json::Value* a = n.find("name");
    const json::Value* b = n.find("name_b");
    if (!name.empty() && !a->is_null() && a->as_string() == name) return &n;
    if (name.empty() && a->is_null() && !b->is_null() && b->as_string() == name_b) return &n;
  }
  return nullptr;
}

// A tensor with no element values (complex64) in both checkpoints was only a warning on stderr: it is in the
// JSON's not_compared with its reason, in the console's summary count and NOT COMPARED list, and in the CSV
// and Markdown; compared + not compared + missing + extra account for every tensor.
TEST(CliComparePairing, TensorsNotComparedAreListedCountedAndExported) {
  test::TempDir dir;
  for (const char* side : {"a", "b"})
    write_safetensors(dir / (std::string(side) + ".safetensors"),
                      {{"model.layers.0.mlp.up_proj.weight", DType::F32, {4}, test::f32({1, 2, 3, 4})},
                       {"model.layers.0.mlp.gate_proj.weight", DType::C64, {2}, test::f32({1, 0, 2, 0})},
                       {std::string("only_") + side, DType::F32, {1}, test::f32({1})}});
  const fs::path a = dir / "a.safetensors", b = dir / "b.safetensors";
  const json::Document d = ccp_compare_json(a, b);
  EXPECT_EQ(ccp_count(d, "compared"), 1u);
  const json::Value* n = ccp_not_compared(d, "model.layers.0.mlp.gate_proj.weight");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->find("name_b")->is_null());  // B names it as A does
  EXPECT_EQ(n->find("dtype_a")->as_string(), "c64");
  EXPECT_EQ(n->find("numel")->as_uint(), 2u);
  EXPECT_TRUE(test::contains(n->find("reason")->as_string(), "no defined scalar values"))
      << n->find("reason")->as_string();
  EXPECT_FALSE(ccp_compared(d, "model.layers.0.mlp.gate_proj.weight"));
  const size_t accounted = d.root().find("tensors")->items().size() + ccp_not_compared_list(d).size() +
                           d.root().find("missing_in_b")->items().size() +
                           d.root().find("shape_mismatch")->items().size();
  EXPECT_EQ(accounted, 3u);  // A's three tensors

  const auto console = test::run_cli("compare " + test::quoted(a) + " " + test::quoted(b));
  ASSERT_EQ(console.exit_code, 0) << console.err;
  const std::string summary = ccp_summary_line(console.out);
  EXPECT_TRUE(test::contains(summary, "1 tensors compared")) << summary;
  EXPECT_TRUE(test::contains(summary, ", 1 not compared, 1 missing in B, 1 extra in B")) << summary;
  EXPECT_TRUE(test::contains(console.out, "NOT COMPARED")) << console.out;
  EXPECT_TRUE(test::contains(console.out, "model.layers.0.mlp.gate_proj.weight: ")) << console.out;
  EXPECT_TRUE(test::contains(console.err, "not compared")) << console.err;

  const auto csv = test::run_cli("compare " + test::quoted(a) + " " + test::quoted(b) + " --quiet --csv -");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream rows(csv.out);
  std::string header, row, found;
  std::getline(rows, header);
  while (std::getline(rows, row))
    if (row.rfind("model.layers.0.mlp.gate_proj.weight,", 0) == 0) found = row;
  ASSERT_FALSE(found.empty()) << csv.out;
  const std::vector<std::string> cells = ccp_csv_cells(found), names = ccp_csv_cells(header);
  ASSERT_EQ(cells.size(), names.size()) << found;
  EXPECT_EQ(names.back(), "not_compared");
  EXPECT_TRUE(test::contains(cells.back(), "no defined scalar values")) << found;
  EXPECT_EQ(cells[5], "(2,)");  // shape
  EXPECT_EQ(cells[13], "");     // rel_l2: no figures

  const auto md =
      test::run_cli("compare " + test::quoted(a) + " " + test::quoted(b) + " --quiet --markdown -");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(test::contains(md.out, "Not compared")) << md.out;
  EXPECT_TRUE(test::contains(md.out, "1 not compared")) << md.out;
}

// A .bin whose two layer norms are strided views (every other element of a storage filled with 1000) against
// a GGUF: a view whose elements are not in row-major order is never read as if it were, whether the GGUF's
// names say which norm is which (llama's attn_norm / ffn_norm) or only values could pair them (names the
// pairing does not know); B's norms are then left without a counterpart and listed too.
TEST(CliComparePairing, StridedViewsAtASharedPlaceAreNotReadAsContiguous) {
  if (!test::python_imports("torch"))
    GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)";
  test::TempDir dir;
  const std::vector<float> input = ccp_values(kCcpHidden, 1, 1.0f), post = ccp_values(kCcpHidden, 2, 1.0f),
                           up = ccp_values(2 * kCcpHidden, 3);
  test::write_file(dir / "values.f32", ccp_bytes(input) + ccp_bytes(post) + ccp_bytes(up));
  test::write_file(dir / "write.py", R"(import sys, torch
out, raw, h = sys.argv[1], sys.argv[2], int(sys.argv[3])
v = torch.frombuffer(bytearray(open(raw, "rb").read()), dtype=torch.float32)
sd = {}
for i, name in enumerate(["input_layernorm", "post_attention_layernorm"]):
    big = torch.full((2 * h,), 1000.0)
    big[::2] = v[i * h:(i + 1) * h]
    sd["model.layers.0." + name + ".weight"] = big[::2]
    assert sd["model.layers.0." + name + ".weight"].stride() == (2,)
sd["model.layers.0.mlp.up_proj.weight"] = v[2 * h:].clone().reshape(2, h)
torch.save(sd, out)
)");
  const auto w = test::run_shell(std::string(test::kPython) + " " + test::quoted(dir / "write.py") + " " +
                                 test::quoted(dir / "pytorch_model.bin") + " " +
                                 test::quoted(dir / "values.f32") + " " + std::to_string(kCcpHidden));
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const std::string up_bytes = ccp_bytes(up);
  write_gguf(dir / "named.gguf", ccp_llama_metadata(),
             {{"blk.0.attn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(input)},
              {"blk.0.ffn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(post)},
              {"blk.0.ffn_up.weight", DType::F32, {2, kCcpHidden}, up_bytes}});
  write_gguf(dir / "unnamed.gguf", ccp_llama_metadata(),
             {{"blk.0.attn_sub_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(input)},
              {"blk.0.ffn_sub_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(post)},
              {"blk.0.ffn_up.weight", DType::F32, {2, kCcpHidden}, up_bytes}});
  for (const char* gguf : {"named.gguf", "unnamed.gguf"}) {
    SCOPED_TRACE(gguf);
    const json::Document d = ccp_compare_json(dir / "pytorch_model.bin", dir / gguf);
    ASSERT_TRUE(ccp_compared(d, "model.layers.0.mlp.up_proj.weight"));
    EXPECT_EQ(test::tensor(d, "model.layers.0.mlp.up_proj.weight").find("rel_l2")->as_double(), 0.0);
    for (const json::Value& t : d.root().find("tensors")->items())
      EXPECT_LT(t.find("mean_a")->as_double(), 100.0) << t.find("name")->as_string();  // no filler read
    for (const char* norm :
         {"model.layers.0.input_layernorm.weight", "model.layers.0.post_attention_layernorm.weight"}) {
      EXPECT_FALSE(ccp_compared(d, norm)) << norm;
      const json::Value* n = ccp_not_compared(d, norm);
      ASSERT_NE(n, nullptr) << norm;
      EXPECT_TRUE(test::contains(n->find("reason")->as_string(), "not in row-major order"))
          << n->find("reason")->as_string();
    }
    if (std::string(gguf) == "named.gguf") {
      const json::Value* first = ccp_not_compared(d, "model.layers.0.input_layernorm.weight");
      ASSERT_NE(first, nullptr);
      EXPECT_EQ(first->find("name_b")->as_string(), "blk.0.attn_norm.weight");
      EXPECT_EQ(ccp_not_compared_list(d).size(), 2u);
    } else {
      EXPECT_NE(ccp_not_compared(d, "", "blk.0.attn_sub_norm.weight"), nullptr);
      EXPECT_NE(ccp_not_compared(d, "", "blk.0.ffn_sub_norm.weight"), nullptr);
      EXPECT_EQ(ccp_not_compared_list(d).size(), 4u);
      EXPECT_EQ(ccp_count(d, "paired_by_values"), 0u);
    }
  }
}

// A llama GGUF whose converter swapped a layer's two norms and did not permute q/k: the norms pair by their
// GGUF names and show the swap; q and k are read in the order llama.cpp expects and flagged by rotary_order,
// with the error of the other order beside it, in the console and the JSON.
TEST(CliComparePairing, SwappedNormsAndUnpermutedQkShowInConsoleAndJson) {
  test::TempDir dir;
  const Shape qs{kCcpHeads * kCcpHeadDim, kCcpHidden}, ks{kCcpKvHeads * kCcpHeadDim, kCcpHidden};
  const std::vector<float> input = ccp_values(kCcpHidden, 1, 1.0f), post = ccp_values(kCcpHidden, 2, 1.0f),
                           q = ccp_values(numel(qs), 5), k = ccp_values(numel(ks), 6);
  write_safetensors(
      dir / "model.safetensors",
      {{"model.layers.0.input_layernorm.weight", DType::F32, {kCcpHidden}, ccp_bytes(input)},
       {"model.layers.0.self_attn.q_proj.weight", DType::F32, qs, ccp_bytes(q)},
       {"model.layers.0.self_attn.k_proj.weight", DType::F32, ks, ccp_bytes(k)},
       {"model.layers.0.post_attention_layernorm.weight", DType::F32, {kCcpHidden}, ccp_bytes(post)}});
  write_gguf(dir / "broken.gguf", ccp_llama_metadata(),
             {{"blk.0.attn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(post)},
              {"blk.0.attn_q.weight", DType::F32, qs, ccp_bytes(q)},
              {"blk.0.attn_k.weight", DType::F32, ks, ccp_bytes(k)},
              {"blk.0.ffn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(input)}});
  write_gguf(dir / "good.gguf", ccp_llama_metadata(),
             {{"blk.0.attn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(input)},
              {"blk.0.attn_q.weight", DType::F32, qs, ccp_bytes(ccp_rotary_rows(q, qs[0], qs[1]))},
              {"blk.0.attn_k.weight", DType::F32, ks, ccp_bytes(ccp_rotary_rows(k, ks[0], ks[1]))},
              {"blk.0.ffn_norm.weight", DType::F32, {kCcpHidden}, ccp_bytes(post)}});
  const fs::path a = dir / "model.safetensors";

  const json::Document good = ccp_compare_json(a, dir / "good.gguf");
  EXPECT_EQ(ccp_count(good, "flagged"), 0u);
  EXPECT_EQ(ccp_count(good, "rotary_order_mismatch"), 0u);
  EXPECT_EQ(ccp_count(good, "rotary_reordered"), 2u);
  EXPECT_EQ(ccp_count(good, "paired_by_names"), 2u);
  for (const json::Value& t : good.root().find("tensors")->items())
    EXPECT_EQ(t.find("rel_l2")->as_double(), 0.0) << t.find("name")->as_string();

  const json::Document d = ccp_compare_json(a, dir / "broken.gguf");
  EXPECT_EQ(ccp_count(d, "paired_by_names"), 2u);
  EXPECT_EQ(ccp_count(d, "paired_by_values"), 0u);
  EXPECT_EQ(ccp_count(d, "rotary_order_mismatch"), 2u);
  const json::Value& in = test::tensor(d, "model.layers.0.input_layernorm.weight");
  EXPECT_EQ(in.find("name_b")->as_string(), "blk.0.attn_norm.weight");
  EXPECT_GT(in.find("rel_l2")->as_double(), 0.1);
  for (const char* name :
       {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight"}) {
    SCOPED_TRACE(name);
    const json::Value& t = test::tensor(d, name);
    EXPECT_GT(t.find("rel_l2")->as_double(), 1.0);
    const json::Value *order = ccp_field(t, "rotary_order"),
                      *mismatch = ccp_field(t, "rotary_order_mismatch"),
                      *other = ccp_field(t, "rel_l2_other_order");
    ASSERT_TRUE(order && mismatch && other);
    EXPECT_EQ(order->as_string(), "rotary");
    EXPECT_TRUE(mismatch->as_bool());
    EXPECT_EQ(other->as_double(), 0.0);
    bool rotary_rule = false;
    for (const json::Value& r : t.find("flagged_by")->items()) rotary_rule |= r.as_string() == "rotary_order";
    EXPECT_TRUE(rotary_rule);
  }

  const auto console = test::run_cli("compare " + test::quoted(a) + " " + test::quoted(dir / "broken.gguf"));
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_TRUE(test::contains(console.out, "ROTARY ORDER MISMATCH")) << console.out;
  EXPECT_TRUE(test::contains(console.out, "model.layers.0.self_attn.q_proj.weight -> blk.0.attn_q.weight: "))
      << console.out;
  EXPECT_TRUE(test::contains(console.out, "rotary_order")) << console.out;
  EXPECT_TRUE(test::contains(console.out, "2 paired by GGUF name, 0 by likeness")) << console.out;
  EXPECT_TRUE(test::contains(console.out, "(2 fit the other row order better")) << console.out;
}

}  // namespace
}  // namespace ma
