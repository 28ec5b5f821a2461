// Qwen2.5-Omni (model/families/qwen2_5_omni.cpp, qwen2_5_omni_speech.cpp): the 7B and 3B, whole and as the
// thinker alone, against the counts published for them; shapes and the tensor set as transformers'
// modeling_qwen2_5_omni.py builds them (the research's instantiation of its classes, names_7b.tsv /
// names_3b.tsv); the speech output kept out of a text token's count; small checkpoints written in the Hub's
// names; configs transformers could not run refused with the field named.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// The shape fields of Qwen/Qwen2.5-Omni-7B's config.json as its fine-tunes republish it (ACE-Step's
// acestep-captioner, EmotionThinker), legacy keys included (vision embed_dim, the DiT's dim / depth / heads:
// transformers reads none of them, and they equal the fields it does read).
std::string omni_7b(bool audio_output = true) {
  return std::string(R"({"architectures":["Qwen2_5OmniModel"],"model_type":"qwen2_5_omni",)") +
         "\"enable_audio_output\":" + (audio_output ? "true" : "false") +
         R"(,"enable_talker":true,"torch_dtype":"bfloat16","thinker_config":{"model_type":"qwen2_5_omni_thinker",
      "audio_config":{"d_model":1280,"encoder_layers":32,"encoder_attention_heads":20,"encoder_ffn_dim":5120,
        "num_mel_bins":128,"max_source_positions":1500,"n_window":100,"output_dim":3584},
      "vision_config":{"depth":32,"embed_dim":1280,"hidden_size":1280,"intermediate_size":3420,"num_heads":16,
        "in_channels":3,"in_chans":3,"patch_size":14,"spatial_merge_size":2,"temporal_patch_size":2,
        "out_hidden_size":3584},
      "text_config":{"vocab_size":152064,"hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,
        "num_attention_heads":28,"num_key_value_heads":4,"max_position_embeddings":32768,"rms_norm_eps":1e-06,
        "rope_theta":1000000.0,"rope_scaling":{"mrope_section":[16,24,24],"type":"default"},
        "use_sliding_window":false,"sliding_window":32768,"max_window_layers":28,"tie_word_embeddings":false}},
    "talker_config":{"vocab_size":8448,"embedding_size":3584,"hidden_size":896,"intermediate_size":18944,
      "num_hidden_layers":24,"num_attention_heads":12,"num_key_value_heads":4,"head_dim":128},
    "token2wav_config":{"dit_config":{"dim":1024,"depth":22,"heads":16,"head_dim":64,"ff_mult":2,"mel_dim":80,
        "num_embeds":8193,"emb_dim":512,"enc_emb_dim":192,"enc_dim":128},
      "bigvgan_config":{"mel_dim":80,"upsample_initial_channel":1536,"resblock_kernel_sizes":[3,7,11],
        "resblock_dilation_sizes":[[1,3,5],[1,3,5],[1,3,5]],"upsample_rates":[5,3,2,2,2,2],
        "upsample_kernel_sizes":[11,7,4,4,4,4]}}})";
}

// Qwen/Qwen2.5-Omni-3B's sizes: the text model as the Tyr port copies it from the Hub config, the talker as
// the lluda port's config.rs gives it "for Qwen2.5-Omni-3B"; its DiT and BigVGAN are the class defaults.
constexpr const char* kThinker3b = R"("audio_config":{"output_dim":2048},
    "vision_config":{"hidden_size":1280,"out_hidden_size":2048},
    "text_config":{"vocab_size":151936,"hidden_size":2048,"intermediate_size":11008,"num_hidden_layers":36,
      "num_attention_heads":16,"num_key_value_heads":2})";
std::string omni_3b() {
  return std::string(R"({"model_type":"qwen2_5_omni","thinker_config":{)") + kThinker3b + R"(},
    "talker_config":{"vocab_size":8448,"embedding_size":2048,"hidden_size":896,"intermediate_size":4864,
      "num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,"head_dim":64}})";
}

// The research's count of each part (instantiating transformers' classes), which the published totals below
// confirm: the 7B's talker and token2wav, and each thinker's towers.
constexpr uint64_t kTalker7b = 1'351'360'256, kToken2wav = 333'607'760 + 115'443'504;
constexpr uint64_t kVisual7b = 676'550'144, kAudio7b = 639'647'232;

// "Full Qwen2.5-Omni-7B (10732225408 params)" (a third-party LoRA study's table and verifier), 2,447
// tensors; the thinker alone 8,931,813,888 (TimeChat-OmniCaptioner's thinker checkpoint, its index's
// total_parameters, saved by transformers 4.57.1). A text token runs the thinker's decoder and head only:
// 7,070,619,136 + 544,997,376.
TEST(Qwen25Omni, SevenBCountsAsPublished) {
  const ModelTemplate t = template_of(omni_7b());
  const ParameterCounts c = counts_of(omni_7b());
  EXPECT_EQ(c.total, 10'732'225'408u);
  EXPECT_EQ(disk_totals(t).tensors, 2'447u);
  EXPECT_EQ(c.total - kTalker7b - kToken2wav, 8'931'813'888u);
  // The same repository's "thinker" of 8,255,263,744 is the thinker without its vision tower.
  EXPECT_EQ(c.total - kTalker7b - kToken2wav - kVisual7b, 8'255'263'744u);
  EXPECT_EQ(c.towers, kVisual7b + kAudio7b + kTalker7b + kToken2wav);
  ASSERT_TRUE(c.active.has_value());
  EXPECT_EQ(*c.active, 7'070'619'136u + 544'997'376u);
  uint64_t speech = 0;
  for (const BlockParameters& b : c.by_block)
    if (b.block == Block::SpeechOutput) speech = b.parameters;
  EXPECT_EQ(speech, kTalker7b + kToken2wav);
  // The audio stack of the record is the thinker's encoder, not the speech output.
  for (const StackParameters& s : c.by_stack)
    if (s.role == StackRole::Audio) {
      EXPECT_EQ(s.parameters, kAudio7b);
    }
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->path, "thinker.model.layers");
  EXPECT_EQ(t.arch.stack(StackRole::Audio)->path, "thinker.audio_tower.layers");
}

// The 3B's thinker: 4,703,464,448 (a third-party script loading the 3B checkpoint into
// Qwen2_5OmniThinkerForConditionalGeneration, with only talker.* and token2wav.* unexpected), 1,442 tensors;
// the whole model 5,537,120,640, 2,543 tensors (the research's count; Ovis-Omni-Embedding-3B, a full bf16
// re-save, stores 11,074,561,344 B: twice that and its headers).
TEST(Qwen25Omni, ThreeBWholeAndThinkerAlone) {
  EXPECT_EQ(parameters_of(omni_3b()), 5'537'120'640u);
  EXPECT_EQ(disk_totals(template_of(omni_3b())).tensors, 2'543u);
  const std::string thinker = std::string(R"({"model_type":"qwen2_5_omni_thinker",)") + kThinker3b + "}";
  EXPECT_EQ(parameters_of(thinker), 4'703'464'448u);
  const ModelTemplate t = template_of(thinker);
  EXPECT_EQ(disk_totals(t).tensors, 1'442u);
  EXPECT_EQ(t.tensors.front().name, "audio_tower.conv1.weight");  // no thinker. prefix alone
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({151936, 2048}));
  // A config naming only the thinker's class is built as the thinker.
  const std::string by_class =
      std::string(R"({"architectures":["Qwen2_5OmniThinkerForConditionalGeneration"],)") + kThinker3b + "}";
  EXPECT_EQ(parameters_of(by_class), 4'703'464'448u);
  // Tying the thinker's head (its own flag; text_config's is read by nothing) would give 4,392,299,520.
  const std::string tied =
      std::string(R"({"model_type":"qwen2_5_omni_thinker","tie_word_embeddings":true,)") + kThinker3b + "}";
  EXPECT_EQ(parameters_of(tied), 4'392'299'520u);
}

// transformers' class defaults are not a released model (a 3,584-wide vision tower, a 28-layer talker as
// wide as the thinker): the research's instantiation of them holds 18,386,365,824 parameters.
TEST(Qwen25Omni, ClassDefaultsAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(R"({"model_type":"qwen2_5_omni"})"), 18'386'365'824u);
}

// Without enable_audio_output transformers builds the thinker alone (8,931,813,888, as published), and the
// speech output a checkpoint stores is a known extra.
TEST(Qwen25Omni, WithoutAudioOutputOnlyTheThinker) {
  EXPECT_EQ(parameters_of(omni_7b(false)), 8'931'813'888u);
  const ModelTemplate t = template_of(omni_7b(false));
  EXPECT_EQ(disk_totals(t).tensors, 1'346u);  // visual 518, audio_tower 489, model 338, lm_head 1
  ASSERT_EQ(t.known_extras.size(), 2u);
  EXPECT_EQ(t.known_extras[0].prefix, "talker.");
  EXPECT_EQ(t.known_extras[1].prefix, "token2wav.");
}

// Shapes from names_7b.tsv / names_3b.tsv and the research's notes.
TEST(Qwen25Omni, ShapesAsTransformersBuildsThem) {
  const ModelTemplate t = template_of(omni_7b());
  const auto shape = [&](const std::string& name) {
    const TemplateTensor* x = find_tensor(t, name);
    return x ? x->shape : Shape{};
  };
  EXPECT_EQ(shape("thinker.audio_tower.audio_bos_eos_token.weight"), Shape({2, 3584}));
  EXPECT_EQ(shape("thinker.audio_tower.layers.0.self_attn.k_proj.bias"), Shape{});  // Whisper's: no key bias
  EXPECT_EQ(shape("thinker.audio_tower.proj.weight"), Shape({3584, 1280}));
  EXPECT_EQ(shape("thinker.visual.patch_embed.proj.weight"), Shape({1280, 3, 2, 14, 14}));
  EXPECT_EQ(shape("thinker.visual.blocks.0.attn.q.weight"), Shape({1280, 1280}));  // not a fused qkv
  EXPECT_EQ(shape("thinker.visual.blocks.0.attn.qkv.weight"), Shape{});
  EXPECT_EQ(shape("thinker.visual.blocks.31.mlp.gate_proj.bias"), Shape({3420}));
  EXPECT_EQ(shape("thinker.visual.merger.mlp.2.weight"), Shape({3584, 5120}));
  EXPECT_EQ(shape("thinker.lm_head.weight"), Shape({152064, 3584}));
  EXPECT_EQ(shape("talker.thinker_to_talker_proj.weight"), Shape({896, 3584}));
  EXPECT_EQ(shape("talker.model.embed_tokens.weight"), Shape({8448, 3584}));  // the thinker's width
  EXPECT_EQ(shape("talker.model.layers.23.self_attn.q_proj.weight"), Shape({1536, 896}));
  EXPECT_EQ(shape("talker.codec_head.weight"), Shape({8448, 896}));
  const std::string dit = "token2wav.code2wav_dit_model.";
  EXPECT_EQ(shape(dit + "text_embed.codec_embed.weight"), Shape({8194, 512}));
  EXPECT_EQ(shape(dit + "input_embed.proj.weight"), Shape({1024, 912}));
  EXPECT_EQ(shape(dit + "input_embed.spk_encoder.fc.weight"), Shape({128, 1536, 1}));
  EXPECT_EQ(shape(dit + "input_embed.spk_encoder.asp.tdnn.conv.weight"), Shape({64, 2304, 1}));
  EXPECT_EQ(shape(dit + "transformer_blocks.21.attn_norm.linear.weight"), Shape({6144, 1024}));
  EXPECT_EQ(shape(dit + "transformer_blocks.21.ff.ff.3.weight"), Shape({1024, 2048}));
  // BigVGAN as a nntrainer port plan lists the official checkpoint's tensors: no conv_post bias, no weight
  // norm, no anti-alias filters.
  const std::string vocoder = "token2wav.code2wav_bigvgan_model.";
  EXPECT_EQ(shape(vocoder + "ups.0.0.weight"), Shape({1536, 768, 11}));
  EXPECT_EQ(shape(vocoder + "resblocks.0.convs1.0.weight"), Shape({768, 768, 3}));
  EXPECT_EQ(shape(vocoder + "resblocks.17.activations.5.act.beta"), Shape({24}));
  EXPECT_EQ(shape(vocoder + "conv_post.weight"), Shape({1, 24, 7}));
  EXPECT_EQ(shape(vocoder + "conv_post.bias"), Shape{});
  // The 3B's talker: 14 heads and 2 key/value heads of 64.
  const ModelTemplate small = template_of(omni_3b());
  EXPECT_EQ(find_tensor(small, "talker.model.layers.0.self_attn.q_proj.weight")->shape, Shape({896, 896}));
  EXPECT_EQ(find_tensor(small, "talker.model.layers.0.self_attn.k_proj.weight")->shape, Shape({128, 896}));
  EXPECT_EQ(find_tensor(small, "talker.model.layers.0.mlp.up_proj.weight")->shape, Shape({4864, 896}));
}

// The talker and token2wav are their own block, not the language model's attention and MLPs nor the audio
// tower's.
TEST(Qwen25Omni, SpeechOutputIsPlacedApart) {
  EXPECT_EQ(place_tensor("talker.model.layers.3.self_attn.q_proj.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("talker.codec_head.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("token2wav.code2wav_dit_model.proj_out.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("token2wav.code2wav_bigvgan_model.conv_pre.weight").block, Block::SpeechOutput);
  EXPECT_EQ(place_tensor("thinker.audio_tower.proj.weight").block, Block::Audio);
  EXPECT_EQ(place_tensor("thinker.visual.blocks.0.attn.k.bias").block, Block::Vision);
  EXPECT_EQ(place_tensor("thinker.model.layers.0.self_attn.k_proj.bias").block, Block::Attention);
  EXPECT_TRUE(is_tower(Block::SpeechOutput));
}

// token2wav is held in float32 and stored so: the official 7B's five shards (4.99 / 4.99 / 4.99 / 4.97 /
// 2.43 GB) fit only a bf16 thinker and talker beside a float32 token2wav, 22,362,553,344 bytes of tensors.
TEST(Qwen25Omni, Token2WavIsStoredInFloat32) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << omni_7b();
  const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
  uint64_t bytes = 0;
  for (const InventoryTensor& x : inv.tensors) {
    bytes += x.bytes;
    if (x.name.starts_with("token2wav.")) {
      EXPECT_EQ(x.dtype, DType::F32) << x.name;
    } else {
      EXPECT_EQ(x.dtype, DType::BF16) << x.name;
    }
  }
  EXPECT_EQ(bytes, 22'362'553'344u);
}

// A small whole model in the checkpoint's names (bf16, token2wav in float32 as the official ones): every
// tensor matches, nothing is missing or unexpected. With enable_audio_output false the same files load the
// thinker, the speech output as known extras.
std::string small_omni(bool audio_output) {
  return std::string(R"({"model_type":"qwen2_5_omni","enable_audio_output":)") +
         (audio_output ? "true" : "false") + R"(,"torch_dtype":"bfloat16","thinker_config":{
      "audio_config":{"d_model":32,"encoder_layers":2,"encoder_attention_heads":2,"encoder_ffn_dim":48,
        "num_mel_bins":16,"output_dim":64},
      "vision_config":{"depth":2,"hidden_size":32,"intermediate_size":40,"num_heads":2,"out_hidden_size":64},
      "text_config":{"vocab_size":100,"hidden_size":64,"intermediate_size":96,"num_hidden_layers":2,
        "num_attention_heads":4,"num_key_value_heads":2}},
    "talker_config":{"vocab_size":50,"embedding_size":64,"hidden_size":24,"intermediate_size":40,
      "num_hidden_layers":2,"num_attention_heads":3,"num_key_value_heads":1,"head_dim":16},
    "token2wav_config":{"dit_config":{"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":2,
        "head_dim":16,"emb_dim":8,"num_embeds":20,"mel_dim":10,"enc_emb_dim":6,"enc_dim":4,
        "enc_channels":[8,8,8,8,24],"enc_attention_channels":4,"enc_se_channels":4},
      "bigvgan_config":{"mel_dim":10,"upsample_initial_channel":64,"upsample_rates":[2,2],
        "upsample_kernel_sizes":[4,4],"resblock_kernel_sizes":[3,5],"resblock_dilation_sizes":[[1,3,5],[1,3,5]]}}})";
}

TEST(Qwen25Omni, SmallCheckpointInHubNamesMatches) {
  const TempDir dir;
  std::vector<TensorToWrite> s;
  for (const DiskTensor& x : disk_form(template_of(small_omni(true))))
    s.push_back({x.name, x.name.starts_with("token2wav.") ? DType::F32 : DType::BF16, x.shape, {}});
  write_safetensors(dir.path() / "model.safetensors", s);
  for (bool audio_output : {true, false}) {
    std::ofstream(dir.path() / "config.json") << small_omni(audio_output);
    const Inventory inv = build_inventory(locate_local_model(dir.path().string()));
    EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
    EXPECT_EQ(inv.tensors.size(), s.size());
    ASSERT_TRUE(inv.checkpoint.has_value());
    EXPECT_EQ(inv.checkpoint->tensors, s.size());
    EXPECT_EQ(inv.checkpoint->parameters + inv.checkpoint->extra_elements, parameters_of(small_omni(true)));
    EXPECT_EQ(inv.checkpoint->parameters, parameters_of(small_omni(audio_output)));
  }
}

TEST(Qwen25Omni, RefusesWhatTransformersCannotRun) {
  const auto field_of = [](const std::string& from, const std::string& to) {
    std::string c = omni_7b();
    const size_t at = c.find(from);
    if (at == std::string::npos) return std::string("no ") + from;
    c.replace(at, from.size(), to);
    try {
      template_of(c);
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_of(R"("output_dim":3584)", R"("output_dim":2048)"),
            "thinker_config.audio_config.output_dim");
  EXPECT_EQ(field_of(R"("out_hidden_size":3584)", R"("out_hidden_size":1280)"),
            "thinker_config.vision_config.out_hidden_size");
  EXPECT_EQ(field_of(R"("num_heads":16)", R"("num_heads":24)"), "thinker_config.vision_config.num_heads");
  EXPECT_EQ(field_of(R"("encoder_attention_heads":20)", R"("encoder_attention_heads":24)"),
            "thinker_config.audio_config.encoder_attention_heads");
  EXPECT_EQ(field_of(R"("num_hidden_layers":28)", R"("num_hidden_layers":100000)"),
            "thinker_config.text_config.num_hidden_layers");
  EXPECT_EQ(field_of(R"("embedding_size":3584)", R"("embedding_size":2048)"), "talker_config.embedding_size");
  EXPECT_EQ(
      field_of(R"("num_key_value_heads":4,"head_dim":128)", R"("num_key_value_heads":5,"head_dim":128)"),
      "talker_config.num_key_value_heads");
  EXPECT_EQ(field_of(R"("emb_dim":512)", R"("emb_dim":512,"enc_kernel_sizes":[5,3,3])"),
            "token2wav_config.dit_config.enc_kernel_sizes");
  EXPECT_EQ(field_of(R"("emb_dim":512)", R"("emb_dim":512,"enc_res2net_scale":300)"),
            "token2wav_config.dit_config.enc_res2net_scale");
  EXPECT_EQ(field_of(R"("upsample_initial_channel":1536)", R"("upsample_initial_channel":32)"),
            "token2wav_config.bigvgan_config.upsample_initial_channel");
  EXPECT_EQ(field_of(R"("upsample_kernel_sizes":[11,7,4,4,4,4])", R"("upsample_kernel_sizes":[11,7])"),
            "token2wav_config.bigvgan_config.upsample_kernel_sizes");
  EXPECT_EQ(field_of(R"([[1,3,5],[1,3,5],[1,3,5]])", R"([[1,3],[1,3,5],[1,3,5]])"),
            "token2wav_config.bigvgan_config.resblock_dilation_sizes");
}

}  // namespace
}  // namespace ma::test
