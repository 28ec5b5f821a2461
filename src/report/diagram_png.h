// Rasterizes a diagram's SVG to PNG with librsvg on cairo, and writes diagrams through write_output
// (io/output_file.h: files atomically, devices and pipes in place, "-" to stdout).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace ma {

// The PNG bytes of `svg` rendered `width_px` wide (0: the SVG's own width), the height following the SVG's
// aspect ratio. Throws Error(Malformed) for an SVG librsvg cannot read, Error(Limit) for a size over 16384
// px.
std::string render_diagram_png(const std::string& svg, uint32_t width_px = 0);

void write_diagram_png(const std::string& svg, const std::filesystem::path& out, uint32_t width_px = 0);

// The bytes of the file `out` names, by its extension (any case): ".svg" and "-" the SVG text, ".png" a PNG;
// anything else is refused with Error(Usage) rather than written as PNG bytes under a name that promises
// another format.
std::string diagram_file_bytes(const std::string& svg, const std::filesystem::path& out);
void write_diagram_file(const std::string& svg, const std::filesystem::path& out);

}  // namespace ma
