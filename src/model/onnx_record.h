// The architecture record of an ONNX model that comes without config.json. ONNX Runtime GenAI exports carry
// genai_config.json, whose "model" object states the family ("type"), context length, vocabulary and the
// decoder's hidden size, heads, KV heads, head size and layers: those win. Otherwise the graph shows what it
// can: vocabulary and hidden size from the token embedding (or the head) matrix, attention heads and head
// size from the rank-4 values shape inference finds where a projection is split into heads ([batch, seq,
// heads, head_dim] or, transposed, [batch, heads, seq, head_dim], with heads x head_dim = hidden), key/value
// heads from the same split with fewer heads (GQA), and the MLP width from the up projection. What stays
// unknown is said in the notes.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "formats/onnx_model.h"
#include "model/architecture.h"
#include "model/inventory.h"

namespace ma {

// Fills `a` (holding the stacks and layer kinds the initializer names show, from infer_record). `genai` is
// the parsed genai_config.json, or null. Returns what the user should know, one line each.
// An exporter folds a lookup of fixed indices (a traced sequence's position ids 0..S-1) into a constant named
// after its embedding op ("embedding_1", [1, S, hidden]). A token embedding is a [vocab, hidden] table, which
// depends on the input and is never folded: an initializer placed as a token embedding with another rank is
// a position embedding's rows, and is labelled so (GPT-2's export showed one as its token embedding). A 2-D
// initializer a Gather reads rows of is an embedding table (InventoryTensor::embedding), whatever its name.
void relabel_folded_lookups(const OnnxModel& g, std::vector<InventoryTensor>& tensors);

std::vector<std::string> fill_record_from_onnx(const OnnxModel& g, const json::Value* genai,
                                               const std::vector<InventoryTensor>& tensors,
                                               ArchitectureRecord& a);

}  // namespace ma
