// Group text_d: CPM-Ant (cpmant.cpp) and LXMERT (lxmert.cpp); text_d.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_cpmant(const ModelConfig& cfg, ModelTemplate& t);  // CPM-Ant (prompted decoder, segment bias)
void build_lxmert(const ModelConfig& cfg, ModelTemplate& t);  // LXMERT (language, relational, cross layers)

}  // namespace ma::families
