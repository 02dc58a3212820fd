internal import CCairo
public import Foundation
import ReceiptLayout
import ReceiptModel

/// A painter's cairo calls on a document, written down one per line, so that a minimal C
/// program can make the same calls (the benchmarks' cairo floor, scripts/bench/cairo-floor.c):
/// the same glyphs at the same positions with the same text and cluster maps, the same fills,
/// strokes, images and barcode masks, one line where the painter made one call. Images and
/// masks go to netpbm files beside the recording (P5 gray, P4 one bit per module).
///
/// For the benchmarks only (`receipt-bench record`): nothing in the product records.
package final class PaintRecording {
  /// The recording so far: `title …`, then `page`, `text`, `rect`, `stroke`, `image` and `mask` lines.
  package private(set) var text: String
  private let directory: URL
  private let name: String
  private var files = 0
  /// Images already written for earlier recordings (a logo is written once for a batch).
  private let images: Images

  /// The image files of a batch of recordings, by image.
  package final class Images {
    var paths: [GrayImage: String] = [:]
    package init() {}
  }

  /// A recording of a receipt titled `title`, its images written to `directory` as `name-N.pgm`
  /// unless `images` has them already.
  package init(title: String, directory: URL, name: String, images: Images) {
    text = "title \(title.isEmpty ? "receipt" : title.replacingOccurrences(of: "\n", with: " "))\n"
    self.directory = directory
    self.name = name
    self.images = images
  }

  func page(width: Double, height: Double) {
    text += "page \(width) \(height)\n"
  }

  /// One `cairo_show_text_glyphs` call (`clusters` empty and `utf8` empty: `cairo_show_glyphs`).
  func text(
    font: FontFace, xScale: Double, yScale: Double, ink: Ink, backward: Bool, glyphs: [cairo_glyph_t],
    clusters: [cairo_text_cluster_t], utf8: [UInt8]
  ) {
    var line = "text \(font.path) \(font.index) \(font.synthesizeBold ? 1 : 0) \(font.synthesizeOblique ? 1 : 0)"
    line += " \(font.isColor ? 1 : 0) \(xScale) \(yScale) \(ink == .black ? 0 : 1) \(backward ? 1 : 0)"
    line += " \(glyphs.count) \(clusters.count) \(utf8.count)\n"
    for glyph in glyphs { line += "\(glyph.index) \(glyph.x) \(glyph.y) " }
    line += "\n"
    for cluster in clusters { line += "\(cluster.num_bytes) \(cluster.num_glyphs) " }
    line += "\n"
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count * 2)
    for byte in utf8 {
      bytes.append(hex[Int(byte >> 4)])
      bytes.append(hex[Int(byte & 15)])
    }
    line += String(decoding: bytes, as: UTF8.self) + "\n"
    text += line
  }

  /// One filled rectangle.
  func rect(_ rect: Rect, ink: Ink) {
    text += "rect \(ink == .black ? 0 : 1) \(rect.x) \(rect.y) \(rect.width) \(rect.height) 0\n"
  }

  /// One path of rectangles (a linear barcode's bars), filled black once.
  func bars(_ bars: [Rect]) {
    var line = "bars 0 \(bars.count)"
    for bar in bars { line += " \(bar.x) \(bar.y) \(bar.width) \(bar.height)" }
    text += line + "\n"
  }

  /// One dashed rule, stroked along its middle.
  func stroke(_ rule: Rect, dash: Double, ink: Ink) {
    text += "stroke \(ink == .black ? 0 : 1) \(rule.x) \(rule.y) \(rule.width) \(rule.height) \(dash)\n"
  }

  /// An image's gray pixels scaled into `rect`.
  func image(_ image: GrayImage, in rect: Rect) throws {
    let path: String
    if let written = images.paths[image] {
      path = written
    } else {
      var file = Data("P5 \(image.width) \(image.height) 255\n".utf8)
      file.append(contentsOf: image.pixels)
      path = try write(file, suffix: "pgm")
      images.paths[image] = path
    }
    text += "image \(path) \(rect.x) \(rect.y) \(rect.width) \(rect.height)\n"
  }

  /// A 1-bit mask of modules (a barcode's rows), each `module` points, from `origin`.
  func mask(_ rows: ArraySlice<[Bool]>, width: Int, at origin: (x: Double, y: Double), module: (Double, Double)) throws
  {
    var file = Data("P4 \(width) \(rows.count)\n".utf8)
    for row in rows {
      var bytes = [UInt8](repeating: 0, count: (width + 7) / 8)
      for (x, dark) in row.enumerated() where dark { bytes[x >> 3] |= 0x80 >> UInt8(x & 7) }
      file.append(contentsOf: bytes)
    }
    let path = try write(file, suffix: "pbm")
    text += "mask \(path) \(origin.x) \(origin.y) \(module.0) \(module.1)\n"
  }

  private func write(_ data: Data, suffix: String) throws -> String {
    files += 1
    let url = directory.appendingPathComponent("\(name)-\(files).\(suffix)")
    try data.write(to: url)
    return url.path
  }
}
