// The remote-code group's table (see remote_code.h) and the helpers its files share.
#include "model/families/remote_code.h"

#include <array>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/deepseek_like.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace remote {

void unsupported(const ModelConfig& cfg, std::string_view key, const std::string& what) {
  throw Error(ErrorKind::Unsupported, cfg.file(), std::string(key), "unsupported architecture: " + what);
}

void output_head(ModelTemplate& t, const std::string& name, const std::string& embedding, bool tie) {
  if (!tie) {
    t.add(name, {t.arch.vocab_size, t.arch.hidden_size});
    return;
  }
  t.tie(name, embedding);
  t.known_extras.push_back({name, "tied copy of " + embedding + " that some checkpoints store"});
}

TemplateTensor& inv_freq_buffer(ModelTemplate& t, const std::string& name, uint64_t dim) {
  TemplateTensor& b = t.add(name, {(dim + 1) / 2});
  b.kind = TensorKind::Buffer;
  return b;
}

void push_attention_layer(ModelTemplate& t, uint64_t heads, uint64_t kv_heads) {
  LayerSpec l;
  l.attention.kind = attention_kind_of(heads, kv_heads);
  l.attention.heads = heads;
  l.attention.kv_heads = kv_heads;
  t.arch.stack(StackRole::Decoder)->layers.push_back(l);
}

void resampler(ModelTemplate& t, const std::string& p, uint64_t query_num, uint64_t e, uint64_t kv_dim,
               bool own_output) {
  uint64_t grid = 0;
  while ((grid + 1) * (grid + 1) <= query_num) ++grid;
  const uint64_t queries = grid * grid;
  t.add(p + ".pos_embed", {queries, e});
  t.add(p + ".query", {queries, e});
  if (kv_dim != e) blocks::linear(t, p + ".kv_proj", kv_dim, e, false);
  t.add(p + ".attn.in_proj_weight", {3 * e, e});
  t.add(p + ".attn.in_proj_bias", {3 * e});
  blocks::linear(t, p + ".attn.out_proj", e, e, true);
  blocks::norm(t, p + ".ln_q", e, true);
  blocks::norm(t, p + ".ln_kv", e, true);
  if (!own_output) return;
  blocks::norm(t, p + ".ln_post", e, true);
  t.add(p + ".proj", {e, e});
}

void build_as(std::string_view model_type, const ModelConfig& cfg, ModelTemplate& t) {
  const FamilyBuilder* f = find_family_builder(model_type);
  if (!f)
    throw Error(ErrorKind::Internal, cfg.file(), "model_type", "no builder for " + std::string(model_type));
  f->build(cfg, t);
}

}  // namespace remote

namespace {

// Every builder of the group, marked as derived by hand rather than mirrored from transformers.
template <BuildFn Build>
void hand_derived(const ModelConfig& cfg, ModelTemplate& t) {
  Build(cfg, t);
  t.arch.hand_derived = true;
}

constexpr std::array kRemoteCodeFamilies{
    FamilyBuilder{"qwen", hand_derived<remote::build_qwen>},
    FamilyBuilder{"chatglm", hand_derived<remote::build_chatglm>},
    FamilyBuilder{"baichuan", hand_derived<remote::build_baichuan>},
    FamilyBuilder{"internlm", hand_derived<remote::build_internlm>},
    FamilyBuilder{"internlm2", hand_derived<remote::build_internlm2>},
    FamilyBuilder{"stablelm_epoch", hand_derived<remote::build_stablelm_epoch>},
    FamilyBuilder{"minicpm", hand_derived<remote::build_minicpm>},
    FamilyBuilder{"exaone", hand_derived<remote::build_exaone>},
    FamilyBuilder{"deci", hand_derived<remote::build_deci>},
    FamilyBuilder{"deepseek", hand_derived<build_deepseek_moe>},
    FamilyBuilder{"minicpm3", hand_derived<build_minicpm3>},
    FamilyBuilder{"nomic_bert", hand_derived<remote::build_nomic_bert>},
    FamilyBuilder{"minicpmv", hand_derived<remote::build_minicpmv>},
    FamilyBuilder{"kimi_k2", hand_derived<remote::build_kimi_k2>},
    FamilyBuilder{"RefinedWeb", hand_derived<remote::build_refinedweb>},
    FamilyBuilder{"RefinedWebModel", hand_derived<remote::build_refinedweb_model>},
    FamilyBuilder{"mimo", hand_derived<remote::build_mimo>},
    FamilyBuilder{"nemotron-nas", hand_derived<remote::build_nemotron_nas>},
    FamilyBuilder{"bailing_moe", hand_derived<remote::build_bailing_moe>},
    FamilyBuilder{"bailing_moe_v2", hand_derived<remote::build_bailing_moe>},
    FamilyBuilder{"internvl_chat", hand_derived<remote::build_internvl_chat>},
    FamilyBuilder{"phi3_v", hand_derived<remote::build_phi3_v>},
};

}  // namespace

std::span<const FamilyBuilder> remote_code() {
  return kRemoteCodeFamilies;
}

}  // namespace ma::families
