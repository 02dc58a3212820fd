internal import CCairo
import Foundation

/// An owning cairo surface: destroyed in `deinit`; created only when cairo reports success, so
/// its pixel data is there (`cairo_image_surface_get_data` is NULL on an error surface, and a
/// force unwrap of it once crashed the process on a crafted image).
final class CairoSurface {
  let pointer: OpaquePointer

  /// Takes over a surface cairo returned (also an error surface), checking its status.
  init(taking surface: OpaquePointer?, what: String) throws {
    guard let surface else { throw RenderError.cairo("cairo returned no surface for \(what)") }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(surface)
      throw RenderError.cairo("\(what): \(String(cString: cairo_status_to_string(status)))")
    }
    pointer = surface
  }

  /// An image surface; sizes beyond cairo's 32,767-pixel limit are refused with the reason.
  static func image(_ format: cairo_format_t, width: Int, height: Int) throws -> CairoSurface {
    guard width > 0, height > 0, width <= 32_767, height <= 32_767 else {
      throw RenderError.tooLarge(width: width, height: height)
    }
    return try CairoSurface(
      taking: cairo_image_surface_create(format, Int32(width), Int32(height)), what: "a \(width)×\(height) image")
  }

  deinit { cairo_surface_destroy(pointer) }

  /// The pixel rows of an image surface (after `flush`).
  func pixels() throws -> (data: UnsafeMutablePointer<UInt8>, stride: Int) {
    cairo_surface_flush(pointer)
    try check()
    guard let data = cairo_image_surface_get_data(pointer) else {
      throw RenderError.cairo("the image surface has no pixel data")
    }
    return (data, Int(cairo_image_surface_get_stride(pointer)))
  }

  /// Throws if cairo reported an error on the surface.
  func check() throws {
    let status = cairo_surface_status(pointer)
    guard status == CAIRO_STATUS_SUCCESS else {
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
  }
}

/// An owning cairo drawing context on a surface.
final class CairoContext {
  let pointer: OpaquePointer
  /// Kept alive while the context draws on it.
  let surface: CairoSurface

  init(_ surface: CairoSurface) throws {
    self.surface = surface
    guard let context = cairo_create(surface.pointer) else { throw RenderError.cairo("cairo_create returned NULL") }
    let status = cairo_status(context)
    guard status == CAIRO_STATUS_SUCCESS else {
      cairo_destroy(context)
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
    pointer = context
  }

  deinit { cairo_destroy(pointer) }
}
