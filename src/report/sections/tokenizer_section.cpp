// The tokenizer section: what the tokenizer files say (formats/tokenizer.h), in the console, JSON and
// Markdown. Token texts come from untrusted files: control characters are escaped before they reach a
// terminal, and Markdown shows them as code so "<s>" is not taken for HTML.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/units.h"
#include "report/section_renderers.h"

namespace ma {
namespace {

constexpr size_t kMaxTokenChars = 60;
constexpr size_t kMaxListedAdditional = 16;  // the console lists this many additional tokens, JSON all

// UTF-8 is kept (the JSON reader validated it); C0/C1 control characters and DEL are escaped; long texts cut.
std::string display_token(std::string_view s) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++chars > kMaxTokenChars) {
      out += "...";
      break;
    }
    bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (c < 0x20 || c == 0x7f || c1) {
      unsigned code = c1 ? static_cast<unsigned char>(s[++i]) : c;
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", code);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A Markdown code span that holds any text: the fence is one backtick longer than the longest run inside.
std::string code_span(std::string_view text) {
  std::string s = display_token(text);
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  bool pad = !s.empty() && (s.front() == '`' || s.back() == '`' || s.front() == ' ');
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

std::string type_label(const TokenizerInfo& s) {
  if (!s.tokenizer_class.empty()) return display_token(s.tokenizer_class);
  if (!s.model_type.empty()) return display_token(s.model_type);
  return "unknown";
}

std::string vocab_label(const TokenizerInfo& s) {
  if (!s.vocab_known) {
    bool has_json =
        std::find(s.files_read.begin(), s.files_read.end(), "tokenizer.json") != s.files_read.end();
    return has_json ? "unknown (tokenizer.json has no vocabulary)" : "unknown (no tokenizer.json)";
  }
  std::string v = with_thousands(s.vocab_size);
  if (s.added_tokens > 0)
    v += " (" + with_thousands(s.base_vocab_size) + " + " + with_thousands(s.added_tokens) + " added)";
  return v;
}

std::string max_length_label(const TokenizerInfo& s) {
  return s.model_max_length ? with_thousands(*s.model_max_length) : "not set";
}

std::string chat_template_label(const TokenizerInfo& s) {
  if (!s.has_chat_template) return "No";
  std::string v =
      "Yes (" + with_thousands(s.chat_template_length) + " characters, from " + s.chat_template_file;
  if (!s.chat_template_names.empty()) {
    v += "; " + std::to_string(s.chat_template_names.size()) + " named:";
    for (size_t i = 0; i < s.chat_template_names.size(); ++i)
      v += (i ? ", " : " ") + display_token(s.chat_template_names[i]);
  }
  return v + ")";
}

// "BOS Token" for the named roles, as seed 002's detailed output labels them.
std::string role_label(const std::string& role) {
  return role + " token";
}

bool is_named_role(const std::string& role) {
  static const char* const kNamed[] = {"bos", "eos", "unk", "pad", "sep", "cls", "mask"};
  return std::any_of(std::begin(kNamed), std::end(kNamed), [&](const char* n) { return role == n; });
}

// "eos <|im_end|>, pad <|endoftext|>, 12 more": the named roles, and how many others.
std::string special_summary(const TokenizerInfo& s) {
  std::string v;
  size_t others = 0;
  for (const SpecialToken& t : s.special_tokens) {
    if (!is_named_role(t.role)) {
      ++others;
      continue;
    }
    v += (v.empty() ? "" : ", ") + t.role + " " + display_token(t.content);
  }
  if (others > 0)
    v += (v.empty() ? "" : ", ") + with_thousands(others) + (v.empty() ? " additional" : " more");
  return v;
}

std::string files_label(const TokenizerInfo& s) {
  std::string v;
  for (const auto& f : s.files_read) v += (v.empty() ? "" : ", ") + f;
  return v;
}

// The model's embedding rows against the tokenizer's vocabulary, when both are known and differ: rows no
// token uses (padded to a round size, or untrained), or tokens with no row (which the model cannot embed).
struct VocabGap {
  uint64_t rows_without_token = 0, tokens_without_row = 0;
};
std::optional<VocabGap> vocab_gap(const TokenizerInfo& s, uint64_t embedding_rows) {
  if (!s.vocab_known || !embedding_rows || s.vocab_size == embedding_rows) return std::nullopt;
  if (embedding_rows > s.vocab_size) return VocabGap{embedding_rows - s.vocab_size, 0};
  return VocabGap{0, s.vocab_size - embedding_rows};
}

std::string vocab_gap_label(const VocabGap& g, uint64_t embedding_rows) {
  if (g.rows_without_token)
    return with_thousands(g.rows_without_token) + " of the model's " + with_thousands(embedding_rows) +
           " embedding rows have no token (padding to a round size, or untrained rows)";
  return with_thousands(g.tokens_without_row) + " tokens have ids at or beyond the model's " +
         with_thousands(embedding_rows) + " embedding rows: the model cannot embed them";
}

}  // namespace

void render_console(ConsoleWriter& w, const TokenizerInfo& s, const ModelReport& r, const RenderOptions& o) {
  w.heading("Tokenizer");
  w.field("type", type_label(s));
  if (!s.tokenizer_class.empty() && !s.model_type.empty()) w.field("algorithm", display_token(s.model_type));
  w.field("vocab size", vocab_label(s));
  if (const auto gap = vocab_gap(s, r.architecture.vocab_size))
    w.field("embedding rows", vocab_gap_label(*gap, r.architecture.vocab_size));
  if (o.detailed && s.merges) w.field("merges", with_thousands(*s.merges));
  w.field("model max length", max_length_label(s));
  size_t additional = 0;
  for (const SpecialToken& t : s.special_tokens) {
    if (is_named_role(t.role)) {
      if (o.detailed) w.field(role_label(t.role), display_token(t.content));
      continue;
    }
    if (o.detailed && additional < kMaxListedAdditional)
      w.field(additional == 0 ? "other special tokens" : "",
              display_token(t.content) + "  (" + display_token(t.role) + ")");
    ++additional;
  }
  if (o.detailed && additional > kMaxListedAdditional)
    w.field("", "... and " + with_thousands(additional - kMaxListedAdditional) + " more");
  if (!o.detailed && !s.special_tokens.empty()) w.field("special tokens", special_summary(s));
  w.field("chat template", chat_template_label(s));
  if (o.detailed) w.field("files", files_label(s));
}

void write_json(JsonWriter& w, const std::optional<TokenizerInfo>& s, uint64_t embedding_rows) {
  w.key("tokenizer");
  if (!s) {
    w.null();
    return;
  }
  auto opt_string = [&](const char* key, const std::string& v) {
    w.key(key);
    v.empty() ? w.null() : w.value(v);
  };
  auto opt_count = [&](const char* key, std::optional<uint64_t> v) {
    w.key(key);
    v ? w.value(*v) : w.null();
  };
  w.begin_object();
  // seed 002 (appendix G) names the tokenizer's class "tokenizer_type" (e.g. "GPT2TokenizerFast").
  opt_string("tokenizer_type", s->tokenizer_class.empty() ? s->model_type : s->tokenizer_class);
  opt_string("tokenizer_class", s->tokenizer_class);
  opt_string("model_type", s->model_type);
  auto known = [&](uint64_t v) { return s->vocab_known ? std::optional<uint64_t>(v) : std::nullopt; };
  opt_count("vocab_size", known(s->vocab_size));
  opt_count("base_vocab_size", known(s->base_vocab_size));
  opt_count("added_tokens", known(s->added_tokens));
  const std::optional<VocabGap> gap = vocab_gap(*s, embedding_rows);
  const bool compared = s->vocab_known && embedding_rows;  // 0 and 0 when equal; null when not compared
  opt_count("rows_without_token",
            compared ? std::optional<uint64_t>(gap ? gap->rows_without_token : 0) : std::nullopt);
  opt_count("tokens_without_row",
            compared ? std::optional<uint64_t>(gap ? gap->tokens_without_row : 0) : std::nullopt);
  if (s->merges) w.key("merges").value(*s->merges);
  opt_count("model_max_length", s->model_max_length);
  // seed 002's flat keys ("bos_token", "eos_token", ...) for the named roles, then the full list.
  for (const SpecialToken& t : s->special_tokens)
    if (is_named_role(t.role)) w.key(t.role + "_token").value(t.content);
  w.key("special_tokens").begin_array();
  for (const SpecialToken& t : s->special_tokens) {
    w.begin_object();
    w.key("role").value(t.role);
    w.key("content").value(t.content);
    w.end_object();
  }
  w.end_array();
  w.key("has_chat_template").value(s->has_chat_template);
  opt_count("chat_template_length",
            s->has_chat_template ? std::optional<uint64_t>(s->chat_template_length) : std::nullopt);
  if (s->has_chat_template) w.key("chat_template_file").value(s->chat_template_file);
  if (!s->chat_template_names.empty()) {
    w.key("chat_template_names").begin_array();
    for (const auto& n : s->chat_template_names) w.value(n);
    w.end_array();
  }
  w.key("files").begin_array();
  for (const auto& f : s->files_read) w.value(f);
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const TokenizerInfo& s, const ModelReport& r) {
  w.heading(2, "Tokenizer");
  std::vector<std::pair<std::string, std::string>> rows = {{"Type", type_label(s)}};
  if (!s.model_type.empty()) rows.push_back({"Model", display_token(s.model_type)});
  rows.push_back({"Vocab Size", vocab_label(s)});
  if (const auto gap = vocab_gap(s, r.architecture.vocab_size))
    rows.push_back({"Embedding Rows", vocab_gap_label(*gap, r.architecture.vocab_size)});
  if (s.merges) rows.push_back({"Merges", with_thousands(*s.merges)});
  rows.push_back({"Model Max Length", max_length_label(s)});
  rows.push_back({"Chat Template", chat_template_label(s)});
  rows.push_back({"Files", files_label(s)});
  w.fields(rows);
  if (s.special_tokens.empty()) return;
  std::vector<std::vector<std::string>> tokens;
  for (const SpecialToken& t : s.special_tokens)
    tokens.push_back({display_token(t.role), code_span(t.content)});
  w.table({"Role", "Token"}, tokens);
}

}  // namespace ma
