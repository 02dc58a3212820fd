internal import CCairo
internal import CJPEG
import Foundation

/// Decodes JPEG logos with libjpeg into a cairo surface.
enum JPEGDecoder {
  /// The image as an RGB24 cairo surface holding its gray values (caller destroys it).
  static func surface(_ data: Data) throws -> OpaquePointer {
    var width: Int32 = 0
    var height: Int32 = 0
    var message = [CChar](repeating: 0, count: 200)
    let sized = data.withUnsafeBytes { bytes in
      cjpeg_decode_gray(
        bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, nil, &width, &height, &message, message.count)
    }
    guard sized == 0 else { throw RenderError.image("cannot read JPEG: \(Self.text(message))") }
    var gray = [UInt8](repeating: 255, count: Int(width) * Int(height))
    let decoded = data.withUnsafeBytes { bytes in
      cjpeg_decode_gray(
        bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &gray, &width, &height, &message, message.count)
    }
    guard decoded == 0 else { throw RenderError.image("cannot decode JPEG: \(Self.text(message))") }
    let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)!
    let stride = Int(cairo_image_surface_get_stride(surface))
    let pixels = cairo_image_surface_get_data(surface)!
    for y in 0..<Int(height) {
      let row = UnsafeMutableRawPointer(pixels + y * stride).assumingMemoryBound(to: UInt32.self)
      for x in 0..<Int(width) {
        let v = UInt32(gray[y * Int(width) + x])
        row[x] = v << 16 | v << 8 | v
      }
    }
    cairo_surface_mark_dirty(surface)
    return surface
  }

  /// A NUL-terminated C message buffer as a string.
  private static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
