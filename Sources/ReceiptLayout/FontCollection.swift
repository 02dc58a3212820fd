internal import CFontconfig
import ReceiptModel

/// Finds fonts through fontconfig, opens each file once, and answers per-character fallback.
///
/// Everything is cached: a descriptor's matched chain, fontconfig's sorted fallback list per style,
/// and the fallback font per scalar (`FcFontMatch` costs ~0.3 ms, `FcFontSort` more). Family
/// matches are also kept between processes (``FontMatchCache``): fontconfig's configuration is
/// loaded only when an answer is not known for the current configuration and fonts.
final class FontCollection {
  /// fontconfig's configuration, loaded on first need.
  private var loaded: OpaquePointer?
  private var matchCache: FontMatchCache
  private var open: [FontFace: Font] = [:]
  private var chains: [ChainKey: (fonts: [Font], warning: String?)] = [:]
  /// Why fonts were substituted since the last ``takeWarnings()`` (a family that is not
  /// installed: fontconfig quietly picks another).
  private var warnings: Set<String> = []
  private var sorted: [ChainKey: [FontFace]] = [:]
  private var fallbacks: [FallbackKey: Font?] = [:]
  /// Directories besides fontconfig's whose font files may be named by path (the document's
  /// templates directory; see ``ReceiptDocument/fontDirectories``).
  var allowedDirectories: [String] = [] {
    didSet { checkedDescriptors.removeAll() }
  }
  /// Descriptors whose chain was asked for since the warnings were last taken and the allowed
  /// directories last set (see ``check(_:)``).
  private var checkedDescriptors: [FontDescriptor] = []
  /// fontconfig's font directories, resolved (see `FontCollection+Files`), and the font files
  /// found allowed, by path and allowed directories.
  var fontconfigRoots: [String]?
  var checkedFiles: [String: String] = [:]

  private struct ChainKey: Hashable {
    var families: [String]
    var weight: Int
    var italic: Bool
    var emoji: Bool
  }
  private struct FallbackKey: Hashable {
    var style: ChainKey
    var scalar: UInt32
    var color: Bool
  }

  /// A collection whose family matches are kept in `cacheFile` (default: ``FontMatchCache/defaultPath(environment:)``).
  init(cacheFile: String? = FontMatchCache.defaultPath()) {
    matchCache = FontMatchCache(path: cacheFile, fontconfigVersion: FcGetVersion())
  }

  deinit { if let loaded { FcConfigDestroy(loaded) } }

  /// Whether fontconfig's configuration has been loaded.
  var hasLoadedFontconfig: Bool { loaded != nil }

  /// fontconfig's font directories as the font match cache recorded them (empty: not known).
  var cachedFontDirectories: [String] { matchCache.fontDirectories }

  /// fontconfig's configuration (parsed now if it was not yet).
  func configuration() throws -> OpaquePointer {
    if let loaded { return loaded }
    guard let config = FcInitLoadConfigAndFonts() else {
      throw LayoutError.fontconfig("cannot load the fontconfig configuration")
    }
    loaded = config
    return config
  }

  /// What ``chain(for:)`` checks for a document — its font files by path allowed, its missing
  /// families' warnings given — without asking again for a descriptor already asked for in this
  /// document (a kept text is checked at every use, and a receipt's texts share a few
  /// descriptors: asking each time was 1 % of a receipt). The answers cannot change within a
  /// document: the allowed directories and the warnings start again together.
  func check(_ descriptor: FontDescriptor) throws {
    if checkedDescriptors.contains(descriptor) { return }
    _ = try chain(for: descriptor)
    if checkedDescriptors.count < 64 { checkedDescriptors.append(descriptor) }
  }

  /// The fonts named by a descriptor's families, in order, without duplicates. Never empty.
  func chain(for descriptor: FontDescriptor) throws -> [Font] {
    // Font files by path are checked on every use: the allowed directories change per document.
    for family in descriptor.families where family.hasPrefix("/") { _ = try fontFile(family) }
    let key = ChainKey(
      families: descriptor.families, weight: descriptor.weight, italic: descriptor.italic, emoji: false)
    if let chain = chains[key] {
      if let warning = chain.warning { warnings.insert(warning) }
      return chain.fonts
    }
    var chain: [Font] = []
    var missing: [String] = []
    for family in descriptor.families {
      let face: FontFace?
      if family.hasPrefix("/") {  // a font file given by path
        face = try fontFile(family)
      } else {
        let matched = match(family: family, weight: descriptor.weight, italic: descriptor.italic)
        face = matched?.face
        if let matched, !Self.genericFamilies.contains(family.lowercased()),
          !matched.families.contains(where: { $0.lowercased() == family.lowercased() })
        {
          missing.append(family)
        }
      }
      if let face, !chain.contains(where: { $0.face == face }) { chain.append(try font(face)) }
    }
    if chain.isEmpty {
      guard let face = match(family: "sans-serif", weight: descriptor.weight, italic: descriptor.italic)?.face else {
        throw LayoutError.fontNotFound(descriptor.description)
      }
      chain.append(try font(face))
    }
    let warning =
      missing.isEmpty
      ? nil
      : "font \(missing.map { "'\($0)'" }.joined(separator: ", ")) is not installed; using \(chain[0].face.family)"
        + " (fc-list lists the installed families)"
    if let warning { warnings.insert(warning) }
    chains[key] = (chain, warning)
    return chain
  }

  /// Family names fontconfig resolves by alias, never "missing".
  static let genericFamilies: Set = [
    "sans", "sans-serif", "serif", "mono", "monospace", "emoji", "system-ui", "cursive", "fantasy",
  ]

  /// The substitution warnings since the last call.
  func takeWarnings() -> [String] {
    defer {
      warnings.removeAll()
      checkedDescriptors.removeAll()
    }
    return warnings.sorted()
  }

  /// A font that has a glyph for `scalar`, chosen by fontconfig for the style (and for emoji,
  /// a color emoji font; with `color` false, only fonts without color glyphs), or nil when no
  /// installed font has it.
  func fallback(for scalar: UInt32, style descriptor: FontDescriptor, emoji: Bool, color: Bool = true) -> Font? {
    let style = ChainKey(
      families: descriptor.families, weight: descriptor.weight, italic: descriptor.italic, emoji: emoji)
    let key = FallbackKey(style: style, scalar: scalar, color: color)
    if let cached = fallbacks[key] { return cached }
    // fontconfig's order, from the match cache while it holds (its first faces: a character
    // none of them covers asks fontconfig for all of them).
    let (candidates, complete) = candidates(for: style)
    var found = firstCovering(scalar, among: candidates, color: color)
    if found == nil, !complete { found = firstCovering(scalar, among: sortedFaces(for: style), color: color) }
    fallbacks[key] = found
    return found
  }

  private func firstCovering(_ scalar: UInt32, among faces: [FontFace], color: Bool) -> Font? {
    for face in faces where color || !face.isColor {
      guard let font = try? font(face) else { continue }
      if font.covers(scalar) { return font }
    }
    return nil
  }

  /// Whether a font shapes the simple path's text word by word exactly: asked once per font,
  /// answered from the match cache while the font file and HarfBuzz are unchanged (the check
  /// costs ~1.8 M instructions, a twentieth of a one-shot render).
  func shapesWordsExactly(_ font: Font) -> Bool {
    if let known = font.wordShapingVerdict { return known }
    let key = FontMatchCache.wordShapingKey(font.face, harfBuzz: Font.harfBuzzVersion)
    if let key, let known = matchCache.wordShaping[key] {
      font.wordShapingVerdict = known
      return known
    }
    let exact = Font.wordShapingIsExact(face: font.hbFace, font: font.hbFont)
    font.wordShapingVerdict = exact
    if let key { matchCache.recordWordShaping(exact, for: key) }
    return exact
  }

  /// Opens (once) the font for a face.
  func font(_ face: FontFace) throws -> Font {
    if let font = open[face] { return font }
    let font = try Font(face)
    open[face] = font
    return font
  }

  private func pattern(family: String, weight: Int, italic: Bool) -> OpaquePointer? {
    guard let config = try? configuration(), let pattern = FcPatternCreate() else { return nil }
    _ = FcPatternAddString(pattern, FC_FAMILY, family)
    _ = FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(Int32(weight)))
    _ = FcPatternAddInteger(pattern, FC_SLANT, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
    _ = FcConfigSubstitute(config, pattern, FcMatchPattern)
    FcDefaultSubstitute(pattern)
    return pattern
  }

  /// fontconfig's best face for a family, with every family name the face has: from the match
  /// cache while it is valid, else from fontconfig (and then recorded).
  private func match(family: String, weight: Int, italic: Bool) -> (face: FontFace, families: [String])? {
    let key = FontMatchCache.key(family: family, weight: weight, italic: italic)
    if let key, let known = matchCache.matches[key] { return (known.face, known.families) }
    guard let found = askFontconfig(family: family, weight: weight, italic: italic) else { return nil }
    if let key, let config = loaded {
      matchCache.record(
        FontMatchCache.Match(face: found.face, families: found.families), for: key, fontconfigVersion: FcGetVersion(),
        configFiles: Self.strings(FcConfigGetConfigFiles(config)),
        fontDirectories: Self.strings(FcConfigGetFontDirs(config)))
    }
    return found
  }

  /// The strings of a fontconfig list, which is then freed.
  private static func strings(_ list: OpaquePointer?) -> [String] {
    guard let list else { return [] }
    defer { FcStrListDone(list) }
    var result: [String] = []
    while let next = FcStrListNext(list) { result.append(String(cString: next)) }
    return result
  }

  private func askFontconfig(family: String, weight: Int, italic: Bool) -> (face: FontFace, families: [String])? {
    guard let config = try? configuration(), let pattern = pattern(family: family, weight: weight, italic: italic)
    else { return nil }
    defer { FcPatternDestroy(pattern) }
    var result = FcResultNoMatch
    guard let matched = FcFontMatch(config, pattern, &result) else { return nil }
    defer { FcPatternDestroy(matched) }
    guard let face = face(from: matched, weight: weight, italic: italic) else { return nil }
    var families: [String] = []
    var name: UnsafeMutablePointer<FcChar8>?
    var index: Int32 = 0
    while FcPatternGetString(matched, FC_FAMILY, index, &name) == FcResultMatch, let value = name {
      families.append(String(cString: value))
      index += 1
    }
    return (face, families)
  }

  /// The family fallback sorts faces for.
  private static func sortFamily(_ style: ChainKey) -> String {
    style.emoji ? "emoji" : (style.families.first { !$0.hasPrefix("/") } ?? "sans-serif")
  }

  /// Faces in fontconfig's order for fallback: all of them once fontconfig was asked, else the
  /// match cache's first ones while it holds (`complete` false when there are more).
  private func candidates(for style: ChainKey) -> (faces: [FontFace], complete: Bool) {
    if let list = sorted[style] { return (list, true) }
    let key = FontMatchCache.sortedKey(
      family: Self.sortFamily(style), weight: style.weight, italic: style.italic, emoji: style.emoji)
    if let key, let cached = matchCache.sortedFaces[key] { return (cached.faces, cached.complete) }
    return (sortedFaces(for: style), true)
  }

  private func sortedFaces(for style: ChainKey) -> [FontFace] {
    if let list = sorted[style] { return list }
    let family = Self.sortFamily(style)
    var faces: [FontFace] = []
    if let pattern = pattern(family: family, weight: style.weight, italic: style.italic) {
      if style.emoji { _ = FcPatternAddBool(pattern, FC_COLOR, 1) }
      var result = FcResultNoMatch
      if let config = try? configuration(), let set = FcFontSort(config, pattern, 1, nil, &result) {
        for i in 0..<Int(set.pointee.nfont) {
          if let font = set.pointee.fonts[i], let face = face(from: font, weight: style.weight, italic: style.italic) {
            faces.append(face)
          }
        }
        FcFontSetDestroy(set)
      }
      FcPatternDestroy(pattern)
    }
    sorted[style] = faces
    let key = FontMatchCache.sortedKey(family: family, weight: style.weight, italic: style.italic, emoji: style.emoji)
    if let key, let config = loaded, !faces.isEmpty {
      matchCache.record(
        sorted: faces, for: key, fontconfigVersion: FcGetVersion(),
        configFiles: Self.strings(FcConfigGetConfigFiles(config)),
        fontDirectories: Self.strings(FcConfigGetFontDirs(config)))
    }
    return faces
  }

  /// The face a fontconfig pattern names; bold and oblique are synthesized when the style asks
  /// for them and the face has neither (a CJK or emoji fallback font with one weight).
  private func face(from pattern: OpaquePointer, weight: Int, italic: Bool) -> FontFace? {
    var file: UnsafeMutablePointer<FcChar8>?
    guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
    var index: Int32 = 0
    _ = FcPatternGetInteger(pattern, FC_INDEX, 0, &index)
    var familyName: UnsafeMutablePointer<FcChar8>?
    var family = ""
    if FcPatternGetString(pattern, FC_FAMILY, 0, &familyName) == FcResultMatch, let familyName {
      family = String(cString: familyName)
    }
    var color: FcBool = 0
    _ = FcPatternGetBool(pattern, FC_COLOR, 0, &color)
    var faceWeight: Int32 = FC_WEIGHT_REGULAR
    _ = FcPatternGetInteger(pattern, FC_WEIGHT, 0, &faceWeight)
    var slant: Int32 = FC_SLANT_ROMAN
    _ = FcPatternGetInteger(pattern, FC_SLANT, 0, &slant)
    let wantsBold = FcWeightFromOpenType(Int32(weight)) >= FC_WEIGHT_DEMIBOLD
    return FontFace(
      path: String(cString: file), index: Int(index), family: family, isColor: color != 0,
      synthesizeBold: wantsBold && faceWeight < FC_WEIGHT_DEMIBOLD && color == 0,
      synthesizeOblique: italic && slant == FC_SLANT_ROMAN && color == 0)
  }
}
