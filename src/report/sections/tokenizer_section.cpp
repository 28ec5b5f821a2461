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

// UTF-8 is kept (the JSON reader validated it); C0/C1 control characters and DEL are escaped; texts longer
// than `max_chars` code points are cut.
std::string escape_controls(std::string_view s, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++chars > max_chars) {
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

std::string display_token(std::string_view s) {
  return escape_controls(s, kMaxTokenChars);
}

// A special token's text as shown: an empty one (a broken config's "") is shown quoted, never as a blank.
std::string shown_token(std::string_view s) {
  return s.empty() ? "\"\"" : display_token(s);
}

// "<s> (id 1)", or the text alone when no file gives its id.
std::string token_with_id(const SpecialToken& t) {
  return shown_token(t.content) + (t.id ? " (id " + std::to_string(*t.id) + ")" : "");
}

// A Markdown code span that holds any text: the fence is one backtick longer than the longest run inside.
std::string code_span(std::string_view text) {
  std::string s = shown_token(text);
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

// "128,256 (128,000 base + 256 added)" where added tokens extend the model's vocabulary, "32,000 (3 added
// tokens among them)" where they sit inside it (Llama-2's <unk>, <s>, </s>): as TokenizerInfo defines the
// split, the same for every format; "base" is the JSON's base_vocab_size, "added" its added_tokens.
std::string vocab_label(const TokenizerInfo& s) {
  const uint64_t added = s.added_tokens.value_or(0);
  if (!s.vocab_known) {
    bool has_json =
        std::find(s.files_read.begin(), s.files_read.end(), "tokenizer.json") != s.files_read.end();
    std::string why = has_json ? "tokenizer.json has no vocabulary" : "no tokenizer.json";
    if (added > 0) why += "; " + with_thousands(added) + " added";
    return "unknown (" + why + ")";
  }
  std::string v = with_thousands(s.vocab_size);
  const uint64_t beyond = s.vocab_size - std::min(s.vocab_size, s.base_vocab_size);
  if (beyond > 0)
    v += " (" + with_thousands(s.base_vocab_size) + " base + " + with_thousands(beyond) + " added" +
         (added > beyond ? "; " + with_thousands(added - beyond) + " more added tokens among the base" : "") +
         ")";
  else if (added > 0)
    v += " (" + with_thousands(added) + " added token" + (added == 1 ? "" : "s") + " among them)";
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

// "eos <|im_end|> (id 151645), pad <|endoftext|> (id 151643), 12 more": the named roles, and how many others.
std::string special_summary(const TokenizerInfo& s) {
  std::string v;
  size_t others = 0;
  for (const SpecialToken& t : s.special_tokens) {
    if (!is_named_role(t.role)) {
      ++others;
      continue;
    }
    v += (v.empty() ? "" : ", ") + t.role + " " + token_with_id(t);
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

std::optional<uint64_t> max_token_id(const TokenizerInfo& s) {
  if (s.token_ids.empty()) return std::nullopt;
  return s.token_ids.back().end - 1;
}

// The model's embedding rows against the token ids, by id (an added token's id can lie past a gap, so the
// counts alone do not tell): rows no token uses (padded to a round size, or untrained), and tokens whose id
// is at or beyond the rows (which the model cannot embed). With a tokenizer_config.json alone the ids known
// are the added tokens': the tokens without a row are counted among them, the unused rows are unknown.
struct VocabGap {
  std::optional<uint64_t> rows_without_token;
  uint64_t tokens_without_row = 0;
};
std::optional<VocabGap> vocab_gap(const TokenizerInfo& s, uint64_t embedding_rows) {
  if (!embedding_rows || s.token_ids.empty()) return std::nullopt;
  VocabGap g;
  g.tokens_without_row = token_ids_from(s, embedding_rows);
  if (s.vocab_known) g.rows_without_token = embedding_rows - (token_id_count(s) - g.tokens_without_row);
  return g;
}

bool worth_showing(const VocabGap& g) {
  return g.tokens_without_row > 0 || g.rows_without_token.value_or(0) > 0;
}

std::string vocab_gap_label(const TokenizerInfo& s, const VocabGap& g, uint64_t embedding_rows) {
  const std::string rows = with_thousands(embedding_rows);
  std::string v;
  if (g.rows_without_token.value_or(0) > 0)
    v = with_thousands(*g.rows_without_token) + " of the model's " + rows +
        " embedding rows have no token (padding to a round size, or untrained rows)";
  if (g.tokens_without_row > 0) {
    const bool one = g.tokens_without_row == 1;
    v += (v.empty() ? "" : "; ") + with_thousands(g.tokens_without_row) + (s.vocab_known ? "" : " added") +
         (one ? " token has an id" : " tokens have ids") + " at or beyond the model's " + rows +
         " embedding rows (the largest is " + std::to_string(*max_token_id(s)) +
         "): the model cannot embed " + (one ? "it" : "them");
  }
  return v;
}

}  // namespace

void render_console(ConsoleWriter& w, const TokenizerInfo& s, const ModelReport& r, const RenderOptions& o) {
  w.heading("TOKENIZER");
  w.field("type", type_label(s));
  if (!s.tokenizer_class.empty() && !s.model_type.empty()) w.field("algorithm", display_token(s.model_type));
  w.field("vocab size", vocab_label(s));
  if (const auto gap = vocab_gap(s, r.architecture.vocab_size); gap && worth_showing(*gap))
    w.field("embedding rows", vocab_gap_label(s, *gap, r.architecture.vocab_size));
  if (o.detailed && s.merges) w.field("merges", with_thousands(*s.merges));
  w.field("model max length", max_length_label(s));
  size_t additional = 0;
  for (const SpecialToken& t : s.special_tokens) {
    if (is_named_role(t.role)) {
      if (o.detailed) w.field(role_label(t.role), token_with_id(t));
      continue;
    }
    if (o.detailed && additional < kMaxListedAdditional)
      w.field(additional == 0 ? "other special tokens" : "",
              shown_token(t.content) + "  (" + display_token(t.role) +
                  (t.id ? ", id " + std::to_string(*t.id) : "") + ")");
    ++additional;
  }
  if (o.detailed && additional > kMaxListedAdditional)
    w.field("", "... and " + with_thousands(additional - kMaxListedAdditional) + " more");
  if (!o.detailed && !s.special_tokens.empty()) w.field("special tokens", special_summary(s));
  w.field("chat template", chat_template_label(s));
  if (o.detailed) w.field("files", files_label(s));
  for (const std::string& warning : s.warnings) w.field("warning", escape_controls(warning, warning.size()));
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
  opt_count("added_tokens", s->added_tokens);
  opt_count("max_token_id", max_token_id(*s));
  // Null where not compared (no rows, no ids; the unused rows without the whole vocabulary); 0 where equal.
  const std::optional<VocabGap> gap = vocab_gap(*s, embedding_rows);
  opt_count("rows_without_token", gap ? gap->rows_without_token : std::nullopt);
  opt_count("tokens_without_row", gap ? std::optional<uint64_t>(gap->tokens_without_row) : std::nullopt);
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
    opt_count("id", t.id);
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
  w.key("warnings").begin_array();
  for (const auto& warning : s->warnings) w.value(warning);
  w.end_array();
  w.end_object();
}

void render_document(DocumentWriter& w, const TokenizerInfo& s, const ModelReport& r) {
  w.heading(2, "Tokenizer");
  std::vector<std::pair<std::string, std::string>> rows = {{"Type", type_label(s)}};
  if (!s.model_type.empty()) rows.push_back({"Model", display_token(s.model_type)});
  rows.push_back({"Vocab Size", vocab_label(s)});
  if (const auto gap = vocab_gap(s, r.architecture.vocab_size); gap && worth_showing(*gap))
    rows.push_back({"Embedding Rows", vocab_gap_label(s, *gap, r.architecture.vocab_size)});
  if (s.merges) rows.push_back({"Merges", with_thousands(*s.merges)});
  rows.push_back({"Model Max Length", max_length_label(s)});
  rows.push_back({"Chat Template", chat_template_label(s)});
  rows.push_back({"Files", files_label(s)});
  w.fields(rows);  // its warnings are the document's Warnings (the report lists them among the model's)
  if (s.special_tokens.empty()) return;
  std::vector<std::vector<std::string>> tokens;
  for (const SpecialToken& t : s.special_tokens)
    tokens.push_back({display_token(t.role), code_span(t.content), t.id ? std::to_string(*t.id) : "unknown"});
  w.table({"Role", "Token", "Id"}, tokens);
}

}  // namespace ma
