#include "model/family_table.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace ma {
namespace {

using enum ModelKind;

// Seed 002 §3 and appendix A first (their names as the seed spells them), then every model_type of the
// reference configs and of our templates. Rows sharing a model_type are variants told apart by the model id;
// the first such row is the default.
// A plain array: std::array's deduction guide folds over every row, and clang caps fold expressions at 256.
constexpr FamilyRow kFamilies[] = {
    // --- seed 002 §3 / appendix A ---
    FamilyRow{"GPT-2", "OpenAI", "gpt2", CausalLm, "gpt2 gpt-2", "",
              "transformer.h. attn.c_attn mlp.c_fc transformer.wpe"},
    FamilyRow{"GPT-J", "EleutherAI", "gptj", CausalLm, "gpt-j gptj", "",
              "transformer.h. attn.q_proj mlp.fc_in"},
    FamilyRow{"GPT-NeoX", "EleutherAI", "gpt_neox", CausalLm, "gpt-neox pythia redpajama", "",
              "gpt_neox.layers."},
    FamilyRow{"LLaMA", "Meta", "llama", CausalLm, "llama"},
    FamilyRow{"LLaMA 2", "Meta", "llama", CausalLm, "llama-2 llama2 codellama"},
    FamilyRow{"LLaMA 3", "Meta", "llama", CausalLm, "llama-3 llama3"},
    FamilyRow{"BLT", "Meta", "blt", CausalLm, "blt-1b blt-7b facebook/blt", "", "encoder_hash_tok_embedding"},
    FamilyRow{"Mistral", "Mistral AI", "mistral", CausalLm, "mistral"},
    FamilyRow{"Mixtral", "Mistral AI", "mixtral", CausalLm, "mixtral", "", "block_sparse_moe.experts"},
    FamilyRow{"Qwen", "Alibaba Qwen", "qwen", CausalLm, "qwen-", "",
              "transformer.h. attn.c_attn mlp.w1 mlp.w2 !transformer.visual."},
    FamilyRow{"Qwen-VL", "Alibaba Qwen", "qwen", VisionLanguage, "qwen-vl", "",
              "transformer.h. attn.c_attn mlp.w1 transformer.visual.attn_pool"},
    FamilyRow{"Qwen2", "Alibaba Qwen", "qwen2", CausalLm, "qwen2"},
    FamilyRow{"Qwen2.5", "Alibaba Qwen", "qwen2", CausalLm, "qwen2.5 qwen2-5"},
    FamilyRow{"Phi", "Microsoft", "phi", CausalLm, "phi-1 phi-2 phi1 phi2"},
    FamilyRow{"Phi-3", "Microsoft", "phi3", CausalLm, "phi-3 phi3"},
    FamilyRow{"Phi-4", "Microsoft", "phi3", CausalLm, "phi-4 phi4"},
    FamilyRow{"Phi-3-vision", "Microsoft", "phi3_v", VisionLanguage, "phi-3-vision phi-3.5-vision",
              "Phi3VForCausalLM"},
    FamilyRow{"Phi-4-multimodal", "Microsoft", "phi4_multimodal phi4mm", VisionLanguage,
              "phi-4-multimodal phi4-multimodal", "", "embed_tokens_extend.audio_embed."},
    FamilyRow{"GPT", "OpenAI", "openai-gpt", CausalLm, "openai-gpt", "OpenAIGPTLMHeadModel OpenAIGPTModel",
              "tokens_embed positions_embed"},
    FamilyRow{"CTRL", "Salesforce", "ctrl", CausalLm, "ctrl", "", "multi_head_attention.Wq"},
    FamilyRow{"XGLM", "Meta AI", "xglm", CausalLm, "xglm"},
    FamilyRow{"BioGPT", "Microsoft", "biogpt", CausalLm, "biogpt", "", "biogpt.embed_positions"},
    FamilyRow{"GPT-NeoX-Japanese", "ABEJA", "gpt_neox_japanese", CausalLm, "gpt-neox-japanese", "",
              "gpt_neox_japanese.embed_in"},
    FamilyRow{"Chameleon", "Meta", "chameleon", VisionLanguage, "chameleon", "",
              "vqmodel.quantize.embedding"},
    FamilyRow{"Aria", "Rhymes AI", "aria", VisionLanguage, "rhymes-ai/aria aria-chat aria-base"},
    FamilyRow{"Aria", "Rhymes AI", "aria_text", CausalLm, "rhymes-ai/aria"},
    FamilyRow{"Janus", "DeepSeek", "janus", VisionLanguage, "janus"},
    FamilyRow{"FastVLM", "Apple", "fast_vlm llava_qwen2", VisionLanguage, "fastvlm"},
    FamilyRow{"Emu3", "BAAI", "emu3", VisionLanguage, "emu3"},
    FamilyRow{"BLIP", "Salesforce", "blip", VisionLanguage, "blip-"},
    FamilyRow{"BLIP-2", "Salesforce", "blip-2", VisionLanguage, "blip2"},
    FamilyRow{"InstructBLIP", "Salesforce", "instructblip", VisionLanguage, "instructblip"},
    FamilyRow{"InstructBLIP-Video", "Salesforce", "instructblipvideo", VisionLanguage, "instructblip"},
    FamilyRow{"GIT", "Microsoft", "git git_vision_model", VisionLanguage, "microsoft/git-"},
    FamilyRow{"IDEFICS", "Hugging Face", "idefics", VisionLanguage, "idefics-"},
    FamilyRow{"Kosmos-2.5", "Microsoft", "kosmos-2.5", VisionLanguage, "kosmos-2.5",
              "Kosmos2_5ForConditionalGeneration Kosmos2_5Model",
              "segment_emb image_to_text_projection.latent_query"},
    FamilyRow{"Kosmos-2", "Microsoft", "kosmos-2", VisionLanguage, "kosmos-2"},
    FamilyRow{"GOT-OCR 2.0", "StepFun", "got_ocr2", VisionLanguage, "got-ocr", "",
              "multi_modal_projector.conv_upsampler1"},
    FamilyRow{"Ovis2", "Alibaba AIDC", "ovis2", VisionLanguage, "ovis2-", "", "visual_embeddings_table"},
    FamilyRow{"TrOCR", "Microsoft", "trocr", CausalLm, "", "", "output_projection.weight"},
    FamilyRow{"DeiT", "Meta", "deit", Vision, "deit", "", "embeddings.distillation_token"},
    FamilyRow{"Encoder-decoder", "Hugging Face", "encoder-decoder", Seq2Seq,
              "bert2bert bert2gpt2 roberta2roberta"},
    FamilyRow{"Vision encoder-decoder", "Hugging Face", "vision-encoder-decoder", VisionLanguage,
              "trocr vit-gpt2 donut nougat"},
    FamilyRow{"Speech encoder-decoder", "Hugging Face", "speech-encoder-decoder", Speech, "-en-to-"},
    FamilyRow{"DeepSeek-VL", "DeepSeek", "deepseek_vl", VisionLanguage, "deepseek-vl"},
    FamilyRow{"DeepSeek-VL", "DeepSeek", "deepseek_vl_hybrid", VisionLanguage, "deepseek-vl"},
    FamilyRow{"Perception-LM", "Meta", "perception_lm", VisionLanguage, "perception-lm"},
    FamilyRow{"Janus", "DeepSeek", "multi_modality", VisionLanguage, "janus", "MultiModalityCausalLM",
              "gen_vision_model."},
    FamilyRow{"DeepSeek-VL", "DeepSeek", "multi_modality", VisionLanguage, "deepseek-vl", "",
              "vision_model.vision_tower.attn_pool !gen_vision_model."},
    FamilyRow{"Phi-3.5-MoE", "Microsoft", "phimoe", CausalLm, "phi-3.5-moe phimoe"},
    FamilyRow{"Gemma", "Google", "gemma", CausalLm, "gemma"},
    FamilyRow{"Falcon", "TII", "falcon RefinedWeb RefinedWebModel", CausalLm, "falcon",
              "RWForCausalLM RWModel",
              "self_attention.query_key_value transformer.word_embeddings !word_embeddings_layernorm"},
    FamilyRow{"MPT", "MosaicML", "mpt", CausalLm, "mpt-", "MPTForCausalLM", "attn.Wqkv ffn.up_proj"},
    FamilyRow{"BLOOM", "BigScience", "bloom", CausalLm, "bloom", "", "word_embeddings_layernorm"},
    FamilyRow{"OPT", "Meta", "opt", CausalLm, "opt-", "",
              "decoder.embed_positions self_attn.q_proj fc1 !encoder.layers !encoder_attn"},
    FamilyRow{"BERT", "Google", "bert", MaskedLm, "bert", "", "attention.self.query !roberta."},
    FamilyRow{"RoBERTa", "Meta", "roberta", MaskedLm, "roberta", "", "roberta.encoder.layer"},
    FamilyRow{"T5", "Google", "t5", Seq2Seq, "t5-", "", "layer.0.SelfAttention.q"},
    FamilyRow{"BART", "Meta", "bart", Seq2Seq, "bart", "",
              "encoder.layers decoder.layers encoder_attn !conv1"},
    FamilyRow{"ViT", "Google", "vit", Vision, "vit-", "", "embeddings.patch_embeddings encoder.layer"},
    // --- decoders in the reference configs and templates ---
    FamilyRow{"LLaMA 3.2 Vision", "Meta", "mllama", VisionLanguage,
              "llama-3.2-11b-vision llama-3.2-90b-vision mllama", "", "cross_attn_attn_gate"},
    FamilyRow{"LLaMA 4", "Meta", "llama4", VisionLanguage, "llama-4 llama4"},
    FamilyRow{"LLaMA 4", "Meta", "llama4_text", CausalLm, "llama-4 llama4"},
    FamilyRow{"Gemma 2", "Google", "gemma2", CausalLm, "gemma-2 gemma2"},
    FamilyRow{"VaultGemma", "Google", "vaultgemma", CausalLm, "vaultgemma"},
    FamilyRow{"Gemma 3", "Google", "gemma3", VisionLanguage, "gemma-3 gemma3 medgemma"},
    FamilyRow{"Gemma 3", "Google", "gemma3_text", CausalLm, "gemma-3 gemma3"},
    FamilyRow{"ShieldGemma 2", "Google", "shieldgemma2", VisionLanguage, "shieldgemma-2 shieldgemma2"},
    FamilyRow{"Gemma 3n", "Google", "gemma3n", VisionLanguage, "gemma-3n gemma3n"},
    FamilyRow{"Gemma 3n", "Google", "gemma3n_text", CausalLm, "gemma-3n gemma3n"},
    FamilyRow{"Gemma 4", "Google", "gemma4", VisionLanguage, "gemma-4 gemma4"},
    FamilyRow{"Gemma 4", "Google", "gemma4_text", CausalLm, "gemma-4 gemma4"},
    FamilyRow{"Gemma 4 12B", "Google", "gemma4_unified", VisionLanguage, "gemma-4-12b"},
    FamilyRow{"Gemma 4 12B", "Google", "gemma4_unified_text", CausalLm, "gemma-4-12b"},
    FamilyRow{"Gemma 4 Assistant", "Google", "gemma4_assistant", CausalLm,
              "e2b-it-assistant e4b-it-assistant 26b-a4b-it-assistant 31b-it-assistant", "",
              "pre_projection post_projection"},
    FamilyRow{"Gemma 4 12B Assistant", "Google", "gemma4_unified_assistant", CausalLm, "12b-it-assistant"},
    FamilyRow{"Qwen2-MoE", "Alibaba Qwen", "qwen2_moe", CausalLm, "qwen1.5-moe qwen2-moe"},
    FamilyRow{"Qwen3", "Alibaba Qwen", "qwen3", CausalLm, "qwen3"},
    FamilyRow{"Qwen3-MoE", "Alibaba Qwen", "qwen3_moe", CausalLm,
              "qwen3-30b-a3b qwen3-235b-a22b qwen3-coder-480b"},
    FamilyRow{"Qwen3-Next", "Alibaba Qwen", "qwen3_next", CausalLm, "qwen3-next"},
    FamilyRow{"Qwen3.5", "Alibaba Qwen", "qwen3_5", VisionLanguage, "qwen3.5 qwen3-5"},
    FamilyRow{"Qwen3.5", "Alibaba Qwen", "qwen3_5_text", CausalLm, "qwen3.5 qwen3-5"},
    FamilyRow{"Qwen3.5-MoE", "Alibaba Qwen", "qwen3_5_moe", VisionLanguage},
    FamilyRow{"Qwen3.5-MoE", "Alibaba Qwen", "qwen3_5_moe_text", CausalLm},
    FamilyRow{"Qwen2-VL", "Alibaba Qwen", "qwen2_vl", VisionLanguage, "qwen2-vl"},
    FamilyRow{"Qwen2.5-VL", "Alibaba Qwen", "qwen2_5_vl", VisionLanguage, "qwen2.5-vl"},
    FamilyRow{"Qwen3-VL", "Alibaba Qwen", "qwen3_vl", VisionLanguage, "qwen3-vl"},
    FamilyRow{"Qwen3-VL", "Alibaba Qwen", "qwen3_vl_text", CausalLm},
    FamilyRow{"Qwen3-VL-MoE", "Alibaba Qwen", "qwen3_vl_moe", VisionLanguage},
    FamilyRow{"Qwen3-VL-MoE", "Alibaba Qwen", "qwen3_vl_moe_text", CausalLm},
    FamilyRow{"Cosmos3-Edge", "NVIDIA", "cosmos3_edge cosmos3_edge_text cosmos3_edge_vision", VisionLanguage,
              "cosmos3-edge"},
    FamilyRow{"Cosmos3", "NVIDIA", "cosmos3_omni", VisionLanguage, "cosmos3"},
    FamilyRow{"MiniCPM-V 4.6", "OpenBMB", "minicpmv4_6", VisionLanguage, "minicpm-v-4.6 minicpm-v-4_6"},
    FamilyRow{"Command R", "Cohere", "cohere cohere2", CausalLm, "command-r c4ai"},
    FamilyRow{"Aya Vision", "Cohere", "aya_vision", VisionLanguage, "aya-vision"},
    FamilyRow{"Command A Vision", "Cohere", "cohere2_vision", VisionLanguage, "command-a-vision"},
    FamilyRow{"StarCoder", "BigCode", "gpt_bigcode", CausalLm, "starcoder santacoder wizardcoder", "",
              "transformer.h. attn.c_attn mlp.c_fc transformer.wpe"},
    FamilyRow{"StarCoder2", "BigCode", "starcoder2", CausalLm, "starcoder2"},
    FamilyRow{"GPT-Neo", "EleutherAI", "gpt_neo", CausalLm, "gpt-neo-"},
    FamilyRow{"CodeGen", "Salesforce", "codegen", CausalLm, "codegen-"},
    FamilyRow{"StableLM", "Stability AI", "stablelm stablelm_epoch", CausalLm, "stablelm stable-code"},
    FamilyRow{"Persimmon", "Adept", "persimmon", CausalLm, "persimmon"},
    FamilyRow{"Fuyu", "Adept", "fuyu", VisionLanguage, "fuyu"},
    FamilyRow{"Mistral 3 (Mistral Small 3.1+)", "Mistral AI", "mistral3", VisionLanguage,
              "mistral-small-3 magistral ministral-3"},
    FamilyRow{"Idefics2", "Hugging Face", "idefics2", VisionLanguage, "idefics2"},
    FamilyRow{"LightOnOCR", "LightOn", "lighton_ocr", VisionLanguage, "lightonocr"},
    FamilyRow{"Qwen3-ASR", "Alibaba Qwen", "qwen3_asr", CausalLm, "qwen3-asr qwen3-forcedaligner"},
    FamilyRow{"Idefics3", "Hugging Face", "idefics3", VisionLanguage, "idefics3"},
    FamilyRow{"SmolVLM", "Hugging Face", "smolvlm", VisionLanguage, "smolvlm"},
    FamilyRow{"PaliGemma", "Google", "paligemma", VisionLanguage, "paligemma"},
    FamilyRow{"Qwen2-Audio", "Alibaba Qwen", "qwen2_audio", CausalLm, "qwen2-audio"},
    // Apart, so that a config naming only its class (Qwen2_5OmniThinkerForConditionalGeneration) is built
    // as the thinker.
    FamilyRow{"Qwen2.5-Omni", "Alibaba Qwen", "qwen2_5_omni", VisionLanguage, "qwen2.5-omni qwen2-5-omni", "",
              "thinker.audio_tower.audio_bos_eos_token"},
    FamilyRow{"Qwen2.5-Omni Thinker", "Alibaba Qwen", "qwen2_5_omni_thinker", VisionLanguage, "", "",
              "audio_tower.audio_bos_eos_token !thinker."},
    FamilyRow{"LLaVA", "LLaVA project",
              "llava llava_next llava_onevision llava_llama llava_qwen llava_mistral", VisionLanguage,
              "llava", "LlavaLlamaForCausalLM LlavaMistralForCausalLM"},
    FamilyRow{"VideoLLaMA3", "Alibaba DAMO", "video_llama_3", VisionLanguage,
              "videollama3 video-llama-3 videollama-3",
              "VideoLlama3ForConditionalGeneration VideoLlama3Model",
              "projector.readout vision_model.encoder"},
    FamilyRow{"VideoLLaMA3 vision encoder", "Alibaba DAMO", "video_llama_3_vision", Vision, "",
              "VideoLlama3VisionModel"},
    FamilyRow{"LLaVA-NeXT-Video", "LLaVA project", "llava_next_video", VisionLanguage, "llava-next-video"},
    FamilyRow{"ViP-LLaVA", "University of Wisconsin-Madison", "vipllava", VisionLanguage, "vip-llava"},
    FamilyRow{"Video-LLaVA", "PKU-YuanGroup", "video_llava", VisionLanguage, "video-llava"},
    FamilyRow{"MiniCPM-V", "OpenBMB", "minicpmv", VisionLanguage, "minicpm-v"},
    FamilyRow{"InternVL", "Shanghai AI Laboratory", "internvl internvl_chat", VisionLanguage, "internvl",
              "InternVLChatModel"},
    FamilyRow{"Voxtral", "Mistral AI", "voxtral", CausalLm, "voxtral"},
    // Audio language models of group audio_llms; their encoders alone under the sub-configs' model_types.
    FamilyRow{"Voxtral Realtime", "Mistral AI", "voxtral_realtime voxtral_realtime_text", CausalLm,
              "voxtral-mini-4b-realtime", "", "ada_rms_norm.linear1 audio_tower.embedder.conv1"},
    FamilyRow{"Voxtral Realtime encoder", "Mistral AI", "voxtral_realtime_encoder", SpeechEncoder},
    FamilyRow{"Audio Flamingo 3", "NVIDIA", "audioflamingo3", CausalLm, "audio-flamingo-3"},
    FamilyRow{"Audio Flamingo 3 encoder", "NVIDIA", "audioflamingo3_encoder", SpeechEncoder},
    FamilyRow{"Music Flamingo", "NVIDIA", "musicflamingo", CausalLm, "music-flamingo"},
    FamilyRow{"GLM-ASR", "Zhipu AI", "glmasr", CausalLm, "glm-asr", "",
              "audio_tower.layers.0.input_layernorm multi_modal_projector.linear_2"},
    FamilyRow{"GLM-ASR encoder", "Zhipu AI", "glmasr_encoder", SpeechEncoder},
    FamilyRow{"MiniCPM", "OpenBMB", "minicpm minicpm3", CausalLm, "minicpm"},
    FamilyRow{"ChatGLM", "Zhipu AI", "chatglm", CausalLm, "chatglm codegeex glm-4-9b"},
    FamilyRow{"GLM", "Zhipu AI", "glm glm4", CausalLm, "glm-"},
    FamilyRow{"GLM-4.1V", "Zhipu AI", "glm4v", VisionLanguage, "glm-4.1v"},
    FamilyRow{"GLM-4.5V", "Zhipu AI", "glm4v_moe", VisionLanguage, "glm-4.5v glm-4.6v"},
    FamilyRow{"GLM-4.6V", "Zhipu AI", "glm46v glmga", VisionLanguage, "glm-4.6v"},
    FamilyRow{"GLM-OCR", "Zhipu AI", "glm_ocr", VisionLanguage, "glm-ocr"},
    FamilyRow{"GLM-4.5 (MoE)", "Zhipu AI", "glm4_moe", CausalLm, "glm-4.5 glm-4.6 glm-4.7"},
    FamilyRow{"GLM-4.7-Flash (MoE, MLA)", "Zhipu AI", "glm4_moe_lite", CausalLm, "glm-4.7-flash"},
    FamilyRow{"GLM-5 (MoE, sparse attention)", "Zhipu AI", "glm_moe_dsa", CausalLm, "glm-5"},
    FamilyRow{"Baichuan", "Baichuan Inc.", "baichuan", CausalLm, "baichuan"},
    FamilyRow{"InternLM", "Shanghai AI Laboratory", "internlm", CausalLm, "internlm"},
    FamilyRow{"InternLM2", "Shanghai AI Laboratory", "internlm2", CausalLm, "internlm2"},
    FamilyRow{"MiMo", "Xiaomi", "mimo", CausalLm, "mimo"},
    FamilyRow{"MiMo-V2-Flash", "Xiaomi", "mimo_v2_flash", CausalLm, "mimo-v2-flash"},
    FamilyRow{"MiniMax-M2", "MiniMax", "minimax_m2", CausalLm, "minimax-m2"},
    FamilyRow{"MiniMax-01 (lightning attention)", "MiniMax", "minimax minimax_text_01 minimax_m1", CausalLm,
              "minimax-text-01 minimax-m1", "MiniMaxText01ForCausalLM MiniMaxM1ForCausalLM"},
    FamilyRow{"Laguna", "Poolside", "laguna", CausalLm, "laguna"},
    FamilyRow{"DeepSeek-V2", "DeepSeek", "deepseek_v2", CausalLm, "deepseek-v2 deepseek-coder-v2", "",
              "self_attn.kv_a_proj_with_mqa mlp.experts."},
    FamilyRow{"DeepSeek-V3", "DeepSeek", "deepseek_v3", CausalLm, "deepseek-v3 deepseek-r1", "",
              "self_attn.kv_a_proj_with_mqa mlp.experts. e_score_correction_bias"},
    FamilyRow{"DeepSeek-V3.2 (sparse attention)", "DeepSeek", "deepseek_v32", CausalLm, "deepseek-v3.2", "",
              "self_attn.indexer"},
    FamilyRow{"DeepSeek-V4 (compressed attention)", "DeepSeek", "deepseek_v4", CausalLm, "deepseek-v4", "",
              "self_attn.compressor attn_hc.fn"},
    FamilyRow{"DeepSeek-MoE", "DeepSeek", "deepseek", CausalLm, "deepseek-moe"},
    FamilyRow{"LongCat-Flash", "Meituan", "longcat_flash", CausalLm, "longcat-flash", "",
              "mlps.1 self_attn.1"},
    FamilyRow{"Kimi K2", "Moonshot AI", "kimi_k2", CausalLm, "kimi-k2"},
    FamilyRow{"Kimi K2.5", "Moonshot AI", "kimi_k25", VisionLanguage, "kimi-k2.5 kimi-k2.6 kimi-k2.7",
              "Kimi_K25ForConditionalGeneration KimiK25ForConditionalGeneration"},
    FamilyRow{"gpt-oss", "OpenAI", "gpt_oss", CausalLm, "gpt-oss", "", "mlp.experts.gate_up_proj_blocks"},
    FamilyRow{"DBRX", "Databricks", "dbrx", CausalLm, "dbrx", "", "ffn.experts.mlp"},
    FamilyRow{"OLMo", "Allen Institute for AI", "olmo", CausalLm, "olmo-"},
    FamilyRow{"OLMo 2", "Allen Institute for AI", "olmo2", CausalLm, "olmo-2 olmo2"},
    FamilyRow{"OLMo 3", "Allen Institute for AI", "olmo3", CausalLm, "olmo-3 olmo3"},
    FamilyRow{"OLMoE", "Allen Institute for AI", "olmoe", CausalLm, "olmoe"},
    FamilyRow{"OLMo Hybrid", "Allen Institute for AI", "olmo_hybrid", CausalLm, "olmo-hybrid"},
    FamilyRow{"Granite", "IBM", "granite granitemoe granitemoeshared granitemoehybrid llama", CausalLm,
              "granite"},
    FamilyRow{"Nemotron", "NVIDIA", "nemotron", CausalLm, "nemotron-4 minitron"},
    FamilyRow{"Nemotron-NAS (DeciLM)", "NVIDIA", "nemotron-nas deci", CausalLm,
              "nemotron-super nemotron-ultra", "DeciLMForCausalLM"},
    FamilyRow{"Nemotron-H", "NVIDIA", "nemotron_h", CausalLm, "nemotron-h nemotron-3", "",
              "backbone.layers. mixer.dt_bias mixer.q_proj"},
    FamilyRow{"Falcon-Mamba", "TII", "falcon_mamba", CausalLm, "falcon-mamba"},
    FamilyRow{"Mamba", "state-spaces (Gu & Dao)", "mamba", CausalLm, "mamba-", "",
              "mixer.x_proj mixer.A_log"},
    FamilyRow{"Mamba-2", "state-spaces (Gu & Dao)", "mamba2", CausalLm, "mamba2 mamba-2", "",
              "mixer.dt_bias mixer.A_log !q_proj !mixer.x_proj"},
    FamilyRow{"Jamba", "AI21 Labs", "jamba", CausalLm, "jamba", "", "mamba.x_proj"},
    FamilyRow{"Falcon-H1", "TII", "falcon_h1", CausalLm, "falcon-h1 falcon_h1"},
    FamilyRow{"Bamba", "IBM", "bamba", CausalLm, "bamba"},
    FamilyRow{"xLSTM", "NXAI", "xlstm", CausalLm, "xlstm", "xLSTMForCausalLM xLSTMModel", "mlstm_layer."},
    FamilyRow{"RWKV", "RWKV", "rwkv", CausalLm, "rwkv", "", "time_mix_receptance time_decay"},
    FamilyRow{"Zamba2", "Zyphra", "zamba2", CausalLm, "zamba2", "", "shared_transformer. mamba_decoder."},
    FamilyRow{"Zamba", "Zyphra", "zamba", CausalLm, "zamba-7b", "", "shared_transf.self_attn mamba_decoder."},
    FamilyRow{"LFM2", "Liquid AI", "lfm2 lfm2_moe", CausalLm, "lfm2"},
    FamilyRow{"RecurrentGemma", "Google", "recurrent_gemma", CausalLm, "recurrentgemma recurrent-gemma", "",
              "rg_lru"},
    FamilyRow{"LFM2-VL", "Liquid AI", "lfm2_vl lfm2-vl", VisionLanguage, "lfm2-vl"},
    FamilyRow{"SmolLM3", "Hugging Face", "smollm3", CausalLm, "smollm3"},
    FamilyRow{"Helium", "Kyutai", "helium", CausalLm, "helium"},
    FamilyRow{"Seed-OSS", "ByteDance Seed", "seed_oss", CausalLm, "seed-oss"},
    FamilyRow{"AFM (Arcee)", "Arcee AI", "arcee", CausalLm, "afm-4.5b arcee"},
    FamilyRow{"Trinity (AFMoE)", "Arcee AI", "afmoe", CausalLm, "trinity afmoe"},
    FamilyRow{"Hunyuan", "Tencent", "hunyuan_v1_dense hunyuan_v1_moe", CausalLm, "hunyuan"},
    FamilyRow{"dots.llm1", "rednote hilab", "dots1", CausalLm, "dots.llm1 dots1"},
    FamilyRow{"Ling 2.0 (BailingMoE)", "inclusionAI", "bailing_moe_v2 bailing_moe", CausalLm,
              "ling-mini-2 ling-flash-2 ling-1t ring-"},
    // Ling 1.0 shares the model_type but not the layout; its template is not derived (refused by name).
    FamilyRow{"Ling 1.0 (BailingMoE)", "inclusionAI", "bailing_moe", CausalLm,
              "ling-lite ling-plus ling-coder-lite"},
    FamilyRow{"Apertus", "Swiss AI", "apertus", CausalLm, "apertus"},
    FamilyRow{"ERNIE 4.5", "Baidu", "ernie4_5 ernie4_5_moe", CausalLm, "ernie-4.5 ernie4.5"},
    FamilyRow{"T5Gemma", "Google", "t5gemma", Seq2Seq, "t5gemma"},
    FamilyRow{"T5Gemma 2", "Google", "t5gemma2", Seq2Seq, "t5gemma-2"},
    FamilyRow{"Qwen3-Omni", "Alibaba", "qwen3_omni_moe", VisionLanguage, "qwen3-omni"},
    FamilyRow{"Florence-2", "Microsoft", "florence2", VisionLanguage, "florence-2 florence2"},
    FamilyRow{"ERNIE 4.5 VL", "Baidu", "ernie4_5_vl_moe ernie4_5_moe_vl", VisionLanguage, "ernie-4.5-vl"},
    FamilyRow{"EXAONE", "LG AI Research", "exaone exaone4", CausalLm, "exaone"},
    FamilyRow{"EXAONE 4.5", "LG AI Research", "exaone4_5", VisionLanguage, "exaone-4.5"},
    FamilyRow{"PaddleOCR-VL", "Baidu", "paddleocr_vl", VisionLanguage, "paddleocr-vl"},
    FamilyRow{"HunyuanOCR", "Tencent", "hunyuan_vl", VisionLanguage, "hunyuanocr hunyuan-vl"},
    FamilyRow{"MiniMax-M3", "MiniMax", "minimax_m3_vl minimax_m3_vl_text", VisionLanguage, "minimax-m3"},
    FamilyRow{"Step 3.7", "StepFun", "step3p7", VisionLanguage, "step-3.7", "", "vit_large_projector"},
    FamilyRow{"Muse Glimmer", "Meta", "muse_glimmer muse_glimmer_text", VisionLanguage, "muse-glimmer"},
    FamilyRow{"K-EXAONE (MoE)", "LG AI Research", "exaone_moe", CausalLm, "k-exaone"},
    FamilyRow{"Ministral", "Mistral AI", "ministral", CausalLm, "ministral-8b"},
    FamilyRow{"Ministral 3", "Mistral AI", "ministral3", CausalLm, "ministral-3 devstral-2"},
    FamilyRow{"Mistral 4 (MoE, MLA)", "Mistral AI", "mistral4", CausalLm, "mistral-small-4"},
    FamilyRow{"CWM", "Meta", "cwm", CausalLm, "cwm"},
    FamilyRow{"Jais 2", "Inception", "jais2", CausalLm, "jais-2"},
    FamilyRow{"BitNet b1.58", "Microsoft", "bitnet", CausalLm, "bitnet"},
    FamilyRow{"Granite 4 Swash (SWA)", "IBM", "granite_swa granitemoe_swa", CausalLm, "granite-swash"},
    FamilyRow{"HyperCLOVA X SEED", "NAVER Cloud", "hyperclovax", CausalLm, "hyperclovax"},
    FamilyRow{"DiffLlama", "DiffLlama authors", "diffllama", CausalLm, "diffllama"},
    FamilyRow{"Doge", "SmallDoge", "doge", CausalLm, "doge", "", "input_residual post_attention_residual"},
    FamilyRow{"nanochat", "Andrej Karpathy", "nanochat", CausalLm, "nanochat"},
    FamilyRow{"FlexOlmo", "Allen Institute for AI", "flex_olmo", CausalLm, "flexolmo"},
    FamilyRow{"Command A MoE (Cohere2-MoE)", "Cohere", "cohere2_moe", CausalLm, "command-a-plus"},
    FamilyRow{"Mellum", "JetBrains", "mellum", CausalLm, "mellum"},
    FamilyRow{"Hy3", "Tencent", "hy_v3", CausalLm, "hy3"},
    FamilyRow{"Step 3.5", "StepFun", "step3p5", CausalLm, "step-3.5"},
    FamilyRow{"JetMoE", "JetMoE authors (MIT, Princeton, MyShell)", "jetmoe", CausalLm, "jetmoe"},
    FamilyRow{"Youtu-LLM", "Tencent", "youtu", CausalLm, "youtu-llm"},
    FamilyRow{"Solar Open", "Upstage", "solar_open", CausalLm, "solar-open"},
    // --- encoders, encoder-decoders, speech ---
    FamilyRow{"DistilBERT", "Hugging Face", "distilbert", MaskedLm, "distilbert", "", "attention.q_lin"},
    FamilyRow{"XLM-RoBERTa", "Meta", "xlm-roberta", MaskedLm, "xlm-roberta"},
    FamilyRow{"CamemBERT", "Inria", "camembert", MaskedLm, "camembert"},
    FamilyRow{"XLM-RoBERTa-XL", "Meta", "xlm-roberta-xl", MaskedLm, "xlm-roberta-xl xlm-roberta-xxl"},
    FamilyRow{"RoBERTa-PreLayerNorm", "Meta", "roberta-prelayernorm", MaskedLm, "prelayernorm"},
    FamilyRow{"Data2Vec-Text", "Meta", "data2vec-text", MaskedLm, "data2vec-text"},
    FamilyRow{"Megatron-BERT", "NVIDIA", "megatron-bert", MaskedLm, "megatron-bert biomegatron"},
    FamilyRow{"ERNIE", "Baidu", "ernie", MaskedLm, "ernie-1 ernie-2 ernie-3"},
    FamilyRow{"ESM", "Meta", "esm", MaskedLm, "esm1 esm2", "", "contact_head.regression"},
    FamilyRow{"PLBart", "UCLA NLP", "plbart", Seq2Seq, "plbart"},
    FamilyRow{"MVP", "RUCAIBox", "mvp", Seq2Seq, "rucaibox/mvp mvp-"},
    FamilyRow{"LongT5", "Google", "longt5", Seq2Seq, "long-t5 longt5"},
    FamilyRow{"LED", "AllenAI", "led", Seq2Seq, "led-base led-large"},
    FamilyRow{"PEGASUS-X", "Google", "pegasus_x", Seq2Seq, "pegasus-x"},
    FamilyRow{"Switch Transformers", "Google", "switch_transformers", Seq2Seq,
              "switch-base switch-large switch-c"},
    FamilyRow{"RoFormer", "Zhuiyi", "roformer", MaskedLm, "roformer", "", "roformer.encoder.embed_positions"},
    FamilyRow{"X-MOD", "Meta", "xmod", MaskedLm, "xmod", "", "output.adapter_modules."},
    FamilyRow{"MPNet", "Microsoft", "mpnet", MaskedLm, "mpnet"},
    FamilyRow{"DeBERTa", "Microsoft", "deberta deberta-v2", MaskedLm, "deberta"},
    FamilyRow{"ALBERT", "Google", "albert", MaskedLm, "albert"},
    FamilyRow{"ELECTRA", "Google", "electra", MaskedLm, "electra"},
    FamilyRow{"ModernBERT", "Answer.AI", "modernbert", MaskedLm, "modernbert"},
    FamilyRow{"ModernBERT-decoder", "JHU CLSP", "modernbert-decoder", CausalLm, "ettin-decoder"},
    FamilyRow{"EuroBERT", "EuroBERT", "eurobert", MaskedLm, "eurobert"},
    FamilyRow{"Jina-Embeddings-v3", "Jina AI", "jina_embeddings_v3", MaskedLm, "jina-embeddings-v3-hf"},
    FamilyRow{"LUKE", "Studio Ousia", "luke", MaskedLm, "luke-base luke-large studio-ousia/luke", "",
              "entity_embeddings.entity_embeddings"},
    FamilyRow{"FNet", "Google", "fnet", MaskedLm, "fnet-", "", "fourier.output.LayerNorm"},
    FamilyRow{"Nystromformer", "UW-Madison", "nystromformer", MaskedLm, "nystromformer"},
    FamilyRow{"YOSO", "UW-Madison", "yoso", MaskedLm, "uw-madison/yoso yoso-"},
    FamilyRow{"MRA", "UW-Madison", "mra", MaskedLm, "uw-madison/mra mra-base"},
    FamilyRow{"MobileBERT", "Google", "mobilebert", MaskedLm, "mobilebert",
              "MobileBertForNextSentencePrediction", "embedding_transformation bottleneck.input.dense"},
    FamilyRow{"ConvBERT", "YITU Technology", "convbert conv_bert", MaskedLm, "conv-bert convbert", "",
              "key_conv_attn_layer"},
    FamilyRow{"SqueezeBERT", "UC Berkeley", "squeezebert", MaskedLm, "squeezebert", "",
              "post_attention.conv1d"},
    FamilyRow{"Funnel Transformer", "CMU / Google Brain", "funnel", MaskedLm, "funnel-transformer",
              "FunnelBaseModel", "attention.r_kernel"},
    FamilyRow{"XLNet", "CMU / Google Brain", "xlnet", MaskedLm, "xlnet", "XLNetForQuestionAnsweringSimple",
              "rel_attn.r_s_bias"},
    FamilyRow{"XLM", "Meta", "xlm", MaskedLm, "xlm-mlm xlm-clm",
              "XLMWithLMHeadModel XLMForQuestionAnsweringSimple", "layer_norm_emb attentions.0.q_lin"},
    FamilyRow{"FlauBERT", "Univ. Grenoble Alpes", "flaubert", MaskedLm, "flaubert",
              "FlaubertWithLMHeadModel FlaubertForQuestionAnsweringSimple",
              "layer_norm_emb attentions.0.q_lin"},
    FamilyRow{"NomicBERT", "Nomic AI", "nomic_bert", MaskedLm, "nomic-embed nomic-bert"},
    FamilyRow{"BertGeneration", "Google", "bert-generation", MaskedLm,
              "bert-for-seq-generation bert-generation", "BertGenerationEncoder BertGenerationDecoder"},
    FamilyRow{"RemBERT", "Google", "rembert", MaskedLm, "rembert"},
    FamilyRow{"LayoutLM", "Microsoft", "layoutlm", MaskedLm, "layoutlm-"},
    FamilyRow{"BigBird", "Google", "big_bird", MaskedLm, "bigbird-roberta bigbird-base"},
    FamilyRow{"Longformer", "AllenAI", "longformer", MaskedLm, "longformer", "",
              "attention.self.query_global"},
    FamilyRow{"I-BERT", "UC Berkeley", "ibert", MaskedLm, "ibert-roberta i-bert", "IBertRobertaForMaskedLM"},
    FamilyRow{"TAPAS", "Google", "tapas", MaskedLm, "tapas", "", "token_type_embeddings_0"},
    FamilyRow{"RoCBert", "Tencent", "roc_bert", MaskedLm, "roc-bert", "", "embeddings.shape_embed"},
    FamilyRow{"mT5", "Google", "mt5", Seq2Seq, "mt5-"},
    FamilyRow{"UMT5", "Google", "umt5", Seq2Seq, "umt5"},
    FamilyRow{"mBART", "Meta", "mbart", Seq2Seq, "mbart"},
    FamilyRow{"Pegasus", "Google", "pegasus", Seq2Seq, "pegasus"},
    FamilyRow{"Marian", "Microsoft", "marian", Seq2Seq, "opus-mt marian"},
    FamilyRow{"M2M100 / NLLB-200", "Meta", "m2m_100", Seq2Seq, "m2m100 nllb"},
    FamilyRow{"BlenderBot", "Meta", "blenderbot blenderbot-small", Seq2Seq, "blenderbot"},
    FamilyRow{"DINOv2", "Meta", "dinov2", Vision, "dinov2"},
    FamilyRow{"Segment Anything (SAM)", "Meta", "sam sam_vision_model", Vision, "sam-vit slimsam medsam", "",
              "vision_encoder.neck.conv1 mask_decoder.output_hypernetworks_mlps"},
    FamilyRow{"DINOv3", "Meta", "dinov3_vit", Vision, "dinov3-vit", "DINOv3ViTModel"},
    FamilyRow{"DINOv3 ConvNeXt", "Meta", "dinov3_convnext", Vision, "dinov3-convnext", "DINOv3ConvNextModel",
              "downsample_layers pointwise_conv1"},
    FamilyRow{"AIMv2", "Apple", "aimv2", ImageTextEmbedding, "aimv2", "Aimv2Model"},
    FamilyRow{"AIMv2", "Apple", "aimv2_vision_model", Vision, "aimv2", "Aimv2VisionModel"},
    FamilyRow{"MetaCLIP 2", "Meta", "metaclip_2", ImageTextEmbedding, "metaclip-2 metaclip2",
              "MetaClip2Model"},
    FamilyRow{"MLCD", "DeepGlint", "mlcd mlcd_vision_model", Vision, "mlcd-vit", "MLCDVisionModel",
              "class_pos_emb"},
    FamilyRow{"SAM 2", "Meta", "sam2 sam2_vision_model sam2_hiera_det_model", Vision, "sam2",
              "Sam2VisionModel Sam2HieraDetModel", "pos_embed_window conv_s0 !memory_attention"},
    FamilyRow{"SAM 2 (video)", "Meta", "sam2_video", Vision, "sam2.1-hiera sam2-hiera", "Sam2VideoModel",
              "pos_embed_window memory_attention"},
    FamilyRow{"EdgeTAM", "Meta", "edgetam edgetam_vision_model", Vision, "edgetam",
              "EdgeTamModel EdgeTamVisionModel"},
    FamilyRow{"Depth Anything", "TikTok", "depth_anything", Vision, "depth-anything", "",
              "neck.reassemble_stage head.conv3 !prompt_depth_layer !readout_projects"},
    FamilyRow{"Prompt Depth Anything", "ByteDance", "prompt_depth_anything", Vision, "prompt-depth-anything",
              "", "prompt_depth_layer"},
    FamilyRow{"ZoeDepth", "Intel", "zoedepth", Vision, "zoedepth", "ZoeDepthForDepthEstimation",
              "metric_head relative_head"},
    FamilyRow{"Depth Pro", "Apple", "depth_pro", Vision, "depthpro depth-pro", "", "fuse_image_with_low_res"},
    FamilyRow{"DETR", "Meta", "detr", Vision, "facebook/detr- /detr-",
              "DetrModel DetrForObjectDetection DetrForSegmentation",
              "conv_encoder.model query_position_embeddings !encoder.layernorm !ref_point_head"},
    FamilyRow{"Conditional DETR", "Microsoft", "conditional_detr", Vision, "conditional-detr",
              "ConditionalDetrModel ConditionalDetrForObjectDetection ConditionalDetrForSegmentation",
              "conv_encoder.model ref_point_head ca_qpos_sine_proj"},
    FamilyRow{"Deformable DETR", "SenseTime", "deformable_detr", Vision, "deformable-detr",
              "DeformableDetrModel DeformableDetrForObjectDetection",
              "level_embed sampling_offsets !enc_score_head"},
    FamilyRow{"RT-DETR", "Baidu", "rt_detr", Vision, "rtdetr_r rt-detr rtdetr-",
              "RTDetrModel RTDetrForObjectDetection", "enc_score_head lateral_convs !n_points_scale"},
    FamilyRow{"RT-DETR v2", "Baidu", "rt_detr_v2", Vision, "rtdetr_v2 rt-detr-v2 rtdetrv2",
              "RTDetrV2Model RTDetrV2ForObjectDetection", "enc_score_head n_points_scale"},
    FamilyRow{"Table Transformer", "Microsoft", "table-transformer", Vision, "table-transformer",
              "TableTransformerModel TableTransformerForObjectDetection",
              "conv_encoder.model query_position_embeddings encoder.layernorm"},
    FamilyRow{"Swin Transformer", "Microsoft", "swin", Vision,
              "microsoft/swin- swin-tiny swin-small swin-base swin-large"},
    FamilyRow{"Donut Swin", "NAVER Clova", "donut-swin", Vision, "donut-swin donut-base-encoder"},
    FamilyRow{"Pix2Struct", "Google", "pix2struct pix2struct_text_model pix2struct_vision_model",
              VisionLanguage, "pix2struct deplot matcha", "", "row_embedder encoder_decoder_attention"},
    FamilyRow{"wav2vec 2.0", "Meta", "wav2vec2", SpeechEncoder, "wav2vec2"},
    FamilyRow{"HuBERT", "Meta", "hubert", SpeechEncoder, "hubert"},
    FamilyRow{"TimesFM", "Google", "timesfm", TimeSeries, "timesfm"},
    FamilyRow{"PatchTST", "IBM", "patchtst", TimeSeries, "patchtst"},
    FamilyRow{"PatchTSMixer", "IBM", "patchtsmixer", TimeSeries, "patchtsmixer"},
    FamilyRow{"Time Series Transformer", "Hugging Face", "time_series_transformer", TimeSeries,
              "time-series-transformer"},
    FamilyRow{"Informer", "Beihang University", "informer", TimeSeries, "informer"},
    FamilyRow{"Autoformer", "Tsinghua University", "autoformer", TimeSeries, "autoformer"},
    FamilyRow{"CLIP", "OpenAI", "clip", ImageTextEmbedding, "clip-vit clip"},
    FamilyRow{"SigLIP", "Google", "siglip", ImageTextEmbedding, "siglip"},
    FamilyRow{"SigLIP 2", "Google", "siglip2", ImageTextEmbedding, "siglip2"},
    FamilyRow{"NLLB-MoE", "Meta", "nllb-moe", Seq2Seq, "nllb-moe"},
    FamilyRow{"BigBird-Pegasus", "Google", "bigbird_pegasus", Seq2Seq, "bigbird-pegasus", "",
              "self_attn.self.query layernorm_embedding"},
    FamilyRow{"FSMT", "Meta", "fsmt", Seq2Seq, "wmt19-", "", "decoder.output_projection"},
    FamilyRow{"Speech2Text", "Meta", "speech_to_text", Speech, "s2t-",
              "Speech2TextForConditionalGeneration Speech2TextModel", "encoder.conv.conv_layers",
              "max_target_positions"},
    FamilyRow{"ProphetNet", "Microsoft", "prophetnet", Seq2Seq, "prophetnet",
              "ProphetNetEncoder ProphetNetDecoder", "ngram_embeddings relative_pos_embeddings"},
    FamilyRow{"Reformer", "Google", "reformer", CausalLm, "reformer", "ReformerModelWithLMHead",
              "self_attention.query_key"},
    FamilyRow{"Whisper", "OpenAI", "whisper", Speech, "whisper", "",
              "encoder.conv1 decoder.layers !encoder.groupnorm", "max_target_positions"},
    // Speech recognisers of group speech_asr.
    FamilyRow{"Parakeet", "NVIDIA", "parakeet_ctc", SpeechEncoder, "parakeet-ctc parakeet", "ParakeetForCTC",
              "ctc_head norm_feed_forward1"},
    FamilyRow{"Parakeet encoder", "NVIDIA", "parakeet_encoder", SpeechEncoder, "", "ParakeetEncoder",
              "subsampling.linear norm_self_att !ctc_head"},
    FamilyRow{"DAC", "Descript", "dac", SpeechEncoder, "descript/dac dac-16khz dac-24khz dac-44khz",
              "DacModel", "quantizer.quantizers.0.codebook.weight encoder.block.0.res_unit1.snake1.alpha"},
    FamilyRow{"X-Codec", "HKUST", "xcodec", SpeechEncoder, "xcodec", "XcodecModel",
              "acoustic_encoder.block.0.res_unit1 encoder_semantic.conv_blocks"},
    FamilyRow{"UnivNet", "Kakao Enterprise", "univnet", Speech, "univnet", "UnivNetModel",
              "kernel_predictor.kernel_conv convt_pre"},
    FamilyRow{"FastSpeech2Conformer", "ESPnet", "fastspeech2_conformer", Speech, "fastspeech2_conformer",
              "FastSpeech2ConformerModel", "encoder.conformer_layers.0.self_attn.pos_bias_u !vocoder."},
    FamilyRow{"FastSpeech2Conformer with HiFi-GAN", "ESPnet", "fastspeech2_conformer_with_hifigan", Speech,
              "fastspeech2_conformer_with_hifigan", "FastSpeech2ConformerWithHifiGan",
              "model.encoder.conformer_layers.0.self_attn.pos_bias_u vocoder.conv_pre"},
    FamilyRow{"Moonshine", "Useful Sensors", "moonshine", Speech, "moonshine", "",
              "encoder.conv3 encoder.groupnorm decoder.layers"},
    FamilyRow{"Granite Speech", "IBM", "granite_speech", CausalLm, "granite-speech", "",
              "encoder.layers.0.conv.depth_conv projector.qformer"},
    FamilyRow{"Kyutai STT", "Kyutai", "kyutai_speech_to_text", CausalLm, "kyutai/stt stt-2.6b stt-1b", "",
              "embed_tokens.embed_tokens codec_model.quantizer"},
    FamilyRow{
        "Mimi", "Kyutai", "mimi", SpeechEncoder, "kyutai/mimi", "",
        "encoder_transformer.layers.0.self_attn_layer_scale quantizer.semantic_residual_vector_quantizer "
        "!codec_model"},
    FamilyRow{"CSM", "Sesame", "csm", Speech, "csm-1b sesame/csm", "CsmBackboneModel",
              "embed_text_tokens depth_decoder.codebooks_head"},
    FamilyRow{"CSM depth decoder", "Sesame", "csm_depth_decoder_model", CausalLm, "",
              "CsmDepthDecoderForCausalLM CsmDepthDecoderModel", "inputs_embeds_projector !backbone_model"},
    FamilyRow{"EnCodec", "Meta", "encodec", SpeechEncoder, "encodec", "",
              "quantizer.layers.0.codebook.embed_avg !audio_encoder"},
    FamilyRow{"MusicGen", "Meta", "musicgen", Speech, "musicgen", "", "audio_encoder.quantizer encoder_attn"},
    FamilyRow{"MusicGen decoder", "Meta", "musicgen_decoder", CausalLm, "",
              "MusicgenForCausalLM MusicgenModel", "lm_heads.0 encoder_attn !audio_encoder"},
    FamilyRow{"MusicGen Melody", "Meta", "musicgen_melody", Speech, "musicgen-melody",
              "MusicgenMelodyForConditionalGeneration", "audio_encoder.quantizer audio_enc_to_dec_proj"},
    FamilyRow{"MusicGen Melody decoder", "Meta", "musicgen_melody_decoder", CausalLm, "",
              "MusicgenMelodyForCausalLM MusicgenMelodyModel", "lm_heads.0 !encoder_attn !audio_encoder"},
    FamilyRow{"VITS", "Kakao Enterprise", "vits", Speech, "mms-tts vits-ljs vits-vctk", "",
              "posterior_encoder.wavenet duration_predictor"},
    FamilyRow{"SpeechT5", "Microsoft", "speecht5", Speech, "speecht5-tts speecht5-asr speecht5-vc",
              "SpeechT5ForTextToSpeech SpeechT5ForSpeechToText SpeechT5ForSpeechToSpeech SpeechT5Model",
              "wrapped_encoder.embed_positions.pe_k wrapped_decoder.layers"},
    FamilyRow{"SpeechT5 HiFi-GAN", "Microsoft", "hifigan", Speech, "speecht5-hifigan", "SpeechT5HifiGan",
              "conv_pre resblocks.0.convs1 !decoder. !token2wav !code2wav"},
    // The same generator under FastSpeech 2's class name: told apart from SpeechT5's by the model id.
    FamilyRow{"FastSpeech2Conformer HiFi-GAN", "ESPnet", "hifigan", Speech, "fastspeech2_conformer_hifigan",
              "FastSpeech2ConformerHifiGan"},
    // Bark's sub-models alone share their module names (and MusicGen's lm_heads.N): no tensor markers.
    FamilyRow{"Bark", "Suno", "bark", Speech, "suno/bark", "",
              "semantic.input_embeds_layer coarse_acoustics.lm_head fine_acoustics.input_embeds_layers.0"},
    FamilyRow{"Bark semantic", "Suno", "semantic", CausalLm, "", "BarkSemanticModel", "",
              "window_size block_size"},
    FamilyRow{"Bark coarse acoustics", "Suno", "coarse_acoustics", CausalLm, "", "BarkCoarseModel", "",
              "window_size block_size"},
    FamilyRow{"Bark fine acoustics", "Suno", "fine_acoustics", MaskedLm, "", "BarkFineModel", "",
              "window_size block_size"},
};

// Class-name endings that name a head, not the model ("GPTNeoXForCausalLM" -> "GPTNeoX"). Longest first.
constexpr std::array<std::string_view, 16> kClassSuffixes = {"ForConditionalGeneration",
                                                             "ForSequenceClassification",
                                                             "ForTokenClassification",
                                                             "ForImageClassification",
                                                             "ForQuestionAnswering",
                                                             "ForSpeechSeq2Seq",
                                                             "ForMultipleChoice",
                                                             "ForPreTraining",
                                                             "ForCausalLM",
                                                             "LMHeadModel",
                                                             "ForMaskedLM",
                                                             "WithLMHead",
                                                             "ForVision2Seq",
                                                             "ForImageTextToText",
                                                             "Model",
                                                             "ForSeq2SeqLM"};

// Lowercase, without '_' and '-': "gpt_neox" and "GPTNeoX" meet as "gptneox".
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string_view model_kind_name(ModelKind k) {
  switch (k) {
    case CausalLm:
      return "causal-lm";
    case MaskedLm:
      return "masked-lm";
    case Seq2Seq:
      return "seq2seq";
    case Vision:
      return "vision";
    case VisionLanguage:
      return "vision-language";
    case Speech:
      return "speech";
    case ImageTextEmbedding:
      return "image-text-embedding";
    case SpeechEncoder:
      return "speech-encoder";
    case TimeSeries:
      return "time-series";
  }
  return "unknown";
}

std::span<const FamilyRow> family_table() {
  return kFamilies;
}

std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < list.size()) {
    size_t j = list.find(' ', i);
    if (j == std::string_view::npos) j = list.size();
    if (j > i) out.push_back(list.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<const FamilyRow*> families_for_model_type(std::string_view model_type) {
  std::vector<const FamilyRow*> out;
  if (model_type.empty()) return out;
  for (const FamilyRow& row : kFamilies)
    for (std::string_view t : list_items(row.model_types))
      if (t == model_type) out.push_back(&row);
  return out;
}

const FamilyRow* family_for_architecture(std::string_view architecture_class) {
  if (architecture_class.empty()) return nullptr;
  for (const FamilyRow& row : kFamilies)
    for (std::string_view a : list_items(row.architectures))
      if (a == architecture_class) return &row;
  std::string_view stem = architecture_class;
  for (std::string_view suffix : kClassSuffixes)
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.remove_suffix(suffix.size());
      break;
    }
  std::string key = squash(stem);
  for (const FamilyRow& row : kFamilies)
    for (std::string_view t : list_items(row.model_types))
      if (squash(t) == key) return &row;
  return nullptr;
}

std::string_view matching_id_pattern(const FamilyRow& row, std::string_view id_lower) {
  std::string_view best;
  for (std::string_view p : list_items(row.id_patterns))
    if (p.size() > best.size() && id_lower.find(p) != std::string_view::npos) best = p;
  return best;
}

std::string normalize_model_id(std::string_view id) {
  std::string out(id);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '_' || c == ' ') c = '-';
  }
  return out;
}

}  // namespace ma
