public import Foundation
public import ReceiptLayout
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// Draws PDF pages as gray pixels with poppler (`pdfinfo` and `pdftoppm` of poppler-utils), in a
/// process of its own: PDFs come from the network (IPP clients), and a PDF that crashes poppler,
/// loops or asks for gigabytes ends that process — never the daemon — within a time and a
/// memory bound. poppler is the maintained PDF renderer of the Linux desktop (it draws through
/// cairo and FreeType, as receipt does).
public enum PDFRasterizer {
  /// A drawn page: its pixels at the asked resolution and its size as drawn, in points.
  public struct Page: Sendable {
    public var image: GrayImage
    public var width: Double
    public var length: Double
  }

  /// Seconds one poppler process may take.
  public static let timeout: TimeInterval = 60
  /// Address space of one poppler process (1 GiB).
  public static let memoryLimit = 1 << 30

  /// Draws the pages `include` accepts (1-based numbers) at `resolution` dots per inch; a page is
  /// drawn `fitWidth` points wide when that is given (its length in proportion), else at its own
  /// size. At most `maxPages` pages and `maxPixels` pixels in all.
  public static func rasterize(
    _ pdf: Data, resolution: Int, fitWidth: Double?, pages include: (Int) -> Bool, maxPages: Int, maxPixels: Int
  ) throws -> [Page] {
    let file = try TemporaryFile(pdf, suffix: ".pdf")
    defer { file.remove() }
    let sizes = try pageSizes(file.path)
    let chosen = sizes.indices.map { $0 + 1 }.filter(include)
    guard chosen.count <= maxPages else {
      throw RenderError.document("the PDF has \(chosen.count) pages to print; at most \(maxPages) are printed at once")
    }
    var pages: [Page] = []
    var pixels = 0
    for number in chosen {
      let (width, length) = sizes[number - 1]
      let scale = fitWidth.map { $0 / width } ?? 1
      // A MediaBox is the PDF's to say (`1e300`): checked before it becomes a number of dots.
      let wide = (width * scale * Double(resolution) / 72).roundedInt(in: 1...16_384)
      let long = (length * scale * Double(resolution) / 72).roundedInt(in: 1...65_536)
      guard let dotsWide = wide, let dotsLong = long, pixels + dotsWide * dotsLong <= maxPixels else {
        throw RenderError.document(
          "page \(number) of the PDF (\(Self.points(width)) × \(Self.points(length)) pt) is too large to print: "
            + "a page may be at most 16,384 × 65,536 dots and the document \(maxPixels >> 20) million dots")
      }
      pixels += dotsWide * dotsLong
      var arguments = ["-gray", "-f", "\(number)", "-l", "\(number)", "-singlefile"]
      arguments += fitWidth == nil ? ["-r", "\(resolution)"] : ["-scale-to-x", "\(dotsWide)", "-scale-to-y", "-1"]
      let output = try run("pdftoppm", arguments + [file.path])
      let image = try PortableGrayMap.read(output, maxPixels: dotsWide * dotsLong * 2 + 4096)
      pages.append(
        Page(
          image: image, width: Double(image.width) * 72 / Double(resolution),
          length: Double(image.height) * 72 / Double(resolution)))
    }
    return pages
  }

  /// A page size for a message: whole points, or the number as poppler gave it when it is not
  /// one a page could have.
  static func points(_ value: Double) -> String {
    value.roundedInt(.down, in: 0...1_000_000_000).map(String.init) ?? "\(value)"
  }

  /// Each page's width and length in points as shown (rotation applied), from `pdfinfo`.
  static func pageSizes(_ path: String) throws -> [(Double, Double)] {
    let info = String(decoding: try run("pdfinfo", [path]), as: UTF8.self)
    guard let line = info.split(separator: "\n").first(where: { $0.hasPrefix("Pages:") }),
      let count = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)), count > 0
    else { throw RenderError.document("poppler finds no page in the PDF") }
    guard count <= 10_000 else { throw RenderError.document("the PDF has \(count) pages") }
    let last = min(count, 10_000)
    let detail = String(decoding: try run("pdfinfo", ["-f", "1", "-l", "\(last)", path]), as: UTF8.self)
    var sizes: [Int: (Double, Double)] = [:]
    var rotations: [Int: Int] = [:]
    for line in detail.split(separator: "\n") where line.hasPrefix("Page ") {
      let words = line.split(separator: " ", omittingEmptySubsequences: true)
      guard words.count >= 4, let number = Int(words[1]) else { continue }
      if words[2] == "size:", words.count >= 6, let w = Double(words[3]), let h = Double(words[5]) {
        sizes[number] = (w, h)
      } else if words[2] == "rot:", let r = Int(words[3]) {
        rotations[number] = r
      }
    }
    return try (1...last).map { number in
      guard let (w, h) = sizes[number], w > 0, h > 0 else {
        throw RenderError.document("poppler cannot tell the size of page \(number) of the PDF")
      }
      return (rotations[number] ?? 0) % 180 == 0 ? (w, h) : (h, w)
    }
  }

  /// Runs a poppler tool under the time and memory bounds; its standard output, or an error
  /// with what it said.
  static func run(_ tool: String, _ arguments: [String]) throws -> Data {
    let path = ["/usr/bin/", "/usr/local/bin/"].map { $0 + tool }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let path else {
      throw RenderError.document(
        "\(tool) is not installed: printing PDFs needs poppler (apt-get install poppler-utils)")
    }
    let result = try BoundedProcess.run(path, arguments, timeout: timeout, memoryLimit: memoryLimit)
    guard result.succeeded else {
      let said = String(decoding: result.error.prefix(300), as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      let why =
        if result.timedOut {
          "took longer than \(Int(timeout)) s"
        } else if let signal = result.signal {
          signal == SIGXCPU || signal == SIGKILL
            ? "was ended at the time or memory limit for one document" : "crashed (signal \(signal))"
        } else {
          "failed (\(said.isEmpty ? "no message" : said))"
        }
      throw RenderError.document("poppler's \(tool) \(why): the PDF cannot be printed")
    }
    return result.output
  }
}

/// Reads the binary PGM (`P5`) pdftoppm writes.
enum PortableGrayMap {
  static func read(_ data: Data, maxPixels: Int) throws -> GrayImage {
    var index = data.startIndex
    func token() -> String {
      while index < data.endIndex {
        if data[index] == UInt8(ascii: "#") {
          while index < data.endIndex, data[index] != 0x0A { index += 1 }
        } else if [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) {
          index += 1
        } else {
          break
        }
      }
      let start = index
      while index < data.endIndex, ![0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
      return String(decoding: data[start..<index], as: UTF8.self)
    }
    guard token() == "P5", let width = Int(token()), let height = Int(token()), let maxValue = Int(token()),
      maxValue == 255, width > 0, height > 0, width * height <= maxPixels, index < data.endIndex
    else { throw RenderError.document("poppler's page image is not the expected 8-bit gray map") }
    index += 1  // one whitespace byte ends the header
    guard data.endIndex - index >= width * height else {
      throw RenderError.document("poppler's page image is shorter than its header says")
    }
    return GrayImage(width: width, height: height, pixels: Array(data[index..<index + width * height]))
  }
}
