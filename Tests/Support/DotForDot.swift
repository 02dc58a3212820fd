import Foundation

/// Compares a printed page with a preview PNG dot for dot, with Pillow as the PNG's decoder (not
/// ours): the page's rows must be the PNG's pixels exactly at one horizontal offset (the preview
/// is the whole paper width, a printer prints its printable columns), over their common height,
/// the heights at most a row apart.
public enum DotForDot {
  /// Nil when they match — at most `tolerance` of the page's dots differ; otherwise what differs.
  public static func difference(_ rows: [[Bool]], width: Int, png: Data, tolerance: Double = 0) throws -> String? {
    let directory = try Tool.temporaryDirectory()
    let pbm = directory.appendingPathComponent("page.pbm")
    let image = directory.appendingPathComponent("preview.png")
    var bits = Data()
    for row in rows {
      var byte: UInt8 = 0
      for x in 0..<((width + 7) / 8 * 8) {
        if x < row.count, row[x] { byte |= 0x80 >> UInt8(x % 8) }
        if x % 8 == 7 {
          bits.append(byte)
          byte = 0
        }
      }
    }
    try (Data("P4\n\(width) \(rows.count)\n".utf8) + bits).write(to: pbm)
    return try difference(page: pbm, png: png, tolerance: tolerance)
  }

  /// The same for a page given as an image file (a PNG a printer fetched).
  public static func difference(page: URL, png: Data, tolerance: Double = 0) throws -> String? {
    let image = try Tool.temporaryDirectory().appendingPathComponent("preview.png")
    let pbm = page
    try png.write(to: image)
    let script = """
      import sys
      from PIL import Image, ImageChops
      page = Image.open(sys.argv[1]).convert("1")
      preview = Image.open(sys.argv[2]).convert("1")
      h = min(page.height, preview.height)
      if abs(page.height - preview.height) > 1:
          print(f"heights {page.height} and {preview.height}"); sys.exit(0)
      best = None
      for x0 in range(0, preview.width - page.width + 1):
          a = page.crop((0, 0, page.width, h))
          b = preview.crop((x0, 0, x0 + page.width, h))
          diff = ImageChops.logical_xor(a, b)
          n = sum(1 for v in diff.getdata() if v)
          if best is None or n < best[0]:
              best = (n, x0)
          if n == 0:
              print("match"); sys.exit(0)
      if best[0] <= float(sys.argv[3]) * page.width * h:
          print("match"); sys.exit(0)
      print(f"{best[0]} dots differ at the best offset {best[1]} ({page.width}x{page.height} vs {preview.width}x{preview.height})")
      """
    let result = try Tool.run("python3", ["-c", script, pbm.path, image.path, String(tolerance)])
    guard result.status == 0 else { return "Pillow: \(result.stderr)" }
    let answer = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return answer == "match" ? nil : answer
  }
}
