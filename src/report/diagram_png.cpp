#include "report/diagram_png.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cctype>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "core/runtime_library.h"
#include "io/output_file.h"

namespace ma {
namespace {

constexpr uint32_t kMaxSide = 16384;

// librsvg, cairo and GLib are loaded when a PNG is first drawn, not linked: linked, their ~45 shared
// libraries tripled the start-up time of every command (1.9 -> 5.8 ms) and added 8 MB of RSS, for a feature
// most runs do not use. The headers still give every function its exact type.
class Raster {
 public:
  static const Raster& get() {
    static const Raster lib;
    if (!lib.libs_.missing().empty())
      throw Error(
          ErrorKind::NotFound, lib.libs_.missing(), "",
          "PNG diagrams need librsvg and cairo (Debian: librsvg2-2); --viz-output FILE.svg needs neither");
    return lib;
  }

  decltype(&rsvg_handle_new_from_data) new_from_data = nullptr;
  decltype(&rsvg_handle_get_intrinsic_size_in_pixels) intrinsic_size = nullptr;
  decltype(&rsvg_handle_render_document) render_document = nullptr;
  decltype(&g_object_unref) object_unref = nullptr;
  decltype(&g_error_free) error_free = nullptr;
  decltype(&cairo_image_surface_create) surface_create = nullptr;
  decltype(&cairo_surface_status) surface_status = nullptr;
  decltype(&cairo_surface_flush) surface_flush = nullptr;
  decltype(&cairo_surface_write_to_png_stream) write_png = nullptr;
  decltype(&cairo_surface_destroy) surface_destroy = nullptr;
  decltype(&cairo_create) create = nullptr;
  decltype(&cairo_destroy) destroy = nullptr;

 private:
  Raster() {
    void* rsvg = libs_.open("librsvg-2.so.2");
    void* cairo = libs_.open("libcairo.so.2");
    void* gobject = libs_.open("libgobject-2.0.so.0");
    void* glib = libs_.open("libglib-2.0.so.0");
    if (!libs_.missing().empty()) return;
    libs_.bind(rsvg, "rsvg_handle_new_from_data", new_from_data);
    libs_.bind(rsvg, "rsvg_handle_get_intrinsic_size_in_pixels", intrinsic_size);
    libs_.bind(rsvg, "rsvg_handle_render_document", render_document);
    libs_.bind(gobject, "g_object_unref", object_unref);
    libs_.bind(glib, "g_error_free", error_free);
    libs_.bind(cairo, "cairo_image_surface_create", surface_create);
    libs_.bind(cairo, "cairo_surface_status", surface_status);
    libs_.bind(cairo, "cairo_surface_flush", surface_flush);
    libs_.bind(cairo, "cairo_surface_write_to_png_stream", write_png);
    libs_.bind(cairo, "cairo_surface_destroy", surface_destroy);
    libs_.bind(cairo, "cairo_create", create);
    libs_.bind(cairo, "cairo_destroy", destroy);
  }
  RuntimeLibraries libs_;
};

struct GObjectFree {
  void operator()(void* p) const { Raster::get().object_unref(p); }
};
struct SurfaceFree {
  void operator()(cairo_surface_t* p) const { Raster::get().surface_destroy(p); }
};
struct CairoFree {
  void operator()(cairo_t* p) const { Raster::get().destroy(p); }
};

std::string take_message(GError* err) {
  std::string m = err && err->message ? err->message : "unknown error";
  if (err) Raster::get().error_free(err);
  return m;
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string render_diagram_png(const std::string& svg, uint32_t width_px) {
  const Raster& lib = Raster::get();
  GError* err = nullptr;
  std::unique_ptr<RsvgHandle, GObjectFree> handle(
      lib.new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &err));
  if (!handle) throw Error(ErrorKind::Malformed, "", "diagram", "SVG not readable: " + take_message(err));
  gdouble svg_w = 0, svg_h = 0;
  if (!lib.intrinsic_size(handle.get(), &svg_w, &svg_h) || svg_w < 1 || svg_h < 1)
    throw Error(ErrorKind::Malformed, "", "diagram", "SVG has no width and height in pixels");
  const double scale = width_px ? width_px / svg_w : 1.0;
  const double w = std::round(svg_w * scale), h = std::round(svg_h * scale);
  if (w > kMaxSide || h > kMaxSide)
    throw Error(ErrorKind::Limit, "", "diagram",
                "PNG larger than " + std::to_string(kMaxSide) + " pixels a side");

  std::unique_ptr<cairo_surface_t, SurfaceFree> surface(
      lib.surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(w), static_cast<int>(h)));
  if (lib.surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorKind::Limit, "", "diagram", "cannot allocate the image");
  std::unique_ptr<cairo_t, CairoFree> cr(lib.create(surface.get()));
  const RsvgRectangle viewport{0, 0, w, h};
  if (!lib.render_document(handle.get(), cr.get(), &viewport, &err))
    throw Error(ErrorKind::Malformed, "", "diagram", "SVG not renderable: " + take_message(err));
  lib.surface_flush(surface.get());

  std::string png;
  if (lib.write_png(surface.get(), append_bytes, &png) != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorKind::Internal, "", "diagram", "PNG encoding failed");
  return png;
}

void write_diagram_png(const std::string& svg, const std::filesystem::path& out, uint32_t width_px) {
  write_output(out.string(), render_diagram_png(svg, width_px));
}

std::string diagram_file_bytes(const std::string& svg, const std::filesystem::path& out) {
  std::string ext = out.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out == "-" || ext == ".svg") return svg;
  if (ext == ".png") return render_diagram_png(svg);
  throw Error(ErrorKind::Usage, out.string(), "", "an image file name must end in .png or .svg");
}

void write_diagram_file(const std::string& svg, const std::filesystem::path& out) {
  write_output(out.string(), diagram_file_bytes(svg, out));
}

}  // namespace ma
