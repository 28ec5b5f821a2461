// Identification: family (family table), organization, kind and training objective of real configs, expected
// values written from the model names and their configs (not from our output).
#include "analysis/identity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "model/family_table.h"
#include "report_test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

struct Expected {
  const char* dir;
  const char* family;
  const char* organization;
  const char* kind;
  const char* objective;
};

// Why each row expects what it does:
//  - objective "chat"/"instruct" from the id word (-chat, -Instruct, -it); Qwen3-30B-A3B has no id marker but
//    its tokenizer_config.json carries a chat template -> instruct; "-Base" ids (and "-base" as a size word:
//    bert-base) -> base; ids without a marker and without a template -> unknown (DeepSeek-V3 is the chat
//    model, Nemotron-3-Nano is instruction-tuned: silence proves nothing).
//  - kind: class suffix (ForCausalLM / LMHeadModel / ForMaskedLM / ForImageClassification), vision_config or
//    another vision tower key -> vision-language (LLaVA-1.5's LlavaLlamaForCausalLM has mm_vision_tower),
//    T5/BART ForConditionalGeneration -> seq2seq, Whisper -> speech.
//  - ChatGLM, Baichuan, InternLM2, Qwen (v1), MiniCPM-V and Falcon-40B ("RefinedWeb") need their own remote
//    code (their templates are derived by hand): they are identified from the config alone.
const Expected kCases[] = {
    {"openai-community__gpt2", "GPT-2", "OpenAI", "causal-lm", "unknown"},
    {"distilbert__distilgpt2", "GPT-2", "OpenAI", "causal-lm", "unknown"},  // no model_type: GPT2LMHeadModel
    {"EleutherAI__gpt-j-6b", "GPT-J", "EleutherAI", "causal-lm", "unknown"},
    {"togethercomputer__RedPajama-INCITE-7B-Base", "GPT-NeoX", "EleutherAI", "causal-lm", "base"},
    {"huggyllama__llama-7b", "LLaMA", "Meta", "causal-lm", "unknown"},
    {"meta-llama__Llama-2-7b-chat-hf", "LLaMA 2", "Meta", "causal-lm", "chat"},
    {"meta-llama__Meta-Llama-3.1-8B", "LLaMA 3", "Meta", "causal-lm", "unknown"},
    {"meta-llama__Llama-3.2-3B-Instruct", "LLaMA 3", "Meta", "causal-lm", "instruct"},
    {"meta-llama__Llama-4-Scout-17B-16E-Instruct", "LLaMA 4", "Meta", "vision-language", "instruct"},
    {"mistralai__Mistral-7B-Instruct-v0.2", "Mistral", "Mistral AI", "causal-lm", "instruct"},
    {"mistralai__Mixtral-8x7B-v0.1", "Mixtral", "Mistral AI", "causal-lm", "unknown"},
    {"Qwen__Qwen-7B-Chat", "Qwen", "Alibaba Qwen", "causal-lm", "chat"},
    {"Qwen__Qwen2.5-7B", "Qwen2.5", "Alibaba Qwen", "causal-lm", "unknown"},
    {"Qwen__Qwen3-30B-A3B", "Qwen3-MoE", "Alibaba Qwen", "causal-lm", "instruct"},
    {"Qwen__Qwen3-VL-8B-Instruct", "Qwen3-VL", "Alibaba Qwen", "vision-language", "instruct"},
    {"microsoft__phi-2", "Phi", "Microsoft", "causal-lm", "unknown"},
    {"microsoft__Phi-3-mini-128k-instruct", "Phi-3", "Microsoft", "causal-lm", "instruct"},
    {"google__gemma-2b-it", "Gemma", "Google", "causal-lm", "instruct"},
    {"google__medgemma-27b-it", "Gemma 3", "Google", "vision-language", "instruct"},
    {"tiiuae__falcon-40b", "Falcon", "TII", "causal-lm", "unknown"},
    {"tiiuae__falcon-180B-chat", "Falcon", "TII", "causal-lm", "chat"},
    {"bigscience__bloom-560m", "BLOOM", "BigScience", "causal-lm", "unknown"},
    {"facebook__opt-125m", "OPT", "Meta", "causal-lm", "unknown"},
    {"google-bert__bert-base-uncased", "BERT", "Google", "masked-lm", "base"},
    {"FacebookAI__roberta-large", "RoBERTa", "Meta", "masked-lm", "unknown"},
    {"google-t5__t5-base", "T5", "Google", "seq2seq", "base"},
    {"facebook__bart-large-cnn", "BART", "Meta", "seq2seq", "unknown"},
    {"google__vit-base-patch16-224", "ViT", "Google", "vision", "base"},
    {"openai__whisper-base", "Whisper", "OpenAI", "speech", "base"},
    {"deepseek-ai__DeepSeek-V3", "DeepSeek-V3", "DeepSeek", "causal-lm", "unknown"},
    {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "Nemotron-H", "NVIDIA", "causal-lm", "unknown"},
    {"ibm-granite__granite-3b-code-instruct-128k", "Granite", "IBM", "causal-lm", "instruct"},
    {"liuhaotian__llava-v1.5-7b", "LLaVA", "LLaVA project", "vision-language", "unknown"},
    {"THUDM__chatglm2-6b", "ChatGLM", "Zhipu AI", "causal-lm", "unknown"},
    {"baichuan-inc__Baichuan2-13B-Chat", "Baichuan", "Baichuan Inc.", "causal-lm", "chat"},
    {"internlm__internlm2-chat-7b", "InternLM2", "Shanghai AI Laboratory", "causal-lm", "chat"},
    {"openbmb__MiniCPM-V-2", "MiniCPM-V", "OpenBMB", "vision-language", "unknown"},
    {"XiaomiMiMo__MiMo-7B-Base", "MiMo", "Xiaomi", "causal-lm", "base"},
};

class IdentityRealConfigs : public ::testing::TestWithParam<Expected> {};

TEST_P(IdentityRealConfigs, MatchesTheModel) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  const Expected& e = GetParam();
  auto m = test::load_model(*data / "hf-configs" / e.dir);
  Identity id = identify(m->inputs());
  EXPECT_EQ(id.family, e.family) << id.family_evidence;
  EXPECT_EQ(id.organization, e.organization);
  EXPECT_EQ(id.kind, e.kind) << id.kind_evidence;
  EXPECT_EQ(id.training_objective, e.objective) << id.objective_evidence;
  EXPECT_FALSE(id.family_evidence.empty());
  EXPECT_FALSE(id.objective_evidence.empty());
  EXPECT_EQ(id.model_id, (*data / "hf-configs" / e.dir).string());
}

INSTANTIATE_TEST_SUITE_P(HfConfigs, IdentityRealConfigs, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Expected>& p) {
                           std::string n = p.param.dir;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(IdentityDetails, ClassAndModelTypeComeFromTheConfig) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  auto qwen_vl = test::load_model(*data / "hf-configs" / "Qwen__Qwen3-VL-8B-Instruct");
  Identity id = identify(qwen_vl->inputs());
  EXPECT_EQ(id.model_type, "qwen3_vl") << "the top-level model_type, not text_config's qwen3_vl_text";
  EXPECT_EQ(id.architecture_class, "Qwen3VLForConditionalGeneration");
  EXPECT_NE(id.kind_evidence.find("vision_config"), std::string::npos) << id.kind_evidence;

  auto llama3 = test::load_model(*data / "hf-configs" / "meta-llama__Meta-Llama-3.1-8B");
  id = identify(llama3->inputs());
  EXPECT_NE(id.family_evidence.find("model_type 'llama'"), std::string::npos) << id.family_evidence;
  EXPECT_NE(id.family_evidence.find("'llama-3'"), std::string::npos) << id.family_evidence;
}

TEST(IdentityDetails, ChatTemplateEvidence) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  // Qwen3-30B-A3B: no id marker, a chat template in tokenizer_config.json.
  auto m = test::load_model(*data / "hf-configs" / "Qwen__Qwen3-30B-A3B");
  ASSERT_TRUE(m->tokenizer && m->tokenizer->has_chat_template);
  Identity id = identify(m->inputs());
  EXPECT_NE(id.objective_evidence.find("chat template"), std::string::npos) << id.objective_evidence;
  // The same model with --skip-tokenizer: no template evidence, and the evidence says so.
  m->tokenizer.reset();
  id = identify(m->inputs());
  EXPECT_EQ(id.training_objective, "unknown");
  EXPECT_NE(id.objective_evidence.find("no tokenizer"), std::string::npos) << id.objective_evidence;
}

TEST(IdentityDetails, ObjectiveFromIdWordsAndTemplate) {
  const char* cfg = R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})";
  struct Case {
    const char* id;
    bool chat_template;
    const char* objective;
  };
  for (const Case& c :
       {Case{"org/Model-7B", false, "unknown"}, Case{"org/Model-7B", true, "instruct"},
        Case{"org/Model-7B-Base", true, "base"}, Case{"org/Model-7B-Chat", false, "chat"},
        Case{"org/model-7b-it", false, "instruct"}, Case{"org/Model-7B-Instruct@main", true, "instruct"},
        Case{"/models/Model-7B-chat/config.json", false, "chat"},
        // "it" inside a word is not the -it marker; "chat" inside "chatglm" is not -chat.
        Case{"org/Kitten-7B", false, "unknown"}, Case{"THUDM/chatglm3-6b", false, "unknown"}}) {
    auto m = test::config_only(cfg, c.id);
    m->tokenizer = TokenizerInfo{};
    m->tokenizer->has_chat_template = c.chat_template;
    Identity id = identify(m->inputs());
    EXPECT_EQ(id.training_objective, c.objective) << c.id << ": " << id.objective_evidence;
  }
}

TEST(IdentityDetails, ModelNameFromId) {
  EXPECT_EQ(model_name_from_id("meta-llama/Llama-2-7b-chat-hf@main"), "Llama-2-7b-chat-hf");
  EXPECT_EQ(model_name_from_id("/data/gemma-2b-it/"), "gemma-2b-it");
  EXPECT_EQ(model_name_from_id("/data/gemma-2b-it/config.json"), "gemma-2b-it config");
  EXPECT_EQ(model_name_from_id("Llama-3-8B-Instruct.Q4_K_M.gguf"), "Llama-3-8B-Instruct.Q4_K_M.gguf");
  EXPECT_EQ(model_name_from_id("gpt2"), "gpt2");
  EXPECT_EQ(model_name_from_id(""), "");
}

TEST(IdentityDetails, UnknownAndHostileConfigsNeverThrow) {
  // A model_type no row covers, with no id hint: unknown, and the evidence names the model_type.
  auto m =
      test::config_only(R"({"model_type": "frobnitz", "architectures": ["FrobnitzForCausalLM"]})", "x/y");
  Identity id = identify(m->inputs());
  EXPECT_EQ(id.family, "unknown");
  EXPECT_EQ(id.kind, "causal-lm") << "the class suffix still says what it is";
  EXPECT_NE(id.family_evidence.find("frobnitz"), std::string::npos);
  // Wrong types for model_type / architectures are treated as absent; the id decides.
  m = test::config_only(R"({"model_type": 7, "architectures": [1, 2]})", "someone/mistral-finetune");
  id = identify(m->inputs());
  EXPECT_EQ(id.family, "Mistral");
  EXPECT_EQ(id.model_type, "");
  // Nothing at all.
  m = test::config_only("{}", "");
  id = identify(m->inputs());
  EXPECT_EQ(id.family, "unknown");
  EXPECT_EQ(id.kind, "unknown");
}

// Bare weights (no config.json): families with distinctive tensor names are recognized from the headers.
TEST(IdentityDetails, BareWeightsFromTensorNames) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  auto bare = [&](const char* fixture, const std::string& dir_name) {
    test::TempDir tmp;
    fs::path dir = tmp / dir_name;
    fs::create_directories(dir);
    fs::copy_file(*data / "fixtures" / fixture / "model.safetensors", dir / "model.safetensors");
    auto m = test::load_model(dir);
    EXPECT_FALSE(m->inventory.config);
    return identify(m->inputs());
  };
  Identity bert = bare("tiny-bert", "weights");
  EXPECT_EQ(bert.family, "BERT") << bert.family_evidence;
  EXPECT_EQ(bert.kind, "masked-lm");
  EXPECT_NE(bert.family_evidence.find("tensor names"), std::string::npos);
  Identity mixtral = bare("tiny-mixtral", "weights");
  EXPECT_EQ(mixtral.family, "Mixtral") << mixtral.family_evidence;
  // GPT-2 and StarCoder (GPT-BigCode) store the same tensor names: ambiguous without a hint...
  Identity gpt2 = bare("tiny-gpt2", "weights");
  EXPECT_EQ(gpt2.family, "unknown");
  EXPECT_NE(gpt2.family_evidence.find("GPT-2"), std::string::npos) << gpt2.family_evidence;
  EXPECT_NE(gpt2.family_evidence.find("StarCoder"), std::string::npos) << gpt2.family_evidence;
  // ...and settled by the model id.
  Identity named = bare("tiny-gpt2", "my-gpt2-copy");
  EXPECT_EQ(named.family, "GPT-2") << named.family_evidence;
}

TEST(FamilyTable, CoversEveryReferenceModelType) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  std::set<std::string> missing;
  for (const char* sub : {"hf-configs", "synthetic-configs", "fixtures"})
    for (const auto& e : fs::directory_iterator(*data / sub)) {
      fs::path cfg = e.path() / "config.json";
      if (!fs::exists(cfg)) continue;
      // ModelConfig::parse accepts the NaN / Infinity that Python writes into some configs.
      ModelConfig root = ModelConfig::parse(test::read_file(cfg), cfg.string());
      const json::Value* text = root.raw("text_config");
      for (const json::Value* mt : {root.raw("model_type"), text ? text->find("model_type") : nullptr}) {
        if (mt && mt->is_string() && families_for_model_type(mt->as_string()).empty())
          missing.insert(std::string(mt->as_string()) + " (" + e.path().filename().string() + ")");
      }
    }
  std::string list;
  for (const auto& s : missing) list += s + "\n";
  // persimmon is Fuyu's text_config; it has its own row too, so nothing may be missing.
  EXPECT_TRUE(missing.empty()) << list;
}

TEST(FamilyTable, SeedFamiliesAndArchitecturesResolve) {
  // Seed 002 appendix A: architecture class -> family.
  const std::pair<const char*, const char*> appendix_a[] = {{"GPT2LMHeadModel", "GPT-2"},
                                                            {"GPTJForCausalLM", "GPT-J"},
                                                            {"GPTNeoXForCausalLM", "GPT-NeoX"},
                                                            {"LlamaForCausalLM", "LLaMA"},
                                                            {"MistralForCausalLM", "Mistral"},
                                                            {"MixtralForCausalLM", "Mixtral"},
                                                            {"Qwen2ForCausalLM", "Qwen2"},
                                                            {"PhiForCausalLM", "Phi"},
                                                            {"GemmaForCausalLM", "Gemma"},
                                                            {"FalconForCausalLM", "Falcon"},
                                                            {"MPTForCausalLM", "MPT"},
                                                            {"BloomForCausalLM", "BLOOM"},
                                                            {"OPTForCausalLM", "OPT"},
                                                            {"BertForMaskedLM", "BERT"},
                                                            {"RobertaForMaskedLM", "RoBERTa"},
                                                            {"T5ForConditionalGeneration", "T5"},
                                                            {"BartForConditionalGeneration", "BART"},
                                                            {"ViTForImageClassification", "ViT"},
                                                            {"RWForCausalLM", "Falcon"},
                                                            {"DeciLMForCausalLM", "Nemotron-NAS (DeciLM)"}};
  for (const auto& [cls, family] : appendix_a) {
    const FamilyRow* row = family_for_architecture(cls);
    ASSERT_NE(row, nullptr) << cls;
    EXPECT_EQ(row->name, family) << cls;
  }
  EXPECT_EQ(family_for_architecture("NoSuchThingForCausalLM"), nullptr);
  // Seed 002 §3 families by example id, through the id fallback's longest-match rule.
  auto by_id = [](std::string id) {
    std::string n = normalize_model_id(id);
    const FamilyRow* best = nullptr;
    size_t len = 0;
    for (const FamilyRow& r : family_table())
      if (auto p = matching_id_pattern(r, n); p.size() > len) best = &r, len = p.size();
    return best ? std::string(best->name) : std::string("unknown");
  };
  EXPECT_EQ(by_id("EleutherAI/pythia-1b"), "GPT-NeoX");
  EXPECT_EQ(by_id("meta-llama/Llama-2-13b-hf"), "LLaMA 2");
  EXPECT_EQ(by_id("meta-llama/Meta-Llama-3-8B"), "LLaMA 3");
  EXPECT_EQ(by_id("Qwen/Qwen-7B"), "Qwen");
  EXPECT_EQ(by_id("Qwen/Qwen2-7B"), "Qwen2");
  EXPECT_EQ(by_id("microsoft/phi-2"), "Phi");
  EXPECT_EQ(by_id("mosaicml/mpt-7b"), "MPT");
  EXPECT_EQ(by_id("bigscience/bloom-7b1"), "BLOOM");
  EXPECT_EQ(by_id("facebook/opt-6.7b"), "OPT");
  EXPECT_EQ(by_id("google/vit-base-patch16-224"), "ViT");
  EXPECT_EQ(by_id("distilbert-base-uncased"), "DistilBERT");
  EXPECT_EQ(by_id("google/mt5-base"), "mT5");
}

// Titles show the model's name, never a full local path: a directory's name, a file with its directory, a
// Hub id as given.
TEST(IdentityDetails, DisplayNameNeverAFullLocalPath) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "my-model");
  test::write_file(dir / "my-model" / "weights.pt", "x");
  EXPECT_EQ(display_name_of((dir / "my-model").string()), "my-model");
  EXPECT_EQ(display_name_of((dir / "my-model").string() + "/"), "my-model");
  EXPECT_EQ(display_name_of((dir / "my-model" / "weights.pt").string()), "my-model/weights.pt");
  EXPECT_EQ(display_name_of("meta-llama/Llama-3.1-8B@main"), "meta-llama/Llama-3.1-8B@main");
}

}  // namespace
}  // namespace ma
