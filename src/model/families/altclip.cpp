// AltCLIP (BAAI/AltCLIP, AltCLIP-m9): CLIP's vision transformer beside a multilingual XLM-RoBERTa text
// encoder. AltCLIPModel is ChineseCLIPModel's layout (logit_scale, text_model, vision_model,
// visual_projection, text_projection) with AltCLIPTextModel as the text model: RoBERTa's embeddings and
// BERT's layer modules (no pooler), then a LayerNorm (pre_LN) and a linear to project_dim (transformation),
// whose [CLS] state text_projection reads.
#include "model/blocks.h"
#include "model/families/clip_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

void build_altclip(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "AltCLIPModel");
  supported_task(cfg, cls, "AltCLIP", {"Model"});
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  // AltCLIPTextConfig's defaults: XLM-RoBERTa-large's (vocab 250002, 514 positions, one token type).
  const ModelConfig text_cfg = sub_or_empty(cfg, "text_config");
  TextEncoderDims text = read_bert_dims(text_cfg, BertDefaults{.vocab = 250002,
                                                               .positions = 514,
                                                               .type_vocab = 1,
                                                               .layers = 24,
                                                               .hidden = 1024,
                                                               .heads = 16,
                                                               .ffn = 4096});
  text.positions_last = true;  // AltRobertaEmbeddings is RobertaEmbeddings
  fill_encoder_record(t, cls, text);
  t.arch.post_norm = true;
  // AltRobertaEncoder is CLIPEncoder's (a `layers` list); checkpoints keep RoBERTa's encoder.layer, which
  // transformers' conversion mapping renames on load.
  text_encoder_body(t, "text_model.roberta.", "encoder.layers", bert_layer_names(), text);
  t.rename_on_disk("text_model.roberta.encoder.layers.", "text_model.roberta.encoder.layer.");
  const uint64_t text_out = text_cfg.dim_or("project_dim", 768);
  blocks::linear(t, "text_model.transformation", text.layer.hidden, text_out, true);
  blocks::norm(t, "text_model.pre_LN", text.layer.hidden, true);
  // AltCLIPVisionModel is CLIPVisionModel; AltCLIPVisionConfig's defaults are CLIPVisionConfig's (patch 32).
  VitDefaults vision_defaults = clip_vision_defaults();
  vision_defaults.model_type = "clip_vision_model";
  vision_defaults.model_type_fixed = true;
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), "vision_model.", vision_defaults, t);
  const uint64_t projection = cfg.dim_or("projection_dim", 768);
  blocks::linear(t, "visual_projection", vision, projection, false);
  blocks::linear(t, "text_projection", text_out, projection, false);
}

}  // namespace ma::families
