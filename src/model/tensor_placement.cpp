#include "model/tensor_placement.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <utility>

#include "core/json.h"
#include "model/cnn_tensor_placement.h"
#include "model/gguf_tensor_names.h"
#include "model/layer_module_placement.h"
#include "model/learned_input_placement.h"
#include "model/multimodal_head_placement.h"
#include "model/sequence_mixer_placement.h"
#include "model/speech_tensor_placement.h"
#include "model/tensor_name_parts.h"
#include "model/tensor_name_tables.h"
#include "model/tensor_roles.h"
#include "model/vision_stage_placement.h"

namespace ma {

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
  static_assert(
      std::all_of(std::begin(kNames), std::end(kNames), json::quotes_as_is));  // JSON rows copy them
  return kNames[static_cast<size_t>(b)];
}

namespace placement {
namespace {

// A name in the Hugging Face spelling (module path, dots between the parts).
TensorPlacement place_by_name(std::string_view name) {
  TensorPlacement pl;
  Parts parts = split(name);
  // The keypoint matchers and their detector (cnn_tensor_placement.cpp), none with a stack the index rule
  // below should see.
  if (const auto keypoint = keypoint_network_block(parts)) {
    pl.block = keypoint->first;
    pl.role = std::string(keypoint->second);
    return pl;
  }

  // Layer: the first numeric component that is not an expert index, nor the position of a module inside a
  // projector's Sequential (Qwen-VL's visual.merger.mlp.0, LLaVA's mm_projector.0), a task head (DETR's
  // bbox_predictor.layers.2) or a query-position MLP (Conditional DETR's decoder.query_scale.layers.1).
  size_t layer_pos = parts.size();
  // A dense predictor's neck and heads, at the root or under its base model (Depth Pro's depth_pro.neck),
  // hold no stack of layers either.
  const std::string_view dense_head = in(parts.front(), kDenseHeads)                   ? parts.front()
                                      : parts.size() >= 3 && in(parts[1], kDenseHeads) ? parts[1]
                                                                                       : std::string_view();
  bool in_projector = false, in_head = !dense_head.empty();
  for (size_t i = 1; i < parts.size(); ++i) {
    // (Deformable DETR's input_proj.N, one projection per feature level, at the root or under model;
    // Grounding DINO's input_proj_vision.N.)
    in_projector = in_projector || in(parts[i - 1], kProjectorParts) ||
                   ((parts[i - 1] == "input_proj" || parts[i - 1] == "input_proj_vision") &&
                    (i == 1 || (i == 2 && parts.front() == "model")));
    in_head = in_head || in(parts[i - 1], kHeadRoots) || in(parts[i - 1], kQueryPositionMlps) ||
              in(parts[i - 1], kPerLayerHeadLists);
    if (!all_digits(parts[i]) || in_projector || in_head) continue;
    std::string_view before = parts[i - 1];
    if (contains(before, "experts") || in(before, kPerCodebookLists)) continue;
    // A list of embedding tables, not of layers: MarkupLM's xpath_tag_sub_embeddings.N (one per DOM depth).
    if (before.ends_with("_embeddings")) continue;
    // Sequentials inside a module, not stacks of layers: MVP's prompt MLP, SAM's necks (segment-anything's
    // neck.0 ... neck.3), DeepSeek-VL's downsampling convolutions and the clusters of an adaptive softmax
    // (XLM's pred_layer.proj.tail.0.1: cluster 0's second Linear, two indices into nested Sequentials).
    // Parakeet's subsampling.layers.N: the strided convolutions (and ReLUs) of its stem, one Sequential;
    // data2vec-audio's pos_conv_embed.layers.N: the convolutions of its position embedding.
    if (in(before, kSequentials) || (all_digits(before) && i >= 2 && in(parts[i - 2], kSequentials)) ||
        (i >= 2 && (parts[i - 2] == "subsampling" || parts[i - 2] == "pos_conv_embed")))
      continue;
    // DiNAT's stem, two strided convs in one Sequential (patch_embeddings.projection.{0,1}), and
    // Swin2SR's pixelshuffle_aux head: conv_after_aux.0, a conv and a LeakyReLU.
    if ((i >= 2 && before == "projection" && parts[i - 2] == "patch_embeddings") ||
        before == "conv_after_aux")
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
  // The convs of DiNAT's stem Sequential are its patch projection.
  if (all_digits(module) && parts.size() >= 4 && parts[parts.size() - 3] == "projection" &&
      parts[parts.size() - 4] == "patch_embeddings")
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
      leaf == "token_type_ids" ||  // CLAP's text embeddings keep RoBERTa's token-type buffer persistent
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
  // attention and MLPs are not the language model's. FastSpeech2ConformerWithHifiGan's vocoder too, and
  // SeamlessM4T's text-to-unit model (t2u_model: the text decoder's states to the vocoder's units).
  if (any_part_in(parts,
                  std::array<std::string_view, 7>{"talker", "token2wav", "code2wav", "coarse_acoustics",
                                                  "fine_acoustics", "vocoder", "t2u_model"})) {
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
  if (const auto speech = speech_encoder_block(parts)) {
    set(speech->first, std::string(speech->second));
    return pl;
  }
  // Gemma 3n's and Gemma 4's embed_audio projects the audio tower's features into the language model;
  // Phi-4-multimodal's audio_embed holds its conformer and the projectors after it. MusicGen's audio_encoder
  // is an EnCodec codec (its decoder turns the generated codes into audio) and MusicGen Melody's
  // audio_enc_to_dec_proj projects the melody's chroma features into the decoder. Kyutai's speech-to-text
  // model holds the Mimi codec that turns its audio into codes as codec_model. X-Codec's acoustic encoder
  // and decoder (DAC's), its semantic model (a HuBERT it runs frozen) and the convolutional encoder and
  // decoder over that model's states are its towers.
  if (any_part_in(parts,
                  std::array<std::string_view, 12>{"audio_tower", "audio_model", "embed_audio", "audio_embed",
                                                   "audio_encoder", "audio_enc_to_dec_proj", "codec_model",
                                                   "acoustic_encoder", "acoustic_decoder", "semantic_model",
                                                   "encoder_semantic", "decoder_semantic"}) ||
      root_conformer(parts)) {
    set(Block::Audio, role);
    return pl;
  }
  // FLAVA's image encoder (image_model; flava.image_model in FlavaForPreTraining), beside its text and
  // multimodal encoders: its vision tower.
  if (parts.size() >= 3 &&
      (parts[0] == "image_model" || (parts[0] == "flava" && parts[1] == "image_model"))) {
    set(Block::Vision, role);
    return pl;
  }
  const bool git_projection = parts.size() >= 3 && parts[1] == "visual_projection" && parts[2] == parts[1];
  // A `projector` module at the root or under model. (Granite Speech's: learned queries, a Q-Former, a linear
  // into the language model; Cosmos3-Edge's and PaddleOCR-VL's patch mergers), where wav2vec 2.0's
  // classification head has a plain projector Linear at the root.
  const size_t projector_at = parts.front() == "model" ? 1 : 0;
  const bool root_projector = parts.size() >= projector_at + 2 && parts[projector_at] == "projector" &&
                              !(parts.size() == 2 && module == "projector");
  // RT-DETR's convolutional encoder holds its ResNet as backbone.model, at the root or under model. (DETR's
  // as backbone.conv_encoder.model). Deformable DETR's input_proj there (a convolution and a GroupNorm per
  // feature level) maps the backbone's maps to the transformer's width, as DETR's input_projection; Mimi's
  // quantizers have input_proj modules of their own, deeper.
  const bool detector_backbone = parts.size() >= projector_at + 3 && parts[projector_at] == "backbone" &&
                                 parts[projector_at + 1] == "model";
  const bool detector_projection =
      parts.size() >= projector_at + 2 &&
      (parts[projector_at] == "input_proj" || parts[projector_at] == "input_proj_vision");
  // A dense head at the root is the head, whatever its modules are called (UperNet's decode_head has
  // lateral_convs, as RT-DETR's encoder).
  const bool root_dense_head = !dense_head.empty() && parts.front() == dense_head;
  if (!root_dense_head && (any_part_in(parts, kVisionParts) || any_part_in(parts, kVideoTrackerParts) ||
                           in(parts.front(), kVideoTrackerRoots) || any_part_in(parts, kProjectorParts) ||
                           git_projection || root_projector || detector_backbone || detector_projection)) {
    set(any_part_in(parts, kProjectorParts) || git_projection || root_projector || detector_projection
            ? Block::VisionProjector
            : Block::Vision,
        role);
    return pl;
  }
  // A dense predictor's neck and heads are its head, whatever they hold (ZoeDepth's metric head runs a small
  // transformer, Depth Pro's field-of-view model a DINOv2 encoder of its own). After the towers: a tower's
  // neck is the tower's (SAM's vision_encoder.neck). A root head is placed with AIMv2's below (its k_proj and
  // v_proj are attention).
  if (!dense_head.empty() && dense_head != "head") {
    set(Block::LmHead, "lm-head");
    return pl;
  }
  // A neural audio codec alone (EnCodec: its SEANet's LSTM, torch's weight_ih_lK / weight_hh_lK / bias_ih_lK
  // / bias_hh_lK, and its residual vector quantizer's codebooks, buffers included; Mimi: its quantizer's
  // input / output projections, and the root downsample / upsample convolutions between the SEANet's frame
  // rate and the codes'; X-Codec: the root linears fc, mixing its acoustic and semantic latents before the
  // quantizer, and fc1 / fc2, projecting the codes back to each side's width; DAC: its encoder's and
  // decoder's Snake activations (snake1, snake2: a learned alpha per channel), residual units (res_unitK)
  // and transposed convolutions (conv_t1), and beside them a block's strided conv1 and the decoder's own
  // conv1 / conv2, where T5's encoder.block.N holds layer.M): audio, whatever layer list holds them. DAC's
  // encoder.conv1 / conv2 are named as Whisper's audio stem, and placed with it. Image tokenizers'
  // codebooks sit under a vision module, placed above.
  const bool codebook = any_part_in(parts, std::array<std::string_view, 1>{"codebook"});
  const bool root_resampler =
      parts.size() == 3 && (parts[0] == "downsample" || parts[0] == "upsample") && parts[1] == "conv";
  const bool codec_fusion =
      parts.size() == 2 && in(parts[0], std::array<std::string_view, 3>{"fc", "fc1", "fc2"});
  const bool dac_root = parts.size() >= 3 && (parts[0] == "encoder" || parts[0] == "decoder");
  const size_t dac_at = dac_root && parts.size() >= 5 && parts[1] == "block" && all_digits(parts[2]) ? 3 : 1;
  const bool dac_part =
      dac_root && (in(parts[dac_at], std::array<std::string_view, 6>{"snake1", "snake2", "res_unit1",
                                                                     "res_unit2", "res_unit3", "conv_t1"}) ||
                   (dac_at == 3 && parts[3] == "conv1") ||
                   (dac_at == 1 && parts[0] == "decoder" && (parts[1] == "conv1" || parts[1] == "conv2")));
  if (codebook || parts.front() == "quantizer" || root_resampler || codec_fusion || dac_part ||
      (parts.size() >= 2 && parts[parts.size() - 2] == "lstm" &&
       (leaf.starts_with("weight_ih_l") || leaf.starts_with("weight_hh_l") || leaf.starts_with("bias_ih_l") ||
        leaf.starts_with("bias_hh_l")))) {
    set(Block::Audio, codebook                       ? "codebook"
                      : parts.front() == "quantizer" ? "quantizer"
                      : root_resampler               ? "resample"
                      : codec_fusion                 ? "projection"
                      : dac_part                     ? role
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
  // D-FINE's decoder layers merge the cross-attention's output into the residual through a gate of their own
  // (gateway.gate; gateway.norm is a norm), no router.
  if (module == "gate" && parts.size() >= 3 && parts[parts.size() - 3] == "gateway") {
    set(Block::CrossAttention, "gate");
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
  // The residual stream's own modules, each with the sublayer it wraps: DeepSeek-V4's hyper-connections
  // (attn_hc and ffn_hc mix its copies of the stream around attention and the MLP, hc_head merges them before
  // the head); Gemma 3n's LAuReL (laurel.linear_left / linear_right, a low-rank residual beside attention)
  // and AltUp (altup.*: the coefficients that predict and correct its copies of the stream around the
  // layer); the per-layer inputs of Gemma 3n and Gemma 4 (per_layer_input_gate and per_layer_projection gate
  // each layer's slice of the per-layer embeddings into its output; per_layer_model_projection at the root
  // makes the slices from the token embedding) and Gemma 3n's AltUp projections into and out of the copies.
  const bool laurel = any_part_in(inner, std::array<std::string_view, 1>{"laurel"});
  if (laurel || any_part_in(inner, std::array<std::string_view, 1>{"attn_hc"})) {
    set(Block::Attention, laurel ? "laurel-" + role : "hyper-connection");
    return pl;
  }
  const bool altup = any_part_in(inner, std::array<std::string_view, 1>{"altup"});
  if (altup || any_part_in(inner, std::array<std::string_view, 1>{"ffn_hc"})) {
    set(Block::Mlp, altup ? "altup-" + role : "hyper-connection");
    return pl;
  }
  if (any_part_in(parts, std::array<std::string_view, 1>{"hc_head"})) {
    set(Block::LmHead, "hyper-connection");
    return pl;
  }
  if (module == "per_layer_input_gate" || module == "per_layer_projection" ||
      module == "per_layer_model_projection") {
    set(Block::Mlp, role);
    return pl;
  }
  if (any_part_in(parts, std::array<std::string_view, 2>{"altup_projections", "altup_unembed_projections"})) {
    set(Block::Mlp,
        parts[parts.size() - 3] == "altup_projections" ? "altup-projection" : "altup-unembedding");
    return pl;
  }
  // Zamba's hybrid layers project the shared attention block's output (linear) before their Mamba mixer
  // reads it.
  if (pl.layer && module == "linear" && inner.size() == 3) {
    set(Block::Attention, "shared-block-output");
    return pl;
  }
  // Swin2SR's image convs around its layers, at the root or under swin2sr: the shallow feature conv
  // (first_convolution) opens it; the conv after the body, the reconstruction's upsampler (upsample.*) and
  // its final_convolution make the image. Its pixelshuffledirect head's upsample.conv is named as Mimi's
  // resampler and placed with it, above.
  const size_t sr_at = parts.size() >= 3 && parts[0] == "swin2sr" ? 1 : 0;
  if (!pl.layer && parts.size() >= sr_at + 2 && parts[sr_at] == "first_convolution") {
    set(Block::Embedding, "conv-stem");
    return pl;
  }
  if (!pl.layer && parts.size() >= sr_at + 2 &&
      (parts[sr_at] == "conv_after_body" || parts[sr_at] == "final_convolution" || parts[0] == "upsample")) {
    set(Block::LmHead, "reconstruction");
    return pl;
  }
  // The convolutional networks' modules (cnn_tensor_placement.cpp).
  if (const auto conv = conv_network_block(parts, inner, module, pl.layer.has_value())) {
    set(conv->first, std::string(conv->second));
    return pl;
  }
  // Hiera's (SAM 2's) first block of a stage projects its normed input to the stage's wider width (proj,
  // straight under the block) for the residual around its query-pooling attention.
  // transformers' Hiera nests the blocks in stages (encoder.stages.S.layers.L.proj).
  if (pl.layer && module == "proj" && (inner.size() == 3 || (inner.size() == 5 && inner[1] == "layers"))) {
    set(Block::Attention, "residual-projection");
    return pl;
  }
  // Layer scales weigh each block's output: Mimi's (self_attn_layer_scale.scale, mlp_layer_scale.scale),
  // DINOv2's and DINOv3's (layer_scale1.lambda1 after attention, layer_scale2.lambda1 after the MLP) and
  // ConvNeXt's gamma (transformers' ConvNeXt: layer_scale_parameter), a parameter of the layer itself that
  // scales its MLP's output; BEiT's lambda_1 and lambda_2, the layer's own, after its attention and its MLP;
  // PoolFormer's layer_scale_1 and layer_scale_2, the layer's own, after its token mixer (a pooling) and its
  // MLP. DiNAT's layer_scale_parameters [2, width] holds both of a layer's (attention's, MLP's), placed with
  // the MLP.
  const std::string_view scaled =
      (leaf == "scale" || leaf == "lambda1") && parts.size() >= 2 ? parts[parts.size() - 2] : "";
  const bool layer_own = parts.size() >= 2 && all_digits(parts[parts.size() - 2]);
  if (pl.layer && (scaled == "self_attn_layer_scale" || scaled == "layer_scale1" ||
                   ((leaf == "lambda_1" || leaf == "layer_scale_1") && layer_own))) {
    set(Block::Attention, "layer-scale");
    return pl;
  }
  // Grounding DINO's fusion layer weighs its image-text attention's two outputs by layer scales of its own
  // (fusion_layer.vision_param, fusion_layer.text_param).
  if (pl.layer && (leaf == "vision_param" || leaf == "text_param") && parts.size() >= 2 &&
      parts[parts.size() - 2] == "fusion_layer") {
    set(Block::Attention, "layer-scale");
    return pl;
  }
  if (pl.layer && (scaled == "mlp_layer_scale" || scaled == "layer_scale2" ||
                   ((leaf == "gamma" || leaf == "lambda_2" || leaf == "layer_scale_2" ||
                     leaf == "layer_scale_parameter" || leaf == "layer_scale_parameters") &&
                    layer_own))) {
    set(Block::Mlp, "layer-scale");
    return pl;
  }
  // BEiT's relative position bias table of one layer, which transformers 5 registers on the layer itself
  // (layer.N.relative_position_bias; transformers 4 and Swin under its attention, placed there below): a bias
  // on that layer's attention scores.
  if (pl.layer && module == "relative_position_bias_table" && parts.size() >= 4 &&
      all_digits(parts[parts.size() - 3])) {
    set(Block::Attention, role);
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
  // Swin2SR's residual stages (encoder.stages.N) close with a conv over the image (conv, or the bottleneck
  // conv.0 / conv.2 / conv.4) and a 1 x 1 re-embedding of its pixels (patch_embed.projection) after their
  // Swin V2 layers: the stage's conv with its MLP, the re-embedding as a patch embedding.
  if (pl.layer && parts[layer_pos - 1] == "stages" && inner.size() >= 3 &&
      (inner[1] == "conv" || inner[1] == "patch_embed")) {
    set(inner[1] == "conv" ? Block::Mlp : Block::Embedding, inner[1] == "conv" ? "conv" : "patch-embedding");
    return pl;
  }
  // The recurrent and convolutional sequence mixers (sequence_mixer_placement.cpp).
  if (auto mixer = sequence_mixer_block(parts, inner, module, layer_pos, pl.layer.has_value(), role)) {
    set(mixer->first, std::move(mixer->second));
    return pl;
  }
  if (auto lone = lone_cross_layer_block(parts, module, pl.layer.has_value(), role)) {
    set(lone->first, std::move(lone->second));
    return pl;
  }
  // The attention and feed-forward modules inside a layer, in each family's spelling
  // (layer_module_placement.cpp).
  if (auto sub = layer_module_block(inner, module, pl.layer.has_value(), role)) {
    set(sub->first, std::move(sub->second));
    return pl;
  }
  // Heads and fusion modules of multimodal and retrieval models at the root (multimodal_head_placement.cpp).
  if (place_multimodal_head(parts, pl)) return pl;
  // Time-series models embed values, not tokens: TimesFM's input_ff_layer (a residual MLP over a patch and
  // its padding mask; its output_layer is no head), the GluonTS forecasters' value_embedding (Time Series
  // Transformer, Informer, Autoformer) and PatchTSMixer's patcher, a Linear (BLT's patcher is a model).
  if (!pl.layer &&
      (any_part_in(parts, std::array<std::string_view, 2>{"input_ff_layer", "value_embedding"}) ||
       module == "patcher")) {
    set(Block::Embedding, "value-embedding");
    return pl;
  }
  // ChatGLM's LM head is transformer.output_layer, RWKV's a top-level head.
  // ModernBERT-decoder's head is a top-level decoder. A BertModel's pooler.dense however deep a composite
  // nests it (DPR's span_predictor.encoder.bert_model.pooler).
  // D-FINE's decoder.reg_scale and decoder.up: the fixed scalars of its box heads' bin weighting function.
  const bool box_bin_scalars = !pl.layer && parts.size() >= 2 && parts[parts.size() - 2] == "decoder" &&
                               (leaf == "reg_scale" || leaf == "up");
  if (in(module, kHeadLeaves) || any_part_in(parts, kPerLayerHeadLists) || box_bin_scalars ||
      ((module == "output" || module == "head" || module == "decoder") && parts.size() == 2) ||
      (module == "head" && parts.size() == 3 && parts.front() == "decoder") ||  // VideoMAE's pixel predictor
      (parts.size() >= 3 && parts[1] == "decoder_pred") ||  // SegGPT's pixel head: conv, layernorm, head
      // Perceiver IO's decoders' final_layer makes the logits.
      (!pl.layer && module == "final_layer" && parts.size() >= 3 && parts[parts.size() - 3] == "decoder") ||
      (!pl.layer && (module == "output_layer" || in(parts.front(), kHeadRoots) ||
                     (parts.size() >= 3 && in(parts[1], kHeadRoots)) ||
                     (parts.size() >= 3 && parts[parts.size() - 3] == "pooler")))) {
    set(Block::LmHead, "lm-head");
    return pl;
  }
  // A root Linear named for the logits it makes (Dia's logits_dense: every audio channel's at once).
  if (parts.size() == 2 && module.starts_with("logits_")) {
    set(Block::LmHead, "lm-head");
    return pl;
  }
  // The heads of image-text dual encoders (CLIP, SigLIP, AIMv2, MetaCLIP 2): each tower's projection into
  // the shared space and the learned temperature (SigLIP: and bias) of their similarity logits; and a vision
  // encoder's own pooling head at the root (AIMv2's head: its query token and output_proj; its k_proj and
  // v_proj are attention); a depth estimator's head (Depth Anything's head.conv1, Depth Pro's head.layers.N).
  // Also one level down, under a detector's contrastive base model (OWL-ViT's owlvit.visual_projection,
  // owlvit.logit_scale).
  const auto contrastive_head = [](std::string_view p) {
    return p == "visual_projection" || p == "text_projection" || p == "logit_scale" || p == "logit_bias" ||
           p == "temperature" ||  // ALIGN divides its logits by a learned temperature
           p == "logit_scale_a" || p == "logit_scale_t" ||  // CLAP: one scale per direction
           // X-CLIP's projection of the frames' patch features into the shared space (a bare parameter) and
           // the scale (prompts_generator.alpha) of the prompts it adds to the text embeddings there.
           p == "prompts_visual_projection" || p == "prompts_generator";
  };
  const size_t contrastive_at = parts.size() >= 2 && contrastive_head(parts[1]) ? 1 : 0;
  // GroupViT's projections are Sequentials (visual_projection.0 / .1 / .3: Linear, BatchNorm1d, Linear);
  // CLAP's text_projection is an MLP of linear1 and linear2.
  const bool contrastive_sequential =
      parts.size() == contrastive_at + 3 &&
      (all_digits(parts[contrastive_at + 1]) || parts[contrastive_at + 1].starts_with("linear"));
  if ((parts.size() <= contrastive_at + 2 || contrastive_sequential) &&
      contrastive_head(parts[contrastive_at])) {
    set(Block::LmHead, parts.size() == contrastive_at + 1 && !parts.back().ends_with("projection")
                           ? "logit-scale"
                           : "projection");
    return pl;
  }
  // A forecaster's head at the root (PatchTST's, PatchTSMixer's), deeper for a distribution head's parameter
  // projection (head.projection.proj.N, head.projections.C.proj.N).
  if (!pl.layer && parts.front() == "head" &&
      (parts.size() <= 4 || any_part_in(parts, std::array<std::string_view, 1>{"proj"}))) {
    set(Block::LmHead, "pooling-head");
    return pl;
  }
  // ConvNeXt's downsampling between stages (stages.S.downsample_layers.{0,1}, transformers' ConvNeXt:
  // downsampling_layer.{0,1}: a LayerNorm and a strided conv; DINOv3's stage 0 has the patchifying stem): the
  // next stage's embedding of its patches, as Swin's patch merging.
  if (parts.size() >= 3 &&
      (parts[parts.size() - 3] == "downsample_layers" || parts[parts.size() - 3] == "downsampling_layer")) {
    set(Block::Embedding, "downsample");
    return pl;
  }
  // Speech2Text's convolutional subsampler (encoder.conv.conv_layers.N) and Reformer's axial position
  // tables (embeddings.position_embeddings.weights.N).
  // Parakeet's subsampling (its strided 2-D convolutions and the linear after them) is its stem too, and so
  // is wav2vec 2.0's (HuBERT's, ...) feature extractor (feature_extractor.conv_layers.N.conv); their
  // convolutional position embedding (encoder.pos_conv_embed.conv) a position embedding.
  if (!pl.layer && ((parts.size() >= 3 && parts[parts.size() - 3] == "conv_layers") ||
                    (parts.size() >= 4 && parts[parts.size() - 4] == "conv_layers" && module == "conv") ||
                    any_part_in(parts, std::array<std::string_view, 1>{"subsampling"}))) {
    set(Block::Embedding, "conv-stem");
    return pl;
  }
  if (!pl.layer && any_part_in(parts, std::array<std::string_view, 1>{"pos_conv_embed"})) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  if (!pl.layer && parts.size() >= 3 && parts[parts.size() - 2] == "weights" &&
      contains(parts[parts.size() - 3], "position")) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  // A convolutional stem: Whisper's audio conv1 and conv2, Moonshine's conv1, conv2 and conv3 (and a timm
  // ResNet's conv1 at the root of timm's own checkpoints).
  const bool conv_stem =
      (module == "conv1" || module == "conv2" || module == "conv3") &&
      (parts.size() == 2 || any_part_in(parts, std::array<std::string_view, 2>{"encoder", "embedder"}));
  // A bare vision tower's patch embedding at the root, where a composite's sits under its tower (placed
  // vision): Pixtral's patch_conv (the Qwen-VL-style patch_embed.proj, GLM-4V's, is timm's name, below), and
  // GLM-4V's downsample convolution merging neighbouring patches after the layers.
  const bool root_patch_conv = parts.size() == 2 && module == "patch_conv";
  if (!pl.layer && parts.size() == 2 && module == "downsample") {
    set(Block::Embedding, "patch-merging");
    return pl;
  }
  // ViT's patch embedding and [CLS] token (and the register tokens beside it: DINOv3), Pix2Struct's
  // patch_projection of its flattened patches, the convolutional stem (the audio one also at the top of a
  // bare Whisper-style encoder, AudioFlamingo3Encoder or GlmAsrEncoder, and in Voxtral Realtime's embedder),
  // XLNet's mask_emb (the query stream's start), YOLOS's detection tokens beside [CLS], VideoMAE's
  // encoder_to_decoder (the pre-training decoder's input projection, as ViT-MAE's decoder_embed), V-JEPA 2's
  // predictor's mask_tokens (one learned token per mask kind, standing in for the tokens it predicts).
  // SegGPT's segment tokens (input or prompt half) and segmentation-type tokens (semantic or instance), added
  // to every patch embedding.
  // timm's patch_embed.proj is the patch embedding (LayoutLMv3's; GLM-4V's bare tower's, at the root), and
  // UDOP's, which its encoder also holds as embed_patches.
  const bool patch_proj =
      module == "proj" && parts.size() >= 3 &&
      (parts[parts.size() - 3] == "patch_embed" || parts[parts.size() - 3] == "embed_patches");
  if (!pl.layer &&
      (module == "cls_token" || module == "distillation_token" || module == "mask_token" ||
       module == "presence_token" ||  // SAM 3's detector: the learned query of whether the concept is there
       module == "mask_tokens" || module == "register_tokens" || module == "mask_emb" ||
       module == "projection" || module == "detection_tokens" || module == "encoder_to_decoder" ||
       module == "patch_projection" || patch_proj || root_patch_conv || conv_stem ||
       module.starts_with("segment_token_") || module.starts_with("type_token_"))) {
    set(Block::Embedding,
        module == "projection" || module == "patch_projection" || patch_proj || root_patch_conv
            ? "patch-embedding"
        : contains(module, "conv") ? "conv-stem"
                                   : std::string(module));
    return pl;
  }
  if (any_part_in(parts, kQueryPositionMlps)) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  if (contains(module, "norm") || contains(module, "ln") || contains(module, "LayerNorm") ||
      module == "ln_f" || module.ends_with("_LN")) {
    // (AltCLIP's text model ends in pre_LN.)
    set(Block::Norm, "norm");  // before embeddings: BLOOM's word_embeddings_layernorm is a norm
    return pl;
  }
  // Informer's distilling convolutions between encoder layers (encoder.conv_layers.N.downConv, with a
  // BatchNorm and max-pooling that halve the sequence): a downsampling, as ConvNeXt's.
  if (!pl.layer && module == "downConv") {
    set(Block::Embedding, "downsample");
    return pl;
  }
  // Swin's patch merging (a stage's downsample.reduction): the next stage's embedding of 2 x 2 patches into
  // twice the width, as the paper has it; it sits in the stage it closes.
  if (module == "reduction" && parts.size() >= 3 && parts[parts.size() - 3] == "downsample") {
    set(Block::Embedding, "patch-merging");
    return pl;
  }
  // OPT's projection between word_embed_proj_dim and hidden_size; the Gemma 4 assistants' pre_projection of
  // the target's embedding and hidden state into their own width; Moshi's depth decoder's input_projections
  // of the temporal transformer's state into its own width (one matrix per codebook).
  // DAB-DETR's patterns (model.patterns: num_patterns content embeddings its queries repeat) too.
  if (module == "project_in" || module == "project_out" || module == "pre_projection" ||
      module == "input_projections" || (module == "patterns" && !pl.layer && parts.size() <= 3)) {
    set(Block::Embedding, role);
    return pl;
  }
  // Learned queries and task tokens, Perceiver IO's latents and preprocessor (learned_input_placement.cpp).
  if (place_learned_input(parts, module, pl)) return pl;
  // Kosmos-2.5's segment_emb (text or image position) is a token-type table under another name; BEiT's
  // relative position bias table shared by all layers (encoder.relative_position_bias) a position table.
  if (contains(module, "embed") || module == "wte" || module == "wpe" || module == "shared" ||
      contains(module, "embeddings") || module.ends_with("_emb") ||
      module == "relative_position_bias_table") {
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
  // MPNet's relative position buckets, one table for all layers (encoder.relative_attention_bias; T5's is
  // its first layer's attention's); LayoutLMv3's 1-D and 2-D ones (encoder.rel_pos_bias, rel_pos_x_bias,
  // rel_pos_y_bias); CTRL's token table, transformer.w.
  if (!pl.layer &&
      (module == "relative_attention_bias" || (module.starts_with("rel_pos") && module.ends_with("_bias")))) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  if (parts.size() == 3 && parts[0] == "transformer" && module == "w") {
    set(Block::Embedding, "token-embedding");
    return pl;
  }
  // SigLIP's text tower ends in a head of its own, its projection into the shared space (text_model.head).
  if (parts.size() == 3 && parts[0] == "text_model" && parts[1] == "head") {
    set(Block::LmHead, "projection");
    return pl;
  }
  // A table in a list of embedding tables: MarkupLM's xpath_tag_sub_embeddings.N and
  // xpath_subs_sub_embeddings.N (a DOM node's tag and subscript at depth N).
  if (!pl.layer && all_digits(module) && parts.size() >= 3 &&
      parts[parts.size() - 3].ends_with("_embeddings")) {
    set(Block::Embedding, "token-embedding");
    return pl;
  }
  // A linear inside the embeddings module mixes the inputs into them (RoCBERT's map_inputs_layer joins the
  // pronunciation and shape embeddings with the tokens'; MarkupLM's MLP over the XPath tables, inside
  // embeddings.xpath_embeddings).
  if (!pl.layer && parts.size() >= 3 &&
      (parts[parts.size() - 3] == "embeddings" || parts[parts.size() - 3].ends_with("_embeddings"))) {
    set(Block::Embedding, "embedding-projection");
    return pl;
  }
  // A table inside a positions module: SpeechT5's relative position embeddings (embed_positions.pe_k);
  // PatchTST's and PatchTSMixer's positional_encoder.position_enc, a parameter of the module itself.
  if ((parts.size() >= 3 && contains(parts[parts.size() - 3], "position")) ||
      (parts.size() >= 2 && leaf == module && contains(parts[parts.size() - 2], "position"))) {
    set(Block::Embedding, "position-embedding");
    return pl;
  }
  // A BatchNorm's running statistics belong to it (a bare Parakeet encoder's conv.norm.running_mean).
  if (parts.size() >= 2 && contains(parts[parts.size() - 2], "norm") &&
      in(leaf, std::array<std::string_view, 3>{"running_mean", "running_var", "num_batches_tracked"})) {
    set(Block::Norm, "norm");
    return pl;
  }
  // CANINE's hashed character tables (char_embeddings.HashBucketCodepointEmbedder_N), its token table under
  // another name.
  if (!pl.layer && contains(module, "Embedder")) {
    set(Block::Embedding, "token-embedding");
    return pl;
  }
  // A conv outside the layers that no rule above claimed resamples the sequence between stacks: CANINE's
  // strided conv from characters to molecules (chars_to_molecules.conv) and back (projection.conv), as
  // ConvNeXt's downsampling.
  if (!pl.layer && module == "conv") {
    set(Block::Embedding, "resample");
    return pl;
  }
  // The vision networks' stage modules no rule above claimed (vision_stage_placement.cpp).
  if (auto stage = vision_stage_block(parts, inner, module, pl.layer.has_value(), layer_own, role)) {
    set(stage->first, std::move(stage->second));
    return pl;
  }
  set(Block::Other, role);
  return pl;
}

}  // namespace
}  // namespace placement

bool is_attention_projection_role(std::string_view role) {
  static constexpr std::array<std::string_view, 9> kRoles{"q",      "k",    "v",       "o",    "qkv",
                                                          "q-down", "q-up", "kv-down", "kv-up"};
  return std::find(kRoles.begin(), kRoles.end(), role) != kRoles.end();
}

TensorPlacement place_tensor(std::string_view name) {
  if (std::optional<TensorPlacement> gguf = place_gguf_tensor(name)) return *gguf;
  // A model stored inside a wrapper its class strips on loading sits where its own name does.
  for (std::string_view wrapper : placement::kCheckpointWrappers)
    if (name.starts_with(wrapper) && name.size() > wrapper.size()) {
      TensorPlacement pl = placement::place_by_name(name.substr(wrapper.size()));
      if (pl.layer) pl.stack_length = static_cast<uint16_t>(pl.stack_length + wrapper.size());
      return pl;
    }
  return placement::place_by_name(name);
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
