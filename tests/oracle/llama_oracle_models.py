"""The tiny models the llama.cpp oracles write (llama_gguf_oracle.py, llama_context_oracle.py): one function
per architecture, each writing through llama.cpp's gguf API (gguf_builder.py) the tensors and keys that
llama.cpp's loader asks of that architecture, so that it loads the file. Widths are small (hidden 256) and,
where a model is quantized, every matrix width is a multiple of 256 so that the K-quants apply.

QUANTIZED are quantized into every file type the oracle tests; RECORD_ONLY are written in F32 only, for
what llama.cpp builds of them (parameters, bytes, the layers it logs)."""

import numpy as np

from gguf_builder import GGUF_TYPE_FLOAT32, GGUF_TYPE_INT32, GgufBuilder

HIDDEN = 256
LLAMA_ATTENTION = ("attn_q", "attn_k", "attn_v", "attn_output")


def weights(rng, *shape):
    return (rng.standard_normal(shape) * 0.02).astype(np.float32)


def norm(rng, *shape):
    return (1.0 + rng.standard_normal(shape) * 0.01).astype(np.float32)


# ------------------------------------------------------------------------------------------------------
# Vocabularies: each writes its tokenizer.ggml.* keys and returns its size.

def bytes_to_unicode():
    """GPT-2's byte-level alphabet: the 256 characters byte-level BPE spells bytes with (llama.cpp's
    unicode_byte_to_utf8 maps them back, and refuses a token holding any other character)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def spm_vocab(b, n_vocab, specials=()):
    """A SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the 256 byte tokens <0xXX> (llama.cpp
    finds the newline through <0x0A>), `specials` and word pieces, with scores and token types."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)] + list(specials)
    types = [2, 3, 3] + [6] * 256 + [3] * len(specials)  # UNKNOWN, CONTROL, CONTROL, BYTE, CONTROL
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(tokens) < n_vocab:
        tokens.append("\u2581" + letters[i % 26] + (letters[i // 26] if i >= 26 else ""))
        types.append(1)  # NORMAL
        i += 1
    fixed = 259 + len(specials)
    scores = np.array([0.0] * fixed + [-float(k) for k in range(n_vocab - fixed)], dtype=np.float32)
    b.text("tokenizer.ggml.model", "llama")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    b.u32("tokenizer.ggml.unknown_token_id", 0)
    b.u32("tokenizer.ggml.bos_token_id", 1)
    b.u32("tokenizer.ggml.eos_token_id", 2)
    b.flag("tokenizer.ggml.add_bos_token", True)
    return len(tokens)


def phi3_vocab(b, n_vocab):
    """SentencePiece with Phi-3's chat tokens: llama.cpp looks its end-of-turn token up by text."""
    return spm_vocab(b, n_vocab, ["<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>"])


def bpe_vocab(b, n_vocab):
    """A byte-level BPE ("gpt2") vocabulary: the 256 byte characters, merged pairs of letters with their
    merges, and Qwen's special tokens; pre-tokenizer "qwen2" (an unknown one is refused)."""
    alphabet = bytes_to_unicode()
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>"]
    letters = "etaoinshrdlu"
    merges, merged = [], []
    for x in letters:
        for y in letters:
            if len(alphabet) + len(merged) + len(specials) >= n_vocab:
                break
            merges.append(f"{x} {y}")
            merged.append(x + y)
    tokens = alphabet + merged + specials
    types = [1] * (len(alphabet) + len(merged)) + [3] * len(specials)  # NORMAL, CONTROL
    b.text("tokenizer.ggml.model", "gpt2")
    b.text("tokenizer.ggml.pre", "qwen2")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    b.str_array("tokenizer.ggml.merges", merges)
    b.u32("tokenizer.ggml.eos_token_id", tokens.index("<|im_end|>"))
    b.u32("tokenizer.ggml.padding_token_id", tokens.index("<|endoftext|>"))
    b.u32("tokenizer.ggml.bos_token_id", tokens.index("<|endoftext|>"))
    b.flag("tokenizer.ggml.add_bos_token", False)
    return len(tokens)


def wpm_vocab(b, n_vocab):
    """A WordPiece ("bert") vocabulary: BERT's special tokens, then letters and ## continuations; two token
    types (sentence A and B)."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = "abcdefghijklmnopqrstuvwxyz"
    tokens = specials + list(letters) + ["##" + c for c in letters]
    i = 0
    while len(tokens) < n_vocab:
        tokens.append(letters[i % 26] + letters[(i // 26) % 26] + letters[(i // 676) % 26])
        i += 1
    types = [3] * len(specials) + [1] * (len(tokens) - len(specials))
    b.text("tokenizer.ggml.model", "bert")
    b.str_array("tokenizer.ggml.tokens", tokens)
    b.num_array("tokenizer.ggml.token_type", GGUF_TYPE_INT32, np.array(types, dtype=np.int32))
    b.u32("tokenizer.ggml.token_type_count", 2)
    for key, token in (("unknown", "[UNK]"), ("seperator", "[SEP]"), ("padding", "[PAD]"), ("cls", "[CLS]"),
                       ("mask", "[MASK]")):
        b.u32(f"tokenizer.ggml.{key}_token_id", tokens.index(token))
    return len(tokens)


# ------------------------------------------------------------------------------------------------------
# Metadata: the {arch}.* keys by what they describe, merged into one dict per model.

def stack_keys(layers, ctx, ffn, heads, eps=1e-6, layer_norm=False):
    """The stack's sizes and its norms' epsilon (RMS norms, or LayerNorms)."""
    eps_key = "attention.layer_norm_epsilon" if layer_norm else "attention.layer_norm_rms_epsilon"
    return {"block_count": layers, "context_length": ctx, "embedding_length": HIDDEN, "feed_forward_length": ffn,
            "attention.head_count": heads, eps_key: eps}


def grouped_keys(kv_heads, head_dim, theta):
    """K/V heads, a head width of its own (key_length, value_length) and the rope base."""
    return {"attention.head_count_kv": kv_heads, "attention.key_length": head_dim,
            "attention.value_length": head_dim, "rope.freq_base": float(theta)}


def expert_keys(count, used, width):
    return {"expert_count": count, "expert_used_count": used, "expert_feed_forward_length": width}


def shared_expert_keys(shared, scale):
    """DeepSeek's MoE as GLM-4.5 also has it: a dense leading layer, shared experts, sigmoid scores."""
    return {"expert_shared_count": shared, "leading_dense_block_count": 1, "expert_weights_scale": float(scale),
            "expert_weights_norm": True, "expert_gating_func": 2}


def ssm_keys(inner, state, conv, dt_rank, groups=None):
    """A state-space mixer's sizes (Mamba-2: dt_rank is its heads, and B and C come in groups)."""
    keys = {"ssm.conv_kernel": conv, "ssm.inner_size": inner, "ssm.state_size": state,
            "ssm.time_step_rank": dt_rank}
    if groups is not None:
        keys["ssm.group_count"] = groups
    return keys


def per_layer(values):
    return np.array(values, dtype=np.uint32)


# ------------------------------------------------------------------------------------------------------
# A model being written.

class Model:
    """general.*, the architecture's `keys` (relative to its name), a vocabulary and the token embedding;
    then the writer's tensors through the helpers below, and finish(): the last norm, the output unless
    tied, the file."""

    def __init__(self, lx, rng, arch, keys, vocab=bpe_vocab, n_vocab=300):
        self.b, self.rng = GgufBuilder(lx), rng
        self.b.text("general.architecture", arch)
        self.b.text("general.name", f"oracle {arch}")
        self.b.u32("general.file_type", 0)  # ALL_F32
        for key, v in keys.items():
            self.b.value(f"{arch}.{key}", v)
        self.vocab = vocab(self.b, n_vocab)
        self.weight("token_embd", self.vocab, HIDDEN)

    def tensor(self, name, data):
        self.b.tensor(name, data)

    def weight(self, name, *shape):
        self.b.tensor(name + ".weight", weights(self.rng, *shape))

    def bias(self, name, *shape):
        self.b.tensor(name + ".bias", weights(self.rng, *shape))

    def norm(self, name, *shape):
        self.b.tensor(name + ".weight", norm(self.rng, *(shape or (HIDDEN,))))

    def layer_norm(self, name, width=HIDDEN):
        """A LayerNorm with its bias (GPT-2, Phi-2, StarCoder2, BERT)."""
        self.norm(name, width)
        self.bias(name, width)

    def biased(self, name, rows, cols):
        self.weight(name, rows, cols)
        self.bias(name, rows)

    def attention(self, p, heads, kv_heads, head_dim, names=LLAMA_ATTENTION):
        """q, k, v and the output projection of one layer, under `names`."""
        q, k, v, o = names
        self.weight(p + q, heads * head_dim, HIDDEN)
        self.weight(p + k, kv_heads * head_dim, HIDDEN)
        self.weight(p + v, kv_heads * head_dim, HIDDEN)
        self.weight(p + o, HIDDEN, heads * head_dim)

    def fused_attention(self, p, kv_heads=4, qkv_bias=False):
        """q, k and v in one matrix (attn_qkv, 4 heads of 64 and `kv_heads` K/V heads) and the output
        projection (Phi-3, InternLM2, ChatGLM, Falcon, MPT, the BERTs with rotary positions)."""
        (self.biased if qkv_bias else self.weight)(p + "attn_qkv", (4 + 2 * kv_heads) * 64, HIDDEN)
        self.weight(p + "attn_output", HIDDEN, HIDDEN)

    def qk_norms(self, p, q_width, k_width=None):
        """Norms of the queries and keys: per head (Qwen3, Gemma 3) or over the projection (OLMo 2)."""
        self.norm(p + "attn_q_norm", q_width)
        self.norm(p + "attn_k_norm", k_width or q_width)

    def biased_attention(self, p, kv_heads):
        """A LayerNorm with its bias, then attention (4 heads of 64) with biases on every projection
        (StarCoder2, Phi-3.5-MoE)."""
        self.layer_norm(p + "attn_norm")
        self.attention(p, 4, kv_heads, 64)
        self.qkv_biases(p, 4, kv_heads, 64)
        self.bias(p + "attn_output", HIDDEN)

    def qkv_biases(self, p, heads, kv_heads, head_dim):
        for name, width in (("attn_q", heads), ("attn_k", kv_heads), ("attn_v", kv_heads)):
            self.bias(p + name, width * head_dim)

    def gated_mlp(self, p, width, suffix=""):
        self.weight(p + f"ffn_gate{suffix}", width, HIDDEN)
        self.weight(p + f"ffn_up{suffix}", width, HIDDEN)
        self.weight(p + f"ffn_down{suffix}", HIDDEN, width)

    def fused_gated_mlp(self, p, width):
        """Gate and up in one matrix, ffn_up twice the width (Phi-3, ChatGLM, GLM-4, ModernBERT)."""
        self.weight(p + "ffn_up", 2 * width, HIDDEN)
        self.weight(p + "ffn_down", HIDDEN, width)

    def latent_attention(self, p, heads, q_rank, kv_rank, nope, rope, v_dim, absorbed=False):
        """DeepSeek's multi-head latent attention: a low-rank query, a compressed K/V latent shared by the
        heads with decoupled rotary dims, the latent's up projection whole (attn_kv_b) or, `absorbed`, split
        per head into attn_k_b and attn_v_b."""
        self.weight(p + "attn_q_a", q_rank, HIDDEN)
        self.norm(p + "attn_q_a_norm", q_rank)
        self.weight(p + "attn_q_b", heads * (nope + rope), q_rank)
        self.weight(p + "attn_kv_a_mqa", kv_rank + rope, HIDDEN)
        self.norm(p + "attn_kv_a_norm", kv_rank)
        if absorbed:
            self.tensor(p + "attn_k_b.weight", weights(self.rng, heads, kv_rank, nope))
            self.tensor(p + "attn_v_b.weight", weights(self.rng, heads, v_dim, kv_rank))
        else:
            self.weight(p + "attn_kv_b", heads * (nope + v_dim), kv_rank)
        self.weight(p + "attn_output", HIDDEN, heads * v_dim)

    def sandwiched_mlp(self, p, width):
        """Gemma's MLP half: a norm after attention, then a gated MLP between two norms."""
        self.norm(p + "post_attention_norm")
        self.norm(p + "ffn_norm")
        self.gated_mlp(p, width)
        self.norm(p + "post_ffw_norm")

    def per_layer_inputs(self, n_layers, width):
        """Gemma 3n's and 4's per-layer inputs: a second token embedding `width` wide per layer, its
        projection from the hidden state and its norm."""
        self.weight("per_layer_token_embd", self.vocab, width * n_layers)
        self.weight("per_layer_model_proj", width * n_layers, HIDDEN)
        self.norm("per_layer_proj_norm", width)

    def per_layer_input(self, p, width):
        """A layer's use of its per-layer input: a gate from the hidden state, a projection back, a norm."""
        self.weight(p + "inp_gate", width, HIDDEN)
        self.weight(p + "proj", HIDDEN, width)
        self.norm(p + "post_norm")

    def experts(self, p, count, width):
        """The router and 3-D expert tensors (ne: hidden, width, experts) of one MoE layer."""
        self.weight(p + "ffn_gate_inp", count, HIDDEN)
        self.weight(p + "ffn_gate_exps", count, width, HIDDEN)
        self.weight(p + "ffn_up_exps", count, width, HIDDEN)
        self.weight(p + "ffn_down_exps", count, HIDDEN, width)

    def experts_with_shared(self, p, count, width, shared):
        """A DeepSeek-style MoE layer: routed experts, the router's score bias, the shared experts as one MLP."""
        self.experts(p, count, width)
        self.bias(p + "exp_probs_b", count)
        self.gated_mlp(p, width * shared, "_shexp")

    def llama_block(self, p, kv_heads, head_dim, ffn=512, biases=False, qk_norm=False, mlp_norm="ffn_norm"):
        """Llama's layer: a norm, attention (Qwen2's with q/k/v biases, Qwen3's with q/k norms), a norm
        (named `mlp_norm`: Seed-OSS's is post_attention_norm to llama.cpp) and a gated MLP."""
        self.norm(p + "attn_norm")
        self.attention(p, 4, kv_heads, head_dim)
        if biases:
            self.qkv_biases(p, 4, kv_heads, head_dim)
        if qk_norm:
            self.qk_norms(p, head_dim)
        self.norm(p + mlp_norm)
        self.gated_mlp(p, ffn)

    def qk_normed_attention(self, p, kv_heads):
        """A norm, attention (4 heads of 64) with q/k norms per head, and the norm before the MLP (Qwen3-MoE,
        Hunyuan-MoE)."""
        self.norm(p + "attn_norm")
        self.attention(p, 4, kv_heads, 64)
        self.qk_norms(p, 64)
        self.norm(p + "ffn_norm")

    def cohere_block(self, p, kv_heads):
        """Cohere's layer: attention and a gated MLP side by side after one norm."""
        self.norm(p + "attn_norm")
        self.attention(p, 4, kv_heads, 64)
        self.gated_mlp(p, 512)

    def gpt2_block(self, p, ffn):
        """GPT-2's layer (BLOOM's, GPT-NeoX's): LayerNorms with biases, fused biased qkv, a plain biased MLP."""
        self.layer_norm(p + "attn_norm")
        self.biased(p + "attn_qkv", 3 * HIDDEN, HIDDEN)
        self.biased(p + "attn_output", HIDDEN, HIDDEN)
        self.layer_norm(p + "ffn_norm")
        self.biased(p + "ffn_up", ffn, HIDDEN)
        self.biased(p + "ffn_down", HIDDEN, ffn)

    def mamba2_mixer(self, p, inner, state, conv, heads, groups):
        """A Mamba-2 mixer: the in projection to z, x, B, C and one dt per head; the convolution over x, B
        and C; A, D and dt's bias per head; the gated norm per group; the out projection."""
        channels = inner + 2 * groups * state
        self.weight(p + "ssm_in", 2 * inner + 2 * groups * state + heads, HIDDEN)
        self.weight(p + "ssm_conv1d", channels, conv)
        self.bias(p + "ssm_conv1d", channels)
        self.bias(p + "ssm_dt", heads)
        self.tensor(p + "ssm_a", -np.abs(weights(self.rng, heads, 1)))
        self.tensor(p + "ssm_d", norm(self.rng, heads, 1))
        self.norm(p + "ssm_norm", groups, inner // groups)
        self.weight(p + "ssm_out", HIDDEN, inner)

    def finish(self, path, tied=False, last_norm="rms", output_bias=False):
        """The last norm ("rms", "layer" with a bias, or None), the output unless `tied` to the token
        embedding, and the file."""
        if last_norm == "layer":
            self.layer_norm("output_norm")
        elif last_norm:
            self.norm("output_norm")
        if not tied:
            (self.biased if output_bias else self.weight)("output", self.vocab, HIDDEN)
        self.b.write(path)


def layers(n, prefix="blk"):
    return [f"{prefix}.{l}." for l in range(n)]


# ------------------------------------------------------------------------------------------------------
# Quantized into every file type.

def write_llama(lx, path, rng):
    """Llama 3.1-shaped: GQA (4 heads, 2 kv heads), untied output, rope_freqs, an SPM vocabulary."""
    head_dim = HIDDEN // 4
    m = Model(lx, rng, "llama", {**stack_keys(2, 8192, 512, 4, eps=1e-5), "attention.head_count_kv": 2,
                                 "rope.freq_base": 500000.0, "rope.dimension_count": head_dim, "vocab_size": 300},
              vocab=spm_vocab)
    # Llama 3.1's long-context frequency factors: one tensor llama.cpp shares between all layers.
    m.tensor("rope_freqs.weight", np.linspace(1.0, 8.0, head_dim // 2, dtype=np.float32))
    for p in layers(2):
        m.llama_block(p, 2, head_dim)
    m.finish(path)


def write_qwen3moe(lx, path, rng):
    """Qwen3-MoE: 8 experts, 2 used, 3-D expert tensors, q/k norms, a tied output (no output.weight, as in
    the small Qwen3 models); the dense width 768 stated but unused, as Qwen3-30B-A3B's file states its."""
    m = Model(lx, rng, "qwen3moe", {**stack_keys(2, 32768, 768, 4), **grouped_keys(2, 64, 1e6),
                                    **expert_keys(8, 2, 256)})
    for p in layers(2):
        m.qk_normed_attention(p, 2)
        m.experts(p, 8, 256)
    m.finish(path, tied=True)


# ------------------------------------------------------------------------------------------------------
# F32 only.

def write_llama4(lx, path, rng):
    """Llama-4 as llama.cpp runs it: no sliding_window key, so chunked attention of 8192 on three layers of
    every four; MoE (routed experts and a shared one) on every second layer, dense MLPs between."""
    m = Model(lx, rng, "llama4", {**stack_keys(4, 262144, 512, 4, eps=1e-5), **grouped_keys(2, 64, 500000),
                                  "rope.dimension_count": 64, **expert_keys(4, 1, 256),
                                  "interleave_moe_layer_step": 2, "vocab_size": 300}, vocab=spm_vocab)
    for l, p in enumerate(layers(4)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        if (l + 1) % 2 == 0:  # llama.cpp: a MoE layer when (il + 1) % n_moe_layer_step == 0
            m.experts(p, 4, 256)
            m.gated_mlp(p, 256, "_shexp")
        else:
            m.gated_mlp(p, 512)
    m.finish(path)


def write_glm4moe(lx, path, rng):
    """GLM-4.5 as llama.cpp holds it: a dense first layer (leading_dense_block_count), MoE layers with
    routed experts, a shared one and the router's score bias (exp_probs_b), biased q/k/v, partial rotary,
    and a last layer that is the multi-token-prediction module (nextn_predict_layers: a whole MoE layer
    plus its nextn.* projections and norms), stored in block_count as GLM's converter keeps it."""
    m = Model(lx, rng, "glm4moe", {**stack_keys(3, 131072, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6),
                                   "rope.dimension_count": 32, **expert_keys(4, 2, 256),
                                   **shared_expert_keys(1, 1.0), "nextn_predict_layers": 1})
    for l, p in enumerate(layers(3)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qkv_biases(p, 4, 2, 64)
        m.norm(p + "post_attention_norm")
        if l == 0:
            m.gated_mlp(p, 512)
            continue
        m.experts_with_shared(p, 4, 256, 1)
        if l == 2:  # the multi-token-prediction layer
            m.weight(p + "nextn.eh_proj", HIDDEN, 2 * HIDDEN)
            m.weight(p + "nextn.embed_tokens", m.vocab, HIDDEN)
            m.norm(p + "nextn.enorm")
            m.norm(p + "nextn.hnorm")
            m.weight(p + "nextn.shared_head_head", m.vocab, HIDDEN)
            m.norm(p + "nextn.shared_head_norm")
    m.finish(path)


def write_t5(lx, path, rng):
    """A FLAN-T5-shaped encoder-decoder: gated MLPs, d_kv (key_length) apart from hidden / heads, relative
    position buckets in layer 0 of each stack, the decoder attending the encoder, an untied output."""
    heads, head_dim, buckets = 4, 32, 32
    m = Model(lx, rng, "t5", {**stack_keys(2, 512, 512, heads), "attention.key_length": head_dim,
                              "attention.value_length": head_dim, "attention.relative_buckets_count": buckets,
                              "decoder_start_token_id": 0}, vocab=spm_vocab)
    for stack in ("enc", "dec"):
        for l, p in enumerate(layers(2, f"{stack}.blk")):
            m.norm(p + "attn_norm")
            if l == 0:
                m.weight(p + "attn_rel_b", buckets, heads)
            m.attention(p, heads, heads, head_dim, ("attn_q", "attn_k", "attn_v", "attn_o"))
            if stack == "dec":
                m.norm(p + "cross_attn_norm")
                m.attention(p, heads, heads, head_dim, ("cross_attn_q", "cross_attn_k", "cross_attn_v",
                                                        "cross_attn_o"))
            m.norm(p + "ffn_norm")
            m.gated_mlp(p, 512)
        m.norm(f"{stack}.output_norm")
    m.finish(path, last_norm=None)


def write_qwen2(lx, path, rng):
    """Qwen2: biased q/k/v, grouped K/V heads, an untied output (as Qwen2-7B)."""
    m = Model(lx, rng, "qwen2", {**stack_keys(2, 32768, 512, 4), "attention.head_count_kv": 2,
                                 "rope.freq_base": 1e6})
    for p in layers(2):
        m.llama_block(p, 2, 64, biases=True)
    m.finish(path)


def write_qwen3(lx, path, rng):
    """Qwen3 (dense): q/k norms, no biases, a head width of its own (128), a tied output."""
    m = Model(lx, rng, "qwen3", {**stack_keys(2, 40960, 512, 4), **grouped_keys(2, 128, 1e6)})
    for p in layers(2):
        m.llama_block(p, 2, 128, qk_norm=True)
    m.finish(path, tied=True)


def write_qwen2moe(lx, path, rng):
    """Qwen1.5/2-MoE: biased q/k/v, routed experts and one shared expert of its own width behind a sigmoid
    gate (ffn_gate_inp_shexp)."""
    m = Model(lx, rng, "qwen2moe", {**stack_keys(2, 8192, 768, 4), **grouped_keys(4, 64, 1e6),
                                    **expert_keys(8, 2, 256), "expert_shared_feed_forward_length": 512})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 4, 64)
        m.qkv_biases(p, 4, 4, 64)
        m.norm(p + "ffn_norm")
        m.experts(p, 8, 256)
        m.tensor(p + "ffn_gate_inp_shexp.weight", weights(rng, HIDDEN))
        m.gated_mlp(p, 512, "_shexp")
    m.finish(path)


def write_gemma(lx, path, rng, arch, kv_heads, head_dim, n_layers, ctx, theta, qk_norm, keys):
    """Gemma 2's and 3's shape: norms before and after attention and MLP (Gemma 3's with q/k norms), a
    tied output; `keys` the generation's own metadata."""
    m = Model(lx, rng, arch, {**stack_keys(n_layers, ctx, 512, 4), **grouped_keys(kv_heads, head_dim, theta),
                              **keys}, vocab=spm_vocab)
    for p in layers(n_layers):
        m.norm(p + "attn_norm")
        m.attention(p, 4, kv_heads, head_dim)
        if qk_norm:
            m.qk_norms(p, head_dim)
        m.sandwiched_mlp(p, 512)
    m.finish(path, tied=True)


def write_gemma2(lx, path, rng):
    """Gemma 2 as its first GGUF files were written: no sliding_window key (llama.cpp then assumes 4096 on
    every second layer), logit soft-capping."""
    write_gemma(lx, path, rng, "gemma2", 2, 64, 3, 8192, 10000, False,
                {"attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0})


def write_gemma3(lx, path, rng):
    """Gemma 3 (1B-shaped): one K/V head of its own width, q/k norms, a sliding window that llama.cpp
    applies on five layers of every six."""
    write_gemma(lx, path, rng, "gemma3", 1, 32, 7, 32768, 1e6, True, {"attention.sliding_window": 512})


def write_cohere2(lx, path, rng):
    """Command R7B (cohere2): attention and MLP side by side after one norm, a sliding window on three
    layers of four, a tied output."""
    m = Model(lx, rng, "cohere2", {**stack_keys(4, 8192, 512, 4, eps=1e-5), **grouped_keys(2, 64, 50000),
                                   "attention.layer_norm_epsilon": 1e-5, "attention.sliding_window": 4096,
                                   "logit_scale": 0.25})
    for p in layers(4):
        m.cohere_block(p, 2)
    m.finish(path, tied=True)


def write_olmo2(lx, path, rng):
    """OLMo 2: norms after attention and MLP only, q/k norms over the whole projection width."""
    m = Model(lx, rng, "olmo2", {**stack_keys(2, 4096, 512, 4), **grouped_keys(4, 64, 500000)})
    for p in layers(2):
        m.attention(p, 4, 4, 64)
        m.qk_norms(p, 4 * 64)
        m.norm(p + "post_attention_norm")
        m.gated_mlp(p, 512)
        m.norm(p + "post_ffw_norm")
    m.finish(path)


def write_phi3(lx, path, rng):
    """Phi-3 mini: q, k and v fused in one matrix (attn_qkv), gate and up fused in ffn_up (twice the MLP
    width), an untied output."""
    m = Model(lx, rng, "phi3", {**stack_keys(2, 4096, 512, 4, eps=1e-5), "attention.head_count_kv": 4,
                                "rope.dimension_count": 64, "rope.scaling.original_context_length": 4096},
              vocab=phi3_vocab)
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.fused_attention(p)
        m.norm(p + "ffn_norm")
        m.fused_gated_mlp(p, 512)
    m.finish(path)


def write_phi2(lx, path, rng):
    """Phi-2: attention and a plain GELU MLP side by side after one LayerNorm, fused biased qkv, partial
    rotary (a quarter of each head), a biased untied output."""
    m = Model(lx, rng, "phi2", {**stack_keys(2, 2048, 1024, 4, eps=1e-5, layer_norm=True),
                                "attention.head_count_kv": 4, "rope.dimension_count": 16})
    for p in layers(2):
        m.layer_norm(p + "attn_norm")
        m.biased(p + "attn_qkv", 3 * HIDDEN, HIDDEN)
        m.biased(p + "attn_output", HIDDEN, HIDDEN)
        m.biased(p + "ffn_up", 1024, HIDDEN)
        m.biased(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, last_norm="layer", output_bias=True)


def write_gpt2(lx, path, rng):
    """GPT-2: learned positions, LayerNorms with biases, fused biased qkv, a plain MLP, a tied output."""
    m = Model(lx, rng, "gpt2", stack_keys(2, 1024, 1024, 4, eps=1e-5, layer_norm=True))
    m.weight("position_embd", 1024, HIDDEN)
    for p in layers(2):
        m.gpt2_block(p, 1024)
    m.finish(path, tied=True, last_norm="layer")


def write_starcoder2(lx, path, rng):
    """StarCoder2: grouped K/V heads, biases everywhere, a plain MLP, LayerNorms with biases, tied."""
    m = Model(lx, rng, "starcoder2", {**stack_keys(2, 16384, 1024, 4, eps=1e-5, layer_norm=True),
                                      "attention.head_count_kv": 2, "rope.freq_base": 100000.0})
    for p in layers(2):
        m.biased_attention(p, 2)
        m.layer_norm(p + "ffn_norm")
        m.biased(p + "ffn_up", 1024, HIDDEN)
        m.biased(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, tied=True, last_norm="layer")


def write_deepseek2(lx, path, rng, arch="deepseek2"):
    """DeepSeek-V3-shaped: multi-head latent attention (a low-rank query, a compressed K/V latent shared by
    the heads, decoupled rotary dims), a dense first layer, then MoE with a shared expert and the router's
    score bias, sigmoid gating; under `arch` (Mistral 4's language model is these layers too)."""
    heads, q_rank, kv_rank, nope, rope, v_dim = 4, 128, 64, 32, 16, 32
    m = Model(lx, rng, arch, {**stack_keys(3, 163840, 512, heads), "attention.head_count_kv": heads,
                              "attention.q_lora_rank": q_rank, "attention.kv_lora_rank": kv_rank,
                              "attention.key_length": nope + rope, "attention.value_length": v_dim,
                              "rope.dimension_count": rope, "rope.freq_base": 10000.0,
                              **expert_keys(4, 2, 256), **shared_expert_keys(1, 2.5)})
    deepseek_layers(m, 3, (heads, q_rank, kv_rank, nope, rope, v_dim))
    m.finish(path)


def deepseek_layers(m, n, mla, indexer=None):
    """DeepSeek's layers: latent attention of `mla` (heads, q rank, kv rank, nope, rope, v widths), stored
    absorbed when there is a sparse-attention `indexer` (heads, width), a dense first layer, then MoE with a
    shared expert and the router's score bias."""
    for l, p in enumerate(layers(n)):
        m.norm(p + "attn_norm")
        m.latent_attention(p, *mla, absorbed=indexer is not None)
        if indexer:
            heads, width = indexer
            m.layer_norm(p + "indexer.k_norm", width)
            m.weight(p + "indexer.proj", heads, HIDDEN)
            m.weight(p + "indexer.attn_k", width, HIDDEN)
            m.weight(p + "indexer.attn_q_b", heads * width, mla[1])
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts_with_shared(p, 4, 256, 1)


def write_gpt_oss(lx, path, rng):
    """gpt-oss: biased attention with a learned sink per head, a sliding window on every second layer,
    MoE with biased experts and router, no shared expert, an untied output."""
    count, width = 4, 256
    m = Model(lx, rng, "gpt-oss", {**stack_keys(2, 131072, width, 4, eps=1e-5), **grouped_keys(2, 64, 150000),
                                   "attention.sliding_window": 128, **expert_keys(count, 2, width)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qkv_biases(p, 4, 2, 64)
        m.bias(p + "attn_output", HIDDEN)
        m.weight(p + "attn_sinks", 4)
        m.norm(p + "post_attention_norm")
        m.experts(p, count, width)
        m.bias(p + "ffn_gate_inp", count)
        for name, rows in (("ffn_gate_exps", width), ("ffn_up_exps", width), ("ffn_down_exps", HIDDEN)):
            m.bias(p + name, count, rows)
    m.finish(path)


def write_bert(lx, path, rng):
    """BERT (an encoder): learned positions and token types, LayerNorms with biases after each block,
    biased projections, a plain (not gated) MLP, no output head."""
    m = Model(lx, rng, "bert", {**stack_keys(2, 512, 512, 4, eps=1e-12, layer_norm=True), "pooling_type": 2,
                                "attention.causal": False}, vocab=wpm_vocab)
    m.weight("token_types", 2, HIDDEN)
    m.weight("position_embd", 512, HIDDEN)
    m.layer_norm("token_embd_norm")
    for p in layers(2):
        for name in LLAMA_ATTENTION:
            m.biased(p + name, HIDDEN, HIDDEN)
        m.layer_norm(p + "attn_output_norm")
        m.biased(p + "ffn_up", 512, HIDDEN)
        m.biased(p + "ffn_down", HIDDEN, 512)
        m.layer_norm(p + "layer_output_norm")
    m.finish(path, tied=True, last_norm=None)


def write_mamba(lx, path, rng):
    """Mamba (1): no attention; each layer's selective state space (in projection, causal convolution,
    x projection to the step and B, C; A and D per channel and state), a tied output."""
    inner, state, conv, dt_rank = 2 * HIDDEN, 16, 4, 16
    m = Model(lx, rng, "mamba", {**stack_keys(2, 1048576, 0, 0, eps=1e-5), **ssm_keys(inner, state, conv, dt_rank)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.weight(p + "ssm_in", 2 * inner, HIDDEN)
        m.weight(p + "ssm_conv1d", inner, conv)
        m.bias(p + "ssm_conv1d", inner)
        m.weight(p + "ssm_x", dt_rank + 2 * state, inner)
        m.weight(p + "ssm_dt", inner, dt_rank)
        m.bias(p + "ssm_dt", inner)
        m.tensor(p + "ssm_a", -np.abs(weights(rng, inner, state)))
        m.tensor(p + "ssm_d", norm(rng, inner))
        m.weight(p + "ssm_out", HIDDEN, inner)
    m.finish(path, tied=True)


# Mamba-2's mixer in the models below: 32 heads of 64 channels, a state of 128 (as the real models'): the
# recurrent state is then large enough for llama.cpp's log, in MiB with two decimals, to tell how many
# conv columns it keeps (llama_context_oracle.py).
MAMBA2 = {"inner": 2048, "state": 128, "conv": 4, "heads": 32}


def write_mamba2(lx, path, rng):
    """Mamba-2: two B/C groups, no attention, a tied output."""
    s = MAMBA2
    m = Model(lx, rng, "mamba2", {**stack_keys(2, 1048576, 0, 0, eps=1e-5),
                                  **ssm_keys(s["inner"], s["state"], s["conv"], s["heads"], 2)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.mamba2_mixer(p, s["inner"], s["state"], s["conv"], s["heads"], 2)
    m.finish(path, tied=True)


def write_nemotron_h(lx, path, rng, moe=False):
    """Nemotron-H: a stack of three kinds of layer, each one thing: Mamba-2 (no K/V heads, no MLP width),
    attention (K/V heads) or a squared-ReLU MLP (an MLP width), told apart by the per-layer arrays. `moe`
    (Nemotron 3 Nano, nemotron_h_moe): the MLP layers are ungated routed experts with a router score bias
    beside an ungated shared expert."""
    kinds = ["mamba", "mlp", "attention", "mlp", "mamba", "mlp"]
    s = MAMBA2
    keys = {
        **stack_keys(len(kinds), 8192, per_layer([512 if k == "mlp" else 0 for k in kinds]), 4, eps=1e-5),
        "attention.head_count_kv": per_layer([2 if k == "attention" else 0 for k in kinds]),
        "attention.key_length": 64, "attention.value_length": 64,
        "attention.layer_norm_epsilon": 1e-5,  # llama.cpp requires it beside the RMS one
        **ssm_keys(s["inner"], s["state"], s["conv"], s["heads"], 2)}
    if moe:
        keys.update({**expert_keys(8, 2, 128), "expert_shared_count": 1, "expert_shared_feed_forward_length": 256,
                     "expert_gating_func": 2, "expert_weights_norm": True, "expert_weights_scale": 2.5})
    m = Model(lx, rng, "nemotron_h_moe" if moe else "nemotron_h", keys)
    for kind, p in zip(kinds, layers(len(kinds))):
        m.norm(p + "attn_norm")
        if kind == "mamba":
            m.mamba2_mixer(p, s["inner"], s["state"], s["conv"], s["heads"], 2)
        elif kind == "attention":
            m.attention(p, 4, 2, 64)
        elif moe:
            m.weight(p + "ffn_gate_inp", 8, HIDDEN)
            m.bias(p + "exp_probs_b", 8)
            m.weight(p + "ffn_up_exps", 8, 128, HIDDEN)
            m.weight(p + "ffn_down_exps", 8, HIDDEN, 128)
            m.weight(p + "ffn_up_shexp", 256, HIDDEN)
            m.weight(p + "ffn_down_shexp", HIDDEN, 256)
        else:
            m.weight(p + "ffn_up", 512, HIDDEN)
            m.weight(p + "ffn_down", HIDDEN, 512)
    m.finish(path)


def write_nemotron_h_moe(lx, path, rng):
    write_nemotron_h(lx, path, rng, moe=True)


def write_granitehybrid(lx, path, rng):
    """Granite 4.0-H: Mamba-2 layers with an attention layer between (no K/V heads marks a Mamba layer),
    every layer with routed experts (feed_forward_length their width, as in Granite's config) and a shared
    one, Granite's scaling keys."""
    kinds = ["mamba", "attention", "mamba"]
    s = {**MAMBA2, "inner": 2 * HIDDEN, "heads": 8}  # llama.cpp's Granite graph requires d_inner = 2 x hidden
    m = Model(lx, rng, "granitehybrid", {
        **stack_keys(len(kinds), 131072, 256, 4, eps=1e-5),
        "attention.head_count_kv": per_layer([2 if k == "attention" else 0 for k in kinds]),
        "expert_count": 4, "expert_used_count": 2, "expert_shared_feed_forward_length": 512,
        **ssm_keys(s["inner"], s["state"], s["conv"], s["heads"], 1), "embedding_scale": 12.0,
        "residual_scale": 0.22, "attention.scale": 0.0078125, "logit_scale": 8.0, "rope.freq_base": 10000.0})
    for kind, p in zip(kinds, layers(len(kinds))):
        m.norm(p + "attn_norm")
        if kind == "mamba":
            m.mamba2_mixer(p, s["inner"], s["state"], s["conv"], s["heads"], 1)
        else:
            m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        m.experts(p, 4, 256)
        m.gated_mlp(p, 512, "_shexp")
    m.finish(path, tied=True)


def write_jamba(lx, path, rng):
    """Jamba: Mamba (1) layers with its dt, B and C norms, one attention layer among them (no K/V heads
    marks a Mamba layer), routed experts on every second layer and dense MLPs between."""
    kinds = ["mamba", "attention", "mamba", "mamba"]
    inner, state, conv, dt_rank = 2 * HIDDEN, 16, 4, 16
    m = Model(lx, rng, "jamba", {
        **stack_keys(len(kinds), 262144, 512, 4), "attention.head_count_kv": per_layer(
            [2 if k == "attention" else 0 for k in kinds]), **ssm_keys(inner, state, conv, dt_rank),
        "expert_count": 4, "expert_used_count": 2})
    for l, (kind, p) in enumerate(zip(kinds, layers(len(kinds)))):
        m.norm(p + "attn_norm")
        if kind == "mamba":
            m.weight(p + "ssm_in", 2 * inner, HIDDEN)
            m.weight(p + "ssm_conv1d", inner, conv)
            m.bias(p + "ssm_conv1d", inner)
            m.weight(p + "ssm_x", dt_rank + 2 * state, inner)
            m.norm(p + "ssm_dt_norm", dt_rank)
            m.norm(p + "ssm_b_norm", state)
            m.norm(p + "ssm_c_norm", state)
            m.weight(p + "ssm_dt", inner, dt_rank)
            m.bias(p + "ssm_dt", inner)
            m.tensor(p + "ssm_a", -np.abs(weights(rng, inner, state)))
            m.tensor(p + "ssm_d", norm(rng, inner))
            m.weight(p + "ssm_out", HIDDEN, inner)
        else:
            m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        if l % 2 == 1:
            m.experts(p, 4, 512)
        else:
            m.gated_mlp(p, 512)
    m.finish(path)


def write_falcon_h1(lx, path, rng):
    """Falcon-H1: attention and a Mamba-2 mixer side by side in every layer, then an MLP."""
    s = MAMBA2
    m = Model(lx, rng, "falcon-h1", {**stack_keys(2, 16384, 512, 4), **grouped_keys(2, 64, 1e11),
                                     **ssm_keys(s["inner"], s["state"], s["conv"], s["heads"], 1)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.mamba2_mixer(p, s["inner"], s["state"], s["conv"], s["heads"], 1)
        m.tensor(p + "ffn_norm", norm(rng, HIDDEN))  # no ".weight": llama.cpp names it so for Falcon-H1
        m.gated_mlp(p, 512)
    m.finish(path)


def write_smollm3(lx, path, rng):
    """SmolLM3: Llama layers, every fourth without rotary embeddings (NoPE), a tied output."""
    m = Model(lx, rng, "smollm3", {**stack_keys(4, 65536, 512, 4), **grouped_keys(2, 64, 5e6)})
    for p in layers(4):
        m.llama_block(p, 2, 64)
    m.finish(path, tied=True)


def write_olmoe(lx, path, rng):
    """OLMoE: q/k norms over the whole projection, 8 routed experts, 2 used, no shared one."""
    m = Model(lx, rng, "olmoe", {**stack_keys(2, 4096, 256, 4), **grouped_keys(4, 64, 10000),
                                 **expert_keys(8, 2, 256)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 4, 64)
        m.qk_norms(p, 4 * 64)
        m.norm(p + "ffn_norm")
        m.experts(p, 8, 256)
    m.finish(path)


def write_granitemoe(lx, path, rng):
    """Granite 3 MoE: routed experts (feed_forward_length their width), Granite's scaling keys, tied."""
    m = Model(lx, rng, "granitemoe", {**stack_keys(2, 4096, 256, 4), **grouped_keys(2, 64, 10000),
                                      "expert_count": 4, "expert_used_count": 2, "embedding_scale": 12.0,
                                      "residual_scale": 0.22, "attention.scale": 0.0078125, "logit_scale": 8.0})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        m.experts(p, 4, 256)
    m.finish(path, tied=True)


def write_falcon(lx, path, rng):
    """Falcon-7B: attention and a plain MLP side by side after one LayerNorm, fused qkv with one K/V head
    (multi-query), a tied output."""
    m = Model(lx, rng, "falcon", {**stack_keys(2, 2048, 1024, 4, eps=1e-5, layer_norm=True),
                                  "attention.head_count_kv": 1})
    for p in layers(2):
        m.layer_norm(p + "attn_norm")
        m.fused_attention(p, kv_heads=1)
        m.weight(p + "ffn_up", 1024, HIDDEN)
        m.weight(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, tied=True, last_norm="layer")


def write_gptneox(lx, path, rng):
    """GPT-NeoX (Pythia): parallel residual, fused biased qkv, partial rotary (a quarter), LayerNorms
    with biases, a plain MLP, an untied output."""
    m = Model(lx, rng, "gptneox", {**stack_keys(2, 2048, 1024, 4, eps=1e-5, layer_norm=True),
                                   "rope.dimension_count": 16, "use_parallel_residual": True})
    for p in layers(2):
        m.gpt2_block(p, 1024)
    m.finish(path, last_norm="layer")


def write_stablelm(lx, path, rng):
    """StableLM 2: LayerNorms with biases, biased q/k/v, partial rotary (a quarter), an untied output."""
    m = Model(lx, rng, "stablelm", {**stack_keys(2, 4096, 512, 4, eps=1e-5, layer_norm=True),
                                    "attention.head_count_kv": 4, "rope.dimension_count": 16})
    for p in layers(2):
        m.layer_norm(p + "attn_norm")
        m.attention(p, 4, 4, 64)
        m.qkv_biases(p, 4, 4, 64)
        m.layer_norm(p + "ffn_norm")
        m.gated_mlp(p, 512)
    m.finish(path, last_norm="layer")


def write_bloom(lx, path, rng):
    """BLOOM: ALiBi (no positions), a LayerNorm after the embedding, fused biased qkv, a tied output."""
    m = Model(lx, rng, "bloom", stack_keys(2, 2048, 1024, 4, eps=1e-5, layer_norm=True))
    m.layer_norm("token_embd_norm")
    for p in layers(2):
        m.gpt2_block(p, 1024)
    m.finish(path, tied=True, last_norm="layer")


def write_command_r(lx, path, rng):
    """Command-R: attention and MLP side by side after one LayerNorm without bias, a tied output."""
    m = Model(lx, rng, "command-r", {**stack_keys(2, 131072, 512, 4, eps=1e-5, layer_norm=True),
                                     **grouped_keys(4, 64, 8e6), "logit_scale": 0.0625})
    for p in layers(2):
        m.cohere_block(p, 4)
    m.finish(path, tied=True)


def write_internlm2(lx, path, rng):
    """InternLM2: q, k and v in one matrix (attn_qkv), grouped K/V heads, an untied output."""
    m = Model(lx, rng, "internlm2", {**stack_keys(2, 32768, 512, 4), "attention.head_count_kv": 2,
                                     "rope.freq_base": 1e6})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.fused_attention(p, kv_heads=2)
        m.norm(p + "ffn_norm")
        m.gated_mlp(p, 512)
    m.finish(path)


def write_lfm2(lx, path, rng, moe=False):
    """LFM2: gated short convolutions (three taps over the hidden channels) with attention layers among
    them (no K/V heads marks a conv layer), a norm of the embeddings at the end, a tied output. `moe`
    (LFM2-8B-A1B, lfm2moe): a dense first layer, then routed experts with a router score bias."""
    kinds = ["conv", "conv", "attention", "conv"]
    keys = {**stack_keys(len(kinds), 32768, 512, 4, eps=1e-5),
            "attention.head_count_kv": per_layer([2 if k == "attention" else 0 for k in kinds]),
            "rope.freq_base": 1e6, "shortconv.l_cache": 3}
    if moe:
        keys.update({**expert_keys(8, 2, 128), "leading_dense_block_count": 1, "expert_gating_func": 2})
    m = Model(lx, rng, "lfm2moe" if moe else "lfm2", keys)
    for l, (kind, p) in enumerate(zip(kinds, layers(len(kinds)))):
        m.norm(p + "attn_norm")
        if kind == "attention":
            m.attention(p, 4, 2, 64)
            m.qk_norms(p, 64)
        else:
            m.weight(p + "shortconv.conv", HIDDEN, 3)
            m.weight(p + "shortconv.in_proj", 3 * HIDDEN, HIDDEN)
            m.weight(p + "shortconv.out_proj", HIDDEN, HIDDEN)
        m.norm(p + "ffn_norm")
        if moe and l > 0:
            m.experts(p, 8, 128)
            m.bias(p + "exp_probs_b", 8)
        else:
            m.gated_mlp(p, 512)
    m.norm("token_embd_norm")  # LFM2's last norm, under llama.cpp's name for it
    m.finish(path, tied=True, last_norm=None)


def write_lfm2moe(lx, path, rng):
    write_lfm2(lx, path, rng, moe=True)


def write_mistral3(lx, path, rng):
    """Ministral 3 (mistral3): Llama layers with a head width of its own (128 over a hidden of 256), an
    untied output."""
    m = Model(lx, rng, "mistral3", {**stack_keys(2, 262144, 512, 4, eps=1e-5), **grouped_keys(2, 128, 1e6)})
    for p in layers(2):
        m.llama_block(p, 2, 128)
    m.finish(path)


def write_phimoe(lx, path, rng):
    """Phi-3.5-MoE: LayerNorms with biases (llama.cpp reads their epsilon from the RMS key), biased q/k/v
    and output projections, 4 routed experts, 2 used, a biased untied output."""
    m = Model(lx, rng, "phimoe", {**stack_keys(2, 4096, 256, 4, eps=1e-5), **grouped_keys(2, 64, 10000),
                                  **expert_keys(4, 2, 256)})
    for p in layers(2):
        m.biased_attention(p, 2)
        m.layer_norm(p + "ffn_norm")
        m.experts(p, 4, 256)
    m.finish(path, last_norm="layer", output_bias=True)


def write_deepseek(lx, path, rng):
    """DeepSeek-MoE (v1): ordinary attention, a dense first layer, then 8 routed experts (2 used) beside two
    shared ones stored as one MLP of twice the expert width."""
    m = Model(lx, rng, "deepseek", {**stack_keys(3, 4096, 512, 4), **grouped_keys(4, 64, 10000),
                                    **expert_keys(8, 2, 128), "expert_shared_count": 2,
                                    "leading_dense_block_count": 1, "expert_weights_scale": 1.0})
    moe_after_dense(m, 3, 4, 2 * 128)
    m.finish(path)


def moe_after_dense(m, n, kv_heads, shared_width, score_bias=False):
    """Llama's attention in `n` layers, a dense first MLP, then 8 routed experts of 128 (with a router score
    bias) beside a shared MLP of `shared_width` (DeepSeek-MoE, ERNIE 4.5 MoE)."""
    for l, p in enumerate(layers(n)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, kv_heads, 64)
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
            continue
        m.experts(p, 8, 128)
        if score_bias:
            m.bias(p + "exp_probs_b", 8)
        m.gated_mlp(p, shared_width, "_shexp")


def write_granite(lx, path, rng):
    """Granite 3 (dense): Llama layers with Granite's scaling keys, a tied output."""
    m = Model(lx, rng, "granite", {**stack_keys(2, 4096, 512, 4), **grouped_keys(2, 64, 10000),
                                   "embedding_scale": 12.0, "residual_scale": 0.22, "attention.scale": 0.0078125,
                                   "logit_scale": 8.0})
    for p in layers(2):
        m.llama_block(p, 2, 64)
    m.finish(path, tied=True)


def write_olmo(lx, path, rng):
    """OLMo (1): LayerNorms without parameters, so no norm tensor at all; an untied output."""
    m = Model(lx, rng, "olmo", {**stack_keys(2, 2048, 512, 4, eps=1e-5, layer_norm=True),
                                "attention.head_count_kv": 4})
    for p in layers(2):
        m.attention(p, 4, 4, 64)
        m.gated_mlp(p, 512)
    m.finish(path, last_norm=None)


def write_chatglm(lx, path, rng):
    """ChatGLM3: fused biased qkv with two K/V groups, rotary on half of each head, gate and up in one
    matrix (ffn_up twice the width), an untied output."""
    m = Model(lx, rng, "chatglm", {**stack_keys(2, 8192, 512, 4, eps=1e-5), "attention.head_count_kv": 2,
                                   "rope.dimension_count": 32})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.fused_attention(p, kv_heads=2, qkv_bias=True)
        m.norm(p + "ffn_norm")
        m.fused_gated_mlp(p, 512)
    m.finish(path)


def write_glm4(lx, path, rng):
    """GLM-4 (0414): biased q/k/v, rotary on half of each head, norms after attention and MLP as well as
    before, gate and up in one matrix."""
    m = Model(lx, rng, "glm4", {**stack_keys(2, 32768, 512, 4, eps=1e-5), **grouped_keys(2, 64, 10000),
                                "rope.dimension_count": 32})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qkv_biases(p, 4, 2, 64)
        m.norm(p + "post_attention_norm")
        m.norm(p + "ffn_norm")
        m.fused_gated_mlp(p, 512)
        m.norm(p + "post_ffw_norm")
    m.finish(path)


def write_minicpm(lx, path, rng):
    """MiniCPM: Llama layers with its embedding, residual and logit scales, a tied output."""
    m = Model(lx, rng, "minicpm", {**stack_keys(2, 4096, 512, 4), **grouped_keys(4, 64, 10000),
                                   "embedding_scale": 12.0, "residual_scale": 1.4, "logit_scale": 1.0})
    for p in layers(2):
        m.llama_block(p, 4, 64)
    m.finish(path, tied=True)


def write_baichuan(lx, path, rng):
    """Baichuan 2 (7B): Llama layers (its fused W_pack stored split), an untied output."""
    m = Model(lx, rng, "baichuan", {**stack_keys(2, 4096, 512, 4), "attention.head_count_kv": 4})
    for p in layers(2):
        m.llama_block(p, 4, 64)
    m.finish(path)


def write_exaone(lx, path, rng):
    """EXAONE 3.5: Llama layers with grouped K/V heads, an untied output."""
    m = Model(lx, rng, "exaone", {**stack_keys(2, 4096, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6)})
    for p in layers(2):
        m.llama_block(p, 2, 64)
    m.finish(path)


def write_ernie4_5(lx, path, rng):
    """ERNIE 4.5 (dense, 0.3B-shaped): Llama layers, a tied output."""
    m = Model(lx, rng, "ernie4_5", {**stack_keys(2, 131072, 512, 4, eps=1e-5), **grouped_keys(2, 64, 500000)})
    for p in layers(2):
        m.llama_block(p, 2, 64)
    m.finish(path, tied=True)


def write_mpt(lx, path, rng):
    """MPT: ALiBi (no positions), LayerNorms without biases, fused qkv, a plain MLP, no biases, a tied
    output."""
    m = Model(lx, rng, "mpt", {**stack_keys(2, 2048, 1024, 4, eps=1e-5, layer_norm=True),
                               "attention.max_alibi_bias": 8.0})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.fused_attention(p)
        m.norm(p + "ffn_norm")
        m.weight(p + "ffn_up", 1024, HIDDEN)
        m.weight(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, tied=True)


def write_t5encoder(lx, path, rng):
    """T5's encoder alone (as text encoders of image models ship it): t5's enc.* stack, no decoder."""
    heads, head_dim, buckets = 4, 32, 32
    m = Model(lx, rng, "t5encoder", {**stack_keys(2, 512, 512, heads), "attention.key_length": head_dim,
                                     "attention.value_length": head_dim,
                                     "attention.relative_buckets_count": buckets}, vocab=spm_vocab)
    for l, p in enumerate(layers(2, "enc.blk")):
        m.norm(p + "attn_norm")
        if l == 0:
            m.weight(p + "attn_rel_b", buckets, heads)
        m.attention(p, heads, heads, head_dim, ("attn_q", "attn_k", "attn_v", "attn_o"))
        m.norm(p + "ffn_norm")
        m.gated_mlp(p, 512)
    m.norm("enc.output_norm")
    m.finish(path, tied=True, last_norm=None)


def write_nomic_bert(lx, path, rng):
    """nomic-embed-text (nomic-bert): an encoder with rotary positions, fused qkv, a gated MLP, LayerNorms
    with biases after each block, token types, no biases elsewhere, no output head."""
    m = Model(lx, rng, "nomic-bert", {**stack_keys(2, 2048, 512, 4, eps=1e-12, layer_norm=True),
                                      "pooling_type": 1, "attention.causal": False, "rope.freq_base": 1000.0},
              vocab=wpm_vocab)
    m.weight("token_types", 2, HIDDEN)
    m.layer_norm("token_embd_norm")
    for p in layers(2):
        m.fused_attention(p)
        m.layer_norm(p + "attn_output_norm")
        m.gated_mlp(p, 512)
        m.layer_norm(p + "layer_output_norm")
    m.finish(path, tied=True, last_norm=None)


def write_modern_bert(lx, path, rng):
    """ModernBERT: an encoder with a sliding window on two layers of three (each third global, from the
    first), a rope base of its own for them, no norm before the first layer's attention, fused qkv, gate and
    up in one matrix, no biases."""
    m = Model(lx, rng, "modern-bert", {**stack_keys(3, 8192, 512, 4, eps=1e-5, layer_norm=True),
                                       "pooling_type": 2, "attention.causal": False, "rope.freq_base": 160000.0,
                                       "rope.freq_base_swa": 10000.0, "attention.sliding_window": 128})
    m.norm("token_embd_norm")
    for l, p in enumerate(layers(3)):
        if l:
            m.norm(p + "attn_norm")
        m.fused_attention(p)
        m.norm(p + "ffn_norm")
        m.fused_gated_mlp(p, 512)
    m.finish(path, tied=True)


def write_delta_net_hybrid(lx, path, rng, arch, split, moe):
    """Qwen3-Next's and Qwen3.5's stack: three gated DeltaNet layers to one of attention
    (full_attention_interval), the attention's queries twice as wide for their output gate and rotated on a
    quarter of each head, q/k norms. The DeltaNet's input projections are stored as Qwen3-Next fuses them
    (ssm_in: q, k, v, z; ssm_ba: beta, alpha) or, `split`, as Qwen3.5 has them (attn_qkv, attn_gate for z,
    ssm_beta, ssm_alpha). Each MLP is dense, or (`moe`) routed experts beside a gated shared one."""
    kinds = ["delta", "delta", "delta", "attention"]
    key_heads, value_heads, width = 2, 4, 32
    key_dim, value_dim = key_heads * width, value_heads * width
    keys = {**stack_keys(4, 262144, 512, 4), **grouped_keys(2, 64, 1e7), "full_attention_interval": 4,
            "rope.dimension_count": 16, "ssm.conv_kernel": 4, "ssm.state_size": width,
            "ssm.group_count": key_heads, "ssm.time_step_rank": value_heads, "ssm.inner_size": value_dim}
    if split:  # Qwen3.5 rotates by time, height and width sections (mrope)
        keys["rope.dimension_sections"] = per_layer([4, 2, 2, 0])
    if moe:
        keys.update({**expert_keys(8, 2, 128), "expert_shared_feed_forward_length": 128})
    m = Model(lx, rng, arch, keys)
    for kind, p in zip(kinds, layers(len(kinds))):
        m.norm(p + "attn_norm")
        if kind == "attention":
            m.weight(p + "attn_q", 2 * 4 * 64, HIDDEN)
            m.weight(p + "attn_k", 2 * 64, HIDDEN)
            m.weight(p + "attn_v", 2 * 64, HIDDEN)
            m.weight(p + "attn_output", HIDDEN, 4 * 64)
            m.qk_norms(p, 64)
        else:  # the input projections, the convolution over q, k and v, dt's bias, A, the gated norm
            if split:
                m.weight(p + "attn_qkv", 2 * key_dim + value_dim, HIDDEN)
                m.weight(p + "attn_gate", value_dim, HIDDEN)
                m.weight(p + "ssm_beta", value_heads, HIDDEN)
                m.weight(p + "ssm_alpha", value_heads, HIDDEN)
            else:
                m.weight(p + "ssm_in", 2 * key_dim + 2 * value_dim, HIDDEN)
                m.weight(p + "ssm_ba", 2 * value_heads, HIDDEN)
            m.weight(p + "ssm_conv1d", 2 * key_dim + value_dim, 4)
            m.bias(p + "ssm_dt", value_heads)
            m.tensor(p + "ssm_a", -np.abs(weights(rng, value_heads)))
            m.norm(p + "ssm_norm", width)
            m.weight(p + "ssm_out", HIDDEN, value_dim)
        m.norm(p + "post_attention_norm")
        if moe:
            m.experts(p, 8, 128)
            m.tensor(p + "ffn_gate_inp_shexp.weight", weights(rng, HIDDEN))
            m.gated_mlp(p, 128, "_shexp")
        else:
            m.gated_mlp(p, 512)
    m.finish(path)


def write_qwen3next(lx, path, rng):
    write_delta_net_hybrid(lx, path, rng, "qwen3next", split=False, moe=True)


def write_qwen35(lx, path, rng):
    write_delta_net_hybrid(lx, path, rng, "qwen35", split=True, moe=False)


def write_qwen35moe(lx, path, rng):
    write_delta_net_hybrid(lx, path, rng, "qwen35moe", split=True, moe=True)

def write_gemma3n(lx, path, rng):
    """Gemma 3n: Gemma 3's layers (one K/V head, q/k norms, norms after attention and MLP, a window on four
    layers of five) with its per-layer inputs (a second token embedding, 256 wide per layer, projected in
    by each layer's gate), AltUp's four streams and LAuReL's rank-64 residual; the last two of 22 layers
    read an earlier layer's cache (llama.cpp keeps K/V for the first 20 only). llama.cpp fixes the per-layer
    width, the streams and the rank, so only the layer count and widths elsewhere are small."""
    n, streams, rank, per = 22, 4, 64, 256
    m = Model(lx, rng, "gemma3n", {**stack_keys(n, 32768, 64, 1), **grouped_keys(1, 64, 1e6),
                                   "attention.sliding_window": 512, "attention.shared_kv_layers": 2,
                                   "embedding_length_per_layer_input": per, "altup.active_idx": 0,
                                   "altup.num_inputs": streams, "final_logit_softcapping": 30.0},
              vocab=spm_vocab)
    m.per_layer_inputs(n, per)
    m.tensor("altup_proj.weight", weights(rng, streams - 1, HIDDEN, HIDDEN))
    m.tensor("altup_unembd_proj.weight", weights(rng, streams - 1, HIDDEN, HIDDEN))
    for p in layers(n):
        m.norm(p + "attn_norm")
        m.attention(p, 1, 1, 64)
        m.qk_norms(p, 64)
        m.sandwiched_mlp(p, 64)
        m.per_layer_input(p, per)
        m.weight(p + "altup_correct_coef", streams, streams)
        m.norm(p + "altup_correct_scale")
        m.weight(p + "altup_predict_coef", streams * streams, streams)
        m.weight(p + "altup_router", streams, HIDDEN)
        m.norm(p + "altup_router_norm")
        m.weight(p + "laurel_l", rank, HIDDEN)
        m.weight(p + "laurel_r", HIDDEN, rank)
        m.norm(p + "laurel_post_norm")
    m.finish(path, tied=True)


def write_starcoder(lx, path, rng):
    """StarCoder (gpt_bigcode): learned positions, multi-query attention in one biased qkv matrix, a plain
    biased MLP, LayerNorms with biases, an untied output."""
    m = Model(lx, rng, "starcoder", {**stack_keys(2, 8192, 1024, 4, eps=1e-5, layer_norm=True),
                                     "attention.head_count_kv": 1})
    m.weight("position_embd", 8192, HIDDEN)
    for p in layers(2):
        m.layer_norm(p + "attn_norm")
        m.biased(p + "attn_qkv", (4 + 2) * 64, HIDDEN)
        m.biased(p + "attn_output", HIDDEN, HIDDEN)
        m.layer_norm(p + "ffn_norm")
        m.biased(p + "ffn_up", 1024, HIDDEN)
        m.biased(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, last_norm="layer")


def write_dbrx(lx, path, rng):
    """DBRX: LayerNorms without biases, fused qkv with clipped values, a norm after attention, 4 routed
    experts, 2 used, an untied output."""
    m = Model(lx, rng, "dbrx", {**stack_keys(2, 32768, 256, 4, eps=1e-5, layer_norm=True),
                                "attention.head_count_kv": 2, "rope.freq_base": 500000.0,
                                "attention.clamp_kqv": 8.0, **expert_keys(4, 2, 256)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.fused_attention(p, kv_heads=2)
        m.norm(p + "attn_output_norm")
        m.experts(p, 4, 256)
    m.finish(path)


def write_minimax_m2(lx, path, rng):
    """MiniMax-M2: q/k norms over the whole projections, rotary on half of each head, routed experts with
    a sigmoid router and its score bias in every layer (llama.cpp takes their width from
    feed_forward_length)."""
    m = Model(lx, rng, "minimax-m2", {**stack_keys(2, 196608, 128, 4), **grouped_keys(2, 64, 5e6),
                                      **expert_keys(8, 2, 128), "rope.dimension_count": 32,
                                      "expert_gating_func": 2})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 4 * 64, 2 * 64)
        m.norm(p + "ffn_norm")
        m.experts(p, 8, 128)
        m.bias(p + "exp_probs_b", 8)
    m.finish(path)


def write_qwen3vl(lx, path, rng, moe=False):
    """Qwen3-VL's language model (its vision tower is a separate mmproj file): Qwen3's layers, the rotary
    dims in time, height and width sections (mrope), the deepstack layers' count, a tied output; `moe`:
    routed experts in every layer (qwen3vlmoe)."""
    keys = {**stack_keys(2, 262144, 512, 4), **grouped_keys(2, 64, 5e6),
            "rope.dimension_sections": per_layer([8, 12, 12, 0]), "n_deepstack_layers": 3}
    if moe:
        keys.update(expert_keys(8, 2, 128))
    m = Model(lx, rng, "qwen3vlmoe" if moe else "qwen3vl", keys)
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 64)
        m.norm(p + "ffn_norm")
        if moe:
            m.experts(p, 8, 128)
        else:
            m.gated_mlp(p, 512)
    m.finish(path, tied=True)


def write_qwen3vlmoe(lx, path, rng):
    write_qwen3vl(lx, path, rng, moe=True)


def write_gemma4(lx, path, rng):
    """Gemma 4 (E2B-shaped): a window on five layers of six (a per-layer flag array), the sliding layers'
    heads half as wide as the global ones' (key_length_swa), each width rotated whole, q/k norms, the global
    layers' rope factors (rope_freqs), Gemma 3n's per-layer inputs, and the last two layers reading the
    cache of the last layer of their kind before them (no K/V projections of their own)."""
    n, shared, per = 8, 2, 256
    sliding = [l % 6 != 5 for l in range(n)]
    m = Model(lx, rng, "gemma4", {**stack_keys(n, 131072, 512, 4), "attention.head_count_kv": 2,
                                  "attention.key_length": 128, "attention.value_length": 128,
                                  "attention.key_length_swa": 64, "attention.value_length_swa": 64,
                                  "rope.dimension_count": 128, "rope.dimension_count_swa": 64,
                                  "rope.freq_base": 1e6, "rope.freq_base_swa": 10000.0,
                                  "attention.sliding_window": 512,
                                  "attention.sliding_window_pattern": np.array(sliding, dtype=np.bool_),
                                  "attention.shared_kv_layers": shared, "embedding_length_per_layer_input": per,
                                  "final_logit_softcapping": 30.0}, vocab=spm_vocab)
    m.tensor("rope_freqs.weight", np.ones(64, dtype=np.float32))
    m.per_layer_inputs(n, per)
    for l, p in enumerate(layers(n)):
        width = 64 if sliding[l] else 128
        m.norm(p + "attn_norm")
        if l >= n - shared:
            m.weight(p + "attn_q", 4 * width, HIDDEN)
            m.weight(p + "attn_output", HIDDEN, 4 * width)
            m.norm(p + "attn_q_norm", width)
        else:
            m.attention(p, 4, 2, width)
            m.qk_norms(p, width)
        m.sandwiched_mlp(p, 512)
        m.per_layer_input(p, per)
    m.finish(path, tied=True)


def write_deepseek32(lx, path, rng, arch="deepseek32"):
    """DeepSeek-V3.2 (and GLM-5, glm-dsa, as llama.cpp reads it): latent attention in the absorbed form
    llama.cpp requires of it (one K/V head of kv_lora_rank + rope dims, the per-head sizes under *_mla,
    kv_b split into attn_k_b and attn_v_b), each layer's sparse-attention indexer (4 heads of 64: llama.cpp's
    graph needs at least 64), whose keys are cached beside the latent, then DeepSeek's MoE."""
    heads, q_rank, kv_rank, nope, rope, v_dim = 4, 128, 64, 32, 16, 32
    indexer_heads, indexer_dim = 4, 64
    m = Model(lx, rng, arch, {**stack_keys(3, 163840, 512, heads), "attention.head_count_kv": 1,
                              "attention.q_lora_rank": q_rank, "attention.kv_lora_rank": kv_rank,
                              "attention.key_length": kv_rank + rope, "attention.value_length": kv_rank,
                              "attention.key_length_mla": nope + rope, "attention.value_length_mla": v_dim,
                              "rope.dimension_count": rope, "rope.freq_base": 10000.0,
                              "attention.indexer.head_count": indexer_heads,
                              "attention.indexer.key_length": indexer_dim, "attention.indexer.top_k": 64,
                              **expert_keys(4, 2, 256), **shared_expert_keys(1, 2.5)})
    deepseek_layers(m, 3, (heads, q_rank, kv_rank, nope, rope, v_dim), (indexer_heads, indexer_dim))
    m.finish(path)


def write_glm_dsa(lx, path, rng):
    write_deepseek32(lx, path, rng, "glm-dsa")


def write_exaone4(lx, path, rng):
    """EXAONE 4.0 (1.2B-shaped, no window: llama.cpp slides one only for the 64-layer model): norms after
    attention and MLP only, q/k norms, an untied output."""
    m = Model(lx, rng, "exaone4", {**stack_keys(4, 65536, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6)})
    for p in layers(4):
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 64)
        m.norm(p + "post_attention_norm")
        m.gated_mlp(p, 512)
        m.norm(p + "post_ffw_norm")
    m.finish(path)


def write_ernie4_5_moe(lx, path, rng):
    """ERNIE 4.5 MoE: a dense first layer, then routed experts with a router score bias beside shared ones
    of their own width, a tied output."""
    m = Model(lx, rng, "ernie4_5-moe", {**stack_keys(3, 131072, 512, 4, eps=1e-5), **grouped_keys(2, 64, 500000),
                                        **expert_keys(8, 2, 128), "leading_dense_block_count": 1,
                                        "interleave_moe_layer_step": 1, "expert_shared_feed_forward_length": 256})
    moe_after_dense(m, 3, 2, 256, score_bias=True)
    m.finish(path, tied=True)


def write_seed_oss(lx, path, rng):
    """Seed-OSS: biased q/k/v, the norm before the MLP under llama.cpp's post_attention_norm, an untied
    output."""
    m = Model(lx, rng, "seed_oss", {**stack_keys(2, 524288, 512, 4), **grouped_keys(2, 64, 1e7)})
    for p in layers(2):
        m.llama_block(p, 2, 64, biases=True, mlp_norm="post_attention_norm")
    m.finish(path)


def write_arcee(lx, path, rng):
    """Arcee AFM: Llama's attention with an ungated squared-ReLU MLP (up and down only)."""
    m = Model(lx, rng, "arcee", {**stack_keys(2, 65536, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6)})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        m.weight(p + "ffn_up", 512, HIDDEN)
        m.weight(p + "ffn_down", HIDDEN, 512)
    m.finish(path)


def write_hunyuan_dense(lx, path, rng):
    """Hunyuan (dense): Llama layers with q/k norms, a tied output."""
    m = Model(lx, rng, "hunyuan-dense", {**stack_keys(2, 262144, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6)})
    for p in layers(2):
        m.llama_block(p, 2, 64, qk_norm=True)
    m.finish(path, tied=True)


def write_dots1(lx, path, rng):
    """dots.llm1: q/k norms, a dense first layer, then DeepSeek's MoE (routed experts, two shared ones as one
    MLP, the router's score bias)."""
    m = Model(lx, rng, "dots1", {**stack_keys(3, 32768, 512, 4), **grouped_keys(4, 64, 1e6),
                                 **expert_keys(8, 2, 128), **shared_expert_keys(2, 2.5)})
    qk_normed_moe_after_dense(m, 4, 2)
    m.finish(path)


def qk_normed_moe_after_dense(m, kv_heads, shared, fused=False):
    """Three layers of attention with q/k norms (q, k and v in one matrix when `fused`), a dense first MLP,
    then DeepSeek's MoE with `shared` shared experts (dots.llm1, Ling 2.0)."""
    for l, p in enumerate(layers(3)):
        m.norm(p + "attn_norm")
        if fused:
            m.fused_attention(p, kv_heads=kv_heads)
        else:
            m.attention(p, 4, kv_heads, 64)
        m.qk_norms(p, 64)
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts_with_shared(p, 8, 128, shared)


def write_hunyuan_moe(lx, path, rng):
    """Hunyuan-A13B (hunyuan-moe): q/k norms, routed experts in every layer (feed_forward_length their
    width to llama.cpp) beside a shared MLP of the same width (the converter writes both widths from
    intermediate_size, as transformers sizes both), a tied output."""
    m = Model(lx, rng, "hunyuan-moe", {**stack_keys(2, 262144, 128, 4, eps=1e-5), **grouped_keys(2, 64, 1e6),
                                       **expert_keys(8, 2, 128), "expert_shared_feed_forward_length": 128})
    for p in layers(2):
        m.qk_normed_attention(p, 2)
        m.experts(p, 8, 128)
        m.gated_mlp(p, 128, "_shexp")
    m.finish(path, tied=True)


def write_laguna(lx, path, rng):
    """Laguna (poolside): a query head count per layer, a softplus gate per head (attn_gate), q/k norms, a
    window on three layers of four (llama.cpp's built-in pattern, the first global), a dense first layer, then
    routed experts behind a sigmoid router with a score bias beside a shared MLP of its own width."""
    heads = [4, 8, 8, 8]
    m = Model(lx, rng, "laguna", {**stack_keys(4, 262144, 512, per_layer(heads)), **grouped_keys(2, 64, 5e5),
                                  **expert_keys(8, 2, 128), "leading_dense_block_count": 1,
                                  "expert_shared_feed_forward_length": 96, "expert_weights_scale": 2.5,
                                  "expert_weights_norm": True, "expert_gating_func": 2,
                                  "attention.sliding_window": 128, "rope.freq_base_swa": 10000.0})
    for l, p in enumerate(layers(4)):
        m.norm(p + "attn_norm")
        m.attention(p, heads[l], 2, 64)
        m.qk_norms(p, 64)
        m.weight(p + "attn_gate", heads[l], HIDDEN)
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
            continue
        m.experts(p, 8, 128)
        m.bias(p + "exp_probs_b", 8)
        m.gated_mlp(p, 96, "_shexp")
    m.finish(path)


def write_afmoe(lx, path, rng):
    """AFMoE (Arcee's Trinity): q/k norms and a sigmoid gate per output element (attn_gate), norms before and
    after attention and MLP, a window on three layers of four (llama.cpp's built-in pattern, the last global),
    a dense first layer, then routed experts with a router score bias beside one shared expert."""
    m = Model(lx, rng, "afmoe", {**stack_keys(4, 65536, 512, 4, eps=1e-5), **grouped_keys(2, 64, 10000),
                                 **expert_keys(8, 2, 128), "expert_shared_count": 1, "leading_dense_block_count": 1,
                                 "expert_weights_scale": 2.826, "expert_weights_norm": True,
                                 "expert_gating_func": 2, "attention.sliding_window": 128})
    for l, p in enumerate(layers(4)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 64)
        m.weight(p + "attn_gate", 4 * 64, HIDDEN)
        m.norm(p + "post_attention_norm")
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts(p, 8, 128)
            m.bias(p + "exp_probs_b", 8)
            m.gated_mlp(p, 128, "_shexp")
        m.norm(p + "post_ffw_norm")
    m.finish(path)


def write_bailingmoe2(lx, path, rng):
    """Ling 2.0 (bailingmoe2): fused qkv with q/k norms, rotary on half of each head, a dense first layer,
    then DeepSeek's MoE (routed experts, a shared one, the router's score bias)."""
    m = Model(lx, rng, "bailingmoe2", {**stack_keys(3, 32768, 512, 4), **grouped_keys(2, 64, 6e5),
                                       **expert_keys(8, 2, 128), **shared_expert_keys(1, 2.5),
                                       "expert_shared_feed_forward_length": 128, "rope.dimension_count": 32})
    qk_normed_moe_after_dense(m, 2, 1, fused=True)
    m.finish(path)


def write_apertus(lx, path, rng):
    """Apertus: q/k norms and an ungated xIELU MLP, whose per-layer activation parameters llama.cpp reads
    from xielu.* arrays."""
    m = Model(lx, rng, "apertus", {**stack_keys(2, 65536, 512, 4, eps=1e-5), **grouped_keys(2, 64, 12e6)})
    for key, value in (("alpha_n", 0.8), ("alpha_p", 0.8), ("beta", 0.5), ("eps", -1e-6)):
        m.b.value("xielu." + key, np.full(2, value, dtype=np.float32))
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 64)
        m.norm(p + "ffn_norm")
        m.weight(p + "ffn_up", 512, HIDDEN)
        m.weight(p + "ffn_down", HIDDEN, 512)
    m.finish(path)


def write_nemotron(lx, path, rng):
    """Nemotron-4 / Minitron: LayerNorms with biases (LayerNorm1P), rotary on half of each head, an ungated
    squared-ReLU MLP, an untied output."""
    m = Model(lx, rng, "nemotron", {**stack_keys(2, 4096, 512, 4, eps=1e-5, layer_norm=True),
                                    **grouped_keys(2, 64, 10000), "rope.dimension_count": 32})
    for p in layers(2):
        m.layer_norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.layer_norm(p + "ffn_norm")
        m.weight(p + "ffn_up", 512, HIDDEN)
        m.weight(p + "ffn_down", HIDDEN, 512)
    m.finish(path, last_norm="layer")


def write_qwen2vl(lx, path, rng):
    """Qwen2-VL's language model: Qwen2's layers (biased q/k/v) under multimodal rope, whose rotary dims
    split by time, height and width (rope.dimension_sections)."""
    m = Model(lx, rng, "qwen2vl", {**stack_keys(2, 32768, 512, 4), "attention.head_count_kv": 2,
                                   "rope.freq_base": 1e6, "rope.dimension_sections": per_layer([16, 8, 8, 0])})
    for p in layers(2):
        m.llama_block(p, 2, 64, biases=True)
    m.finish(path)


def write_bitnet(lx, path, rng):
    """BitNet b1.58: Llama's layers with a norm before the attention's output projection (attn_sub_norm)
    and one before the MLP's down projection (ffn_sub_norm), an output tied to the token embedding."""
    m = Model(lx, rng, "bitnet", {**stack_keys(2, 4096, 512, 4, eps=1e-5), "attention.head_count_kv": 2,
                                  "rope.freq_base": 500000.0})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.norm(p + "attn_sub_norm")
        m.norm(p + "ffn_norm")
        m.gated_mlp(p, 512)
        m.norm(p + "ffn_sub_norm", 512)
    m.finish(path, tied=True)


def write_chameleon(lx, path, rng):
    """Chameleon: Llama's layers with query and key norms per head (LayerNorm weights of head x width), an
    untied output over its text and image tokens."""
    m = Model(lx, rng, "chameleon", {**stack_keys(2, 4096, 512, 4, eps=1e-5), "attention.head_count_kv": 4,
                                     "rope.freq_base": 10000.0, "swin_norm": False})
    for p in layers(2):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 4, 64)
        m.norm(p + "attn_q_norm", 4, 64)
        m.norm(p + "attn_k_norm", 4, 64)
        m.norm(p + "ffn_norm")
        m.gated_mlp(p, 512)
    m.finish(path)


def write_paddleocr(lx, path, rng):
    """PaddleOCR-VL's language model: ERNIE 4.5's dense layers under multimodal rope (its rotary dims split by
    time, height and width), a tied output."""
    m = Model(lx, rng, "paddleocr", {**stack_keys(2, 131072, 512, 4, eps=1e-5), **grouped_keys(2, 64, 500000),
                                     "rope.dimension_sections": per_layer([16, 8, 8, 0])})
    for p in layers(2):
        m.llama_block(p, 2, 64)
    m.finish(path, tied=True)


def write_exaone_moe(lx, path, rng):
    """K-EXAONE (EXAONE MoE): q/k norms, a dense first layer, then DeepSeek's MoE (routed experts, a shared
    one, the router's score bias); sliding windows on three layers of every four, as llama.cpp lays them."""
    m = Model(lx, rng, "exaone-moe", {**stack_keys(5, 65536, 512, 4, eps=1e-5), **grouped_keys(2, 64, 1e6),
                                      **expert_keys(8, 2, 128), **shared_expert_keys(1, 2.5),
                                      "attention.sliding_window": 128})
    for l, p in enumerate(layers(5)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.qk_norms(p, 64)
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts_with_shared(p, 8, 128, 1)
    m.finish(path)


def write_jais2(lx, path, rng):
    """Jais 2: LayerNorms with biases, biased attention without grouped K/V heads, an ungated biased
    squared-ReLU MLP, an untied output."""
    m = Model(lx, rng, "jais2", {**stack_keys(2, 8192, 1024, 4, eps=1e-5, layer_norm=True),
                                 **grouped_keys(4, 64, 10000)})
    for p in layers(2):
        m.biased_attention(p, 4)
        m.layer_norm(p + "ffn_norm")
        m.biased(p + "ffn_up", 1024, HIDDEN)
        m.biased(p + "ffn_down", HIDDEN, 1024)
    m.finish(path, last_norm="layer")


def write_mistral4(lx, path, rng):
    """Mistral 4's language model: DeepSeek-V3's layers."""
    write_deepseek2(lx, path, rng, arch="mistral4")


def write_cohere2moe(lx, path, rng):
    """Command A MoE (cohere2moe): Cohere's attention beside the MLP after one norm, a dense first layer then
    routed experts, sliding windows where sliding_window_pattern says (three layers of four), a tied output."""
    m = Model(lx, rng, "cohere2moe", {**stack_keys(4, 8192, 512, 4, eps=1e-5), **grouped_keys(2, 64, 50000),
                                      "attention.layer_norm_epsilon": 1e-5, "attention.sliding_window": 128,
                                      "attention.sliding_window_pattern": np.array([1, 1, 1, 0], dtype=np.bool_),
                                      "logit_scale": 0.25, "leading_dense_block_count": 1,
                                      **expert_keys(8, 2, 128)})
    for l, p in enumerate(layers(4)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts(p, 8, 128)
    m.finish(path, tied=True)


def write_mimo2(lx, path, rng):
    """MiMo-V2-Flash (mimo2): a dense first layer then routed experts, sliding windows where
    sliding_window_pattern says (as integers here, which llama.cpp reads as it reads booleans), their rope
    base llama.cpp's default for them (no rope.freq_base_swa)."""
    m = Model(lx, rng, "mimo2", {**stack_keys(3, 32768, 512, 4), **grouped_keys(2, 64, 1e6),
                                 "attention.sliding_window": 128,
                                 "attention.sliding_window_pattern": per_layer([0, 1, 1]),
                                 "leading_dense_block_count": 1, **expert_keys(8, 2, 128)})
    for l, p in enumerate(layers(3)):
        m.norm(p + "attn_norm")
        m.attention(p, 4, 2, 64)
        m.norm(p + "ffn_norm")
        if l == 0:
            m.gated_mlp(p, 512)
        else:
            m.experts(p, 8, 128)
    m.finish(path)


QUANTIZED = [("llama", write_llama), ("qwen3moe", write_qwen3moe)]
RECORD_ONLY = [("llama4", write_llama4), ("t5", write_t5), ("glm4moe", write_glm4moe), ("qwen2", write_qwen2),
               ("qwen3", write_qwen3), ("qwen2moe", write_qwen2moe), ("gemma2", write_gemma2),
               ("gemma3", write_gemma3), ("cohere2", write_cohere2), ("olmo2", write_olmo2), ("phi3", write_phi3),
               ("phi2", write_phi2), ("gpt2", write_gpt2), ("starcoder2", write_starcoder2),
               ("deepseek2", write_deepseek2), ("gpt-oss", write_gpt_oss), ("bert", write_bert),
               ("mamba", write_mamba), ("mamba2", write_mamba2), ("nemotron_h", write_nemotron_h),
               ("granitehybrid", write_granitehybrid), ("jamba", write_jamba), ("falcon-h1", write_falcon_h1),
               ("smollm3", write_smollm3), ("olmoe", write_olmoe), ("granitemoe", write_granitemoe),
               ("falcon", write_falcon), ("gptneox", write_gptneox), ("stablelm", write_stablelm),
               ("bloom", write_bloom), ("command-r", write_command_r), ("internlm2", write_internlm2),
               ("lfm2", write_lfm2), ("mistral3", write_mistral3), ("phimoe", write_phimoe),
               ("deepseek", write_deepseek), ("granite", write_granite), ("olmo", write_olmo),
               ("chatglm", write_chatglm), ("glm4", write_glm4), ("minicpm", write_minicpm),
               ("baichuan", write_baichuan), ("exaone", write_exaone), ("ernie4_5", write_ernie4_5),
               ("mpt", write_mpt), ("t5encoder", write_t5encoder), ("nomic-bert", write_nomic_bert),
               ("modern-bert", write_modern_bert), ("qwen3next", write_qwen3next),
               ("qwen35", write_qwen35), ("qwen35moe", write_qwen35moe), ("gemma3n", write_gemma3n),
               ("starcoder", write_starcoder), ("dbrx", write_dbrx), ("minimax-m2", write_minimax_m2),
               ("qwen3vl", write_qwen3vl), ("qwen3vlmoe", write_qwen3vlmoe), ("lfm2moe", write_lfm2moe),
               ("nemotron_h_moe", write_nemotron_h_moe), ("gemma4", write_gemma4),
               ("deepseek32", write_deepseek32), ("glm-dsa", write_glm_dsa), ("exaone4", write_exaone4),
               ("ernie4_5-moe", write_ernie4_5_moe), ("seed_oss", write_seed_oss), ("arcee", write_arcee),
               ("hunyuan-dense", write_hunyuan_dense), ("dots1", write_dots1), ("hunyuan-moe", write_hunyuan_moe),
               ("bailingmoe2", write_bailingmoe2), ("apertus", write_apertus),
               ("nemotron", write_nemotron), ("laguna", write_laguna),
               ("afmoe", write_afmoe), ("qwen2vl", write_qwen2vl), ("bitnet", write_bitnet),
               ("chameleon", write_chameleon), ("paddleocr", write_paddleocr),
               ("exaone-moe", write_exaone_moe), ("jais2", write_jais2), ("mistral4", write_mistral4),
               ("cohere2moe", write_cohere2moe), ("mimo2", write_mimo2)]
