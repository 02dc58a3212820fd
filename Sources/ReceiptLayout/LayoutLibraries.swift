internal import CFontconfig
internal import CFreeType
internal import CHarfBuzz
internal import CICU
internal import CZint

/// Versions of the C libraries the layout engine runs on, read from the libraries at run time.
public enum LayoutLibraries {
  /// FreeType's version, from `FT_Library_Version`.
  public static var freetype: String {
    var library: FT_Library?
    guard FT_Init_FreeType(&library) == 0, let library else { return "unavailable" }
    defer { FT_Done_FreeType(library) }
    var major: FT_Int = 0
    var minor: FT_Int = 0
    var patch: FT_Int = 0
    FT_Library_Version(library, &major, &minor, &patch)
    return "\(major).\(minor).\(patch)"
  }

  /// HarfBuzz's version, from `hb_version_string`.
  public static var harfbuzz: String { String(cString: hb_version_string()) }

  /// ICU's version, from `u_getVersion`.
  public static var icu: String {
    var info: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    withUnsafeMutableBytes(of: &info) { cicu_getVersion($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    return info.3 == 0
      ? (info.2 == 0 ? "\(info.0).\(info.1)" : "\(info.0).\(info.1).\(info.2)")
      : "\(info.0).\(info.1).\(info.2).\(info.3)"
  }

  /// fontconfig's version, from `FcGetVersion` (e.g. 21401 → 2.14.1).
  public static var fontconfig: String {
    let v = Int(FcGetVersion())
    return "\(v / 10000).\(v / 100 % 100).\(v % 100)"
  }

  /// zint's version, from `ZBarcode_Version` (e.g. 21101 → 2.11.1).
  public static var zint: String {
    let v = Int(ZBarcode_Version())
    return "\(v / 10000).\(v / 100 % 100).\(v % 100)"
  }
}
