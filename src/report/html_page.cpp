#include "report/html_page.h"

#include "report/html_writer.h"
#include "report/model_report_render.h"

namespace ma {
namespace {

// One stylesheet: colours are variables, set for light, for dark (the system's preference, or the toggle's
// data-theme), and for print (always light, no toggle, sections kept whole where they fit).
constexpr const char* kStyle = R"css(
:root { --bg: #ffffff; --fg: #1d2330; --muted: #5b6474; --line: #d9dee7; --head: #f2f4f8; --accent: #1f5fbf;
        --code: #f5f6f8; color-scheme: light; }
:root[data-theme="dark"] { --bg: #14171c; --fg: #e4e7ec; --muted: #9aa3b2; --line: #2f3540; --head: #1d2129;
        --accent: #7fb0ff; --code: #1b1f26; color-scheme: dark; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) { --bg: #14171c; --fg: #e4e7ec; --muted: #9aa3b2; --line: #2f3540;
        --head: #1d2129; --accent: #7fb0ff; --code: #1b1f26; color-scheme: dark; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 20px 0 8px; }
p { margin: 8px 0; color: var(--fg); }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.88em; background: var(--code); }
code { padding: 1px 4px; border-radius: 3px; }
pre { padding: 10px 12px; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 8px 0 14px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.fields th { font-weight: 600; color: var(--muted); white-space: nowrap; width: 1%; }
table.sortable thead th { background: var(--head); cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable thead th[aria-sort="ascending"]::after { content: " \25B2"; color: var(--accent); }
table.sortable thead th[aria-sort="descending"]::after { content: " \25BC"; color: var(--accent); }
.scroll { overflow-x: auto; }
figure { margin: 16px 0; }
figure svg { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #ffffff; }
figcaption { color: var(--muted); font-size: 0.9em; }
.toolbar { float: right; }
.toolbar button { font: inherit; color: var(--fg); background: var(--head); border: 1px solid var(--line);
                  border-radius: 6px; padding: 4px 10px; cursor: pointer; }
/* A field's value wraps anywhere; a wide table keeps its words whole and scrolls inside its box instead
   of breaking a tensor name into a column of letters. */
table.fields td { overflow-wrap: anywhere; }
table.sortable td { overflow-wrap: normal; }
td.num { white-space: nowrap; }
@media (max-width: 640px) {
  main { padding: 14px 10px 32px; } h1 { font-size: 1.35rem; } th, td { padding: 4px 6px; }
  table.fields th { white-space: normal; width: 38%; }
}
@media print {
  :root, :root[data-theme="dark"] { --bg: #ffffff; --fg: #000000; --muted: #444444; --line: #bbbbbb;
        --head: #eeeeee; --code: #f4f4f4; }
  .toolbar { display: none; }
  main { max-width: none; padding: 0; }
  section, figure, tr { break-inside: avoid; }
  .scroll { overflow: visible; }
}
)css";

// Sorting by a header click (numbers by value: "1,234", "12.5%", "3.2 GiB" keep their order; other text
// alphabetically, empty and "-" last), and the theme toggle. Nothing else runs.
constexpr const char* kScript = R"js(
(function () {
  "use strict";
  var units = { "": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12, "kib": 1024, "mib": 1048576,
                "gib": 1073741824, "tib": 1099511627776, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12 };
  function key(text) {
    var t = text.trim();
    var m = /^(-?[0-9][0-9,]*\.?[0-9]*(?:e[-+]?[0-9]+)?)\s*([a-z]*)/i.exec(t);
    if (m) {
      var u = units[m[2].toLowerCase()];
      var v = parseFloat(m[1].replace(/,/g, ""));
      if (!isNaN(v)) return { num: true, v: u ? v * u : v };
    }
    return { num: false, v: t.toLowerCase() };
  }
  function compare(a, b) {
    if (a.num && b.num) return a.v - b.v;
    if (a.num !== b.num) return a.num ? -1 : 1;
    if (a.v === b.v) return 0;
    if (a.v === "" || a.v === "-") return 1;
    if (b.v === "" || b.v === "-") return -1;
    return a.v < b.v ? -1 : 1;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          return dir * compare(key(r1.cells[col].textContent), key(r2.cells[col].textContent));
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });
  var button = document.getElementById("theme");
  button.addEventListener("click", function () {
    var root = document.documentElement;
    var dark = root.getAttribute("data-theme") === "dark" ||
               (!root.getAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
    root.setAttribute("data-theme", dark ? "light" : "dark");
  });
})();
)js";

// The diagram as an inline element: no XML declaration inside HTML.
std::string inline_svg(const std::string& svg) {
  size_t from = svg.rfind("<?xml", 0) == 0 ? svg.find("?>") + 2 : 0;
  while (from < svg.size() && (svg[from] == '\n' || svg[from] == '\r')) ++from;
  return svg.substr(from);
}

}  // namespace

std::string html_figure(const std::string& svg, const std::string& caption) {
  std::string out = "<figure>";
  out += inline_svg(svg);
  out += "<figcaption>";
  out += caption;
  out += "</figcaption></figure>\n";
  return out;
}

std::string html_page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"" +
         html_escaped(tool_version_text()) + "\">\n<title>" + html_escaped(title) + "</title>\n<style>" +
         kStyle +
         "</style>\n</head>\n<body>\n<main>\n"
         "<div class=\"toolbar\"><button id=\"theme\" type=\"button\" title=\"Light or "
         "dark\">Theme</button></div>\n" +
         body + "</main>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
}

std::string render_report_html(const ModelReport& r, const RunInfo& run, const std::string& diagram_svg) {
  HtmlWriter body;
  write_report_document(body, r, run);
  std::string content = body.take();
  if (!diagram_svg.empty()) {
    // After the identity section: the picture of what the rest of the page details.
    const std::string figure =
        "<section>\n<h2>Architecture diagram</h2>\n" +
        html_figure(diagram_svg, "The architecture of " + html_escaped(r.identity.display_name) +
                                     " as <code>--visualize</code> draws it.") +
        "</section>\n";
    const size_t second = content.find("<section>", content.find("<section>") + 1);
    content.insert(second == std::string::npos ? content.size() : second, figure);
  }
  return html_page("Model analysis: " + r.identity.display_name, content);
}

}  // namespace ma
