// Decision Transformer: GPT-2's blocks (DecisionTransformerGPT2Model, a copy of GPT2Model: token and
// position tables it keeps though the model feeds it embeddings) over interleaved return, state and action
// embeddings, with a learned timestep table and linear heads that predict the next state, action and return.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/classic_decoder_parts.h"
#include "model/families/encoders_common.h"

namespace ma::families {

// DecisionTransformerConfig's defaults are the paper's Gym models' (edbeeching/decision-transformer-gym-*):
// 128 wide, 3 layers of one head, 17 state and 4 action dimensions, a one-row token table. Its width is
// hidden_size (no n_embd); the others keep GPT-2's names, which its attribute_map aliases.
void build_decision_transformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DecisionTransformerModel");
  supported_task(cfg, cls, "DecisionTransformer", {"Model"});
  classic::read_dims(cfg,
                     {{"hidden_size"},
                      {"n_layer", "num_hidden_layers"},
                      {"n_head", "num_attention_heads"},
                      {"n_positions", "max_position_embeddings"}},
                     {.vocab_size = 1,
                      .hidden_size = 128,
                      .num_hidden_layers = 3,
                      .num_attention_heads = 1,
                      .tie_word_embeddings = false,
                      .max_position_embeddings = 1024},
                     t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.position = PositionKind::Learned;
  a.intermediate_size = classic::width_or_4x(cfg, "n_inner", a.hidden_size);
  const uint64_t h = a.hidden_size, states = cfg.dim_or("state_dim", 17), actions = cfg.dim_or("act_dim", 4);
  // DecisionTransformerGPT2Model is GPT2Model's modules (its blocks copy GPT2Block's).
  classic::gpt2_body(cfg, t, "encoder.", classic::Weights::Conv1D);
  blocks::embedding(t, "embed_timestep.weight", cfg.dim_or("max_ep_len", 4096), h);
  blocks::linear(t, "embed_return", 1, h, true);
  blocks::linear(t, "embed_state", states, h, true);
  blocks::linear(t, "embed_action", actions, h, true);
  blocks::norm(t, "embed_ln", h, true);
  blocks::linear(t, "predict_state", h, states, true);
  blocks::linear(t, "predict_action.0", h, actions,
                 true);  // an nn.Sequential with the optional Tanh after it
  blocks::linear(t, "predict_return", h, 1, true);
}

}  // namespace ma::families
