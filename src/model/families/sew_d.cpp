// SEW-D (SEWDModel / ForCTC / ForSequenceClassification): SEW's body (sew_like.h) whose encoder runs
// DeBERTa-v2's transformer instead of wav2vec 2.0's layers. SEWDEncoder keeps SEW's strided positional
// convolution and upsampling but drops SEW's encoder LayerNorm, and nests DeBERTa-v2's encoder one level down
// (encoder.encoder.layer.N with attention.self / attention.output / intermediate / output, then
// rel_embeddings, their LayerNorm and the optional convolution). SEWDConfig, unlike DebertaV2Config, turns
// the relative attention on by default: 256 position buckets, p2c and c2p projected by the content's own
// keys and queries (share_att_key), and a LayerNorm over the table.
#include <array>
#include <string_view>

#include "model/families/deberta_encoder.h"
#include "model/families/sew_like.h"
#include "model/families/speech_c.h"

namespace ma::families {
namespace {

void sew_d_transformer(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder, uint64_t) {
  static constexpr std::array<std::string_view, 2> kSewDPositionAttention{"p2c", "c2p"};
  // SEWDConfig's defaults where config.json omits a field.
  constexpr DebertaEncoderDefaults kSewD{.layers = 12,
                                         .hidden = 768,
                                         .heads = 12,
                                         .ffn = 3072,
                                         .relative_attention = true,
                                         .share_att_key = true,
                                         .position_buckets = 256,
                                         .norm_rel_ebd = "layer_norm",
                                         .pos_att_type = kSewDPositionAttention};
  deberta_v2_encoder(cfg, t, encoder + "encoder.", kSewD);
}

constexpr std::array<std::string_view, 3> kSewDTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_sew_d(const ModelConfig& cfg, ModelTemplate& t) {
  // SEWDModel has no adapter, yet SEWDForCTC would size lm_head by output_hidden_size when add_adapter is
  // set (a head its model's output cannot feed), and SEWDForSequenceClassification raises.
  if (cfg.flag_or("add_adapter", false)) cfg.fail("add_adapter", "SEW-D has no adapter");
  build_sew_like(cfg, t,
                 {.prefix = "SEWD", .base = "sew_d", .tasks = kSewDTasks, .transformer = sew_d_transformer});
}

}  // namespace ma::families
