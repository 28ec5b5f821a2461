// What `plan` prints and writes: the verdict and the per-device bytes of the recommended split, the largest
// context and batch, every split with its bytes and tokens/s, the precisions that fit, the offload plan
// and the layer kinds' GPU priority (console and Markdown); the JSON with every figure under the names the
// console uses; and a CSV with one line per split. The picture is plan_plot.h's.
#pragma once
#include <string>

#include "analysis/plan/plan.h"
#include "core/json_writer.h"
#include "report/run_info.h"

namespace ma {

std::string render_plan_console(const Plan& p, bool color);
std::string render_plan_markdown(const Plan& p, const RunInfo& run);
void stream_plan_json(const Plan& p, const RunInfo& run, const JsonWriter::Sink& sink);
std::string render_plan_csv(const Plan& p);

}  // namespace ma
