import Foundation

/// Documents an attacker sends, written byte by byte as the file formats define them (PDF 1.7
/// §7.5, PWG 5102.4): each is what once killed, stalled or flooded the daemon.
public enum HostileDocuments {
  /// A PDF of `objects` (numbered from 1, the first the catalog) with a correct cross-reference
  /// table.
  static func pdf(_ objects: [String]) -> Data {
    var out = Data("%PDF-1.4\n".utf8)
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
      offsets.append(out.count)
      out += Data("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
    }
    let xref = out.count
    var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets { table += String(format: "%010d 00000 n \n", offset) }
    table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return out + Data(table.utf8)
  }

  /// 629 bytes: one page whose MediaBox is 10^300 points wide (written out, as PDF numbers
  /// have no exponent), which once trapped the PDF rasteriser and put the daemon into a crash loop.
  public static var hugeMediaBox: Data {
    let big = "1" + String(repeating: "0", count: 300) + ".0"
    return pdf([
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(big) 100] >>",
    ])
  }

  /// `pages` pages, each drawing a form that draws the form below it twice, `depth` levels deep:
  /// 2^depth rectangles a page from a few KB (poppler takes ~18 s a page at depth 20 on this
  /// machine), which once held a printer's queue for 44 s a document.
  public static func nestedForms(pages: Int, depth: Int) -> Data {
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    for level in 0...depth {
      let content =
        level == 0 ? "0 0 10 10 re f" : "q 0.5 0 0 0.5 0 0 cm /F Do Q q 0.5 0 0 0.5 5 5 cm /F Do Q"
      let resources = level == 0 ? "" : "/Resources << /XObject << /F \(objects.count) 0 R >> >>"
      objects.append(
        "<< /Type /XObject /Subtype /Form /BBox [0 0 100 100] \(resources) /Length \(content.utf8.count) >>\n"
          + "stream\n\(content)\nendstream")
    }
    let top = objects.count
    var kids: [Int] = []
    for _ in 0..<pages {
      let content = "q 2 0 0 3 0 0 cm /F Do Q"
      kids.append(objects.count + 1)
      objects.append(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 226 300] /Resources << /XObject << /F \(top) 0 R >> >> "
          + "/Contents \(objects.count + 2) 0 R >>")
      objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
    }
    objects[1] = "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages) >>"
    return pdf(objects)
  }

  /// A PWG raster file of one page header and no pixels: `width` × `height` pixels of
  /// `bitsPerColor` bits in `colorSpace` (PWG 5102.4: cupsColorSpace 6 is CMYK, 18 sgray), the
  /// header's other fields those of a real page from `template` (a PWG file).
  public static func pwgHeader(
    from template: URL, width: Int, height: Int, bitsPerColor: Int, colors: Int, colorSpace: Int
  )
    throws -> Data
  {
    var page = try Data(contentsOf: template).prefix(4 + 1796)
    func put(_ offset: Int, _ value: Int) {
      withUnsafeBytes(of: UInt32(value).bigEndian) { page.replaceSubrange(4 + offset..<8 + offset, with: $0) }
    }
    // cups_page_header2_t as PWG 5102.4 lays it out: width, height, bits per color, bits per
    // pixel, bytes per line, color order, color space; cupsNumColors.
    put(372, width)
    put(376, height)
    put(384, bitsPerColor)
    put(388, bitsPerColor * colors)
    put(392, width * bitsPerColor * colors / 8)
    put(400, colorSpace)
    put(420, colors)
    return Data(page)
  }
}
