import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// The font match cache spares a one-shot process fontconfig's configuration parse, and must
/// never change a layout: its answers are fontconfig's, reused only while what they depended on
/// is unchanged.
@Suite struct FontMatchCacheTests {
  func cacheFile() throws -> String {
    try Tool.temporaryDirectory().appendingPathComponent("font-matches").path
  }

  /// Every script and style the shipped templates and examples use, a missing family (whose
  /// warning must survive the cache), a font file by path and a fallback.
  func documents() -> [ReceiptDocument] {
    var mixed = AttributedText("Caffè latte × 2\t")
    mixed.append("7,00 EUR", TextAttributes(font: FontDescriptor.receiptDefault.bold))
    mixed.append(" grazie", TextAttributes(font: FontDescriptor.receiptDefault.with { $0.italic = true }))
    mixed.append(" Œuvre", TextAttributes(font: FontDescriptor(families: ["DejaVu Serif"], size: 9)))
    mixed.append(" 0123", TextAttributes(font: FontDescriptor(families: ["monospace"], size: 9)))
    mixed.append(" Total", TextAttributes(font: FontDescriptor(families: ["No Such Family"], size: 10)))
    mixed.append(
      " file",
      TextAttributes(font: FontDescriptor(families: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"], size: 8)))
    return [
      ReceiptDocument(blocks: [.text(mixed)]),
      .plainText("領収書 合計 ¥1,200\nشكرا لزيارتكم 12.50\nשלום עולם\nขอบคุณ ☕ 🍰"),
      ReceiptDocument(
        pageSetup: PageSetup(paper: .mm58),
        blocks: [
          .text(AttributedText("Bold total", attributes: TextAttributes(font: FontDescriptor.receiptDefault.bold)))
        ]
      ),
    ]
  }

  @Test func aWarmCacheLaysOutExactlyAsFontconfigWithoutLoadingIt() throws {
    let file = try cacheFile()
    let uncached = try ReceiptLayoutEngine(fontCache: nil)
    let cold = try ReceiptLayoutEngine(fontCache: file)
    let expected = try documents().map { try uncached.layout($0) }
    #expect(try documents().map { try cold.layout($0) } == expected)
    #expect(cold.hasLoadedFontconfig, "a cold cache asks fontconfig")
    #expect(FileManager.default.fileExists(atPath: file))

    let warm = try ReceiptLayoutEngine(fontCache: file)
    let first = try warm.layout(documents()[0])
    #expect(first == expected[0])
    #expect(first.warnings.contains { $0.contains("'No Such Family' is not installed") }, "\(first.warnings)")
    #expect(!warm.hasLoadedFontconfig, "every family of the Latin receipt came from the cache")
    #expect(try documents().map { try warm.layout($0) } == expected, "fallback from the cache, same answers")
    #expect(!warm.hasLoadedFontconfig, "fallback (CJK, Arabic, Hebrew, Thai, emoji) from the cached sorted faces")
  }

  /// Fallback keeps only fontconfig's first faces for a style: a character none of them covers
  /// (here, with the list cut to one face) asks fontconfig for the whole list, and finds the
  /// same font as without the cache.
  @Test func aCharacterTheCachedFacesDoNotCoverAsksFontconfig() throws {
    let file = try cacheFile()
    let documents = [ReceiptDocument.plainText("Total 12.50 領収書 ☕")]
    let uncached = try ReceiptLayoutEngine(fontCache: nil)
    let expected = try documents.map { try uncached.layout($0) }
    _ = try documents.map { try ReceiptLayoutEngine(fontCache: file).layout($0) }
    // Keep only the first face of every sorted list, marked incomplete.
    let text = try String(contentsOfFile: file, encoding: .utf8)
    var seen: Set<String> = []
    let lines = text.split(separator: "\n").compactMap { line -> String? in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.first == "sorted" else { return String(line) }
      let key = fields[1...4].joined(separator: "\t")
      guard seen.insert(key).inserted else { return nil }
      var kept = fields.map(String.init)
      kept[5] = "0"
      return kept.joined(separator: "\t")
    }
    #expect(!seen.isEmpty, "the cache kept sorted faces")
    try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
    let cut = try ReceiptLayoutEngine(fontCache: file)
    #expect(try documents.map { try cut.layout($0) } == expected)
    #expect(cut.hasLoadedFontconfig, "the first face lacks CJK: fontconfig was asked for the rest")
  }

  /// The file is read as bytes: names beyond ASCII (a Japanese family, an accented path, a
  /// family list with its unit separators) come back as they were written, in order.
  @Test func nonASCIINamesSurviveTheFileAsWritten() throws {
    let file = try cacheFile()
    let japanese = FontFace(
      path: "/usr/share/fonts/opentype/noto/NotoSansCJK-Régulier.ttc", index: 2, family: "ノト サンズ CJK JP",
      isColor: false, synthesizeBold: true, synthesizeOblique: false)
    let emoji = FontFace(path: "/fonts/émoji 🍰.ttf", index: 0, family: "Émoji", isColor: true)
    var cache = FontMatchCache(path: file, fontconfigVersion: 21400)
    let match = FontMatchCache.Match(face: japanese, families: ["Noto Sans CJK JP", "ノト サンズ CJK JP", "Ωmega"])
    let key = try #require(FontMatchCache.key(family: "日本語 Sans", weight: 700, italic: false))
    let sortedKey = try #require(FontMatchCache.sortedKey(family: "Café", weight: 400, italic: true, emoji: true))
    cache.record(match, for: key, fontconfigVersion: 21400, configFiles: [], fontDirectories: ["/fonts/ü"])
    cache.record(
      sorted: [emoji, japanese], for: sortedKey, fontconfigVersion: 21400, configFiles: [],
      fontDirectories: ["/fonts/ü"])
    let read = FontMatchCache(path: file, fontconfigVersion: 21400)
    #expect(read.matches[key] == match)
    #expect(read.sortedFaces[sortedKey] == FontMatchCache.SortedFaces(faces: [emoji, japanese], complete: true))
    #expect(read.fontDirectories == ["/fonts/ü"])
  }

  @Test func aChangeInAWatchedDirectoryOrTheEnvironmentIsAMiss() throws {
    let file = try cacheFile()
    let fonts = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("fonts")
    try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
    var cache = FontMatchCache(path: file, fontconfigVersion: 21401)
    let match = FontMatchCache.Match(face: FontFace(path: "/f.ttf", family: "F"), families: ["F", "Eff"])
    let key = try #require(FontMatchCache.key(family: "F", weight: 400, italic: false))
    cache.record(match, for: key, fontconfigVersion: 21401, configFiles: [], fontDirectories: [fonts.path])
    #expect(FontMatchCache(path: file, fontconfigVersion: 21401).matches[key] == match)
    #expect(FontMatchCache(path: file, fontconfigVersion: 21500).matches.isEmpty, "another fontconfig")
    // A font installed into a watched directory changes its modification time.
    Thread.sleep(forTimeInterval: 0.01)
    try Data().write(to: fonts.appendingPathComponent("new.ttf"))
    #expect(FontMatchCache(path: file, fontconfigVersion: 21401).matches.isEmpty, "a font directory changed")
  }

  @Test func aDamagedCacheFileIsIgnoredAndRewritten() throws {
    let file = try cacheFile()
    try Data("match\tonly\tthree\n\u{0}\u{1}garbage".utf8).write(to: URL(fileURLWithPath: file))
    #expect(FontMatchCache(path: file, fontconfigVersion: 21401).matches.isEmpty)
    let engine = try ReceiptLayoutEngine(fontCache: file)
    let laidOut = try engine.layout(.plainText("Still prints"))
    #expect(laidOut == (try ReceiptLayoutEngine(fontCache: nil).layout(.plainText("Still prints"))))
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.hasPrefix("receipt-font-matches\t1\t") && text.contains("\nmatch\tDejaVu Sans\t400\t0\t"))
  }

  /// Whether a font shapes words exactly is checked once and kept, per font file: a recorded
  /// verdict is honoured (a false one recorded for DejaVu Sans turns the word cache off), and a
  /// font file that changed is checked again.
  @Test func wordShapingVerdictsAreKeptPerFontFile() throws {
    let file = try cacheFile()
    let copy = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Copy.ttf")
    try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", toPath: copy.path)
    let text = AttributedText(
      "2 x Latte 4.50\n2 x Latte 4.50", attributes: TextAttributes(font: FontDescriptor(families: [copy.path], size: 9))
    )
    var document = ReceiptDocument(blocks: [.text(text)])
    document.fontDirectories = [copy.deletingLastPathComponent().path]

    let first = try ReceiptLayoutEngine(fontCache: file)
    let expected = try first.layout(document)
    #expect(first.wordCacheHits > 0)
    let face = FontFace(path: copy.path, family: "DejaVu Sans")
    let key = try #require(FontMatchCache.wordShapingKey(face, harfBuzz: Font.harfBuzzVersion))
    #expect(FontMatchCache(path: file, fontconfigVersion: 0).wordShaping[key] == true, "recorded")

    var cache = FontMatchCache(path: file, fontconfigVersion: 0)
    cache.recordWordShaping(false, for: key)
    let told = try ReceiptLayoutEngine(fontCache: file)
    #expect(try told.layout(document) == expected)
    #expect(told.wordCacheHits == 0, "the recorded verdict was honoured")

    // The font file changes (here: its modification time): its old verdict no longer applies.
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: copy.path)
    #expect(FontMatchCache.wordShapingKey(face, harfBuzz: Font.harfBuzzVersion) != key)
    #expect(
      FontMatchCache.wordShapingKey(face, harfBuzz: "0.0.0")
        != FontMatchCache.wordShapingKey(face, harfBuzz: Font.harfBuzzVersion))
    let checked = try ReceiptLayoutEngine(fontCache: file)
    #expect(try checked.layout(document) == expected)
    #expect(checked.wordCacheHits > 0, "checked again, and exact")
    let kept = FontMatchCache(path: file, fontconfigVersion: 0).wordShaping
    #expect(kept.count == 1 && kept[key] == nil, "the changed file's old verdict was dropped: \(kept)")
  }

  @Test func theCacheFileFollowsTheEnvironment() {
    #expect(FontMatchCache.defaultPath(environment: ["HOME": "/home/till"]) == "/home/till/.cache/receipt/font-matches")
    #expect(
      FontMatchCache.defaultPath(environment: ["HOME": "/home/till", "XDG_CACHE_HOME": "/var/cache/pos"])
        == "/var/cache/pos/receipt/font-matches")
    #expect(FontMatchCache.defaultPath(environment: ["RECEIPT_FONT_CACHE": "off", "HOME": "/h"]) == nil)
    #expect(FontMatchCache.defaultPath(environment: ["RECEIPT_FONT_CACHE": "/tmp/f"]) == "/tmp/f")
    #expect(FontMatchCache.defaultPath(environment: [:]) == nil, "no home, no cache")
  }
}
