// The architecture section: dimensions, norm, activation, MLP, positions (rope type/theta/scaling),
// tied embeddings, bias flags, dtype.
#include <cmath>

#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {

std::string count_or_unknown(uint64_t n) {
  return n ? with_thousands(n) : "unknown";
}
std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

namespace {

std::string text_or_unknown(const std::string& s) {
  return s.empty() ? "unknown" : s;
}

// "gated (silu)", "plain (gelu_new)".
std::string mlp_text(const ArchitectureDetails& s) {
  if (s.mlp_type.empty()) return "unknown";
  return s.activation.empty() ? s.mlp_type : s.mlp_type + " (" + s.activation + ")";
}

std::string norm_text(const ArchitectureDetails& s) {
  std::string t = text_or_unknown(s.norm_type);
  if (s.norm_eps) t += " (eps " + exact_number(*s.norm_eps) + ")";
  return t;
}

// "rope (llama3, theta 500,000, factor 8, original 8,192)".
std::string position_text(const ArchitectureDetails& s) {
  std::string t = text_or_unknown(s.position_embedding);
  if (!s.rope) return t;
  const RopeSpec& r = *s.rope;
  t += " (" + r.type;
  if (r.theta > 0) t += ", theta " + plain_number(r.theta);
  if (r.local_theta) t += ", local theta " + plain_number(*r.local_theta);
  if (r.factor) t += ", factor " + plain_number(*r.factor);
  if (r.original_max_position_embeddings)
    t += ", original " + with_thousands(*r.original_max_position_embeddings);
  if (r.partial_rotary_factor) t += ", partial " + exact_number(*r.partial_rotary_factor);
  return t + ")";
}

std::string heads_text(const ArchitectureDetails& s) {
  if (s.architecture_type == "ssm") return "none (state-space layers only)";
  return count_or_unknown(s.num_attention_heads) + " (kv " + count_or_unknown(s.num_key_value_heads) +
         ", head dim " + count_or_unknown(s.head_dim) + ")";
}

std::string bias_text(const ArchitectureDetails& s) {
  return "attention " + yes_no(s.attention_bias) + ", mlp " + yes_no(s.mlp_bias);
}

// "bf16 (index total_size)": the unquantized weights' dtype and what proves it.
std::string stored_dtype_text(const ArchitectureDetails& s) {
  return s.stored_dtype.empty() ? "unknown" : s.stored_dtype + " (" + s.stored_dtype_source + ")";
}

// "vision: 24 layers of 1,024, 16 heads, patch 14, image 336, 303.51M parameters".
std::string stack_text(const StackSummary& x) {
  std::string t;
  if (x.layers) t = with_thousands(x.layers) + (x.layers == 1 ? " layer" : " layers");
  if (x.hidden) t += (t.empty() ? "width " : " of ") + with_thousands(x.hidden);
  if (x.heads) t += ", " + with_thousands(x.heads) + " heads";
  if (x.patch_size) t += ", patch " + with_thousands(x.patch_size);
  if (x.image_size) t += ", image " + with_thousands(x.image_size);
  if (x.mel_bins) t += ", " + with_thousands(x.mel_bins) + " mel bins";
  if (x.positions) t += ", " + with_thousands(x.positions) + " input positions";
  if (x.shared_weights) t += ", every layer running the same weights";
  // transformers builds no MTP module: its weights ride in the checkpoint as extras, outside the total. A
  // GGUF's (as llama.cpp counts them) and MiMo's are in the total; no token runs them either way.
  if (x.role == StackRole::Mtp && x.counted_in_total)
    t += ", " + human_count(x.parameters) + " parameters (" + human_bytes(x.stored_bytes) +
         "), in the total, not in the active count";
  else if (x.role == StackRole::Mtp)
    t += x.parameters ? ", " + human_count(x.parameters) + " parameters (" + human_bytes(x.stored_bytes) +
                            ") stored, not built by transformers"
                      : ", not built by transformers (its weights, if shipped, are checkpoint extras)";
  else if (x.parameters)
    t += ", " + human_count(x.parameters) + " parameters";
  return t;
}

// Worth a list: more than the one stack every model has.
bool several_stacks(const ArchitectureDetails& s) {
  return s.stacks.size() > 1;
}

}  // namespace

// "32", or "4 encoder + 6 decoder" for an encoder-decoder.
std::string layers_text(const ArchitectureDetails& s) {
  if (s.encoder_layers && s.decoder_layers)
    return with_thousands(s.encoder_layers) + " encoder + " + with_thousands(s.decoder_layers) + " decoder";
  return count_or_unknown(s.num_hidden_layers);
}

void render_console(ConsoleWriter& w, const ArchitectureDetails& s, const ModelReport& r,
                    const RenderOptions& o) {
  (void)r;
  w.heading("ARCHITECTURE DETAILS");
  w.field("type", text_or_unknown(s.architecture_type));
  w.field("layers", layers_text(s));
  w.field("hidden size", count_or_unknown(s.hidden_size));
  w.field("intermediate size", count_or_unknown(s.intermediate_size));
  w.field("attention heads", heads_text(s));
  w.field("vocab size", count_or_unknown(s.vocab_size));
  w.field("max position embeddings", count_or_unknown(s.max_position_embeddings));
  if (several_stacks(s))
    for (const StackSummary& x : s.stacks) w.field(std::string(stack_role_name(x.role)), stack_text(x));
  if (s.hand_derived)
    w.field("template", "derived by hand from the model's own code (no transformers class)");
  if (!o.detailed) {
    w.field("norm / mlp / positions",
            text_or_unknown(s.norm_type) + ", " + mlp_text(s) + ", " + text_or_unknown(s.position_embedding));
    return;
  }
  w.field("norm", norm_text(s));
  w.field("mlp", mlp_text(s));
  w.field("position embedding", position_text(s));
  w.field("tied embeddings", yes_no(s.tie_word_embeddings));
  w.field("use cache", yes_no(s.use_cache));
  w.field("bias", bias_text(s));
  w.field("torch dtype", text_or_unknown(s.torch_dtype));
  w.field("stored dtype", stored_dtype_text(s));
}

void write_json(JsonWriter& w, const ArchitectureDetails& s) {
  w.key("architecture").begin_object();
  w.key("architecture_type").text_or_null(s.architecture_type);
  w.key("num_hidden_layers").count_or_null(s.num_hidden_layers);
  w.key("encoder_layers").count_or_null(s.encoder_layers);
  w.key("decoder_layers").count_or_null(s.decoder_layers);
  w.key("hand_derived").value(s.hand_derived);
  w.key("hidden_size").count_or_null(s.hidden_size);
  w.key("intermediate_size").count_or_null(s.intermediate_size);
  w.key("num_attention_heads").count_or_null(s.num_attention_heads);
  w.key("num_key_value_heads").count_or_null(s.num_key_value_heads);
  w.key("head_dim").count_or_null(s.head_dim);
  w.key("vocab_size").count_or_null(s.vocab_size);
  w.key("max_position_embeddings").count_or_null(s.max_position_embeddings);
  w.key("norm_type").text_or_null(s.norm_type);
  w.key("norm_eps").value_or_null(s.norm_eps);
  w.key("activation").text_or_null(s.activation);
  w.key("activation_function").text_or_null(s.activation);  // seed 002's name for the same field
  w.key("mlp_type").text_or_null(s.mlp_type);
  w.key("position_embedding").text_or_null(s.position_embedding);
  w.key("rope");
  if (s.rope) {
    const RopeSpec& r = *s.rope;
    w.begin_object();
    w.key("type").value(r.type);
    w.key("theta").value_or_null(r.theta > 0 ? std::optional<double>(r.theta) : std::nullopt);
    w.key("factor").value_or_null(r.factor);
    w.key("original_max_position_embeddings").value_or_null(r.original_max_position_embeddings);
    w.key("partial_rotary_factor").value_or_null(r.partial_rotary_factor);
    w.key("local_theta").value_or_null(r.local_theta);
    w.end_object();
  } else {
    w.null();
  }
  w.key("tie_word_embeddings").value(s.tie_word_embeddings);
  w.key("use_cache").value(s.use_cache);
  w.key("attention_bias").value(s.attention_bias);
  w.key("mlp_bias").value(s.mlp_bias);
  w.key("torch_dtype").text_or_null(s.torch_dtype);
  w.key("stored_dtype").text_or_null(s.stored_dtype);
  w.key("stored_dtype_source").text_or_null(s.stored_dtype_source);
  w.key("stacks").begin_array();
  for (const StackSummary& x : s.stacks) {
    w.begin_object();
    w.key("role").value(stack_role_name(x.role));
    w.key("path").value(x.path);
    w.key("layers").value(x.layers);
    w.key("hidden_size").count_or_null(x.hidden);
    w.key("num_attention_heads").count_or_null(x.heads);
    w.key("patch_size").count_or_null(x.patch_size);
    w.key("image_size").count_or_null(x.image_size);
    w.key("mel_bins").count_or_null(x.mel_bins);
    w.key("input_positions").count_or_null(x.positions);
    w.key("parameters").value(x.parameters);
    w.key("parameters_counted_in_total").value(x.counted_in_total);
    w.key("shared_weights").value(x.shared_weights);
    if (x.role == StackRole::Mtp)
      w.key("stored_bytes").value(x.stored_bytes);
    else
      w.key("stored_bytes").null();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const ArchitectureDetails& s, const ModelReport& r) {
  (void)r;
  w.heading(2, "Architecture");
  w.fields({{"Type", text_or_unknown(s.architecture_type)},
            {"Layers", layers_text(s)},
            {"Hidden size", count_or_unknown(s.hidden_size)},
            {"Intermediate size", count_or_unknown(s.intermediate_size)},
            {"Attention heads", heads_text(s)},
            {"Vocab size", count_or_unknown(s.vocab_size)},
            {"Max position embeddings", count_or_unknown(s.max_position_embeddings)},
            {"Norm", norm_text(s)},
            {"MLP", mlp_text(s)},
            {"Position embedding", position_text(s)},
            {"Tied embeddings", yes_no(s.tie_word_embeddings)},
            {"Bias", bias_text(s)},
            {"Torch dtype", text_or_unknown(s.torch_dtype)},
            {"Stored dtype", stored_dtype_text(s)}});
  if (several_stacks(s)) {
    std::vector<std::vector<std::string>> rows;
    for (const StackSummary& x : s.stacks)
      rows.push_back({std::string(stack_role_name(x.role)), "`" + x.path + "`", stack_text(x)});
    w.table({"Stack", "Path", "Shape and parameters"}, rows);
  }
  if (s.hand_derived)
    w.paragraph(
        "The template was derived by hand from the model's own code: transformers has no class for it.");
}

}  // namespace ma
