internal import CJPEG
internal import CPNG
public import Foundation

/// An image decoded for printing: 8-bit gray, 0 = black, alpha already composited onto white.
public struct GrayImage: Hashable, Sendable {
  public let width: Int
  public let height: Int
  /// `width × height` bytes, row by row.
  public let pixels: [UInt8]

  /// Creates an image from gray pixels (`width × height` bytes, 0 = black).
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height, "a gray image has width × height bytes")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Decodes a PNG or JPEG file within the decoder's bounds (at most 8,192 pixels a side and
  /// 16 megapixels); errors are ``LayoutError/image(_:)``.
  public static func decode(_ data: Data) throws -> GrayImage { try ImageDecoder.decode(data) }

  /// Hashes the size and up to 512 evenly spaced pixels: equal images hash equal, and a logo's
  /// hash costs the same whatever its size (caches look images up for every receipt).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(width)
    hasher.combine(height)
    let step = max(1, pixels.count / 512)
    pixels.withUnsafeBufferPointer { buffer in
      var sample = [UInt8]()
      sample.reserveCapacity(513)
      for i in stride(from: 0, to: buffer.count, by: step) { sample.append(buffer[i]) }
      sample.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  /// Whether `data` starts like a PNG or a JPEG file.
  public static func isImage(_ data: Data) -> Bool { (try? ImageDecoder.format(of: data)) != nil }
}

/// The one path from image bytes (PNG, JPEG) to pixels, bounded before anything is decoded:
/// the size comes from the decoder's own header reader (libpng, libjpeg — never a hand scan,
/// which a file with a decoy frame header once fooled), is checked against the limits, and only
/// then is a buffer of exactly that size decoded into. Every problem is a data error
/// (`LayoutError.image`) naming what is wrong.
enum ImageDecoder {
  /// Largest side in pixels.
  static let maxSide = 8192
  /// Most pixels of one image (16 MiB decoded).
  static let maxPixels = 1 << 24
  /// libjpeg's working memory, and the most progressive scans a JPEG may have.
  static let jpegMemory = 64 << 20
  static let jpegScans = 200

  enum Format { case png, jpeg }

  static func format(of data: Data) throws -> Format {
    if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if data.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    throw LayoutError.image("not a PNG or JPEG file (\(data.count) bytes); use a .png or .jpg logo")
  }

  /// Width and height from the decoder's header reader, checked against the limits.
  static func size(of data: Data) throws -> (width: Int, height: Int) {
    let format = try format(of: data)
    var width: Int32 = 0
    var height: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw -> Int32 in
      let bytes = raw.bindMemory(to: UInt8.self).baseAddress
      switch format {
      case .png: return cpng_read_size(bytes, raw.count, &width, &height, &message, message.count)
      case .jpeg: return cjpeg_read_size(bytes, raw.count, &width, &height, &message, message.count)
      }
    }
    guard status == 0 else { throw LayoutError.image("cannot read the \(format) header: \(text(message))") }
    guard width > 0, height > 0 else { throw LayoutError.image("the \(format) header says \(width)×\(height) pixels") }
    guard width <= maxSide, height <= maxSide, Int(width) * Int(height) <= maxPixels else {
      throw LayoutError.image(
        "\(width)×\(height) pixels is too large (at most \(maxSide) per side and \(maxPixels / 1_048_576) megapixels); "
          + "scale the logo down to the printer's width (576 dots on 80 mm)")
    }
    return (Int(width), Int(height))
  }

  /// Decodes to gray within the limits.
  static func decode(_ data: Data) throws -> GrayImage {
    let format = try format(of: data)
    let (width, height) = try size(of: data)
    var pixels = [UInt8](repeating: 255, count: width * height)
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw -> Int32 in
      let bytes = raw.bindMemory(to: UInt8.self).baseAddress
      return pixels.withUnsafeMutableBufferPointer { out in
        switch format {
        case .png:
          return cpng_decode_gray(
            bytes, raw.count, out.baseAddress, Int32(width), Int32(height), &message, message.count)
        case .jpeg:
          return cjpeg_decode_gray(
            bytes, raw.count, out.baseAddress, Int32(width), Int32(height), jpegMemory, Int32(jpegScans), &message,
            message.count)
        }
      }
    }
    guard status == 0 else { throw LayoutError.image("cannot decode the \(format): \(text(message))") }
    return GrayImage(width: width, height: height, pixels: pixels)
  }

  /// A NUL-terminated C message buffer as a string.
  private static func text(_ buffer: [CChar]) -> String {
    let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return message.isEmpty ? "the file is damaged" : message
  }
}

extension ImageDecoder.Format: CustomStringConvertible {
  var description: String { self == .png ? "PNG" : "JPEG" }
}
