internal import CPNG
public import Foundation
import ReceiptModel

/// Encodes a raster page as a grayscale PNG through libpng: bit depth 1 for 1-bit pages (what
/// the thermal head prints), 8 for gray pages; the resolution is recorded in `pHYs`.
public struct PNGWriter: Sendable {
  /// Creates a writer.
  public init() {}

  /// The PNG bytes of an image at a resolution (dots per inch).
  public func encode(_ image: RasterImage, dpi: Int) throws -> Data {
    // PNG gray is 0 = black, so 1-bit rows (1 = black) are inverted.
    let rows = image.bitsPerPixel == 1 ? image.data.map { ~$0 } : image.data
    let sink = ByteSink()
    let status = rows.withUnsafeBufferPointer { buffer in
      cpng_write_gray(
        buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bitsPerPixel),
        Int32(image.bytesPerLine), Int32(dpi),
        { context, bytes, length in
          guard let context, let bytes else { return }
          Unmanaged<ByteSink>.fromOpaque(context).takeUnretainedValue().append(bytes, count: length)
        }, Unmanaged.passUnretained(sink).toOpaque())
    }
    guard status == 0 else { throw RenderError.output("libpng failed to encode a \(image.width)×\(image.height) page") }
    return withExtendedLifetime(sink) { sink.data }
  }

  /// libpng's version.
  public static var libpngVersion: String { String(cString: cpng_version()) }
}
