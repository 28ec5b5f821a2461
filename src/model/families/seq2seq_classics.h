// The older encoder-decoders of group seq2seq_classics (family_groups.h): BigBird-Pegasus, FSMT and
// Speech2Text (seq2seq_classics.cpp), NLLB-MoE (nllb_moe.cpp), ProphetNet (prophetnet.cpp) and Reformer
// (reformer.cpp); and the BART-lineage pieces they share.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_nllb_moe(const ModelConfig& cfg, ModelTemplate& t);
void build_bigbird_pegasus(const ModelConfig& cfg, ModelTemplate& t);
void build_fsmt(const ModelConfig& cfg, ModelTemplate& t);
void build_speech_to_text(const ModelConfig& cfg, ModelTemplate& t);
void build_prophetnet(const ModelConfig& cfg, ModelTemplate& t);
void build_reformer(const ModelConfig& cfg, ModelTemplate& t);

// The attention of BART's lineage registers its projections key, value, query, output: that order is the
// state_dict's.
void kvq_attention(ModelTemplate& t, const std::string& prefix, uint64_t d, bool bias);

// One BART-lineage layer (FSMT, Speech2Text, BigBird-Pegasus' decoder): self_attn and its norm, the
// cross-attention `cross` ("encoder_attn"; empty: none) and its norm, fc1, fc2 and final_layer_norm.
void bart_lineage_layer(ModelTemplate& t, const std::string& layer, uint64_t d, uint64_t ffn,
                        const std::string& cross, bool attention_bias = true);

// "<stack>.layers.<i>".
std::string numbered_layer(const std::string& stack, uint64_t i);

}  // namespace ma::families
