#include "model/tensor_placement.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/gguf_tensor_names.h"

namespace ma {
namespace {

// The dot-separated components of a name, on the stack: this runs once per tensor of 45,000-tensor
// checkpoints. A name with more than kMaxParts components keeps its last ones together in the final part.
constexpr size_t kMaxParts = 32;
struct Parts {
  std::array<std::string_view, kMaxParts> items;
  size_t count = 0;
  size_t first = 0;  // a view of the tail starts here
  const std::string_view* begin() const { return items.data() + first; }
  const std::string_view* end() const { return items.data() + count; }
  size_t size() const { return count - first; }
  std::string_view operator[](size_t i) const { return items[first + i]; }
  std::string_view front() const { return items[first]; }
  std::string_view back() const { return items[count - 1]; }
  Parts tail(size_t from) const {
    Parts t = *this;
    t.first = std::min(count, first + from);
    return t;
  }
};

Parts split(std::string_view name) {
  Parts parts;
  size_t start = 0;
  for (;;) {
    size_t dot = parts.count + 1 < kMaxParts ? name.find('.', start) : std::string_view::npos;
    parts.items[parts.count++] =
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

template <size_t N>
bool any_part_in(const Parts& parts, const std::array<std::string_view, N>& set) {
  for (std::string_view p : parts)
    for (std::string_view s : set)
      if (p == s) return true;
  return false;
}

template <size_t N>
bool in(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Parameters of quantized checkpoints that are not model weights but their scales / zero points / indices.
constexpr std::array<std::string_view, 13> kQuantSuffixes{"weight_scale_inv",
                                                          "weight_scale",
                                                          "weight_scale_2",
                                                          "input_scale",
                                                          "scales",
                                                          "qzeros",
                                                          "g_idx",
                                                          "weight_g_idx",
                                                          "weight_shape",
                                                          "weight_zero_point",
                                                          "input_global_scale",
                                                          "weight_global_scale",
                                                          "k_scale"};
// MiniCPM-V calls its SigLIP vision model "vpm" and its perceiver resampler (learned queries attending to the
// image features, the bridge to the language model) "resampler".
// ERNIE-4.5-VL's vision_moe, the experts only image and video tokens run inside the language model's
// layers, is the tower's share of them: no text token runs it.
// Phi-4-multimodal's image_embed (under embed_tokens_extend) holds its tower and projector; Video-LLaVA has
// a video_tower and an image_tower; Chameleon's and Janus' vqmodel turns images into tokens, and Janus draws
// images through its generation_* modules (gen_* in DeepSeek's own code), which no text token runs either.
// DeepSeek-VL-7B's high-resolution SAM tower comes with its own neck, downsampling and mixing weight.
// Segment Anything's prompt encoder and mask decoder (with the positional basis they share) turn clicks,
// boxes and masks into masks over the image embedding: the image side of a model without text.
// DETR's conv_encoder (DetrConvEncoder and its copies in Table Transformer and the other DETRs) holds its
// convolutional backbone, a ResNet.
constexpr std::array<std::string_view, 27> kVisionParts{"visual",
                                                        "vision_tower",
                                                        "vision_model",
                                                        "vision_encoder",
                                                        "vision_embed_tokens",
                                                        "vpm",
                                                        "vision_moe",
                                                        "image_embed",
                                                        "video_tower",
                                                        "image_tower",
                                                        "vqmodel",
                                                        "generation_embeddings",
                                                        "generation_aligner",
                                                        "generation_head",
                                                        "gen_vision_model",
                                                        "gen_aligner",
                                                        "gen_head",
                                                        "gen_embed",
                                                        "high_res_vision_model",
                                                        "high_res_vision_neck",
                                                        "high_res_vision_proj",
                                                        "high_res_vision_alpha",
                                                        "img_temporal_embedding",
                                                        "shared_image_embedding",
                                                        "prompt_encoder",
                                                        "mask_decoder",
                                                        "conv_encoder"};
// A projector inside the vision module (Qwen2-VL's visual.merger, Qwen3-VL's deepstack mergers, Qwen-VL's
// resampler visual.attn_pool) is still the bridge to the language model's width, so it is a projector, not
// tower.
// ERNIE-4.5-VL's resampler_model; Qwen3-Omni's merger_list (its deepstack mergers); Phi-3-vision's and
// Phi-4-multimodal's img_projection (a Sequential in the original code, two linears in transformers') and
// the latter's audio_projection (Sequentials; in the audio block, as the audio check comes first);
// LLaVA-NeXT-Video's vision_resampler; Janus' aligner; the Q-Former of BLIP-2 and InstructBLIP with its
// learned queries and its projection into the language model.
// IDEFICS' perceiver_resampler and Kosmos-2's image_to_text_projection (latent queries over the patches);
// Muse Glimmer's vision_adapter and vision_projection; Step-3.7's vit_large_projector (StepFun's name); an
// encoder-decoder's enc_to_dec_proj (the encoder's width into the decoder's). GIT's visual_projection (a
// Sequential of that name inside it) is one too, where CLIP's (into the joint space) is part of its tower.
// MiniMax-M3's merge MLP as its checkpoints name it (patch_merge_mlp, transformers'
// multi_modal_projector.merge_linear_*). DETR's input_projection, a 1 x 1 convolution, maps its backbone's
// last feature map to the transformer's width.
constexpr std::array<std::string_view, 26> kProjectorParts{"multi_modal_projector",
                                                           "mm_projector",
                                                           "merger",
                                                           "deepstack_merger_list",
                                                           "embed_vision",
                                                           "resampler",
                                                           "resampler_model",
                                                           "attn_pool",
                                                           "merger_list",
                                                           "img_projection",
                                                           "img_projection_up",
                                                           "img_projection_down",
                                                           "audio_projection",
                                                           "vision_resampler",
                                                           "aligner",
                                                           "qformer",
                                                           "query_tokens",
                                                           "language_projection",
                                                           "perceiver_resampler",
                                                           "image_to_text_projection",
                                                           "vision_adapter",
                                                           "vision_projection",
                                                           "vit_large_projector",
                                                           "enc_to_dec_proj",
                                                           "patch_merge_mlp",
                                                           "input_projection"};
// Non-learned state that checkpoints store: rotary frequencies and position ids (older transformers saved
// them), GPT-2 / GPT-J's masked_bias, CodeGen's causal_mask, Gemma 4's per-layer output scale (a persistent
// buffer).
// FNet's DFT matrices (its TPU path) are persistent too, and so is the Gemma 4 assistants' token_ordering
// (the vocabulary grouped by centroid), and Swin's relative_position_index (each window position's offset
// into the bias table: persistent in Donut's Swin and in transformers 4's Swin checkpoints).
constexpr std::array<std::string_view, 9> kBufferLeaves{
    "inv_freq",    "position_ids",   "masked_bias",
    "causal_mask", "layer_scalar",   "dft_mat_hidden",
    "dft_mat_seq", "token_ordering", "relative_position_index"};
// I-BERT's integer-only modules (quant_modules.py) keep persistent float32 buffers beside their weights: the
// weights' and biases' integer copies and scales, each activation's running range and scale, and (below) the
// LayerNorms' shift.
constexpr std::array<std::string_view, 7> kIntegerOnlyLeaves{
    "weight_integer", "bias_integer", "fc_scaling_factor", "weight_scaling_factor", "act_scaling_factor",
    "x_min",          "x_max"};
// Suffixes of tensors stored beside a projection under the projection's own name rather than as its
// `.weight` / `.bias` child: nn.MultiheadAttention's in_proj_weight / in_proj_bias, fused experts' biases
// (gpt-oss's gate_up_proj_bias), MXFP4 packed weights (`_blocks`) and their block scales (`_scales`).
constexpr std::array<std::string_view, 4> kProjSuffixes{"_weight", "_bias", "_blocks", "_scales"};
constexpr std::array<std::string_view, 6> kMambaLeaves{"A_log",  "D",      "dt_bias",
                                                       "conv1d", "x_proj", "dt_proj"};
// XLNet's relative attention is rel_attn; NLLB-MoE's decoder cross-attention is cross_attention.
constexpr std::array<std::string_view, 12> kAttentionParts{
    "self_attn",       "attn",           "attention",  "self_attention", "SelfAttention",
    "EncDecAttention", "encoder_attn",   "cross_attn", "crossattention", "multi_head_attention",
    "rel_attn",        "cross_attention"};
// XLNet's feed-forward block is ff.
constexpr std::array<std::string_view, 12> kMlpParts{
    "mlp", "ffn",  "feed_forward",  "DenseReluDense", "intermediate", "fc1",
    "fc2", "c_fc", "dense_h_to_4h", "dense_4h_to_h",  "ffn_layer",    "ff"};
// fairseq's (FSMT's, TrOCR's) LM head is output_projection; MusicGen's one head per codebook, lm_heads.N;
// CSM's depth decoder one matrix per code position, codebooks_head.
constexpr std::array<std::string_view, 11> kHeadLeaves{
    "lm_head", "embed_out",         "score",    "classifier",    "proj_out", "qa_outputs", "pooler",
    "cls",     "output_projection", "lm_heads", "codebooks_head"};
// Top-level modules of encoder task heads (masked-LM transforms, classifiers, BART's logits-bias buffer,
// BigBird's question-answering block, TAPAS's cell-selection parameters and aggregation classifier;
// ELECTRA's and ConvBERT's generator and Funnel's discriminator; XLNet's and XLM's LM heads, sequence
// summaries and SQuAD heads; LUKE's entity prediction head; DeiT's two classifiers; the Gemma 4 assistants'
// centroid head (masked_embedding) and post_projection, their output back to the target model's width). Also
// one level down: a base model's pooler (bert.pooler) and a composite's heads (decoder.cls). DETR's detection
// heads: class_labels_classifier, bbox_predictor (an MLP whose layers.N are no stack) and, for segmentation,
// mask_head and bbox_attention (also under detr., DetrForSegmentation's DetrForObjectDetection).
constexpr std::array<std::string_view, 37> kHeadRoots{"lm_head",
                                                      "cls",
                                                      "classifier",
                                                      "classification_head",
                                                      "pooler",
                                                      "qa_outputs",
                                                      "vocab_transform",
                                                      "vocab_layer_norm",
                                                      "vocab_projector",
                                                      "pre_classifier",
                                                      "final_logits_bias",
                                                      "proj_out",
                                                      "qa_classifier",
                                                      "aggregation_classifier",
                                                      "output_weights",
                                                      "column_output_weights",
                                                      "output_bias",
                                                      "column_output_bias",
                                                      "generator_predictions",
                                                      "generator_lm_head",
                                                      "discriminator_predictions",
                                                      "lm_loss",
                                                      "pred_layer",
                                                      "sequence_summary",
                                                      "logits_proj",
                                                      "start_logits",
                                                      "end_logits",
                                                      "answer_class",
                                                      "entity_predictions",
                                                      "cls_classifier",
                                                      "distillation_classifier",
                                                      "masked_embedding",
                                                      "post_projection",
                                                      "class_labels_classifier",
                                                      "bbox_predictor",
                                                      "mask_head",
                                                      "bbox_attention"};
// XLM's and FlauBERT's layers are four parallel module lists, the index after the list's name.
constexpr std::array<std::string_view, 4> kParallelLayerLists{"attentions", "layer_norm1", "ffns",
                                                              "layer_norm2"};

// Lists of parallel tables, one per stream of codes (MusicGen's embed_tokens.N and lm_heads.N, one per
// EnCodec codebook; Bark's fine-acoustics model's input_embeds_layers.N): the index names the codebook, not a
// layer, and the list is the module.
constexpr std::array<std::string_view, 3> kPerCodebookLists{"embed_tokens", "lm_heads",
                                                            "input_embeds_layers"};

// Sequentials inside modules whose indices are no layers (see place_tensor), and lists of parallel modules
// (SAM's point_embed, one embedding per kind of point, and output_hypernetworks_mlps, one MLP per mask
// token).
constexpr std::array<std::string_view, 11> kSequentials{"prompt_trans",
                                                        "neck",
                                                        "neck_hd",
                                                        "downsamples",
                                                        "tail",
                                                        "img_temporal_embedding",
                                                        "conv_layers",
                                                        "weights",
                                                        "visual_projection",
                                                        "point_embed",
                                                        "output_hypernetworks_mlps"};

std::string role_of(std::string_view module) {
  static constexpr std::pair<std::string_view, std::string_view> kRoles[] = {
      {"q_proj", "q"},
      {"query", "q"},
      {"wq", "q"},
      {"q", "q"},
      {"q_a_proj", "q-down"},
      {"q_b_proj", "q-up"},
      {"k_proj", "k"},
      {"key", "k"},
      {"wk", "k"},
      {"k", "k"},
      {"v_proj", "v"},
      {"value", "v"},
      {"wv", "v"},
      {"v", "v"},
      {"kv_a_proj_with_mqa", "kv-down"},
      {"kv_b_proj", "kv-up"},
      {"o_proj", "o"},
      {"wo", "o"},
      {"o", "o"},
      {"out_proj", "o"},
      {"c_proj", "o"},
      {"dense", "o"},
      {"q_lin", "q"},  // DistilBERT, XLM
      {"k_lin", "k"},
      {"v_lin", "v"},
      {"out_lin", "o"},
      {"q_head", "q"},  // Funnel
      {"k_head", "k"},
      {"v_head", "v"},
      {"post_proj", "o"},
      {"Wq", "q"},  // CTRL
      {"Wk", "k"},
      {"Wv", "v"},
      {"linear_q", "q"},  // Phi-4-multimodal's original audio attention
      {"linear_k", "k"},
      {"linear_v", "v"},
      {"linear_out", "o"},
      {"qkv_proj", "qkv"},
      {"c_attn", "qkv"},
      {"att_proj", "qkv"},  // Bark
      {"query_key_value", "qkv"},
      {"Wqkv", "qkv"},
      {"qkv", "qkv"},
      {"gate_proj", "gate"},
      {"w1", "gate"},
      {"wi_0", "gate"},
      {"up_proj", "up"},
      {"w3", "up"},
      {"wi_1", "up"},
      {"c_fc_0", "gate"},  // EXAONE 3
      {"c_fc_1", "up"},
      {"fc12", "gate"},  // NomicBERT's SwiGLU: fc2(fc11(x) * silu(fc12(x)))
      {"fc11", "up"},
      {"weights_in", "gate-up"},  // DINOv2-giant's SwiGLU
      {"weights_out", "down"},
      {"W_pack", "qkv"},
      {"wqkv", "qkv"},  // Baichuan, InternLM2
      {"down_proj", "down"},
      {"w2", "down"},
      {"gate_up_proj", "gate-up"},
      {"c_fc", "up"},
      {"fc1", "up"},
      {"dense_h_to_4h", "up"},
      {"wi", "up"},
      {"fc2", "down"},
      {"dense_4h_to_h", "down"},
      {"fc_in", "up"},
      {"fc_out", "down"},  // GPT-J
      {"lin1", "up"},      // DistilBERT, XLM
      {"lin2", "down"},
      {"gate", "router"},
      {"router", "router"},
      {"e_score_correction_bias", "router-bias"},
      {"v1", "up"},
      {"input_linear", "gate-up"},
      {"output_linear", "down"},
      {"project_in", "embedding-projection"},
      {"pre_projection", "embedding-projection"},
      {"project_out", "embedding-projection"},
      {"inv_freq", "rotary-inv-freq"},
      {"masked_bias", "mask"},
      {"causal_mask", "causal-mask"},
      {"position_ids", "position-ids"},
      {"layer_scalar", "layer-scalar"},
  };
  // Looked up for every tensor of a checkpoint: a hash table, built once.
  static const std::unordered_map<std::string_view, std::string_view> table(std::begin(kRoles),
                                                                            std::end(kRoles));
  auto it = table.find(module);
  return std::string(it != table.end() ? it->second : module);
}

}  // namespace

std::string_view block_name(Block b) {
  static constexpr std::string_view kNames[] = {"embedding",
                                                "attention",
                                                "cross-attention",
                                                "mlp",
                                                "moe-router",
                                                "moe-expert",
                                                "shared-expert",
                                                "mamba",
                                                "linear-attention",
                                                "short-conv",
                                                "rg-lru",
                                                "rwkv",
                                                "mlstm",
                                                "norm",
                                                "lm-head",
                                                "vision",
                                                "vision-projector",
                                                "audio",
                                                "speech-output",
                                                "mtp",
                                                "quantization",
                                                "buffer",
                                                "other"};
  static_assert(std::size(kNames) == static_cast<size_t>(Block::Other) + 1);
  return kNames[static_cast<size_t>(b)];
}

namespace {

// Granite Speech's CTC Conformer sits at the root as encoder.*, beside language_model.*: its input_linear,
// its mid-stack CTC projections (out, out_mid) and its blocks, spelled with lucidrains' Conformer names (ff1,
// attn with to_q / to_kv / to_out / rel_pos_emb, conv, ff2, post_norm), which no text stack uses.
bool root_conformer(const Parts& parts) {
  if (parts.size() < 3 || parts.front() != "encoder") return false;
  if (in(parts[1], std::array<std::string_view, 3>{"input_linear", "out", "out_mid"}))
    return parts.size() == 3;
  if (parts[1] != "layers" || parts.size() < 5 || !all_digits(parts[2])) return false;
  if (in(parts[3], std::array<std::string_view, 4>{"ff1", "ff2", "conv", "post_norm"})) return true;
  return parts[3] == "attn" &&
         in(parts[4], std::array<std::string_view, 5>{"pre_norm", "to_q", "to_kv", "to_out", "rel_pos_emb"});
}

// VITS (VitsModel) around its text encoder: text_encoder.project (the prior's means and log-variances), the
// duration predictor, the normalizing flow and the decoder, a HiFi-GAN generator (conv_pre, upsampler.N,
// resblocks.N, conv_post and the speaker conditioning cond), turn the encoded text into a waveform: speech
// output. Its posterior encoder, a WaveNet over linear spectrograms that only training runs, is an audio
// encoder. Matched at the root, where a seq2seq model's decoder holds layers, not these modules.
// A HiFi-GAN vocoder alone (SpeechT5HifiGan) has the generator's modules at the root, and beside them the
// mean and scale that normalise its input spectrogram.
// SpeechT5's speech_decoder_postnet (mel frames and stop logits from the decoder's states, then a residual
// convolution stack with BatchNorms, running statistics included) is speech output too.
std::optional<Block> text_to_speech_block(const Parts& parts) {
  constexpr std::array<std::string_view, 4> kHifiGanModules{"conv_pre", "upsampler", "resblocks",
                                                            "conv_post"};
  if ((parts.size() >= 2 && in(parts[0], kHifiGanModules)) ||
      (parts.size() == 1 && (parts[0] == "mean" || parts[0] == "scale")) ||
      parts[0] == "speech_decoder_postnet")
    return Block::SpeechOutput;
  if (parts.size() < 3) return std::nullopt;
  const std::string_view root = parts[0], module = parts[1];
  if (root == "posterior_encoder") return Block::Audio;
  if (root == "duration_predictor" || root == "flow" || (root == "text_encoder" && module == "project") ||
      (root == "decoder" && (in(module, kHifiGanModules) || module == "cond")))
    return Block::SpeechOutput;
  return std::nullopt;
}

// SpeechT5's pre-nets (encoder.prenet, decoder.prenet), chosen by the task: the speech encoder's (wav2vec
// 2.0's feature encoder, projection and positional convolution, the SpecAugment mask vector) is audio; the
// speech decoder's (linears over the previous mel frame, the layer mixing in the speaker's x-vector, its
// scaled positions) speech output, run only when the model speaks. The text pre-nets' token tables are
// embeddings, as elsewhere, and the text encoder's scaled positions (its learned alpha) a position embedding.
// `role` is the tensor's; a module of a list (decoder.prenet.layers.0) is named by its list.
std::optional<TensorPlacement> speech_prenet_placement(const Parts& parts, std::string_view module,
                                                       const std::string& role) {
  size_t at = 1;
  while (at < parts.size() && parts[at - 1] != "prenet") ++at;
  if (at >= parts.size()) return std::nullopt;
  const std::string_view part = parts[at], side = at >= 2 ? parts[at - 2] : std::string_view();
  TensorPlacement pl;
  pl.role = all_digits(module) ? std::string(part) : role;
  if (in(part, std::array<std::string_view, 5>{"feature_encoder", "feature_projection", "pos_conv_embed",
                                               "pos_sinusoidal_embed", "masked_spec_embed"})) {
    pl.block = Block::Audio;
  } else if (in(part, std::array<std::string_view, 3>{"layers", "final_layer", "speaker_embeds_layer"}) ||
             (part == "encode_positions" && side == "decoder")) {
    pl.block = Block::SpeechOutput;
  } else if (part == "encode_positions" && side == "encoder") {
    pl.block = Block::Embedding;
    pl.role = "position-embedding";
  } else {
    return std::nullopt;
  }
  return pl;
}

}  // namespace

TensorPlacement place_tensor(std::string_view name) {
  if (std::optional<TensorPlacement> gguf = place_gguf_tensor(name)) return *gguf;
  TensorPlacement pl;
  Parts parts = split(name);

  // Layer: the first numeric component that is not an expert index, nor the position of a module inside a
  // projector's Sequential (Qwen-VL's visual.merger.mlp.0, LLaVA's mm_projector.0) or a task head (DETR's
  // bbox_predictor.layers.2).
  size_t layer_pos = parts.size();
  bool in_projector = false, in_head = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    in_projector = in_projector || in(parts[i - 1], kProjectorParts);
    in_head = in_head || in(parts[i - 1], kHeadRoots);
    if (!all_digits(parts[i]) || in_projector || in_head) continue;
    std::string_view before = parts[i - 1];
    if (contains(before, "experts") || in(before, kPerCodebookLists)) continue;
    // Sequentials inside a module, not stacks of layers: MVP's prompt MLP, SAM's necks (segment-anything's
    // neck.0 ... neck.3), DeepSeek-VL's downsampling convolutions and the clusters of an adaptive softmax
    // (XLM's pred_layer.proj.tail.0.1: cluster 0's second Linear, two indices into nested Sequentials).
    if (in(before, kSequentials) || (all_digits(before) && i >= 2 && in(parts[i - 2], kSequentials)))
      continue;
    layer_pos = i;
    uint32_t layer = 0;
    std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), layer);  // all_digits: < 10 digits
    pl.layer = layer;
    size_t end = static_cast<size_t>(parts[i - 1].data() + parts[i - 1].size() - name.data());
    pl.stack_length = static_cast<uint16_t>(std::min<size_t>(end, UINT16_MAX));
    break;
  }

  // Module (the part that names what the tensor is) and parameter suffix.
  std::string_view leaf = parts.back();
  std::string_view module = leaf;
  // GPTQ / AWQ store a quantized Linear's packed weight as `X.qweight` where the model has `X.weight`,
  // compressed-tensors as `X.weight_packed`.
  if ((leaf == "weight" || leaf == "bias" || leaf == "qweight" || leaf == "weight_packed") &&
      parts.size() >= 2)
    module = parts[parts.size() - 2];
  if (all_digits(module) && parts.size() >= 3 && in(parts[parts.size() - 3], kPerCodebookLists))
    module = parts[parts.size() - 3];
  // A weight-normed module keeps its weight as a magnitude and a direction, both its own: torch's
  // parametrization (X.parametrizations.weight.original0 / original1) or the older X.weight_g / X.weight_v.
  if ((leaf == "original0" || leaf == "original1") && parts.size() >= 4 &&
      parts[parts.size() - 3] == "parametrizations")
    module = parts[parts.size() - 4];
  else if ((leaf == "weight_g" || leaf == "weight_v") && parts.size() >= 2)
    module = parts[parts.size() - 2];
  // The sinusoidal table older transformers saved as a parameter named weights (MusicGen's embed_positions).
  if (leaf == "weights" && parts.size() >= 2 && contains(parts[parts.size() - 2], "position"))
    module = parts[parts.size() - 2];
  std::string_view proj_suffix;
  for (std::string_view suffix : kProjSuffixes)
    if (std::string_view stem = leaf.substr(0, leaf.size() - std::min(leaf.size(), suffix.size()));
        leaf.ends_with(suffix) && stem.ends_with("proj")) {
      proj_suffix = suffix;
      module = stem;
    }
  // PEFT's LoRA layers inside a model (Phi-4-multimodal's original checkpoints) keep the linear they wrap as
  // base_layer and put each adapter's lora_A / lora_B (named by adapter) beside it: all of them belong to
  // that linear, the adapter's two marked as such.
  // They sit among the last three parts before the leaf (PEFT's files: q_proj.lora_A.weight; inline ones:
  // qkv_proj.lora_A.vision.weight): only those are looked at, every tensor's name passing here.
  std::string_view lora;
  for (size_t i = std::max<size_t>(1, parts.size() > 3 ? parts.size() - 3 : 1); i + 1 < parts.size(); ++i)
    if (parts[i] == "base_layer" || parts[i] == "lora_A" || parts[i] == "lora_B") {
      module = parts[i - 1];
      lora = parts[i];
      break;
    }
  const Parts inner = parts.tail(layer_pos);

  std::string role = role_of(module);
  if (lora == "lora_A" || lora == "lora_B") role += lora == "lora_A" ? "-lora-a" : "-lora-b";
  auto set = [&](Block block, std::string r) {
    pl.block = block;
    pl.role = std::move(r);
  };

  if (in(leaf, kQuantSuffixes) || proj_suffix == "_scales") {
    set(Block::Quantization, std::string(leaf));
    return pl;
  }
  // Buffers checkpoints saved (kBufferLeaves, I-BERT's), and GPT-2 / GPT-NeoX causal masks ("attn.bias").
  if (in(leaf, kBufferLeaves) || in(leaf, kIntegerOnlyLeaves) ||
      (leaf == "shift" && parts.size() >= 2 && parts[parts.size() - 2] == "LayerNorm") ||
      (leaf == "bias" && (module == "attn" || module == "attention") && parts.size() >= 2)) {
    set(Block::Buffer, leaf == "bias" ? "causal-mask" : role_of(leaf));
    return pl;
  }
  // DeepSeek-V3-style multi-token-prediction modules stored after the last decoder layer.
  if (any_part_in(inner, std::array<std::string_view, 4>{"eh_proj", "enorm", "hnorm", "shared_head"})) {
    set(Block::Mtp, role);
    return pl;
  }
  // MVP's learned attention prefixes (self_attn_prompt, cross_attn_prompt): prompt embeddings and the MLP
  // that turns them into every layer's keys and values.
  if (any_part_in(parts, std::array<std::string_view, 2>{"self_attn_prompt", "cross_attn_prompt"})) {
    set(Block::Attention, module == "prompt_embedding" ? "prompt-embedding" : "prompt-mlp");
    return pl;
  }
  if (any_part_in(inner, std::array<std::string_view, 1>{"indexer"})) {
    set(Block::Attention, "indexer-" + role);  // the sparse-attention indexer of DeepSeek-V3.2 / GLM-5
    return pl;
  }
  // The speech side of the omni models: Qwen2.5-Omni's and Qwen3-Omni's talker (a second decoder turning the
  // thinker's states into speech codes), Qwen2.5-Omni's token2wav and Qwen3-Omni's code2wav (codes to a
  // waveform); Bark's coarse- and fine-acoustics models (its semantic tokens to EnCodec codes): their
  // attention and MLPs are not the language model's.
  if (any_part_in(parts, std::array<std::string_view, 5>{"talker", "token2wav", "code2wav",
                                                         "coarse_acoustics", "fine_acoustics"})) {
    set(Block::SpeechOutput, role);
    return pl;
  }
  if (const std::optional<TensorPlacement> prenet = speech_prenet_placement(parts, module, role))
    return *prenet;
  if (const std::optional<Block> speech = text_to_speech_block(parts)) {
    // A module of a list (upsampler.0, resblocks.3.convs1.2, wavenet.in_layers.5) is named by its list.
    size_t at = parts.size();
    while (at > 0 && parts[at - 1].data() != module.data()) --at;  // the module's own part
    set(*speech, all_digits(module) && at >= 2 ? role_of(parts[at - 2]) : role);
    return pl;
  }
  // Gemma 3n's and Gemma 4's embed_audio projects the audio tower's features into the language model;
  // Phi-4-multimodal's audio_embed holds its conformer and the projectors after it. MusicGen's audio_encoder
  // is an EnCodec codec (its decoder turns the generated codes into audio) and MusicGen Melody's
  // audio_enc_to_dec_proj projects the melody's chroma features into the decoder. Kyutai's speech-to-text
  // model holds the Mimi codec that turns its audio into codes as codec_model.
  if (any_part_in(parts,
                  std::array<std::string_view, 7>{"audio_tower", "audio_model", "embed_audio", "audio_embed",
                                                  "audio_encoder", "audio_enc_to_dec_proj", "codec_model"}) ||
      root_conformer(parts)) {
    set(Block::Audio, role);
    return pl;
  }
  const bool git_projection = parts.size() >= 3 && parts[1] == "visual_projection" && parts[2] == parts[1];
  // A `projector` module at the root or under model. (Granite Speech's: learned queries, a Q-Former, a linear
  // into the language model; Cosmos3-Edge's and PaddleOCR-VL's patch mergers), where wav2vec 2.0's
  // classification head has a plain projector Linear at the root.
  const size_t projector_at = parts.front() == "model" ? 1 : 0;
  const bool root_projector = parts.size() >= projector_at + 2 && parts[projector_at] == "projector" &&
                              !(parts.size() == 2 && module == "projector");
  if (any_part_in(parts, kVisionParts) || any_part_in(parts, kProjectorParts) || git_projection ||
      root_projector) {
    set(any_part_in(parts, kProjectorParts) || git_projection || root_projector ? Block::VisionProjector
                                                                                : Block::Vision,
        role);
    return pl;
  }
  // A neural audio codec alone (EnCodec: its SEANet's LSTM, torch's weight_ih_lK / weight_hh_lK / bias_ih_lK
  // / bias_hh_lK, and its residual vector quantizer's codebooks, buffers included; Mimi: its quantizer's
  // input / output projections, and the root downsample / upsample convolutions between the SEANet's frame
  // rate and the codes'): audio, whatever layer list holds them. Image tokenizers' codebooks sit under a
  // vision module, placed above.
  const bool codebook = any_part_in(parts, std::array<std::string_view, 1>{"codebook"});
  const bool root_resampler =
      parts.size() == 3 && (parts[0] == "downsample" || parts[0] == "upsample") && parts[1] == "conv";
  if (codebook || parts.front() == "quantizer" || root_resampler ||
      (parts.size() >= 2 && parts[parts.size() - 2] == "lstm" &&
       (leaf.starts_with("weight_ih_l") || leaf.starts_with("weight_hh_l") || leaf.starts_with("bias_ih_l") ||
        leaf.starts_with("bias_hh_l")))) {
    set(Block::Audio, codebook                       ? "codebook"
                      : parts.front() == "quantizer" ? "quantizer"
                      : root_resampler               ? "resample"
                                                     : "lstm");
    return pl;
  }
  for (std::string_view p : inner) {
    if (contains(p, "shared_expert") || p == "shared_mlp" || p == "share_expert") {
      set(Block::SharedExpert, module == "shared_expert_gate" ? "gate" : role);
      return pl;
    }
  }
  // Step-3.5 stacks its experts' projections right under the block: moe.{gate,up,down}_proj.
  const bool stacked_under_moe =
      any_part_in(inner, std::array<std::string_view, 1>{"moe"}) &&
      in(module, std::array<std::string_view, 3>{"gate_proj", "up_proj", "down_proj"});
  // Doge's cross-domain MoE keeps its rank-one experts as rows of two embeddings, mlp.{down,up}_embed.
  const bool embedded_experts = pl.layer && (module == "down_embed" || module == "up_embed");
  for (std::string_view p : inner) {
    if (p == "experts" || p == "local_experts" || p == "input_linear" || p == "output_linear" ||
        stacked_under_moe || embedded_experts) {
      set(Block::MoeExpert, role);
      return pl;
    }
  }
  // Llama 3.2 Vision's cross-attention layers scale the attention and the MLP output by tanh gates of their
  // own, scalars stored beside the modules.
  // IDEFICS' gated cross-attention layers: alpha_cross_attn and alpha_dense.
  if (leaf == "cross_attn_attn_gate" || leaf == "cross_attn_mlp_gate" || leaf == "alpha_cross_attn" ||
      leaf == "alpha_dense") {
    set(leaf == "cross_attn_attn_gate" || leaf == "alpha_cross_attn" ? Block::CrossAttention : Block::Mlp,
        "gate");
    return pl;
  }
  // Doge's product-key router is mlp.router_gate.
  if (module == "gate" || module == "router" || module == "router_gate" ||
      leaf == "e_score_correction_bias" || leaf == "expert_bias" || leaf == "router_bias" ||
      module == "switch" || any_part_in(inner, std::array<std::string_view, 1>{"router"})) {
    set(Block::MoeRouter,
        role_of(leaf == "e_score_correction_bias" || leaf == "expert_bias" || leaf == "router_bias"
                    ? leaf
                    : module));
    return pl;
  }
  // Doge's learned residual scales: input_residual weighs the residual around attention,
  // post_attention_residual the one around the MLP.
  if (pl.layer && (leaf == "input_residual" || leaf == "post_attention_residual")) {
    set(leaf == "input_residual" ? Block::Attention : Block::Mlp, "residual-scale");
    return pl;
  }
  // Mimi's layer scales (self_attn_layer_scale.scale, mlp_layer_scale.scale) weigh each block's output.
  const std::string_view scaled = leaf == "scale" && parts.size() >= 2 ? parts[parts.size() - 2] : "";
  if (pl.layer && (scaled == "self_attn_layer_scale" || scaled == "mlp_layer_scale")) {
    set(scaled == "self_attn_layer_scale" ? Block::Attention : Block::Mlp, "layer-scale");
    return pl;
  }
  // XLM's parallel lists: attentions.N.{q,k,v,out}_lin, ffns.N.lin{1,2}, layer_norm{1,2}.N.
  if (pl.layer && layer_pos >= 1 && in(parts[layer_pos - 1], kParallelLayerLists)) {
    const std::string_view list = parts[layer_pos - 1];
    if (list == "attentions")
      set(Block::Attention, role);
    else if (list == "ffns")
      set(Block::Mlp, role);
    else
      set(Block::Norm, "norm");
    return pl;
  }
  // SqueezeBERT's projections are 1x1 convolutions named conv1d (a Mamba leaf elsewhere) under the attention
  // output, the intermediate and the output modules of its layers.
  if (pl.layer && module == "conv1d" && inner.size() >= 3) {
    if (inner[1] == "post_attention") {
      set(Block::Attention, "o");
      return pl;
    }
    if (inner[1] == "intermediate" || inner[1] == "output") {
      set(Block::Mlp, inner[1] == "intermediate" ? "up" : "down");
      return pl;
    }
  }
  // MobileBERT's bottlenecks: layer.N.bottleneck.{input,attention} project the layer's input down to the
  // narrow width its attention reads, layer.N.output.bottleneck back up after the feed-forward networks.
  if (pl.layer && any_part_in(inner, std::array<std::string_view, 1>{"bottleneck"})) {
    const bool norm = contains(module, "LayerNorm");
    const Block block = norm ? Block::Norm : inner[1] == "output" ? Block::Mlp : Block::Attention;
    set(block, norm ? "norm" : "bottleneck");
    return pl;
  }
  // SEANet's convolution stacks (the EnCodec codec's encoder and decoder): each conv is a layer's own module
  // (layers.N.conv), a residual block's (layers.N.block.M.conv) or its shortcut's (layers.N.shortcut.conv),
  // where LFM2's short convolution nests its conv in a conv block (conv.conv). Audio, as their LSTM.
  if (pl.layer && module == "conv") {
    size_t at = parts.size();
    while (at > 0 && parts[at - 1].data() != module.data()) --at;  // the module's own part
    if (at >= 2 && (all_digits(parts[at - 2]) || parts[at - 2] == "shortcut")) {
      set(Block::Audio, "conv");
      return pl;
    }
  }
  // LFM2's short convolution: conv.in_proj, conv.conv, conv.out_proj.
  if (pl.layer && any_part_in(inner, std::array<std::string_view, 1>{"conv"}) &&
      in(module, std::array<std::string_view, 3>{"conv", "in_proj", "out_proj"})) {
    set(Block::ShortConv, std::string(module));
    return pl;
  }
  // RecurrentGemma's recurrent block: temporal_block.{linear_x, linear_y, linear_out, conv_1d, rg_lru.*}
  // (its attention layers' temporal_block holds q/k/v/o_proj).
  if (pl.layer &&
      (any_part_in(inner, std::array<std::string_view, 1>{"rg_lru"}) ||
       (any_part_in(inner, std::array<std::string_view, 1>{"temporal_block"}) &&
        in(module, std::array<std::string_view, 4>{"linear_x", "linear_y", "linear_out", "conv_1d"})))) {
    set(Block::RgLru, std::string(module));
    return pl;
  }
  // xLSTM's blocks.N.mlstm_layer.
  if (pl.layer && any_part_in(inner, std::array<std::string_view, 1>{"mlstm_layer"})) {
    set(Block::Mlstm, std::string(module));
    return pl;
  }
  // RWKV's blocks.N.attention (time mixing, with its own decays and token-shift mixes) and feed_forward
  // (channel mixing: key, value and a receptance gate, its MLP).
  if (pl.layer && (in(module, std::array<std::string_view, 3>{"time_decay", "time_first", "receptance"}) ||
                   module.starts_with("time_mix_"))) {
    set(any_part_in(inner, std::array<std::string_view, 1>{"feed_forward"}) ? Block::Mlp : Block::Rwkv,
        std::string(module));
    return pl;
  }
  // Its time mixing's linears sit straight under blocks.N.attention, where BERT's and ViT's keys have a
  // self or attention module between.
  if (pl.layer && layer_pos >= 1 && parts[layer_pos - 1] == "blocks" && inner.size() == 4 &&
      inner[1] == "attention" && in(module, std::array<std::string_view, 3>{"key", "value", "output"})) {
    set(Block::Rwkv, std::string(module));
    return pl;
  }
  // A Mamba leaf inside softmax attention is not Mamba's: Doge's self_attn.dt_proj turns values into its
  // dynamic mask.
  if (any_part_in(inner, std::array<std::string_view, 2>{"linear_attn", "mamba"}) ||
      (in(module, kMambaLeaves) && !any_part_in(inner, kAttentionParts)) ||
      (any_part_in(inner, std::array<std::string_view, 1>{"mixer"}) &&
       in(module, std::array<std::string_view, 3>{"in_proj", "out_proj", "norm"}))) {
    set(any_part_in(inner, std::array<std::string_view, 1>{"linear_attn"}) ? Block::LinearAttention
                                                                           : Block::Mamba,
        role);
    return pl;
  }
  if (any_part_in(inner, kAttentionParts) ||
      in(module, std::array<std::string_view, 7>{"q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj",
                                                 "query_key_value", "Wqkv"})) {
    bool norm = contains(module, "norm") || contains(module, "ln");
    // Pix2Struct's decoder calls its cross-attention encoder_decoder_attention.
    bool cross = any_part_in(inner, std::array<std::string_view, 6>{
                                        "EncDecAttention", "encoder_attn", "cross_attn", "crossattention",
                                        "cross_attention", "encoder_decoder_attention"});
    set(norm && !contains(module, "proj") ? Block::Norm : (cross ? Block::CrossAttention : Block::Attention),
        role);
    return pl;
  }
  if (any_part_in(inner, kMlpParts) ||
      in(module, std::array<std::string_view, 5>{"gate_proj", "up_proj", "down_proj", "fc1_latent_proj",
                                                 "fc2_latent_proj"})) {
    bool bert_up = module == "dense" && any_part_in(inner, std::array<std::string_view, 1>{"intermediate"});
    bool bert_down = module == "dense" && any_part_in(inner, std::array<std::string_view, 1>{"output"});
    // Funnel's ffn (linear_1, linear_2, layer_norm), MobileBERT's extra ffn.N (its output.LayerNorm),
    // XLNet's ff (layer_1, layer_2) and Pix2Struct's mlp (DenseReluDense, layer_norm): the LayerNorm in the
    // block is a norm.
    if (any_part_in(inner, std::array<std::string_view, 3>{"ffn", "ff", "mlp"}) &&
        (module == "LayerNorm" || module == "layer_norm")) {
      set(Block::Norm, "norm");
      return pl;
    }
    if (module == "linear_1" || module == "layer_1") role = "up";
    if (module == "linear_2" || module == "layer_2") role = "down";
    // GPT-2's and Qwen-1's MLP output is c_proj, which names the attention output elsewhere.
    set(Block::Mlp, bert_up ? "up" : bert_down || module == "c_proj" ? "down" : role);
    return pl;
  }
  // BERT / ViT checkpoints: the FFN's down projection is "layer.N.output.dense" (its attention twin,
  // "attention.output.dense", was placed above); Swin's blocks nest the same modules one list deeper, in
  // stages ("layers.S.blocks.B.output.dense"): "output" follows the innermost index.
  size_t innermost = 0;
  for (size_t i = 0; i < inner.size(); ++i)
    if (all_digits(inner[i])) innermost = i;
  if (pl.layer && inner.size() >= innermost + 3 && inner[innermost + 1] == "output") {
    bool norm = contains(module, "LayerNorm") || contains(module, "layernorm");  // SqueezeBERT's lower case
    set(norm ? Block::Norm : Block::Mlp, norm ? "norm" : "down");
    return pl;
  }
  // ChatGLM's LM head is transformer.output_layer, RWKV's a top-level head.
  // ModernBERT-decoder's head is a top-level decoder.
  if (in(module, kHeadLeaves) ||
      ((module == "output" || module == "head" || module == "decoder") && parts.size() == 2) ||
      (!pl.layer && (module == "output_layer" || in(parts.front(), kHeadRoots) ||
                     (parts.size() >= 3 && in(parts[1], kHeadRoots))))) {
    set(Block::LmHead, "lm-head");
    return pl;
  }
  // Speech2Text's convolutional subsampler (encoder.conv.conv_layers.N) and Reformer's axial position
  // tables (embeddings.position_embeddings.weights.N).
  if (!pl.layer && parts.size() >= 3 && parts[parts.size() - 3] == "conv_layers") {
    set(Block::Embedding, "conv-stem");
    return pl;
  }
  if (!pl.layer && parts.size() >= 3 && parts[parts.size() - 2] == "weights" &&
      contains(parts[parts.size() - 3], "position")) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  // The convolutional audio stem: Whisper's conv1 and conv2, Moonshine's conv1, conv2 and conv3.
  const bool audio_stem =
      (module == "conv1" || module == "conv2" || module == "conv3") &&
      (parts.size() == 2 || any_part_in(parts, std::array<std::string_view, 2>{"encoder", "embedder"}));
  // ViT's patch embedding and [CLS] token, Pix2Struct's patch_projection of its flattened patches, the audio
  // stem (also at the top of a bare Whisper-style encoder, AudioFlamingo3Encoder or GlmAsrEncoder, and in
  // Voxtral Realtime's embedder), XLNet's mask_emb (the query stream's start).
  if (!pl.layer &&
      (module == "cls_token" || module == "distillation_token" || module == "mask_token" ||
       module == "mask_emb" || module == "projection" || module == "patch_projection" || audio_stem)) {
    set(Block::Embedding, module == "projection" || module == "patch_projection" ? "patch-embedding"
                          : contains(module, "conv")                             ? "conv-stem"
                                                                                 : std::string(module));
    return pl;
  }
  if (contains(module, "norm") || contains(module, "ln") || contains(module, "LayerNorm") ||
      module == "ln_f") {
    set(Block::Norm, "norm");  // before embeddings: BLOOM's word_embeddings_layernorm is a norm
    return pl;
  }
  // Swin's patch merging (a stage's downsample.reduction): the next stage's embedding of 2 x 2 patches into
  // twice the width, as the paper has it; it sits in the stage it closes.
  if (module == "reduction" && parts.size() >= 3 && parts[parts.size() - 3] == "downsample") {
    set(Block::Embedding, "patch-merging");
    return pl;
  }
  // OPT's projection between word_embed_proj_dim and hidden_size; the Gemma 4 assistants' pre_projection of
  // the target's embedding and hidden state into their own width.
  if (module == "project_in" || module == "project_out" || module == "pre_projection") {
    set(Block::Embedding, role);
    return pl;
  }
  // Kosmos-2.5's segment_emb (text or image position) is a token-type table under another name.
  if (contains(module, "embed") || module == "wte" || module == "wpe" || module == "shared" ||
      contains(module, "embeddings") || module.ends_with("_emb")) {
    set(Block::Embedding, module == "wpe" || contains(module, "position") ? "position-embedding"
                          : contains(module, "token_type") || contains(module, "segment")
                              ? "token-type-embedding"
                              : "token-embedding");
    return pl;
  }
  // A module inside a norm is part of it: Voxtral Realtime's ada_rms_norm.linear1 / linear2, the small MLP
  // whose output scales the normed MLP input.
  if (parts.size() >= 3 && contains(parts[parts.size() - 3], "norm")) {
    set(Block::Norm, "norm");
    return pl;
  }
  // A table inside a positions module: SpeechT5's relative position embeddings (embed_positions.pe_k).
  if (parts.size() >= 3 && contains(parts[parts.size() - 3], "position")) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  set(Block::Other, role);
  return pl;
}

std::string_view leaf_of(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string_view module_of(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

}  // namespace ma
