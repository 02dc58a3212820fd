import Foundation

/// Reads vertical metrics straight from a TrueType file's `head`, `hhea` and `OS/2` tables: an
/// independent check of what the layout engine gets from HarfBuzz.
struct FontFile {
  let unitsPerEm: Int
  let ascender: Int
  let descender: Int
  let lineGap: Int

  init(path: String) throws {
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
  func lineHeight(size: Double) -> Double {
    Double(ascender - descender + lineGap) / Double(unitsPerEm) * size
  }
}
