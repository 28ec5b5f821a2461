#include "report/diagram_png.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cctype>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "io/atomic_file.h"

namespace ma {
namespace {

constexpr uint32_t kMaxSide = 16384;

struct GObjectFree {
  void operator()(void* p) const { g_object_unref(p); }
};
struct SurfaceFree {
  void operator()(cairo_surface_t* p) const { cairo_surface_destroy(p); }
};
struct CairoFree {
  void operator()(cairo_t* p) const { cairo_destroy(p); }
};

std::string take_message(GError* err) {
  std::string m = err && err->message ? err->message : "unknown error";
  if (err) g_error_free(err);
  return m;
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string render_diagram_png(const std::string& svg, uint32_t width_px) {
  GError* err = nullptr;
  std::unique_ptr<RsvgHandle, GObjectFree> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &err));
  if (!handle) throw Error(ErrorKind::Malformed, "", "diagram", "SVG not readable: " + take_message(err));
  gdouble svg_w = 0, svg_h = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &svg_w, &svg_h) || svg_w < 1 || svg_h < 1)
    throw Error(ErrorKind::Malformed, "", "diagram", "SVG has no width and height in pixels");
  const double scale = width_px ? width_px / svg_w : 1.0;
  const double w = std::round(svg_w * scale), h = std::round(svg_h * scale);
  if (w > kMaxSide || h > kMaxSide)
    throw Error(ErrorKind::Limit, "", "diagram",
                "PNG larger than " + std::to_string(kMaxSide) + " pixels a side");

  std::unique_ptr<cairo_surface_t, SurfaceFree> surface(
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(w), static_cast<int>(h)));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorKind::Limit, "", "diagram", "cannot allocate the image");
  std::unique_ptr<cairo_t, CairoFree> cr(cairo_create(surface.get()));
  const RsvgRectangle viewport{0, 0, w, h};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &err))
    throw Error(ErrorKind::Malformed, "", "diagram", "SVG not renderable: " + take_message(err));
  cairo_surface_flush(surface.get());

  std::string png;
  if (cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png) != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorKind::Internal, "", "diagram", "PNG encoding failed");
  return png;
}

void write_diagram_png(const std::string& svg, const std::filesystem::path& out, uint32_t width_px) {
  write_file_atomically(out, render_diagram_png(svg, width_px));
}

void write_diagram_file(const std::string& svg, const std::filesystem::path& out) {
  std::string ext = out.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".svg")
    write_file_atomically(out, svg);
  else
    write_diagram_png(svg, out);
}

}  // namespace ma
