// BLIP-2's Q-Former configured alone (blip_2_qformer: Blip2QFormerModel, the class Blip2QFormerConfig builds
// with AutoModel): the LayerNorm of the query embeddings and the layers, no embeddings and no queries of its
// own (the composite owns query_tokens; Blip2QFormerModel has no embeddings module).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_b.h"
#include "model/families/qformer.h"

namespace ma::families {

void build_blip_2_qformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Blip2QFormerModel");
  supported_task(cfg, cls, "Blip2QFormer", {"Model"});
  // Blip2QFormerMultiHeadAttention's relative_key variants add a distance embedding no checkpoint uses.
  if (cfg.string_or("position_embedding_type", "absolute") != "absolute")
    cfg.fail("position_embedding_type", "only \"absolute\" is modelled");
  const QFormer q = read_qformer(cfg, cfg.flag_or("use_qformer_text_input", false));
  blocks::norm(t, "layernorm", q.hidden, true);
  // Alone, the cross-attention's key/value width is the config's own encoder_hidden_size (1408 by default:
  // EVA-CLIP-g's width); inside Blip2Config it is overwritten with the vision tower's.
  qformer_layers(t, "", q, cfg.dim_or("encoder_hidden_size", 1408));
  fill_encoder_record(t, cls, q.dims());
  t.arch.stack(StackRole::Projector)->role = StackRole::Encoder;
}

}  // namespace ma::families
