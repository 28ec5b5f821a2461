// A tied LM head in a PyTorch checkpoint, written by torch.save itself (Debian's python3-torch): a Llama
// config with tie_word_embeddings true, whose state dict holds lm_head.weight as the embedding's own tensor
// (one storage, the same view), in either order, or as a copy with bytes of its own. The tie is the
// template's tied tensor, as the same model's safetensors (which leave the head out) lists it: a parameter
// with 0 parameters and bytes, so the tensors add up to num_parameters and nothing is an extra. A copy with
// its own bytes (Falcon-180B's lm_head) stays an extra: transformers ties the head and does not load it.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "cli_test_support.h"
#include "core/dtype.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kTiedPickleHidden = 16, kTiedPickleFfn = 32, kTiedPickleVocab = 10;

// One decoder layer and the embedding, norm and head, as transformers' LlamaForCausalLM names them.
const char* const kTiedPickleConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
  "num_key_value_heads": 2, "vocab_size": 10, "max_position_embeddings": 64, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": true, "torch_dtype": "float32", "hidden_act": "silu"})";

// Writes DIR/<case>/pytorch_model.bin for each case with torch.save: "tied" (the head is the embedding's
// tensor, saved after it, as transformers' state_dict orders them), "head-first" (the same tie, the head
// saved first) and "own-head" (the head a copy with its own storage).
const char* const kTiedPickleScript = R"(import os, sys
import torch
H, I, V = 16, 32, 10
torch.manual_seed(0)
layer = [("model.layers.0.self_attn.q_proj.weight", (H, H)), ("model.layers.0.self_attn.k_proj.weight", (H, H)),
         ("model.layers.0.self_attn.v_proj.weight", (H, H)), ("model.layers.0.self_attn.o_proj.weight", (H, H)),
         ("model.layers.0.mlp.gate_proj.weight", (I, H)), ("model.layers.0.mlp.up_proj.weight", (I, H)),
         ("model.layers.0.mlp.down_proj.weight", (H, I)), ("model.layers.0.input_layernorm.weight", (H,)),
         ("model.layers.0.post_attention_layernorm.weight", (H,))]
for case, head_first, own in [("tied", False, False), ("head-first", True, False), ("own-head", False, True)]:
    emb = torch.randn(V, H)
    head = emb.clone() if own else emb
    sd = {}
    if head_first:
        sd["lm_head.weight"] = head
    sd["model.embed_tokens.weight"] = emb
    for name, shape in layer:
        sd[name] = torch.randn(*shape)
    sd["model.norm.weight"] = torch.ones(H)
    if not head_first:
        sd["lm_head.weight"] = head
    os.makedirs(os.path.join(sys.argv[1], case), exist_ok=True)
    torch.save(sd, os.path.join(sys.argv[1], case, "pytorch_model.bin"))
)";

// The model's parameters, the head tied: embedding + q, k, v, o + gate, up, down + three norms.
constexpr uint64_t kTiedPickleParameters = kTiedPickleVocab * kTiedPickleHidden +
                                           4 * kTiedPickleHidden * kTiedPickleHidden +
                                           3 * kTiedPickleFfn * kTiedPickleHidden + 3 * kTiedPickleHidden;

// The three cases under `dir`, each with its config.json; false (the test skips) without python3-torch.
bool write_tied_pickles(const test::TempDir& dir) {
  if (!test::python_imports("torch")) return false;
  test::write_file(dir / "write.py", kTiedPickleScript);
  const auto w = test::run_shell(std::string(test::kPython) + " " + test::quoted(dir / "write.py") + " " +
                                 test::quoted(dir.path()));
  EXPECT_EQ(w.exit_code, 0) << w.err;
  for (const char* c : {"tied", "head-first", "own-head"}) {
    fs::create_directories(dir / c);
    test::write_file(dir / c / "config.json", kTiedPickleConfig);
  }
  return true;
}
#define TIED_PICKLES_OR_SKIP(dir) \
  if (!write_tied_pickles(dir))   \
  GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)"

// The same model as safetensors: every tensor but the tied head, which the file leaves out.
void write_tied_pickle_twin(const fs::path& dir) {
  const uint64_t h = kTiedPickleHidden, i = kTiedPickleFfn;
  std::vector<TensorToWrite> t;
  auto add = [&](const std::string& name, Shape shape) {
    t.push_back({name, DType::F32, shape, std::string(numel(shape) * 4, '\1')});
  };
  add("model.embed_tokens.weight", {kTiedPickleVocab, h});
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
    add(std::string("model.layers.0.self_attn.") + p + ".weight", {h, h});
  add("model.layers.0.mlp.gate_proj.weight", {i, h});
  add("model.layers.0.mlp.up_proj.weight", {i, h});
  add("model.layers.0.mlp.down_proj.weight", {h, i});
  add("model.layers.0.input_layernorm.weight", {h});
  add("model.layers.0.post_attention_layernorm.weight", {h});
  add("model.norm.weight", {h});
  fs::create_directories(dir);
  write_safetensors(dir / "model.safetensors", t);
  test::write_file(dir / "config.json", kTiedPickleConfig);
}

json::Document tied_pickle_tensors(const fs::path& model) {
  const auto r = test::run_cli("tensors " + test::quoted(model) + " --json --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "stdout");
}

uint64_t tied_pickle_uint(const json::Value& v, std::string_view key) {
  const json::Value* f = v.find(key);
  EXPECT_NE(f, nullptr) << key;
  return f && f->as_uint() ? *f->as_uint() : ~uint64_t{0};
}

// The rows' parameters add up to the model's, which the checkpoint's parameters are; nothing is an extra.
void expect_tied_pickle_adds_up(const json::Document& d) {
  uint64_t rows = 0;
  for (const json::Value& t : d.root().find("tensors")->items()) rows += tied_pickle_uint(t, "parameters");
  const json::Value& ck = *d.root().find("checkpoint");
  EXPECT_EQ(tied_pickle_uint(*d.root().find("parameters"), "total"), kTiedPickleParameters);
  EXPECT_EQ(rows, kTiedPickleParameters);
  EXPECT_EQ(tied_pickle_uint(ck, "parameters"), kTiedPickleParameters);
  EXPECT_EQ(tied_pickle_uint(ck, "extras"), 0u);
  EXPECT_EQ(tied_pickle_uint(ck, "extra_elements"), 0u);
  EXPECT_EQ(tied_pickle_uint(ck, "bytes"), kTiedPickleParameters * 4);  // the shared storage once
}

// The head saved after the embedding (transformers' order): the second name of one tensor, listed as the
// safetensors twin lists the head it leaves out, but stored.
TEST(CliTiedPickle, ASecondNameOfTheEmbeddingIsTheTemplatesTiedHead) {
  test::TempDir tmp;
  TIED_PICKLES_OR_SKIP(tmp);
  const json::Document d = tied_pickle_tensors(tmp / "tied");
  expect_tied_pickle_adds_up(d);
  const json::Value& head = test::tensor(d, "lm_head.weight");
  EXPECT_EQ(head.find("kind")->as_string(), "parameter");
  EXPECT_EQ(tied_pickle_uint(head, "parameters"), 0u);
  EXPECT_EQ(tied_pickle_uint(head, "bytes"), 0u);
  EXPECT_EQ(head.find("tied_to")->as_string(), "model.embed_tokens.weight");
  EXPECT_TRUE(head.find("stored")->as_bool());

  write_tied_pickle_twin(tmp / "st");
  const json::Document st = tied_pickle_tensors(tmp / "st");
  expect_tied_pickle_adds_up(st);
  const json::Value& st_head = test::tensor(st, "lm_head.weight");
  for (const char* key : {"kind", "tied_to", "block", "role"})
    EXPECT_EQ(head.find(key)->as_string(), st_head.find(key)->as_string()) << key;
  EXPECT_EQ(tied_pickle_uint(st_head, "parameters"), 0u);
  EXPECT_FALSE(st_head.find("stored")->as_bool());

  // compare: the tie's second name is neither missing nor extra (it said "extra_in_b: lm_head.weight"): not
  // compared, its values being the embedding's, compared under that name.
  const auto cmp = test::run_cli("compare " + test::quoted(tmp / "st") + " " + test::quoted(tmp / "tied") +
                                 " --json --quiet");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const json::Document c = json::Document::parse(cmp.out, "compare");
  EXPECT_TRUE(c.root().find("extra_in_b")->items().empty()) << cmp.out;
  bool noted = false;
  for (const json::Value& n : c.root().find("not_compared")->items())
    noted = noted || (n.find("name_b")->is_string() && n.find("name_b")->as_string() == "lm_head.weight" &&
                      test::contains(n.find("reason")->as_string(), "model.embed_tokens.weight"));
  EXPECT_TRUE(noted) << cmp.out;
}

// The same tie saved head first: the head holds the storage (its bytes count at the first name), the
// embedding repeats it, and still the embedding carries the parameters and the head is the tied parameter.
TEST(CliTiedPickle, ATieSavedHeadFirstIsStillTheTemplatesTiedHead) {
  test::TempDir tmp;
  TIED_PICKLES_OR_SKIP(tmp);
  const json::Document d = tied_pickle_tensors(tmp / "head-first");
  expect_tied_pickle_adds_up(d);
  const json::Value& head = test::tensor(d, "lm_head.weight");
  EXPECT_EQ(head.find("kind")->as_string(), "parameter");
  EXPECT_EQ(tied_pickle_uint(head, "parameters"), 0u);
  EXPECT_EQ(tied_pickle_uint(head, "bytes"), kTiedPickleVocab * kTiedPickleHidden * 4);
  EXPECT_EQ(head.find("tied_to")->as_string(), "model.embed_tokens.weight");
  const json::Value& embedding = test::tensor(d, "model.embed_tokens.weight");
  EXPECT_EQ(tied_pickle_uint(embedding, "parameters"), kTiedPickleVocab * kTiedPickleHidden);
  EXPECT_EQ(tied_pickle_uint(embedding, "bytes"), 0u);
  EXPECT_TRUE(embedding.find("tied_to")->is_null());
}

// A head stored with bytes of its own beside the embedding it is tied to (as Falcon-180B's checkpoint does):
// an extra, its elements the file's and not the model's, which transformers ties and does not load.
TEST(CliTiedPickle, AHeadWithItsOwnBytesStaysAnExtra) {
  test::TempDir tmp;
  TIED_PICKLES_OR_SKIP(tmp);
  const json::Document d = tied_pickle_tensors(tmp / "own-head");
  const uint64_t head_elements = kTiedPickleVocab * kTiedPickleHidden;
  EXPECT_EQ(tied_pickle_uint(*d.root().find("parameters"), "total"), kTiedPickleParameters);
  const json::Value& ck = *d.root().find("checkpoint");
  EXPECT_EQ(tied_pickle_uint(ck, "parameters"), kTiedPickleParameters);
  EXPECT_EQ(tied_pickle_uint(ck, "extras"), 1u);
  EXPECT_EQ(tied_pickle_uint(ck, "extra_elements"), head_elements);
  const json::Value& head = test::tensor(d, "lm_head.weight");
  EXPECT_EQ(head.find("kind")->as_string(), "extra");
  EXPECT_EQ(tied_pickle_uint(head, "parameters"), head_elements);
  EXPECT_EQ(tied_pickle_uint(head, "bytes"), head_elements * 4);
  EXPECT_EQ(head.find("tied_to")->as_string(), "model.embed_tokens.weight");
}

}  // namespace
}  // namespace ma
