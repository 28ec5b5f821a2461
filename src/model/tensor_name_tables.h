// The module names tensor placement recognises, one table per kind: vision towers and projectors, task
// heads, buffers, attention and MLP modules, lists whose indices are no layers. The rules that read them are
// in tensor_placement.cpp; a family whose names differ only in spelling needs a line here, no new rule.
#pragma once
#include <array>
#include <string_view>

namespace ma::placement {

// Parameters of quantized checkpoints that are not model weights but their scales / zero points / indices:
// GPTQ/AWQ, compressed-tensors, modelopt (k_scale and v_scale: the KV cache's), FP8, and bitsandbytes' quant
// state ("weight.absmax", "weight.quant_state.bitsandbytes__nf4", 8-bit's SCB), which a load needs beside the
// packed weights: as extras they were left out of the memory the model takes.
inline constexpr std::array<std::string_view, 22> kQuantSuffixes{"weight_scale_inv",
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
                                                                 "k_scale",
                                                                 "v_scale",
                                                                 "absmax",
                                                                 "quant_map",
                                                                 "nested_absmax",
                                                                 "nested_quant_map",
                                                                 "SCB",
                                                                 "weight_format",
                                                                 "bitsandbytes__nf4",
                                                                 "bitsandbytes__fp4"};
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
// convolutional backbone, a ResNet. RT-DETR's hybrid encoder fuses the backbone's feature maps in a
// convolutional neck beside its transformer layers: lateral_convs and fpn_blocks top-down, downsample_convs
// and pan_blocks bottom-up. MaskFormer's pixel_level_module holds its backbone and its FPN pixel decoder,
// the per-pixel image branch its transformer decoder's queries read. A TimmWrapperModel (a vision tower
// configured alone, as Gemma 3n's gemma3n_vision) holds its timm image network under timm_model, a
// TimmBackbone under _backbone.
// SAM 3's geometry_encoder is its prompt encoder for boxes (their projections and layers over the image).
// OmDet-Turbo's vision_backbone holds its Swin and the LayerNorms over the maps it hands on.
inline constexpr std::array<std::string_view, 37> kVisionParts{"visual",
                                                               "vision_tower",
                                                               "timm_model",  // TimmWrapperModel's network
                                                               "_backbone",   // TimmBackbone's
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
                                                               "conv_encoder",
                                                               "lateral_convs",
                                                               "fpn_blocks",
                                                               "downsample_convs",
                                                               "pan_blocks",
                                                               "visn_fc",  // LXMERT's region features
                                                               "pixel_level_module",
                                                               "geometry_encoder",
                                                               "vision_backbone"};
// Wrappers a checkpoint stores a model under and its class strips on loading: facebook/sam3 is saved as
// Sam3VideoModel, whose detector_model is the Sam3Model (its _checkpoint_conversion_mapping).
inline constexpr std::array<std::string_view, 1> kCheckpointWrappers{"detector_model."};
// SAM 2's image side beyond SAM's: Sam2Model's no_memory_embedding (the token standing for an empty memory)
// and what Sam2VideoModel tracks objects through frames with: its memory attention and memory encoder, the
// convolution that brings a mask prompt to the decoder's logits, the object-pointer head and its temporal
// projection, and the tokens for a missing memory or object; Sam3VideoModel's tracker_neck, the FPN that
// turns its detector's ViT features into its tracker's. Vision, as SAM's prompt encoder and mask decoder.
inline constexpr std::array<std::string_view, 11> kVideoTrackerParts{
    "no_memory_embedding",
    "memory_attention",
    "memory_encoder",
    "mask_downsample",
    "object_pointer_proj",
    "temporal_positional_encoding_projection_layer",
    "no_memory_positional_encoding",
    "memory_temporal_positional_encoding",
    "no_object_pointer",
    "occlusion_spatial_embedding_parameter",
    "tracker_neck"};
// SAM 3.1's tracker modules (Sam3_1VideoModel, Meta's names), at the model's root, so only a name's first
// part is looked up (every tensor of every checkpoint passes here): its memory encoder maskmem_backbone, its
// memory and object tokens, the position basis image_pe_layer, its interactive and multiplex decoders, the
// mask prompt's downsampling and the object-pointer heads.
inline constexpr std::array<std::string_view, 18> kVideoTrackerRoots{"maskmem_backbone",
                                                                     "maskmem_tpos_enc",
                                                                     "interactivity_no_mem_embed",
                                                                     "image_pe_layer",
                                                                     "interactive_sam_prompt_encoder",
                                                                     "interactive_sam_mask_decoder",
                                                                     "sam_mask_decoder",
                                                                     "interactive_mask_downsample",
                                                                     "no_obj_ptr",
                                                                     "no_obj_ptr_linear",
                                                                     "obj_ptr_proj",
                                                                     "interactive_obj_ptr_proj",
                                                                     "obj_ptr_tpos_proj",
                                                                     "output_valid_embed",
                                                                     "output_invalid_embed",
                                                                     "no_obj_embed_spatial",
                                                                     "obj_cond_embed",
                                                                     "obj_non_cond_embed"};
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
// last feature map to the transformer's width; RT-DETR's encoder_input_proj and decoder_input_proj (lists
// of convolutions with batch norms) map each feature map to the encoder's and the decoder's. OneFormer's
// query_input_projection maps its pixel decoder's mask features into its query transformer. OmDet-Turbo's
// channel_projection_layers (in its encoder and its decoder) are RT-DETR's two input projections.
// Evolla's sequence_compressor_resampler: latents over the protein encoder's output, projected into the
// language model.
inline constexpr std::array<std::string_view, 35> kProjectorParts{"multi_modal_projector",
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
                                                                  "input_projection",
                                                                  "connector",
                                                                  "perceive",
                                                                  "mlp_AR",
                                                                  "image_newline",
                                                                  "encoder_input_proj",
                                                                  "decoder_input_proj",
                                                                  "query_input_projection",
                                                                  "channel_projection_layers",
                                                                  "sequence_compressor_resampler"};
// Non-learned state that checkpoints store: rotary frequencies and position ids (older transformers saved
// them), GPT-2 / GPT-J's masked_bias, CodeGen's causal_mask, Gemma 4's per-layer output scale (a persistent
// buffer).
// FNet's DFT matrices (its TPU path) are persistent too, and so is the Gemma 4 assistants' token_ordering
// (the vocabulary grouped by centroid), and Swin's relative_position_index (each window position's offset
// into the bias table: persistent in Donut's Swin and in transformers 4's Swin checkpoints) and Swin V2's
// relative_coords_table (the log-spaced window offsets its bias MLP reads), which its checkpoints may store.
// RT-DETR v2's deformable attention keeps the scale of each sampled point's offset (n_points_scale), TimesFM
// the inverse frequencies of its sinusoidal positions (inv_timescales). MaskFormer's loss module keeps its
// cross-entropy class weights (empty_weight: 1 per class, no_object_weight last) as a persistent buffer;
// EoMT its per-block probabilities of masking the queries' attention (attn_mask_probs).
inline constexpr std::array<std::string_view, 14> kBufferLeaves{
    "inv_freq",       "position_ids",   "masked_bias",
    "causal_mask",    "layer_scalar",   "dft_mat_hidden",
    "dft_mat_seq",    "token_ordering", "relative_position_index",
    "n_points_scale", "inv_timescales", "relative_coords_table",
    "empty_weight",   "attn_mask_probs"};
// I-BERT's integer-only modules (quant_modules.py) keep persistent float32 buffers beside their weights: the
// weights' and biases' integer copies and scales, each activation's running range and scale, and (below) the
// LayerNorms' shift.
inline constexpr std::array<std::string_view, 7> kIntegerOnlyLeaves{
    "weight_integer", "bias_integer", "fc_scaling_factor", "weight_scaling_factor", "act_scaling_factor",
    "x_min",          "x_max"};
// Suffixes of tensors stored beside a projection under the projection's own name rather than as its
// `.weight` / `.bias` child: nn.MultiheadAttention's in_proj_weight / in_proj_bias, fused experts' biases
// (gpt-oss's gate_up_proj_bias), MXFP4 packed weights (`_blocks`) and their block scales (`_scales`).
inline constexpr std::array<std::string_view, 4> kProjSuffixes{"_weight", "_bias", "_blocks", "_scales"};
inline constexpr std::array<std::string_view, 6> kMambaLeaves{"A_log",  "D",      "dt_bias",
                                                              "conv1d", "x_proj", "dt_proj"};
// XLNet's relative attention is rel_attn; NLLB-MoE's decoder cross-attention is cross_attention; LongT5's
// encoder attends locally (LocalSelfAttention) or to local and transient global tokens
// (TransientGlobalSelfAttention).
// PatchTSMixer's patch mixer attends through self_attn_layer.
// TimeSformer's layers attend across frames first, in temporal_attention.
// torch's nn.TransformerDecoderLayer attends the memory in multihead_attn (OneFormer's query transformer).
// X-CLIP's vision layers let the frames' class tokens attend across frames in message_attn.
// Grounding DINO's decoder layers attend to the text in encoder_attn_text.
inline constexpr std::array<std::string_view, 19> kAttentionParts{
    "self_attn",          "attn",
    "attention",          "self_attention",
    "SelfAttention",      "EncDecAttention",
    "encoder_attn",       "cross_attn",
    "crossattention",     "multi_head_attention",
    "rel_attn",           "cross_attention",
    "LocalSelfAttention", "TransientGlobalSelfAttention",
    "self_attn_layer",    "temporal_attention",
    "multihead_attn",     "message_attn",
    "encoder_attn_text"};
// XLNet's feed-forward block is ff.
// Parakeet's macaron Conformer blocks hold two: feed_forward1 and feed_forward2; FastSpeech2Conformer's
// feed_forward and feed_forward_macaron; wav2vec 2.0-Conformer's and Wav2Vec2-BERT's, ffn1 and ffn2.
// PatchTSMixer's mixers gate their MLP's output (gating_block); Autoformer's decoder layers project the trend
// they split off (trend_projection).
inline constexpr std::array<std::string_view, 19> kMlpParts{"feed_forward_macaron",
                                                            "mlp",
                                                            "ffn",
                                                            "feed_forward",
                                                            "feed_forward1",
                                                            "feed_forward2",
                                                            "ffn1",
                                                            "ffn2",
                                                            "DenseReluDense",
                                                            "intermediate",
                                                            "fc1",
                                                            "fc2",
                                                            "c_fc",
                                                            "dense_h_to_4h",
                                                            "dense_4h_to_h",
                                                            "ffn_layer",
                                                            "ff",
                                                            "gating_block",
                                                            "trend_projection"};
// fairseq's (FSMT's, TrOCR's) LM head is output_projection; MusicGen's one head per codebook, lm_heads.N;
// CSM's depth decoder one matrix per code position, codebooks_head.
// Parakeet's CTC head is a kernel-1 Conv1d named ctc_head.
// Autoformer's decoder ends in seasonality_projection, its output back to the input features.
// ViT-MAE's pixel decoder ends in decoder_pred, each patch's pixels.
// DPR's encoders project their [CLS] state with encode_proj (projection_dim > 0).
// BART's logits-bias buffer (final_logits_bias), also where a composite nests it (RAG's rag.generator.).
inline constexpr std::array<std::string_view, 16> kHeadLeaves{"lm_head",
                                                              "embed_out",
                                                              "score",
                                                              "classifier",
                                                              "proj_out",
                                                              "qa_outputs",
                                                              "pooler",
                                                              "cls",
                                                              "output_projection",
                                                              "lm_heads",
                                                              "codebooks_head",
                                                              "ctc_head",
                                                              "seasonality_projection",
                                                              "decoder_pred",
                                                              "encode_proj",
                                                              "final_logits_bias"};
// Top-level modules of encoder task heads (masked-LM transforms, classifiers, BART's logits-bias buffer,
// BigBird's question-answering block, TAPAS's cell-selection parameters and aggregation classifier;
// ELECTRA's and ConvBERT's generator and Funnel's discriminator; XLNet's and XLM's LM heads, sequence
// summaries and SQuAD heads; LUKE's entity prediction head; DeiT's two classifiers; the Gemma 4 assistants'
// centroid head (masked_embedding) and post_projection, their output back to the target model's width). Also
// one level down: a base model's pooler (bert.pooler) and a composite's heads (decoder.cls). DETR's detection
// heads: class_labels_classifier, bbox_predictor (an MLP whose layers.N are no stack) and, for segmentation,
// mask_head and bbox_attention (also under detr., DetrForSegmentation's DetrForObjectDetection).
// RT-DETR's two-stage query selection scores and boxes the encoder's tokens: enc_output, enc_score_head,
// enc_bbox_head. The forecasters' heads: TimesFM's horizon_ff_layer, the distribution heads'
// parameter_projection (its proj.N, one Linear per parameter of the distribution) and PatchTSMixer's
// inject_scale before its head. SAM 3's detector scores its queries by a dot product with the pooled text
// (dot_product_scoring) and whether the concept is present at all (detr_decoder.presence_head). Splinter's
// span selection head (splinter_qass); the Decision Transformer's next-state, action and return predictors.
// OWL-ViT's and OWLv2's detection heads over the patch tokens: class_head, box_head, objectness_head.
// MGP-STR's three A^3 token pooling modules and their character, BPE and WordPiece heads.
// CLIPSeg's decoder (decoder.*) around its layers: the FiLM conditioning on the prompt (film_mul, film_add),
// the reductions of the vision tower's states (reduces.N) and the transposed convolutions back to pixels;
// AltCLIP's text model's output linear into the projection width (text_model.transformation). MaskFormer's
// class_predictor and mask_embedder (an MLP whose N.0 are no stack) over the decoder's queries. OmDet-Turbo's
// query selection under its decoder: encoder_vision_features, encoder_class_head, encoder_bbox_head.
// Grounding DINO's two-stage query selection: encoder_output_bbox_embed, encoder_output_class_embed.
inline constexpr std::array<std::string_view, 72> kHeadRoots{"lm_head",
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
                                                             "bbox_attention",
                                                             "enc_output",
                                                             "enc_score_head",
                                                             "enc_bbox_head",
                                                             "horizon_ff_layer",
                                                             "splinter_qass",
                                                             "predict_state",
                                                             "predict_action",
                                                             "predict_return",
                                                             "parameter_projection",
                                                             "inject_scale",
                                                             "class_head",
                                                             "box_head",
                                                             "objectness_head",
                                                             "char_a3_module",
                                                             "bpe_a3_module",
                                                             "wp_a3_module",
                                                             "char_head",
                                                             "bpe_head",
                                                             "wp_head",
                                                             "film_mul",
                                                             "film_add",
                                                             "reduces",
                                                             "transposed_convolution",
                                                             "transformation",
                                                             "answer_head",       // LXMERT's QA head
                                                             "obj_predict_head",  // LXMERT's region head
                                                             "class_predictor",
                                                             "mask_embedder",
                                                             "presence_head",
                                                             "dot_product_scoring",
                                                             "encoder_vision_features",  // OmDet-Turbo's
                                                             "encoder_class_head",       // query selection
                                                             "encoder_bbox_head",
                                                             "encoder_output_bbox_embed",  // Grounding DINO's
                                                             "encoder_output_class_embed"};
// A dense predictor's neck and heads after its backbone, at the root of the model or under its base model:
// Depth Anything's neck (its neck.fusion_stage.layers.N are no stack) and head, ZoeDepth's relative_head and
// metric_head, Depth Pro's depth_pro.neck, fusion_stage, head (head.layers.N) and fov_model (the
// field-of-view head, with its own encoder). Not deeper: there a neck is a tower's (SAM's
// vision_encoder.neck). A semantic segmenter's feature pyramid and heads: BEiT's and data2vec-vision's fpn1 /
// fpn2 (fpn3 and fpn4 hold nothing), UperNet's and SegFormer's (all-MLP) decode_head and the FCN
// auxiliary_head. ViTMatte's detail-capture decoder (decoder.convstream, decoder.fusion_blocks,
// decoder.matting_head).
inline constexpr std::array<std::string_view, 13> kDenseHeads{
    "neck",           "head", "relative_head", "metric_head", "fusion_stage",  "fov_model",   "decode_head",
    "auxiliary_head", "fpn1", "fpn2",          "convstream",  "fusion_blocks", "matting_head"};
// XLM's and FlauBERT's layers are four parallel module lists, the index after the list's name.
inline constexpr std::array<std::string_view, 4> kParallelLayerLists{"attentions", "layer_norm1", "ffns",
                                                                     "layer_norm2"};

// Lists of parallel tables, one per stream of codes (MusicGen's embed_tokens.N and lm_heads.N, one per
// EnCodec codebook; Bark's fine-acoustics model's input_embeds_layers.N): the index names the codebook, not a
// layer, and the list is the module. Likewise one table per input: PatchTST's input_embedding.N (one per
// channel) and the GluonTS forecasters' embedders.N (one per static categorical feature).
inline constexpr std::array<std::string_view, 5> kPerCodebookLists{
    "embed_tokens", "lm_heads", "input_embeds_layers", "input_embedding", "embedders"};

// MLPs of a detection decoder that make its queries' positional embeddings from reference points
// (Conditional DETR's decoder.query_scale and ref_point_head, RT-DETR's decoder.query_pos_head): their
// layers.N are no stack. Deformable DETR's reference_points (the queries' reference points from their
// position embeddings) and, two-stage, pos_trans (the proposals' sine embeddings into query positions) and
// its norm. DAB-DETR's decoder.ref_anchor_head (the anchors' width and height modulation of the positions).
// SAM 3's decoder.box_rpb_embed_x / _y: the attention bias of each query's reference box over the image.
// OmDet-Turbo's decoder.query_position_head (RT-DETR's query_pos_head under another name). Grounding DINO's
// decoder.reference_points_head (its reference boxes' sine embeddings into query positions).
inline constexpr std::array<std::string_view, 11> kQueryPositionMlps{
    "query_scale",     "ref_point_head",      "query_pos_head",       "reference_points",
    "pos_trans",       "pos_trans_norm",      "ref_anchor_head",      "box_rpb_embed_x",
    "box_rpb_embed_y", "query_position_head", "reference_points_head"};

// A detection decoder's per-layer heads (a classifier and a box MLP per decoder layer, RT-DETR's and
// Deformable DETR's class_embed.N and bbox_embed.N, under the decoder or at the root): the index names the
// decoder layer whose output the head reads, but the heads are the model's head, not the layer's.
// The universal segmenters' mask heads, run after every decoder layer: Mask2Former's decoder.mask_predictor
// and OneFormer's decoder.mask_embed (its class_embed is one Linear). D-FINE's decoder also holds
// lqe_layers.N (a box-quality estimator per layer, added to the class scores) and pre_bbox_head (the first
// layer's box MLP, whose layers.N are no stack). OmDet-Turbo's decoder holds decoder_class_head.N and
// decoder_bbox_head.N.
inline constexpr std::array<std::string_view, 8> kPerLayerHeadLists{
    "class_embed", "bbox_embed",    "mask_predictor",     "mask_embed",
    "lqe_layers",  "pre_bbox_head", "decoder_class_head", "decoder_bbox_head"};

// Sequentials inside modules whose indices are no layers (see place_tensor), and lists of parallel modules
// (SAM's point_embed, one embedding per kind of point, and output_hypernetworks_mlps, one MLP per mask
// token); RT-DETR's ResNet-vd stem, embedder.embedder.{0,1,2}: three convolutions before any stage;
// SwiftFormer's, patch_embed.patch_embedding.{0,1,3,4}: two convolutions and their BatchNorms. UDOP's
// relative_bias.biases.N: the 1-D, horizontal and vertical bias tables each stack sums.
inline constexpr std::array<std::string_view, 17> kSequentials{"prompt_trans",
                                                               "neck",
                                                               "neck_hd",
                                                               "downsamples",
                                                               "tail",
                                                               "img_temporal_embedding",
                                                               "conv_layers",
                                                               "weights",
                                                               "visual_projection",
                                                               "point_embed",
                                                               "output_hypernetworks_mlps",
                                                               "altup_projections",
                                                               "altup_unembed_projections",
                                                               "embedder",
                                                               "patch_embedding",
                                                               "text_projection",
                                                               "biases"};

}  // namespace ma::placement
