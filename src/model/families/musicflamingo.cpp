// Music Flamingo (musicflamingo; nvidia/music-flamingo-2601-hf): Audio Flamingo 3's model, whose encoder
// output is rotated by a rotary time embedding (MusicFlamingoRotaryEmbedding: inv_freq and position_angles
// buffers, no weights) before the projector. MusicFlamingoConfig builds its audio_config as
// audioflamingo3_encoder, musicflamingo_encoder (earlier configs' name) included.
#include <string>

#include "model/families/audio_llms.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

void build_musicflamingo(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  // MusicFlamingoConfig reads audio_config["model_type"] without a default (null reads as the default): a
  // given audio_config must carry the key.
  if (cfg.has("audio_config") && audio.raw("model_type") == nullptr)
    audio.fail("model_type", "is required: MusicFlamingoConfig reads it without a default");
  const std::string type = audio.string_or("model_type", "audioflamingo3_encoder");
  if (type != "audioflamingo3_encoder" && type != "musicflamingo_encoder")
    unsupported(cfg, "musicflamingo with a " + type + " audio tower");
  audio_flamingo_model(cfg, audio, t, "MusicFlamingoForConditionalGeneration");
}

}  // namespace ma::families
