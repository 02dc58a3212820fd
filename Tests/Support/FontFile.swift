import Foundation

/// Reads vertical metrics straight from a TrueType file's `head`, `hhea` and `OS/2` tables: an
/// independent check of what the layout engine gets from HarfBuzz.
public struct FontFile {
  public let unitsPerEm: Int
  public let ascender: Int
  public let descender: Int
  public let lineGap: Int

  /// Reads the tables of the TrueType file at `path`.
  public init(path: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let bytes = [UInt8](data)
    func u16(_ o: Int) -> Int { Int(bytes[o]) << 8 | Int(bytes[o + 1]) }
    func i16(_ o: Int) -> Int { Int(Int16(bitPattern: UInt16(u16(o)))) }
    func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
    var tables: [String: Int] = [:]
    for i in 0..<u16(4) {
      let record = 12 + 16 * i
      tables[String(decoding: bytes[record..<record + 4], as: UTF8.self)] = u32(record + 8)
    }
    let head = tables["head"]!
    let hhea = tables["hhea"]!
    unitsPerEm = u16(head + 18)
    if let os2 = tables["OS/2"], u16(os2 + 62) & (1 << 7) != 0 {  // USE_TYPO_METRICS
      (ascender, descender, lineGap) = (i16(os2 + 68), i16(os2 + 70), i16(os2 + 72))
    } else {
      (ascender, descender, lineGap) = (i16(hhea + 4), i16(hhea + 6), i16(hhea + 8))
    }
  }

  /// Line height in points at a size, under `.usesFontLeading`.
  public func lineHeight(size: Double) -> Double {
    Double(ascender - descender + lineGap) / Double(unitsPerEm) * size
  }
}

/// What a receipt's length must be, computed the way README's "How the length is measured" says
/// from the font file's own tables — not from receipt's layout or `receipt measure`: an oracle
/// for the exact-length printing tests.
public enum ExpectedLength {
  /// The file fontconfig's own tool (`fc-match`) picks for `family`.
  public static func fontFile(_ family: String) throws -> String {
    let result = try Tool.run("fc-match", ["-f", "%{file}", family])
    guard result.status == 0, !result.stdout.isEmpty else { throw RigError("fc-match \(family): \(result.stderr)") }
    return result.stdout
  }

  /// The cut length of `lines` short lines (none wraps) of plain text in `family` at `size`
  /// points: ceil(lines × line height) + 2 × 9 pt, in points and in dot rows at `dpi`.
  public static func plainText(lines: Int, family: String = "DejaVu Sans", size: Double = 10, dpi: Int = 203)
    throws -> (points: Double, dots: Double)
  {
    let font = try FontFile(path: fontFile(family))
    let points = (Double(lines) * font.lineHeight(size: size)).rounded(.up) + 18
    return (points, points * Double(dpi) / 72)
  }

  /// `lines` lines of plain text ("line 1" …), short enough never to wrap, for the checks above.
  public static func note(lines: Int) throws -> URL {
    let file = try Tool.temporaryDirectory().appendingPathComponent("note.txt")
    try (1...lines).map { "line \($0)" }.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    return file
  }
}
