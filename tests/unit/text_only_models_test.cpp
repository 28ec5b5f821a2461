// Language models that also ship inside a vision-language model, configured alone (gemma4_text, llama4_text,
// qwen3_5_text, qwen3_5_moe_text, persimmon: their *ForCausalLM classes, what text-only fine-tunes save).
// Built from the text_config of a composite in ../shared/data, each must hold exactly the parameters
// transformers built for that composite's language model (the oracle's list), moved to model.* and
// lm_head.weight: nothing of the tower, nothing missing, every shape equal.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

using Shapes = std::map<std::string, Shape>;

struct Sibling {
  const char* model;      // directory under hf-configs/ and oracle/
  const char* text_type;  // the model_type its text_config builds alone
  const char* language;   // where the composite keeps its language model
  const char* composite_head;
};

constexpr Sibling kSiblings[] = {
    {"google__gemma-4-31B-it", "gemma4_text", "model.language_model.", "lm_head.weight"},
    {"google__gemma-4-26B-A4B", "gemma4_text", "model.language_model.", "lm_head.weight"},
    {"meta-llama__Llama-4-Scout-17B-16E-Instruct", "llama4_text", "language_model.model.",
     "language_model.lm_head.weight"},
    {"Qwen__Qwen3.5-27B", "qwen3_5_text", "model.language_model.", "lm_head.weight"},
    {"Qwen__Qwen3.5-35B-A3B", "qwen3_5_moe_text", "model.language_model.", "lm_head.weight"},
    {"adept__fuyu-8b", "persimmon", "model.language_model.", "lm_head.weight"},
};

// The oracle's parameters of the composite's language model and head, under the text-only class's names.
Shapes oracle_language_model(const json::Document& oracle, const Sibling& s) {
  Shapes out;
  for (const json::Value& p : oracle.root().find("params")->items()) {
    const std::string name(p.items()[0].as_string());
    Shape shape;
    for (const json::Value& d : p.items()[1].items()) shape.push_back(*d.as_uint());
    if (name.starts_with(s.language))
      out["model." + name.substr(std::string(s.language).size())] = shape;
    else if (name == s.composite_head)
      out["lm_head.weight"] = shape;
  }
  return out;
}

Shapes parameters_of_template(const ModelTemplate& t) {
  Shapes out;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Parameter && x.tied_to.empty()) out[x.name] = x.shape;
  return out;
}

TEST(TextOnlyModels, AreTheCompositesLanguageModelExactly) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not available";
  for (const Sibling& s : kSiblings) {
    SCOPED_TRACE(s.model);
    const ModelConfig root =
        ModelConfig::parse(read_file(*data / "hf-configs" / s.model / "config.json"), "config.json");
    const std::optional<ModelConfig> text = root.sub("text_config");
    ASSERT_TRUE(text);
    ASSERT_EQ(text->string_or("model_type", ""), s.text_type);
    const ModelTemplate t = build_template(*text);
    const Shapes expected =
        oracle_language_model(parse_json_file(*data / "oracle" / (std::string(s.model) + ".json")), s);
    ASSERT_GT(expected.size(), 100u);
    const Shapes built = parameters_of_template(t);
    EXPECT_EQ(built.size(), expected.size());
    for (const auto& [name, shape] : expected) {
      const auto it = built.find(name);
      if (it == built.end())
        ADD_FAILURE() << "missing " << name;
      else
        EXPECT_EQ(it->second, shape) << name;
    }
    for (const auto& [name, shape] : built)
      if (!expected.count(name)) ADD_FAILURE() << "not in transformers' language model: " << name;
  }
}

// The classes, as config.json names them, and the head each ties by default.
TEST(TextOnlyModels, NameTheirCausalLmClasses) {
  EXPECT_EQ(template_of(R"({"model_type":"gemma4_text"})").arch.architecture, "Gemma4ForCausalLM");
  EXPECT_EQ(template_of(R"({"model_type":"llama4_text"})").arch.architecture, "Llama4ForCausalLM");
  EXPECT_EQ(template_of(R"({"model_type":"qwen3_5_text"})").arch.architecture, "Qwen3_5ForCausalLM");
  EXPECT_EQ(template_of(R"({"model_type":"qwen3_5_moe_text"})").arch.architecture, "Qwen3_5MoeForCausalLM");
  EXPECT_EQ(template_of(R"({"model_type":"persimmon"})").arch.architecture, "PersimmonForCausalLM");
  EXPECT_TRUE(template_of(R"({"model_type":"gemma4_text"})").arch.tie_word_embeddings);
  EXPECT_FALSE(template_of(R"({"model_type":"llama4_text"})").arch.tie_word_embeddings);
  // Qwen3.5's checkpoints keep a multi-token-prediction layer transformers does not load: a known extra.
  const ModelTemplate q = template_of(R"({"model_type":"qwen3_5_text"})");
  ASSERT_EQ(q.known_extras.size(), 1u);
  EXPECT_EQ(q.known_extras[0].prefix, "mtp.");
  EXPECT_EQ(find_tensor(q, "model.visual.patch_embed.proj.weight"), nullptr);
}

}  // namespace
}  // namespace ma::test
