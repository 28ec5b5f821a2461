// One table per group of related architectures; see family_registry.h.
#pragma once
#include <span>

#include "model/family_registry.h"

namespace ma::families {

std::span<const FamilyBuilder> llama_like();  // llama_like.cpp: Llama and its close relatives
std::span<const FamilyBuilder>
llama_variants();  // llama_variants.cpp: Granite, SmolLM3, OLMo, EXAONE 4, Apertus, Nemotron, ...
std::span<const FamilyBuilder>
llama_additions();  // llama_additions.cpp: CWM, Jais-2, BitNet, GraniteSWA, HyperCLOVA X, DiffLlama, nanochat
std::span<const FamilyBuilder>
moe_decoders();  // moe_decoders.cpp: Mixtral, Qwen-MoE, OLMoE, DBRX, gpt-oss, Phi-3.5-MoE, ERNIE 4.5 MoE ...
std::span<const FamilyBuilder>
moe_variants();  // moe_variants.cpp: FlexOlmo, Cohere2-MoE, GraniteMoeSWA, Mellum, Hy3
std::span<const FamilyBuilder> mimo_v2_flash();  // mimo_v2_flash.cpp: MiMo-V2-Flash
std::span<const FamilyBuilder> olmo_hybrid();    // olmo_hybrid.cpp: OLMo Hybrid (gated DeltaNet + OLMo 3)
std::span<const FamilyBuilder> deepseek_v4();    // deepseek_v4.cpp: DeepSeek-V4 (compressed attention)
std::span<const FamilyBuilder> kimi_k25();       // kimi_k25.cpp: Kimi-K2.5 (MoonViT + DeepSeek-V3)
std::span<const FamilyBuilder>
deepseek_like();  // deepseek_like.cpp: DeepSeek-V2/V3/V3.2 (MLA), GLM-4.5/5 MoE, dots.llm1
std::span<const FamilyBuilder>
classic_decoders();  // classic_decoders.cpp: GPT-2, GPT-J, NeoX, OPT, BLOOM, Falcon, ...
std::span<const FamilyBuilder>
state_space();  // state_space.cpp: Mamba, Mamba-2, Jamba, Nemotron-H, Qwen3-Next, ...
std::span<const FamilyBuilder> lightning_attention();  // lightning_attention.cpp: MiniMax-Text-01, M1
std::span<const FamilyBuilder> conv_hybrids();         // conv_hybrids.cpp: LFM2, LFM2-MoE
std::span<const FamilyBuilder> xlstm();                // xlstm.cpp: xLSTM (mLSTM blocks, matrix memories)
std::span<const FamilyBuilder> rwkv();                 // rwkv.cpp: RWKV-4 (time mixing by a WKV recurrence)
std::span<const FamilyBuilder> recurrent_gemma();      // recurrent_gemma.cpp: RecurrentGemma (Griffin)
std::span<const FamilyBuilder> ernie4_5_vl();          // ernie4_5_vl.cpp: ERNIE-4.5-VL (two expert banks)
std::span<const FamilyBuilder> florence2();            // florence2.cpp: Florence-2 (DaViT + BART)
std::span<const FamilyBuilder> qwen3_omni();  // qwen3_omni.cpp: Qwen3-Omni (thinker, talker, code2wav)
std::span<const FamilyBuilder>
early_decoders();  // early_decoders.cpp: GPT-1, CTRL, XGLM, BioGPT, GPT-NeoX-Japanese
std::span<const FamilyBuilder>
chameleon();                             // chameleon.cpp: Chameleon (Llama with q/k norms, a VQGAN encoder)
std::span<const FamilyBuilder> aria();   // aria.cpp: Aria (a sparse decoder, SigLIP, a query projector)
std::span<const FamilyBuilder> janus();  // janus.cpp: Janus / Janus-Pro (understanding and image generation)
std::span<const FamilyBuilder>
blip();  // blip.cpp: BLIP, BLIP-2, InstructBLIP (a Q-Former, OPT / T5 / Vicuna)
std::span<const FamilyBuilder> vlm_classics();  // git.cpp, idefics.cpp, kosmos2.cpp: GIT, IDEFICS, Kosmos-2
std::span<const FamilyBuilder>
composites();  // encoder_decoder_composites.cpp: (Vision/Speech)EncoderDecoder, TrOCR, DeiT
std::span<const FamilyBuilder>
nested_composites();  // nested_composites.h: VisionTextDualEncoder, RAG (DPR + BART/T5), UDOP
std::span<const FamilyBuilder> seq2seq_classics();  // seq2seq_classics.h: NLLB-MoE, BigBird-Pegasus, FSMT,
                                                    // Speech2Text, ProphetNet, Reformer
std::span<const FamilyBuilder> emu3();         // emu3.cpp: Emu3 (Llama over text and a video VQ-VAE's tokens)
std::span<const FamilyBuilder> fast_vlm();     // fast_vlm.cpp: FastVLM (FastViT-HD, Qwen2), both forms
std::span<const FamilyBuilder> deepseek_vl();  // deepseek_vl.cpp: DeepSeek-VL (SigLIP, an aligner, Llama)
std::span<const FamilyBuilder> multi_modality();   // multi_modality.cpp: DeepSeek's Janus / DeepSeek-VL repos
std::span<const FamilyBuilder> perception_lm();    // perception_lm.cpp: Perception-LM (PE tower, Llama)
std::span<const FamilyBuilder> t5gemma();          // t5gemma.cpp: T5Gemma (Gemma-2 encoder-decoder)
std::span<const FamilyBuilder> phi4_multimodal();  // phi4_multimodal.cpp: Phi-4-multimodal, both forms
std::span<const FamilyBuilder> mamba2_hybrids();   // mamba2_hybrids.cpp: Bamba, Falcon-H1
std::span<const FamilyBuilder> zamba2();  // zamba2.cpp: Zamba2, Zamba (Mamba with shared transformer blocks)
std::span<const FamilyBuilder>
encoders();  // encoders*.cpp: BERT and its relatives, ViT, BART, T5 and theirs, Whisper
std::span<const FamilyBuilder>
compact_encoders();  // encoders_compact.cpp: MobileBERT, ConvBERT, SqueezeBERT, Funnel Transformer
std::span<const FamilyBuilder> xlnet_xlm();  // encoders_xlnet_xlm.cpp: XLNet, XLM, FlauBERT
std::span<const FamilyBuilder>
bert_shaped();  // encoders_bert_shaped.cpp: bert-generation, RemBERT, LayoutLM, BigBird, Longformer, ...
std::span<const FamilyBuilder>
bert_variants_3();  // encoders_bert_variants.cpp: EuroBERT, ModernBERT-decoder, Jina-v3, LUKE, FNet, ...
std::span<const FamilyBuilder>
qwen_hybrid();  // qwen_hybrid.cpp: Qwen3-Next, Qwen3.5 (gated delta net), Qwen2/2.5/3-VL
std::span<const FamilyBuilder> llava_like();  // llava_like.cpp: LLaVA, LLaVA-NeXT, -OneVision, Mistral 3
std::span<const FamilyBuilder>
qwen2_5_omni();  // qwen2_5_omni.cpp: Qwen2.5-Omni (thinker, talker, token2wav) and its thinker alone
std::span<const FamilyBuilder> multimodal();  // multimodal.cpp: Gemma-3/4, Llama-4, Fuyu, Persimmon
std::span<const FamilyBuilder>
gemma3n();  // gemma3n.cpp: Gemma 3n, its language model alone or with its towers
std::span<const FamilyBuilder>
aya_vision();                                // aya_vision.cpp: Aya Vision (SigLIP, SwiGLU projector, Cohere2)
std::span<const FamilyBuilder> mllama();     // mllama.cpp: Llama 3.2 Vision (cross-attention layers)
std::span<const FamilyBuilder> glm4v();      // glm4v.cpp: GLM-4.1V
std::span<const FamilyBuilder> exaone4_5();  // exaone4_5.cpp: EXAONE 4.5 (Qwen2.5-VL tower + EXAONE 4)
std::span<const FamilyBuilder> paddleocr_vl();  // paddleocr_vl.cpp: PaddleOCR-VL (SigLIP + ERNIE 4.5)
std::span<const FamilyBuilder> hunyuan_vl();    // hunyuan_vl.cpp: HunyuanOCR (its ViT + Hunyuan dense)
std::span<const FamilyBuilder>
minimax_m3();  // minimax_m3.cpp: MiniMax-M3 and its text model (M2's mixture + indexer, CLIP tower)
std::span<const FamilyBuilder>
vlm_2026();  // vlm_2026.cpp: Step-3.7, Muse Glimmer, Cosmos3-Edge, VideoLLaMA3 (+ parts)
std::span<const FamilyBuilder> ocr_and_ovis();  // ocr_and_ovis.cpp: GOT-OCR 2.0, Ovis2, Kosmos-2.5
std::span<const FamilyBuilder>
audio_llms();  // audio_llms.cpp: Voxtral Realtime, Audio Flamingo 3, Music Flamingo, GLM-ASR
std::span<const FamilyBuilder> decoders_b();  // decoders_b.cpp: Doge, Gemma 4's assistant models, BLT
std::span<const FamilyBuilder>
speech_gen();  // speech_gen.cpp: EnCodec, MusicGen, MusicGen Melody (and their decoders alone)
std::span<const FamilyBuilder>
audio_codecs_tts();  // audio_codecs_tts.cpp: DAC, X-Codec, UnivNet, FastSpeech2Conformer
std::span<const FamilyBuilder> tts_vits();    // tts_vits.cpp: VITS (MMS-TTS)
std::span<const FamilyBuilder> seamless();    // seamless.cpp: SeamlessM4T, SeamlessM4T v2
std::span<const FamilyBuilder> speech_tts();  // speech_tts.cpp: CLVP (Tortoise TTS)
std::span<const FamilyBuilder> bark();        // bark.cpp: Bark (BarkModel) and its three GPT sub-models alone
std::span<const FamilyBuilder>
contrastive();  // contrastive.cpp: CLIP, MetaCLIP 2, SigLIP (image-text dual encoders)
std::span<const FamilyBuilder>
clip_relatives();  // clip_relatives.cpp: CLIP / SigLIP towers alone, Chinese-CLIP, OWL-ViT, OWLv2
std::span<const FamilyBuilder>
dual_encoders();  // dual_encoders.cpp: ALIGN (EfficientNet + BERT), GroupViT, X-CLIP (video)
std::span<const FamilyBuilder> vision_encoders();  // vision_encoders.cpp: DINOv2
std::span<const FamilyBuilder>
vit_relatives();  // vit_relatives.cpp: BEiT, data2vec-vision, ViT-MAE, ViT-MSN, I-JEPA, DINOv2 with registers
std::span<const FamilyBuilder>
vision_backbones();                            // vision_backbones.cpp: DINOv3 ViT / ConvNeXt, AIMv2, MLCD
std::span<const FamilyBuilder> vision_hier();  // vision_hier.cpp: SegFormer, PVTv2, MobileViT(V2), PoolFormer
std::span<const FamilyBuilder> vision_hier_b();  // vision_hier_b.cpp: LeViT, CvT, FocalNet, PVT, GLPN
std::span<const FamilyBuilder> vision_d();       // vision_d.cpp: Hiera, V-JEPA 2, SwiftFormer
std::span<const FamilyBuilder> vision_e();       // vision_e.cpp: DiNAT, Swin2SR, HGNetV2, TextNet
std::span<const FamilyBuilder> vision_f();       // vision_f.cpp: SegGPT, TVP, EfficientLoFTR
std::span<const FamilyBuilder>
cnn_backbones();  // cnn_backbones.cpp: ResNet, ConvNeXt, RegNet, MobileNet, EfficientNet, BiT
std::span<const FamilyBuilder> segment_anything();  // segment_anything.cpp: SAM (SamModel, SamVisionModel)
std::span<const FamilyBuilder>
segment_anything_3();  // sam3.cpp: SAM 3 (Sam3Model, Sam3VisionModel, Sam3ViTModel)
std::span<const FamilyBuilder>
detr();  // detr.cpp: DETR, Table Transformer, Conditional / Deformable DETR, RT-DETR (v1, v2)
std::span<const FamilyBuilder>
grounding_dino();  // grounding_dino.cpp: Grounding DINO, MM Grounding DINO (Swin + BERT, fusion)
std::span<const FamilyBuilder> depth();     // depth.cpp: Depth Anything (+ Prompt), ZoeDepth, Depth Pro
std::span<const FamilyBuilder> ocr_vlms();  // ocr_vlms.cpp: Swin, Donut's Swin, Pix2Struct
std::span<const FamilyBuilder> speech_encoders();  // speech_encoders.cpp: wav2vec 2.0, HuBERT
std::span<const FamilyBuilder>
speech_w2v();  // speech_w2v.cpp: WavLM, data2vec-audio, UniSpeech, UniSpeech-SAT, SEW
std::span<const FamilyBuilder> speech_c();    // speech_c.cpp: SEW-D, Audio Spectrogram Transformer
std::span<const FamilyBuilder> speech_d();    // speech_d.cpp: CLAP (+ its text and audio models)
std::span<const FamilyBuilder> matching();    // matching.cpp: SuperPoint, SuperGlue, LightGlue
std::span<const FamilyBuilder> timeseries();  // timeseries.cpp: TimesFM, PatchTST, PatchTSMixer, Time Series
                                              // Transformer, Informer, Autoformer
std::span<const FamilyBuilder>
speech_asr();  // speech_asr.cpp: Moonshine, Granite Speech, Kyutai speech-to-text, Parakeet
std::span<const FamilyBuilder>
csm_mimi();  // csm_mimi.cpp: Sesame's CSM (and its depth decoder), Kyutai's Mimi
std::span<const FamilyBuilder> audio_gen_b();  // audio_gen_b.cpp: Pop2Piano, Moshi, Dia
std::span<const FamilyBuilder>
speecht5();  // speecht5.cpp: SpeechT5 (text-to-speech, recognition, voice conversion), its HiFi-GAN vocoder
std::span<const FamilyBuilder>
standalone_towers();  // standalone_towers.cpp: Pixtral's, Idefics3's, InternVL's ... towers configured alone
std::span<const FamilyBuilder>
bert_docs();  // bert_docs.cpp: LayoutLMv3, DPR, Splinter, CANINE, LiLT, MarkupLM, ImageGPT, ...
std::span<const FamilyBuilder>
multimodal_b();  // multimodal_b.cpp: ColPali, ColQwen2, BLIP-2's Q-Former alone, ViLT, VisualBERT, BROS
std::span<const FamilyBuilder> multimodal_d();  // multimodal_d.cpp: FLAVA, BridgeTower
std::span<const FamilyBuilder>
remote_code();  // remote_code*.cpp: ChatGLM, Qwen-1, Baichuan, InternLM, ... (needing remote code)
std::span<const FamilyBuilder>
detection_seg();                          // detection_seg.cpp: ViTDet, ViTPose (and its backbone), ViTMatte
std::span<const FamilyBuilder> text_d();  // text_d.cpp: CPM-Ant, LXMERT
std::span<const FamilyBuilder> seg_heads();  // seg_heads.cpp: MaskFormer (and its Swin), UperNet
std::span<const FamilyBuilder> seg_b();      // seg_b.cpp: Mask2Former, OneFormer, EoMT
std::span<const FamilyBuilder>
perceiver();  // perceiver.cpp: Perceiver IO (text, image classification, optical flow)
std::span<const FamilyBuilder>
protein_text();  // protein_text.cpp: Evolla (a Llama-3 decoder reading a SaProt protein encoder)

}  // namespace ma::families
