#include "report/plan_plot.h"

#include <algorithm>

#include "core/units.h"
#include "report/diagram_canvas.h"
#include "report/plan_words.h"
#include "report/plot_axes.h"

namespace ma {
namespace {

// Both plan plots' legend: a swatch per kind of bytes, then the dashed capacity line.
void draw_bytes_legend(diagram::Svg& svg, double x, double y,
                       const std::vector<std::pair<std::string, const std::string*>>& swatches,
                       const std::string& capacity) {
  for (const auto& [label, color] : swatches) {
    svg.rect(x, y - 10, 12, 12, *color);
    svg.text(x + 18, y, label, diagram::TextStyle{12, plot::kInk});
    y += 20;
  }
  svg.line(x, y - 4, x + 12, y - 4, plot::kVermillion, 1.5, true);
  svg.text(x + 18, y, capacity, diagram::TextStyle{12, plot::kInk});
}

// What the offload plot draws on each device's bar, bottom to top, in the colours of the split plot's kinds.
struct OffloadBar {
  std::string label, sublabel;
  uint64_t weights = 0, kv = 0, compute_buffer = 0;
  std::optional<uint64_t> capacity;  // the CPU's only when --cpu-ram gives it
  uint64_t used() const { return weights + kv + compute_buffer; }
};

std::vector<OffloadBar> offload_bars(const Plan& p, const OffloadPlan& o) {
  std::vector<OffloadBar> bars;
  for (size_t i = 0; i < o.devices.size(); ++i) {
    const OffloadDevice& d = o.devices[i];
    const std::string layers = d.end_layer > d.first_layer ? "layers " + std::to_string(d.first_layer) + "-" +
                                                                 std::to_string(d.end_layer - 1)
                                                           : "no layer";
    bars.push_back({"GPU " + std::to_string(i), layers, d.weights, d.kv, d.compute_buffer, d.capacity});
  }
  OffloadBar cpu{"CPU",          "RAM", o.cpu_bytes - std::min(o.cpu_bytes, o.cpu_kv_bytes),
                 o.cpu_kv_bytes, 0,     p.request.cpu_ram};
  bars.push_back(cpu);
  return bars;
}

// The llama.cpp offload the plan relies on where the model does not fit on the GPUs alone: a bar per GPU
// (its share of llama.cpp's layer split, less the routed experts --n-cpu-moe keeps in CPU RAM, their KV
// cache, the compute buffer) under its capacity, one for the CPU under --cpu-ram, and the layers by the
// device that holds them. Drawing the split instead showed the whole model standing on the GPU's line.
std::string render_offload_svg(const Plan& p, const OffloadPlan& o, uint64_t layers) {
  using diagram::Svg;
  using diagram::TextStyle;
  const std::vector<OffloadBar> bars = offload_bars(p, o);
  const double bar_w = 64, gap = 48, left = 90, top = 86, plot_h = 300;
  const int width =
      static_cast<int>(std::max(900.0, left + static_cast<double>(bars.size()) * (bar_w + gap) + 280));
  const double strip_y = top + plot_h + 80;
  const int height = static_cast<int>(strip_y) + 60;
  Svg svg(width, height, "Plan: " + p.model_id);
  svg.rect(0, 0, width, height, "#ffffff");
  TextStyle title{16, plot::kInk, true};
  title.min_size = 12;
  svg.fit(20, 28, width - 40, "Bytes per device with llama.cpp's CPU offload: " + p.model_id, title);
  TextStyle sub{12, plot::kMuted};
  sub.min_size = 10;
  svg.fit(20, 48, width - 40,
          llama_cpp_offload_flags(o) + " on " + devices_text(p) +
              (p.request.cpu_ram ? " + " + human_bytes(*p.request.cpu_ram) + " RAM" : ""),
          sub);
  svg.fit(20, 64, width - 40, o.fits ? "fits with CPU offload" : "does not fit, even with CPU offload", sub);
  uint64_t tallest = 0;
  for (const OffloadBar& b : bars) tallest = std::max({tallest, b.used(), b.capacity.value_or(0)});
  const double full_scale = std::max(1.0, static_cast<double>(tallest) * 1.12);
  auto y_of = [&](double bytes) { return top + plot_h - plot_h * std::min(bytes, full_scale) / full_scale; };
  svg.line(left - 6, top, left - 6, top + plot_h, plot::kAxis, 1);
  svg.text(left - 12, top + plot_h + 4, "0", TextStyle{11, plot::kMuted, false, diagram::Anchor::End});
  struct Part {
    uint64_t OffloadBar::*field;
    const char* label;
    const std::string* color;
  };
  const Part parts[] = {{&OffloadBar::weights, "weights", &plot::kBlue},
                        {&OffloadBar::kv, "KV cache", &plot::kOrange},
                        {&OffloadBar::compute_buffer, "compute buffer", &plot::kGreen}};
  for (size_t i = 0; i < bars.size(); ++i) {
    const OffloadBar& b = bars[i];
    const double x = left + static_cast<double>(i) * (bar_w + gap);
    double acc = 0;
    for (const Part& part : parts) {
      const double v = static_cast<double>(b.*part.field);
      if (v <= 0) continue;
      svg.rect(x, y_of(acc + v), bar_w, y_of(acc) - y_of(acc + v), *part.color, "#ffffff", 0, 0.5);
      acc += v;
    }
    // What the device holds, above both its bar and its capacity line (which the bar may pass or not reach).
    const bool over = b.capacity && b.used() > *b.capacity;
    const double above = std::min(y_of(acc), b.capacity ? y_of(static_cast<double>(*b.capacity)) : y_of(acc));
    svg.text(x + bar_w / 2, above - 5, human_bytes(b.used()),
             TextStyle{10, over ? plot::kVermillion : plot::kInk, over, diagram::Anchor::Middle});
    if (b.capacity) {
      const double y = y_of(static_cast<double>(*b.capacity));
      svg.line(x - 8, y, x + bar_w + 8, y, plot::kVermillion, 1.5, true);
    }
    const TextStyle label{11, plot::kInk, false, diagram::Anchor::Middle};
    const TextStyle detail{10, plot::kMuted, false, diagram::Anchor::Middle};
    svg.text(x + bar_w / 2, top + plot_h + 18, b.label, label);
    svg.text(x + bar_w / 2, top + plot_h + 32, b.sublabel, detail);
    svg.text(x + bar_w / 2, top + plot_h + 46,
             b.capacity ? "of " + human_bytes(*b.capacity) : std::string("no --cpu-ram"), detail);
  }
  std::vector<std::pair<std::string, const std::string*>> swatches;
  for (const Part& part : parts) swatches.emplace_back(part.label, part.color);
  draw_bytes_legend(svg, left + static_cast<double>(bars.size()) * (bar_w + gap) + 30, top + 10, swatches,
                    "capacity (CPU: --cpu-ram)");
  // The layers by device: the first ones on the CPU, then each GPU's; a grey band under the layers whose
  // routed experts --n-cpu-moe keeps in CPU RAM.
  const double strip_w = static_cast<double>(width) - 40;
  const double n = std::max<double>(1, static_cast<double>(layers));
  auto x_of = [&](uint64_t layer) { return 20 + strip_w * static_cast<double>(layer) / n; };
  svg.text(20, strip_y - 8, "Layers by device", TextStyle{12, plot::kInk, true});
  const std::string* palette[] = {&plot::kBlue, &plot::kOrange, &plot::kGreen, &plot::kPurple, &plot::kSky};
  const uint64_t first_gpu_layer = layers - std::min<uint64_t>(layers, o.gpu_layers);
  if (first_gpu_layer > 0) {
    svg.rect(x_of(0), strip_y, x_of(first_gpu_layer) - x_of(0), 22, plot::kFaint, "#ffffff", 0, 1);
    if (x_of(first_gpu_layer) - x_of(0) > 60)
      svg.text((x_of(0) + x_of(first_gpu_layer)) / 2, strip_y + 15, "CPU",
               TextStyle{11, plot::kInk, true, diagram::Anchor::Middle});
  }
  for (size_t i = 0; i < o.devices.size(); ++i) {
    const OffloadDevice& d = o.devices[i];
    if (d.end_layer <= d.first_layer) continue;
    const double x0 = x_of(d.first_layer), x1 = x_of(d.end_layer);
    svg.rect(x0, strip_y, x1 - x0, 22, *palette[i % 5], "#ffffff", 0, 1);
    if (x1 - x0 > 60)
      svg.text((x0 + x1) / 2, strip_y + 15, "GPU " + std::to_string(i),
               TextStyle{11, "#ffffff", true, diagram::Anchor::Middle});
  }
  if (o.cpu_moe_layers > 0) {
    const uint64_t end = std::min<uint64_t>(layers, o.cpu_moe_layers);
    svg.rect(x_of(0), strip_y + 26, x_of(end) - x_of(0), 6, plot::kMuted);
    svg.text(x_of(0), strip_y + 46,
             "experts in CPU RAM (--n-cpu-moe " + std::to_string(o.cpu_moe_layers) + ")",
             TextStyle{10, plot::kMuted});
  }
  return svg.finish();
}

}  // namespace

std::string render_plan_svg(const Plan& p) {
  using diagram::Svg;
  using diagram::TextStyle;
  const SplitPlan* c = shown_split(p);
  if (p.offload && !p.fits && c && !c->budget.stages.empty())
    return render_offload_svg(p, *p.offload, c->budget.stages.back().end_layer);
  const size_t stages = c ? c->budget.stages.size() : 0;
  const double bar_w = 56, gap = 24, left = 90, top = 86, plot_h = 300;
  const int width =
      static_cast<int>(std::max(900.0, left + static_cast<double>(stages) * (bar_w + gap) + 260));
  const int height = 486;
  Svg svg(width, height, "Plan: " + p.model_id);
  svg.rect(0, 0, width, height,
           "#ffffff");  // an opaque page, as every other plot: dark viewers lose the text
  TextStyle title{16, plot::kInk, true};
  title.min_size = 12;
  svg.fit(20, 28, width - 40, "Bytes per device: " + p.model_id, title);
  TextStyle sub{12, plot::kMuted};
  sub.min_size = 10;
  svg.fit(20, 48, width - 40, devices_text(p), sub);
  svg.fit(20, 64, width - 40, plan_verdict(p, false), sub);
  if (!c) return svg.finish();
  // The scale is the largest device's, with room above it, and taller where a stage does not fit: its bar
  // is drawn whole, never cut at the frame. Devices that differ each get their own capacity line.
  uint64_t largest = 0, tallest = 0;
  for (const StageBudget& st : c->budget.stages) {
    largest = std::max(largest, st.bytes.capacity);
    tallest = std::max(tallest, st.bytes.used());
  }
  const double cap = static_cast<double>(largest);
  const double full_scale = std::max(cap * 1.25, static_cast<double>(tallest) * 1.08);
  auto y_of = [&](double bytes) { return top + plot_h - plot_h * std::min(bytes, full_scale) / full_scale; };
  svg.line(left - 6, top, left - 6, top + plot_h, plot::kAxis, 1);
  TextStyle axis{11, plot::kMuted, false, diagram::Anchor::End};
  // The axis marks every device capacity (devices that differ: each kind's), one label where two would touch.
  std::vector<uint64_t> capacities;
  for (const StageBudget& st : c->budget.stages) capacities.push_back(st.bytes.capacity);
  std::sort(capacities.rbegin(), capacities.rend());
  double last_label_y = -100;
  for (uint64_t capacity : capacities) {
    const double y = y_of(static_cast<double>(capacity));
    if (y - last_label_y < 14) continue;
    svg.text(left - 12, y + 4, human_bytes(capacity), axis);
    last_label_y = y;
  }
  svg.text(left - 12, top + plot_h + 4, "0", axis);
  const bool alike = std::all_of(c->budget.stages.begin(), c->budget.stages.end(),
                                 [&](const StageBudget& st) { return st.bytes.capacity == largest; });
  for (size_t i = 0; i < stages; ++i) {
    const DeviceBytes& d = c->budget.stages[i].bytes;
    const double x = left + static_cast<double>(i) * (bar_w + gap);
    double acc = 0;
    for (const BytesKind& k : device_byte_kinds()) {
      const double b = static_cast<double>(d.*k.field);
      if (b <= 0) continue;
      svg.rect(x, y_of(acc + b), bar_w, y_of(acc) - y_of(acc + b), *k.color, "#ffffff", 0, 0.5);
      acc += b;
    }
    if (d.used() > d.capacity)  // what the stage needs, over the line it does not fit under
      svg.text(x + bar_w / 2, y_of(acc) - 4, human_bytes(d.used()),
               TextStyle{10, plot::kVermillion, true, diagram::Anchor::Middle});
    if (!alike) {  // over the bar, which may pass it
      const double y = y_of(static_cast<double>(d.capacity));
      svg.line(x - 6, y, x + bar_w + 6, y, plot::kVermillion, 1.5, true);
    }
    TextStyle label{11, plot::kInk, false, diagram::Anchor::Middle};
    svg.text(x + bar_w / 2, top + plot_h + 18, "stage " + std::to_string(i), label);
    svg.text(x + bar_w / 2, top + plot_h + 32,
             std::to_string(c->split.tp) + (c->split.tp == 1 ? " GPU" : " GPUs"), label);
  }
  if (alike)  // over the bars, which may pass it
    svg.line(left - 10, y_of(cap), left + static_cast<double>(stages) * (bar_w + gap), y_of(cap),
             plot::kVermillion, 1.5, true);
  std::vector<std::pair<std::string, const std::string*>> swatches;
  for (const BytesKind& k : device_byte_kinds()) swatches.emplace_back(k.label, k.color);
  draw_bytes_legend(svg, left + static_cast<double>(stages) * (bar_w + gap) + 10, top + 10, swatches,
                    "device capacity");
  // The layer strip: one cell per layer of the language stack, coloured by the stage that holds it.
  const size_t layers = c->budget.stages.empty() ? 0 : c->budget.stages.back().end_layer;
  const double strip_y = top + plot_h + 60, strip_w = static_cast<double>(width) - 40;
  svg.text(20, strip_y - 8, "Layers by device (pipeline stage)", TextStyle{12, plot::kInk, true});
  const std::string* palette[] = {&plot::kBlue, &plot::kOrange,     &plot::kGreen,  &plot::kPurple,
                                  &plot::kSky,  &plot::kVermillion, &plot::kYellow, &plot::kBlack};
  for (size_t i = 0; i < stages; ++i) {
    const StageBudget& st = c->budget.stages[i];
    const double x0 = 20 + strip_w * st.first_layer / std::max<double>(1, static_cast<double>(layers));
    const double x1 = 20 + strip_w * st.end_layer / std::max<double>(1, static_cast<double>(layers));
    svg.rect(x0, strip_y, x1 - x0, 22, *palette[i % 8], "#ffffff", 0, 1);
    if (x1 - x0 > 60)
      svg.text((x0 + x1) / 2, strip_y + 15,
               std::to_string(st.first_layer) + "-" + std::to_string(st.end_layer - 1),
               TextStyle{11, "#ffffff", true, diagram::Anchor::Middle});
  }
  return svg.finish();
}

}  // namespace ma
