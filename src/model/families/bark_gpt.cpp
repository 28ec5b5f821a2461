// Bark's three GPTs (nanoGPT's modules under transformers' names), alone or inside BarkModel. Each is
// pre-norm: LayerNorm, one fused q/k/v projection (att_proj) and out_proj, LayerNorm, a GELU MLP four times
// as wide (in_proj, out_proj), learned positions over block_size tokens. config.bias drops the biases of
// every linear layer and, in the causal models only, of their LayerNorms (the fine model's are plain
// nn.LayerNorm). BarkSemanticModel / BarkCoarseModel (BarkCausalModel): one token table, a bias-free lm_head
// that nothing ties (get_output_embeddings returns None, no _tied_weights_keys), and in every attention the
// causal mask as a persistent buffer `bias` [1, 1, block_size, block_size] of bools, so state_dict and the
// Hub's checkpoints hold it (before the attention's projections: a module's own buffers precede its
// children). BarkFineModel: one table per codebook (n_codes_total) summed, one head per predicted codebook
// (n_codes_given to n_codes_total), head i tied to table i + 1 while BarkFineConfig's tie_word_embeddings
// (default true) holds: transformers 5 ties only what the sub-model's own config allows.
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/families/bark.h"
#include "model/families/encoders_classic.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// BarkSubModelConfig's fields (defaults: its class's, 10,048-token vocabularies and bark-small's width and
// depth), read under the names its attribute_map aliases when config.json uses them.
struct BarkDims {
  uint64_t block = 1024, input_vocab = 10048, output_vocab = 10048, layers = 12, heads = 12, hidden = 768;
  uint64_t head_dim = 64;
  bool bias = true;
  // BarkFineConfig only.
  uint64_t codes_total = 8, codes_given = 1;
  bool tie = true;
};

BarkDims read_bark_dims(const ModelConfig& cfg, BarkPart part) {
  BarkDims d;
  d.block = cfg.dim_or(classic_encoders::aliased(cfg, "window_size", "block_size"), d.block);
  d.input_vocab = cfg.dim_or(classic_encoders::aliased(cfg, "vocab_size", "input_vocab_size"), d.input_vocab);
  d.output_vocab = cfg.dim_or("output_vocab_size", d.output_vocab);
  d.layers = cfg.layers_or(classic_encoders::aliased(cfg, "num_hidden_layers", "num_layers"), d.layers, 0);
  const std::string_view heads_key = classic_encoders::aliased(cfg, "num_attention_heads", "num_heads");
  d.heads = cfg.dim_or(heads_key, d.heads);
  d.hidden = cfg.dim_or("hidden_size", d.hidden);
  d.head_dim = split_heads(cfg, heads_key, d.hidden, d.heads);  // BarkSelfAttention raises
  d.bias = cfg.flag_or("bias", true);
  if (part != BarkPart::Fine) return d;
  d.codes_total = cfg.count_or("n_codes_total", d.codes_total);
  d.codes_given = cfg.count_or("n_codes_given", d.codes_given);
  d.tie = cfg.flag_or("tie_word_embeddings", true);
  // Head i is tied to table i + 1: with no codebook given, the last head's table does not exist.
  if (d.tie && d.codes_given == 0 && d.codes_total > 0)
    cfg.fail("n_codes_given",
             "must be at least 1 when tie_word_embeddings ties lm_heads.i to "
             "input_embeds_layers.(i + 1)");
  return d;
}

// BarkBlock under `p`: layernorm_1, layernorm_2, attn (its causal mask first), mlp.
void bark_block(ModelTemplate& t, const std::string& p, const BarkDims& d, bool causal) {
  const bool norm_bias = causal ? d.bias : true;
  blocks::norm(t, p + "layernorm_1", d.hidden, norm_bias);
  blocks::norm(t, p + "layernorm_2", d.hidden, norm_bias);
  if (causal) {
    TemplateTensor& mask = t.add(p + "attn.bias", {1, 1, d.block, d.block});
    mask.kind = TensorKind::Buffer;
    mask.disk.push_back({.name = mask.name, .shape = mask.shape, .dtype = DType::BOOL});
  }
  blocks::linear(t, p + "attn.att_proj", d.hidden, 3 * d.hidden, d.bias);
  blocks::linear(t, p + "attn.out_proj", d.hidden, d.hidden, d.bias);
  blocks::linear(t, p + "mlp.in_proj", d.hidden, 4 * d.hidden, d.bias);
  blocks::linear(t, p + "mlp.out_proj", 4 * d.hidden, d.hidden, d.bias);
}

void bark_layers(ModelTemplate& t, const std::string& prefix, const BarkDims& d, bool causal) {
  for (uint64_t i = 0; i < d.layers; ++i)
    bark_block(t, prefix + "layers." + std::to_string(i) + ".", d, causal);
}

void bark_causal_model(ModelTemplate& t, const std::string& prefix, const BarkDims& d) {
  blocks::embedding(t, prefix + "input_embeds_layer.weight", d.input_vocab, d.hidden);
  blocks::embedding(t, prefix + "position_embeds_layer.weight", d.block, d.hidden);
  bark_layers(t, prefix, d, true);
  blocks::norm(t, prefix + "layernorm_final", d.hidden, d.bias);
  blocks::linear(t, prefix + "lm_head", d.hidden, d.output_vocab, false);
}

void bark_fine_model(ModelTemplate& t, const std::string& prefix, const BarkDims& d) {
  for (uint64_t c = 0; c < d.codes_total; ++c)
    blocks::embedding(t, prefix + "input_embeds_layers." + std::to_string(c) + ".weight", d.input_vocab,
                      d.hidden);
  blocks::embedding(t, prefix + "position_embeds_layer.weight", d.block, d.hidden);
  bark_layers(t, prefix, d, false);
  blocks::norm(t, prefix + "layernorm_final", d.hidden, true);
  for (uint64_t c = d.codes_given, i = 0; c < d.codes_total; ++c, ++i) {
    const std::string head = prefix + "lm_heads." + std::to_string(i) + ".weight";
    if (d.tie)
      t.tie(head, prefix + "input_embeds_layers." + std::to_string(i + 1) + ".weight");
    else
      t.add(head, {d.output_vocab, d.hidden});
  }
  // Checkpoints saved as pytorch_model.bin by transformers 4 keep the tied heads beside their tables.
  if (d.tie && d.codes_total > d.codes_given)
    t.known_extras.push_back({prefix + "lm_heads.",
                              "heads tied to the next codebook's input_embeds_layers table, which "
                              "checkpoints saved as pytorch_model.bin keep"});
}

void build_bark_alone(const ModelConfig& cfg, ModelTemplate& t, BarkPart part, std::string_view cls_name) {
  const std::string cls = architecture_of(cfg, cls_name);
  supported_task(cfg, cls, cls_name.substr(0, cls_name.size() - 5), {"Model"});  // the class, no heads
  t.arch.architecture = cls;
  record_bark_sub_model(cfg, part, "", t);
  bark_sub_model(cfg, part, "", t);
}

}  // namespace

void bark_sub_model(const ModelConfig& cfg, BarkPart part, const std::string& prefix, ModelTemplate& t) {
  const BarkDims d = read_bark_dims(cfg, part);
  if (part == BarkPart::Fine)
    bark_fine_model(t, prefix, d);
  else
    bark_causal_model(t, prefix, d);
}

void record_bark_sub_model(const ModelConfig& cfg, BarkPart part, const std::string& prefix,
                           ModelTemplate& t) {
  const BarkDims d = read_bark_dims(cfg, part);
  ArchitectureRecord& a = t.arch;
  a.hidden_size = d.hidden;
  a.num_layers = d.layers;
  a.vocab_size = d.input_vocab;  // config.vocab_size: the attribute_map's input_vocab_size
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.head_dim;
  a.intermediate_size = 4 * d.hidden;
  a.max_position_embeddings = d.block;
  a.tie_word_embeddings = part == BarkPart::Fine && d.tie;
  a.norm = NormKind::LayerNorm;
  a.position = PositionKind::Learned;
  a.activation = "gelu";  // nn.GELU()
  a.attention_bias = a.mlp_bias = d.bias;
  StackSpec& stack = a.add_stack(part == BarkPart::Fine ? StackRole::Encoder : StackRole::Decoder,
                                 prefix + "layers", d.hidden);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = d.heads;
  spec.attention.head_dim = d.head_dim;
  spec.ffn.intermediate = 4 * d.hidden;
  spec.ffn.gated = false;
  stack.layers.assign(d.layers, spec);
}

void build_bark_semantic(const ModelConfig& cfg, ModelTemplate& t) {
  build_bark_alone(cfg, t, BarkPart::Semantic, "BarkSemanticModel");
}

void build_bark_coarse_acoustics(const ModelConfig& cfg, ModelTemplate& t) {
  build_bark_alone(cfg, t, BarkPart::Coarse, "BarkCoarseModel");
}

void build_bark_fine_acoustics(const ModelConfig& cfg, ModelTemplate& t) {
  build_bark_alone(cfg, t, BarkPart::Fine, "BarkFineModel");
}

}  // namespace ma::families
