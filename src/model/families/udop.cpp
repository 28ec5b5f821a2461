// UDOP (microsoft/udop-large): T5 over text tokens, layout boxes and image patches. Its stacks (UdopStack)
// are T5's blocks, with, after final_layer_norm, the encoder's 2-D cell embeddings (one table per axis, a
// box's corners summed) and, in both stacks, a sum of relative biases (relative_bias_args: T5's 1-D one, tied
// to block 0's, and horizontal and vertical ones over the boxes' centres). The patch embedding is a module of
// the model (patch_embed) that the encoder also holds (embed_patches): the same weights under two names.
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/nested_composites.h"
#include "model/families/t5_parts.h"

namespace ma::families {
namespace {

// One entry of relative_bias_args as RelativePositionBiasBase builds it: its table's rows and whether it is
// the 1-D bias (then tied to the stack's block 0 bias).
struct UdopBias {
  uint64_t rows = 0;
  bool one_d = false;
};

// create_relative_bias: each entry's type picks the class (KeyError otherwise); num_heads, when given, must
// be the model's; the table has relative_attention_num_buckets rows (32: the class's default, not the
// config's), two more with prefix_bucket unless expand.
std::vector<UdopBias> udop_relative_biases(const ModelConfig& cfg, uint64_t heads, uint64_t block_buckets) {
  std::vector<UdopBias> out;
  if (!cfg.has("relative_bias_args")) {  // UdopConfig's default: 1d, horizontal, vertical
    for (bool one_d : {true, false, false}) out.push_back({32, one_d});
    if (block_buckets != 32)
      cfg.fail("relative_attention_num_buckets",
               "must be 32 with the default relative_bias_args: the tied 1-D bias has 32 rows");
    return out;
  }
  for (const ModelConfig& arg : cfg.objects("relative_bias_args")) {
    const std::string type = arg.string_or("type", "");
    if (type != "1d" && type != "horizontal" && type != "vertical")
      arg.fail("type", "must be 1d, horizontal or vertical");
    if (arg.has("num_heads") && arg.dim("num_heads") != heads)
      arg.fail("num_heads", "must match the model's num_heads (" + std::to_string(heads) + ")");
    const uint64_t buckets = arg.dim_or("relative_attention_num_buckets", 32);
    const bool extra = arg.flag_or("prefix_bucket", false) && !arg.flag_or("expand", false);
    const UdopBias b{buckets + (extra ? 2 : 0), type == "1d"};
    // The 1-D bias is block 0's table (UdopStack ties them): a table of another shape cannot be.
    if (b.one_d && b.rows != block_buckets)
      arg.fail(
          "relative_attention_num_buckets",
          "must give the 1d bias block 0's " + std::to_string(block_buckets) + " rows, to which it is tied");
    out.push_back(b);
  }
  return out;
}

// A UdopStack under `stack` (encoder. or decoder.): T5's blocks and final norm, the encoder's cell
// embeddings, then the relative biases.
void udop_stack(const ModelConfig& cfg, ModelTemplate& t, const std::string& stack, uint64_t layers,
                const T5Dims& d, bool decoder, const std::vector<UdopBias>& biases) {
  t.tie(stack + ".embed_tokens.weight", "shared.weight").embedding = true;
  if (!decoder) {
    // The encoder holds the model's patch_embed module itself.
    t.tie(stack + ".embed_patches.proj.weight", "patch_embed.proj.weight");
    t.tie(stack + ".embed_patches.proj.bias", "patch_embed.proj.bias");
  }
  t5_stack(t, stack, layers, d, decoder);
  if (!decoder) {
    const uint64_t cells = cfg.dim_or("max_2d_position_embeddings", 1024);
    blocks::embedding(t, stack + ".cell_2d_embedding.x_position_embeddings.weight", cells, d.d_model);
    blocks::embedding(t, stack + ".cell_2d_embedding.y_position_embeddings.weight", cells, d.d_model);
  }
  const std::string block0 = stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight";
  for (size_t i = 0; i < biases.size(); ++i) {
    const std::string name =
        stack + ".relative_bias.biases." + std::to_string(i) + ".relative_attention_bias.weight";
    // UdopStack._tie_weights reads block 0, which a stack of no layers lacks.
    if (biases[i].one_d && layers == 0)
      cfg.fail(decoder ? "num_decoder_layers" : "num_layers",
               "must be at least 1: the 1d bias ties to block 0's");
    if (biases[i].one_d)
      t.tie(name, block0);
    else
      blocks::embedding(t, name, biases[i].rows, d.heads);
  }
}

// patch_size as UdopPatchEmbeddings reads it: one side, or (height, width).
std::vector<uint64_t> udop_patch(const ModelConfig& cfg) {
  const json::Value* v = cfg.raw("patch_size");
  if (v && v->is_array()) {
    std::vector<uint64_t> p = cfg.dims_or("patch_size", {});
    if (p.size() != 2) cfg.fail("patch_size", "must be one size or two (height, width)");
    return p;
  }
  const uint64_t side = cfg.dim_or("patch_size", 16);
  return {side, side};
}

}  // namespace

// UdopConfig's defaults are udop-large's. transformers 5 forces tie_word_embeddings to true: lm_head is
// always shared.weight.
void build_udop(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "UdopModel");
  const std::string task =
      supported_task(cfg, cls, "Udop", {"Model", "ForConditionalGeneration", "EncoderModel"});
  T5Dims d;
  d.d_model = cfg.dim_or("d_model", 1024);
  d.heads = cfg.dim_or("num_heads", 16);
  d.inner = d.heads * cfg.dim_or("d_kv", 64);
  d.d_ff = cfg.dim_or("d_ff", 4096);
  d.buckets = cfg.dim_or("relative_attention_num_buckets", 32);
  d.gated = t5_gated(cfg, "relu");
  const uint64_t enc_layers = cfg.layers_or("num_layers", 24, 0);
  const uint64_t dec_layers = cfg.layers_or("num_decoder_layers", enc_layers, 0);
  const uint64_t vocab = cfg.dim_or("vocab_size", 33201);
  const std::vector<UdopBias> biases = udop_relative_biases(cfg, d.heads, d.buckets);
  const std::vector<uint64_t> patch = udop_patch(cfg);

  t.arch.architecture = cls;
  t.arch.tie_word_embeddings = true;
  t.arch.vocab_size = vocab;
  blocks::embedding(t, "shared.weight", vocab, d.d_model);
  // UdopPatchEmbeddings: a Conv2d from the pixels to d_model (the config's hidden_size), one step per patch.
  t.add("patch_embed.proj.weight", {d.d_model, cfg.dim_or("num_channels", 3), patch[0], patch[1]});
  t.add("patch_embed.proj.bias", {d.d_model});
  udop_stack(cfg, t, "encoder", enc_layers, d, false, biases);
  const bool has_decoder = task != "EncoderModel";
  if (has_decoder) udop_stack(cfg, t, "decoder", dec_layers, d, true, biases);
  if (task == "ForConditionalGeneration") t.tie("lm_head.weight", "shared.weight");

  StackDims main;
  main.layers = has_decoder ? dec_layers : enc_layers;
  main.layer.hidden = d.d_model;
  main.layer.heads = d.heads;
  main.layer.ffn = d.d_ff;
  describe_main(t, main, 0);            // relative positions only: no table bounds the input
  t.arch.head_dim = d.inner / d.heads;  // d_kv, independent of d_model
  StackDims encoder = main;
  encoder.layers = enc_layers;
  describe_stack(t, StackRole::Encoder, "encoder.block", encoder, t.arch.head_dim);
  if (has_decoder) describe_stack(t, StackRole::Decoder, "decoder.block", main, t.arch.head_dim);
}

}  // namespace ma::families
