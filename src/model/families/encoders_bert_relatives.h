// BERT's relatives of the encoders group, registered in encoders.cpp's table: ALBERT, ELECTRA and RoFormer
// (encoders_bert_relatives.cpp), DeBERTa and DeBERTa-v2/v3 (encoders_deberta.cpp), ESM (encoders_esm.cpp).
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_albert(const ModelConfig& cfg, ModelTemplate& t);
void build_electra(const ModelConfig& cfg, ModelTemplate& t);
void build_deberta(const ModelConfig& cfg, ModelTemplate& t);
void build_deberta_v2(const ModelConfig& cfg, ModelTemplate& t);
void build_esm(const ModelConfig& cfg, ModelTemplate& t);
void build_roformer(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
