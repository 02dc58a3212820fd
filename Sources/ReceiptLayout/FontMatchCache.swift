import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// fontconfig's answers for font families, kept between processes so that a one-shot
/// `receipt render` does not parse fontconfig's XML configuration (a third of its start-up) when
/// the answer cannot have changed.
///
/// fontconfig stays the authority: an answer is reused only while everything it depended on is
/// as it was when fontconfig gave it — fontconfig's version, the environment variables it reads
/// (configuration paths, home, language), and the modification time and size of every
/// configuration file it loaded, of their directories, and of every font directory it scanned
/// (fontconfig's own cache is valid under the same condition). Anything else is a miss: the
/// caller asks fontconfig and records the answer. For fallback (characters a font lacks) it keeps
/// fontconfig's sorted list of faces for a style, its first ``sortedLimit`` faces; which of them
/// covers a character is still asked of each font file, and a character none of them covers
/// asks fontconfig for the whole list.
///
/// The file is `$RECEIPT_FONT_CACHE`, else `$XDG_CACHE_HOME/receipt/font-matches`, else
/// `~/.cache/receipt/font-matches`; `RECEIPT_FONT_CACHE=off` turns it off. A file that cannot be
/// read or parsed is ignored; one that cannot be written leaves the cache off.
struct FontMatchCache {
  /// A family match as fontconfig gave it.
  struct Match: Equatable {
    var face: FontFace
    var families: [String]
  }

  /// fontconfig's sorted faces for a style (`FcFontSort`), the first ``sortedLimit`` of them;
  /// `complete` when that is all of them.
  struct SortedFaces: Equatable {
    var faces: [FontFace]
    var complete: Bool
  }
  static let sortedLimit = 48

  private(set) var matches: [String: Match] = [:]
  private(set) var sortedFaces: [String: SortedFaces] = [:]
  /// Whether a font file shapes words exactly (``Font/wordShapingIsExact(face:font:scalars:)``),
  /// by ``wordShapingKey(_:harfBuzz:)``: a verdict holds while the file and HarfBuzz are the same.
  private(set) var wordShaping: [String: Bool] = [:]
  /// fontconfig's font directories (with those below them) when the matches were recorded: where
  /// a font file named by path may be, known without loading fontconfig.
  private(set) var fontDirectories: [String] = []
  private var stamp: [String] = []
  let path: String?

  /// The environment variables fontconfig's answer depends on.
  static let environmentKeys = [
    "FONTCONFIG_FILE", "FONTCONFIG_PATH", "FONTCONFIG_SYSROOT", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    "XDG_CACHE_HOME", "FC_LANG", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
  ]

  /// The cache file for this environment, nil when turned off.
  static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let given = environment["RECEIPT_FONT_CACHE"], !given.isEmpty {
      return given == "off" ? nil : given
    }
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/receipt/font-matches" }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return home + "/.cache/receipt/font-matches"
  }

  /// The key of a family match.
  static func key(family: String, weight: Int, italic: Bool) -> String? {
    guard !family.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\u{1F}" }) else { return nil }
    return "\(family)\t\(weight)\t\(italic ? 1 : 0)"
  }

  /// The key of a sorted list of faces (a family match's key and whether color faces come first).
  static func sortedKey(family: String, weight: Int, italic: Bool, emoji: Bool) -> String? {
    key(family: family, weight: weight, italic: italic).map { "\($0)\t\(emoji ? 1 : 0)" }
  }

  /// The cache at `path`, with its matches only if their stamp still holds for `fontconfigVersion`.
  init(path: String?, fontconfigVersion: Int32) {
    self.path = path
    guard let path, let data = FileManager.default.contents(atPath: path), data.count < 1 << 20 else { return }
    var stamp: [String] = []
    var matches: [String: Match] = [:]
    var sorted: [String: SortedFaces] = [:]
    var wordShaping: [String: Bool] = [:]
    var directories: [String] = []
    defer { self.wordShaping = wordShaping }  // each verdict carries its own stamp
    // Split as bytes (tab, line feed and the unit separator are ASCII, never inside another
    // character's UTF-8): splitting a String by characters was a sixth of a one-shot render.
    for line in [UInt8](data).split(separator: 0x0A) {
      let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      if fields[0] == "words" {
        if fields.count == 3 { wordShaping[fields[1]] = fields[2] == "1" }
      } else if fields[0] == "fontdir" {
        if fields.count == 2 { directories.append(fields[1]) }
      } else if fields[0] == "match", fields.count == 11, let face = Self.face(fields[4..<10]) {
        let families = Array(fields[10].utf8).split(separator: 0x1F).map { String(decoding: $0, as: UTF8.self) }
        matches[fields[1...3].joined(separator: "\t")] = Match(face: face, families: families)
      } else if fields[0] == "sorted" {
        guard fields.count == 12, let face = Self.face(fields[6..<12]) else { continue }
        sorted[fields[1...4].joined(separator: "\t"), default: SortedFaces(faces: [], complete: fields[5] == "1")]
          .faces.append(face)
      } else if fields[0] != "match" {
        stamp.append(String(decoding: line, as: UTF8.self))
      } else {
        return
      }
    }
    guard !stamp.isEmpty, stamp == Self.currentStamp(version: fontconfigVersion, recorded: stamp) else { return }
    self.stamp = stamp
    self.matches = matches
    sortedFaces = sorted
    fontDirectories = directories
  }

  /// Records fontconfig's answer and writes the file; `configFiles` and `fontDirectories` are
  /// what the loaded configuration read and scanned.
  mutating func record(
    _ match: Match, for key: String, fontconfigVersion: Int32, configFiles: [String], fontDirectories: [String]
  ) {
    guard path != nil else { return }
    restamp(fontconfigVersion: fontconfigVersion, configFiles: configFiles, fontDirectories: fontDirectories)
    matches[key] = match
    write()
  }

  /// Records fontconfig's sorted faces for a style (the first ``sortedLimit``) and writes the file.
  mutating func record(
    sorted faces: [FontFace], for key: String, fontconfigVersion: Int32, configFiles: [String],
    fontDirectories: [String]
  ) {
    guard path != nil else { return }
    restamp(fontconfigVersion: fontconfigVersion, configFiles: configFiles, fontDirectories: fontDirectories)
    sortedFaces[key] = SortedFaces(
      faces: Array(faces.prefix(Self.sortedLimit)), complete: faces.count <= Self.sortedLimit)
    write()
  }

  /// The stamp for what the loaded configuration read and scanned; answers recorded under
  /// another stamp are dropped.
  private mutating func restamp(fontconfigVersion: Int32, configFiles: [String], fontDirectories: [String]) {
    var watched = Set(fontDirectories)
    for file in configFiles {
      watched.insert(file)
      watched.insert((file as NSString).deletingLastPathComponent)
    }
    let fresh = Self.stampLines(version: fontconfigVersion, paths: watched.sorted())
    if fresh != stamp {
      stamp = fresh
      matches = [:]
      sortedFaces = [:]
    }
    self.fontDirectories = fontDirectories.filter { !$0.contains("\t") && !$0.contains("\n") }
  }

  /// The key of a font file's word-shaping verdict: its path, face, modification time and size,
  /// and HarfBuzz's version (nil when the file cannot be read or its path cannot be written).
  static func wordShapingKey(_ face: FontFace, harfBuzz: String) -> String? {
    var info = stat()
    guard !face.path.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\u{1F}" }), stat(face.path, &info) == 0
    else { return nil }
    return [
      face.path, String(face.index), "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)", String(info.st_size), harfBuzz,
    ].joined(separator: "\u{1F}")
  }

  /// Records whether a font shapes words exactly and writes the file, without the verdicts of
  /// font files that changed or are gone (or of another HarfBuzz than `key`'s), so the file does
  /// not grow.
  mutating func recordWordShaping(_ exact: Bool, for key: String) {
    guard path != nil, wordShaping[key] != exact else { return }
    let harfBuzz = String(key.split(separator: "\u{1F}", omittingEmptySubsequences: false).last ?? "")
    wordShaping = wordShaping.filter { key, _ in
      let parts = key.split(separator: "\u{1F}", omittingEmptySubsequences: false)
      guard parts.count == 5, let index = Int(parts[1]) else { return false }
      return Self.wordShapingKey(FontFace(path: String(parts[0]), index: index), harfBuzz: harfBuzz) == key
    }
    wordShaping[key] = exact
    write()
  }

  private func write() {
    guard let path else { return }
    var text = stamp.isEmpty ? "" : stamp.joined(separator: "\n") + "\n"
    for (key, match) in matches.sorted(by: { $0.key < $1.key }) {
      guard let face = Self.fields(match.face), !match.families.contains(where: Self.breaksLine) else { continue }
      text += (["match", key] + face + [match.families.joined(separator: "\u{1F}")]).joined(separator: "\t") + "\n"
    }
    for (key, list) in sortedFaces.sorted(by: { $0.key < $1.key }) {
      // A list is kept whole or not at all: a face left out would change which face comes first.
      let faces = list.faces.compactMap(Self.fields)
      guard faces.count == list.faces.count else { continue }
      for face in faces { text += (["sorted", key, list.complete ? "1" : "0"] + face).joined(separator: "\t") + "\n" }
    }
    for (key, exact) in wordShaping.sorted(by: { $0.key < $1.key }) {
      text += "words\t\(key)\t\(exact ? 1 : 0)\n"
    }
    for directory in fontDirectories { text += "fontdir\t\(directory)\n" }
    Self.writeAtomically(text, to: path)
  }

  /// Whether text cannot be a field of a line (it holds a tab or a line feed).
  private static func breaksLine(_ text: String) -> Bool { text.contains("\t") || text.contains("\n") }

  /// A face as the six fields of a line (path, index, family, color, bold, oblique); nil when a
  /// name cannot be a field.
  private static func fields(_ face: FontFace) -> [String]? {
    guard !breaksLine(face.path), !breaksLine(face.family) else { return nil }
    let flags = [face.isColor, face.synthesizeBold, face.synthesizeOblique].map { $0 ? "1" : "0" }
    return [face.path, String(face.index), face.family] + flags
  }

  /// The face six fields of a line name (``fields(_:)``).
  private static func face(_ fields: ArraySlice<String>) -> FontFace? {
    let f = Array(fields)
    guard f.count == 6, let index = Int(f[1]) else { return nil }
    return FontFace(
      path: f[0], index: index, family: f[2], isColor: f[3] == "1", synthesizeBold: f[4] == "1",
      synthesizeOblique: f[5] == "1")
  }

  /// The stamp lines for now, over the paths a recorded stamp watched.
  private static func currentStamp(version: Int32, recorded: [String]) -> [String] {
    let paths = recorded.compactMap { line -> String? in
      let fields = Array(line.utf8).split(separator: 0x09, omittingEmptySubsequences: false)
      guard fields.count == 4, fields[0].elementsEqual("stat".utf8) else { return nil }
      return String(decoding: fields[1], as: UTF8.self)
    }
    return stampLines(version: version, paths: paths)
  }

  private static func stampLines(version: Int32, paths: [String]) -> [String] {
    let environment = ProcessInfo.processInfo.environment
    var lines = ["receipt-font-matches\t1\tfontconfig\t\(version)"]
    for key in environmentKeys { lines.append("env\t\(key)\t\(environment[key] ?? "-")") }
    for path in paths where !path.contains("\t") && !path.contains("\n") {
      var info = stat()
      if stat(path, &info) == 0 {
        lines.append("stat\t\(path)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\t\(info.st_size)")
      } else {
        lines.append("stat\t\(path)\t-\t-")
      }
    }
    return lines
  }

  private static func writeAtomically(_ text: String, to path: String) {
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let temporary = "\(path).\(getpid()).\(UInt64.random(in: 0 ... .max)).tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else { return }
    if rename(temporary, path) != 0 { unlink(temporary) }
  }
}
