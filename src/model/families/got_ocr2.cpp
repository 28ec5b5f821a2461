// GOT-OCR 2.0 as transformers converts it (stepfun-ai/GOT-OCR-2.0-hf, GotOcr2ForConditionalGeneration): SAM's
// ViT-Det image encoder (sam_vision.h) over 1,024-pixel pages, two bias-free stride-2 convolutions that take
// its neck's output_channels to 2x and then to the text width (16 x 16 = 256 tokens a page), a linear, and a
// Qwen2 language model (AutoModel of text_config). The Hub checkpoints keep transformers 4's names
// (language_model.model.*, vision_tower.*, multi_modal_projector.*), which transformers renames on load.
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/multimodal_towers.h"
#include "model/families/ocr_and_ovis.h"
#include "model/families/sam_vision.h"

namespace ma::families {
namespace {

// GotOcr2Config's text_config when config.json has none: GOT's Qwen2 decoder (Qwen-0.5B's shape with
// GOT's 151,860-token vocabulary), its head tied. A given text_config is read with Qwen2Config's own
// defaults.
constexpr const char* kGotOcr2Text =
    R"({"model_type":"qwen2","vocab_size":151860,"hidden_size":1024,"intermediate_size":2816,
    "num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16,"max_position_embeddings":32768,
    "tie_word_embeddings":true,"use_sliding_window":false,"sliding_window":4096,"max_window_layers":21})";

// GotOcr2VisionConfig declares mlp_dim (3,072) rather than SAM's mlp_ratio.
constexpr uint64_t kGotOcr2MlpDim = 3072;

}  // namespace

void build_got_ocr2(const ModelConfig& cfg, ModelTemplate& t) {
  // GotOcr2Model is the bare model (no head, names without model.); the checkpoints name the full class.
  const bool conditional = first_architecture(cfg) != "GotOcr2Model";
  const std::string root = conditional ? "model." : "";
  t.arch.architecture = conditional ? "GotOcr2ForConditionalGeneration" : "GotOcr2Model";
  const ModelConfig text = sub_or(cfg, "text_config", kGotOcr2Text);
  const std::string type = text.string_or("model_type", "qwen2");
  if (type != "qwen2") unsupported(cfg, "got_ocr2 with a " + type + " language model");
  const LlamaStyle style = read_qwen2_text(text, t);
  t.arch.model_type = type;
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);

  const SamShape sam = read_sam_shape(sub_or_empty(cfg, "vision_config"), kGotOcr2MlpDim);
  sam_vision_encoder(sam, root + "vision_tower.", false, t);
  // GotOcr2MultiModalProjector: conv_upsampler1 (C -> 2C) and conv_upsampler2 (2C -> text width), 3 x 3,
  // stride 2, no bias; then a biased linear at the text width.
  const std::string p = root + "multi_modal_projector.";
  const uint64_t c = sam.out, h = t.arch.hidden_size;
  t.add(p + "conv_upsampler1.weight", {2 * c, c, 3, 3});
  t.add(p + "conv_upsampler2.weight", {h, 2 * c, 3, 3});
  blocks::linear(t, p + "multimodal_projector", h, h, true);
  record_projector(t, root + "multi_modal_projector");
  llama_style_decoder(t, root + "language_model.", style);
  if (!conditional) return;  // the bare model's checkpoints would hold transformers' own names
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  v4_conditional_disk_names(t, "vision_tower.");
}

}  // namespace ma::families
