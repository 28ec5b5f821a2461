// Each section of the model report in each output form. Implemented one file per section under
// report/sections/; report/model_report_render.cpp puts them in order. JSON writers add their keys to the
// top-level object that is already open.
#pragma once
#include <optional>

#include "analysis/model_report.h"
#include "core/json_writer.h"
#include "report/console_writer.h"
#include "report/document_writer.h"

namespace ma {

// A model's layers in words: "32", or "4 encoder + 6 decoder" for an encoder-decoder (the report, the
// comparison table).
std::string layers_text(const ArchitectureDetails& s);
// Words the sections share: a count with separators, or "unknown" where the record has none (0); yes / no.
std::string count_or_unknown(uint64_t n);
std::string yes_no(bool b);

struct RenderOptions {
  bool detailed = false;  // --detailed: every section in full; otherwise the summary
};

void render_console(ConsoleWriter& w, const Identity& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const ArchitectureDetails& s, const ModelReport& r,
                    const RenderOptions& o);
void render_console(ConsoleWriter& w, const AttentionSummary& s, const ModelReport& r,
                    const RenderOptions& o);
void render_console(ConsoleWriter& w, const MoeSummary& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const SsmSummary& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const AdapterSummary& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const QuantizationInfo& s, const ModelReport& r,
                    const RenderOptions& o);
void render_console(ConsoleWriter& w, const MemoryReport& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const TokenizerInfo& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const Capabilities& s, const ModelReport& r, const RenderOptions& o);
void render_console(ConsoleWriter& w, const ModelMetadata& s, const ModelReport& r, const RenderOptions& o);

void write_json(JsonWriter& w, const Identity& s);
void write_json(JsonWriter& w, const ArchitectureDetails& s);
void write_json(JsonWriter& w, const AttentionSummary& s);
void write_json(JsonWriter& w, const std::optional<MoeSummary>& s);
void write_json(JsonWriter& w, const std::optional<SsmSummary>& s);
void write_json(JsonWriter& w, const std::optional<AdapterSummary>& s);
void write_json(JsonWriter& w, const QuantizationInfo& s);
void write_json(JsonWriter& w, const MemoryReport& s);
// `embedding_rows`: the model's vocab_size (0: unknown), set beside the tokenizer's vocabulary.
void write_json(JsonWriter& w, const std::optional<TokenizerInfo>& s, uint64_t embedding_rows);
void write_json(JsonWriter& w, const Capabilities& s);
void write_json(JsonWriter& w, const std::optional<ModelMetadata>& s);

void render_document(DocumentWriter& w, const Identity& s, const ModelReport& r);
void render_document(DocumentWriter& w, const ArchitectureDetails& s, const ModelReport& r);
void render_document(DocumentWriter& w, const AttentionSummary& s, const ModelReport& r);
void render_document(DocumentWriter& w, const MoeSummary& s, const ModelReport& r);
void render_document(DocumentWriter& w, const SsmSummary& s, const ModelReport& r);
void render_document(DocumentWriter& w, const AdapterSummary& s, const ModelReport& r);
void render_document(DocumentWriter& w, const QuantizationInfo& s, const ModelReport& r);
void render_document(DocumentWriter& w, const MemoryReport& s, const ModelReport& r);
void render_document(DocumentWriter& w, const TokenizerInfo& s, const ModelReport& r);
void render_document(DocumentWriter& w, const Capabilities& s, const ModelReport& r);
void render_document(DocumentWriter& w, const ModelMetadata& s, const ModelReport& r);

}  // namespace ma
