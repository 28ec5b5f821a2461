// SuperGlue (magic-leap-community/superglue_outdoor, _indoor): SuperGlueForKeypointMatching builds SuperPoint
// as its keypoint_detector, then a keypoint encoder (Linear + BatchNorm1d + ReLU per keypoint_encoder_sizes
// entry from (x, y, score), a last Linear to hidden_size), the attentional GNN (one BERT-style attention and
// a two-layer MLP per gnn_layers_types entry; "self" and "cross" layers hold the same modules, a cross layer
// only reads the other image's keypoints) and the final projection. bin_score, the optimal transport's
// dustbin score, is the root module's own parameter: named_parameters and state_dict list it first.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/matching.h"

namespace ma::families {
namespace {

// SuperGlueMultiLayerPerceptron: linear, then BatchNorm1d (its running statistics are buffers).
void superglue_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  blocks::linear(t, p + "linear", in, out, true);
  detr_batch_norm(t, p + "batch_norm", out, false);
}

}  // namespace

void build_superglue(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SuperGlueForKeypointMatching");
  supported_task(cfg, cls, "SuperGlue", {"ForKeypointMatching"});
  const uint64_t h = cfg.dim_or("hidden_size", 256);
  const uint64_t heads = cfg.dim_or("num_attention_heads", 4);
  const uint64_t head_dim = split_heads(cfg, "num_attention_heads", h, heads);
  std::vector<std::string> types = cfg.strings("gnn_layers_types");
  if (!cfg.has("gnn_layers_types"))
    for (int i = 0; i < 9; ++i) types.insert(types.end(), {"self", "cross"});  // the class default
  for (const std::string& type : types)  // SuperGlueConfig raises on anything else
    if (type != "self" && type != "cross")
      cfg.fail("gnn_layers_types", "must hold only \"self\" and \"cross\"");
  const std::vector<uint64_t> encoder = cfg.dims_or("keypoint_encoder_sizes", {32, 64, 128, 256});

  t.add("bin_score", {});
  matching_keypoint_detector(cfg, t);
  // The keypoint encoder reads (x, y, score): 3 channels.
  uint64_t in = 3;
  for (size_t i = 0; i < encoder.size(); ++i) {
    superglue_mlp(t, "keypoint_encoder.encoder." + std::to_string(i) + ".", in, encoder[i]);
    in = encoder[i];
  }
  blocks::linear(t, "keypoint_encoder.encoder." + std::to_string(encoder.size()), in, h, true);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = h;
  a.num_layers = types.size();
  a.num_attention_heads = a.num_key_value_heads = heads;
  a.head_dim = head_dim;
  a.intermediate_size = 2 * h;  // the MLP reads the descriptors and the attention's output side by side
  a.attention_bias = a.mlp_bias = true;
  StackSpec& s = a.add_stack(StackRole::Encoder, "gnn.layers", h);
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string p = "gnn.layers." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, p + "attention.self." + proj, h, h, true);
    blocks::linear(t, p + "attention.output.dense", h, h, true);
    superglue_mlp(t, p + "mlp.0.", 2 * h, 2 * h);
    blocks::linear(t, p + "mlp.1", 2 * h, h, true);
    LayerSpec l;
    l.attention.heads = l.attention.kv_heads = heads;
    l.attention.head_dim = head_dim;
    l.ffn.gated = false;
    l.ffn.intermediate = 2 * h;
    s.layers.push_back(l);
  }
  blocks::linear(t, "final_projection.final_proj", h, h, true);
}

}  // namespace ma::families
