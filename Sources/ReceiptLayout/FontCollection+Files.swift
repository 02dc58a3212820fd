internal import CFontconfig
import Foundation

/// Font files named by path (`font="/usr/share/fonts/…/Face.ttf 9"`). Templates and previews are
/// untrusted: a path may name only a regular file in one of fontconfig's font directories or in
/// the extra directories the document allows (its templates directory), never a device, a FIFO
/// (which once held a render thread for good) or any other file of the machine; and every refusal
/// says the same, so it tells nothing about which files exist.
extension FontCollection {
  /// The largest font file taken by path (Noto CJK fonts are about 20 MB).
  static let maxFontFileBytes = 64 << 20

  /// The face of a font file named by path, or ``LayoutError/fontFileRefused(_:)``.
  func fontFile(_ path: String) throws -> FontFace {
    let key = ([path] + allowedDirectories).joined(separator: "\u{0}")
    if let known = checkedFiles[key] { return FontFace(path: known, index: 0, family: path) }
    guard let real = Self.realPath(path), try roots().contains(where: { real.hasPrefix($0 + "/") }) else {
      throw LayoutError.fontFileRefused(path)
    }
    // The resolved path's own attributes (lstat): what FreeType will open. A FIFO or a device is
    // never opened.
    let attributes = try? FileManager.default.attributesOfItem(atPath: real)
    guard attributes?[.type] as? FileAttributeType == .typeRegular,
      (attributes?[.size] as? Int ?? .max) <= Self.maxFontFileBytes
    else { throw LayoutError.fontFileRefused(path) }
    checkedFiles[key] = real
    return FontFace(path: real, index: 0, family: path)
  }

  /// fontconfig's font directories (with the directories below them: from the font match cache
  /// while it holds, else from fontconfig) and the allowed ones, each with its symlinks resolved.
  private func roots() throws -> [String] {
    if let fontconfigRoots { return fontconfigRoots + allowedDirectories.compactMap(Self.realPath) }
    var list = hasLoadedFontconfig ? [] : cachedFontDirectories
    if list.isEmpty, let dirs = FcConfigGetFontDirs(try configuration()) {
      defer { FcStrListDone(dirs) }
      while let next = FcStrListNext(dirs) { list.append(String(cString: next)) }
    }
    let resolved = list.compactMap(Self.realPath)
    fontconfigRoots = resolved
    return resolved + allowedDirectories.compactMap(Self.realPath)
  }

  /// `realpath(3)`: the absolute path without symlinks, `.` or `..`; nil if it does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
