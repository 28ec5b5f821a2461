#include "model/learned_input_placement.h"

#include <array>
#include <string>
#include <utility>

namespace ma::placement {

bool place_learned_input(const Parts& parts, std::string_view module, TensorPlacement& pl) {
  auto set = [&pl](Block block, std::string role) {
    pl.block = block;
    pl.role = std::move(role);
  };
  // Perceiver IO's input_preprocessor embeds pixels or patches (convnet_1x1, positions_projection,
  // conv_after_patches) for its latent array (embeddings.latents).
  if (!pl.layer && in(module, std::array<std::string_view, 4>{"convnet_1x1", "positions_projection",
                                                              "conv_after_patches", "latents"})) {
    set(Block::Embedding, module == "latents" ? "latents" : "input-embedding");
    return true;
  }
  // A universal segmenter's learned decoder inputs: Mask2Former's queries_features (the queries' initial
  // features; queries_embedder, their positions, is named as an embedding), EoMT's root query table,
  // OneFormer's task_encoder (an MLP from the task text's token ids to the task token) and its training-only
  // text mapper's prompt_ctx and text_projector (the text queries' learned context and their projection);
  // OmDet-Turbo's task_encoder over the prompt's text features and task_project into the decoder's width.
  // Their MLPs' layers.N are no stack.
  const bool learned_queries = module == "queries_features" || (module == "query" && parts.size() == 2);
  const bool task = any_part_in(parts, std::array<std::string_view, 2>{"task_encoder", "task_project"});
  if (learned_queries || task ||
      any_part_in(parts, std::array<std::string_view, 2>{"prompt_ctx", "text_projector"})) {
    pl.layer.reset();
    pl.stack_length = 0;
    set(Block::Embedding, learned_queries ? "query-embedding" : task ? "task-embedding" : "text-embedding");
    return true;
  }
  return false;
}

}  // namespace ma::placement
