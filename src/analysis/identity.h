// Who the model is: family (from the family table), kind of model, training objective, transformers class.
#pragma once
#include <string>

#include "analysis/report_inputs.h"

namespace ma {

struct Identity {
  std::string model_id;
  std::string display_name;  // what titles show: a repo id as given; a local path's directory (and file) name
  std::string family;        // family table name, e.g. "LLaMA 3", "Qwen3-MoE", "Nemotron-H"; "unknown"
  std::string organization;  // e.g. "Meta", "Alibaba Qwen", "NVIDIA"; empty when unknown
  std::string model_type;    // config model_type (top level for nested multimodal configs)
  std::string architecture_class;  // config architectures[0], else the template's class
  std::string kind;  // causal-lm | masked-lm | seq2seq | vision | vision-language | speech | unknown
  std::string
      training_objective;  // base | instruct | chat | unknown (from the model id and the chat template)
  std::string objective_evidence;  // why: "chat template present", "'-Instruct' in the model id", ...
  std::string family_evidence;     // "model_type 'llama' + 'llama-3' in the model id", "tensor names", ...
  std::string kind_evidence;       // "class suffix ForCausalLM", "vision_config present", "family table"
};

Identity identify(const ReportInputs& in);

// The part of a model id that names the model: the last path component (its parent when that is a file such
// as config.json or model.safetensors), without a "@revision".
std::string model_name_from_id(std::string_view model_id);

// Titles never show a full local path: a local directory is its name, a local file "<directory>/<file>"; any
// other id (a Hub repo, "org/name@rev") is shown as given.
std::string display_name_of(std::string_view model_id);

}  // namespace ma
