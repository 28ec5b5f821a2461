// SeamlessM4T (SeamlessM4TModel; facebook/hf-seamless-m4t-medium and -large): the translation model
// (seamless_m4t_parts.h) with wav2vec2-conformer-style speech layers (Transformer-XL relative positions,
// BatchNorm in the convolution module), an autoregressive text-to-unit encoder-decoder whose LM head is tied
// to its decoder's unit embedding, and the code HiFi-GAN vocoder. transformers builds the text-to-unit model
// and the vocoder after the rest, so they come last.
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/seamless.h"
#include "model/families/seamless_m4t_parts.h"

namespace ma::families {

void build_seamless_m4t(const ModelConfig& cfg, ModelTemplate& t) {
  const SeamlessDims d = seamless_model_before_t2u_decoder(cfg, t, false);

  // SeamlessM4TTextToUnitForConditionalGeneration: after its encoder, a SeamlessM4TDecoder embedding
  // t2u_vocab_size units of its own, and lm_head, which its _tie_weights ties to that embedding.
  const std::string decoder = "t2u_model.model.decoder";
  blocks::embedding(t, decoder + ".embed_tokens.weight", d.t2u_vocab, d.hidden);
  for (uint64_t i = 0; i < d.t2u_decoder.layers; ++i)
    seamless_text_layer(t, decoder + ".layers." + std::to_string(i), d.hidden, d.t2u_decoder.layer.ffn, true);
  blocks::norm(t, decoder + ".layer_norm", d.hidden, true);
  tied_or_own(t, "t2u_model.lm_head.weight", decoder + ".embed_tokens.weight", d.tied);
  describe_stack(t, StackRole::Decoder, decoder + ".layers", d.t2u_decoder,
                 d.hidden / d.t2u_decoder.layer.heads);

  seamless_code_hifigan(cfg, t, "vocoder.");
}

}  // namespace ma::families
