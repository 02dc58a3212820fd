import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// The compiled dictionary cache (``HyphenDictionaryCache``): the compiled form hyphenates as
/// libhyphen's own load of the file does (and as the oracles read the file,
/// ``HyphenationOracleTests``), it is rebuilt when the dictionary changes, and a damaged,
/// truncated or foreign file is ignored and replaced — never followed.
@Suite struct HyphenDictionaryCacheTests {
  /// A cache in a directory of its own, and a copy of a Debian dictionary to change.
  static func fixture(_ name: String = "hyph_fr.dic") throws -> (cache: HyphenDictionaryCache, dictionary: String) {
    let directory = try Tool.temporaryDirectory()
    let dictionary = directory.appendingPathComponent(name).path
    try FileManager.default.copyItem(atPath: "/usr/share/hyphen/\(name)", toPath: dictionary)
    return (HyphenDictionaryCache(directory: directory.appendingPathComponent("cache").path), dictionary)
  }

  static func words(_ list: String, count: Int) throws -> [String] {
    let all = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n")
    let step = max(1, all.count / count)
    return stride(from: 0, to: all.count, by: step).map { String(all[$0]) }.filter { $0.count >= 5 }
  }

  static func points(_ hyphenator: Hyphenator, _ words: [String]) -> [[Int]] {
    words.map { hyphenator.points(in: Array($0.utf16)[...]) }
  }

  static func cacheFile(_ cache: HyphenDictionaryCache) throws -> String {
    let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
      $0.hasSuffix(".compiled")
    }
    try #require(files.count == 1, "\(files)")
    return cache.directory + "/" + files[0]
  }

  @Test(arguments: [
    ("hyph_de_DE.dic", "/usr/share/dict/ngerman"), ("hyph_fr.dic", "/usr/share/dict/french"),
    ("hyph_en_US.dic", "/usr/share/dict/american-english"),
  ])
  func theCompiledFormHyphenatesAsLibhyphensLoad(dictionary name: String, list: String) throws {
    let (cache, dictionary) = try Self.fixture(name)
    let built = try #require(Hyphenator.load(path: dictionary, cache: cache))
    #expect(!built.isCompiled)
    let compiled = try #require(Hyphenator.load(path: dictionary, cache: cache))
    #expect(compiled.isCompiled, "the second load reads the compiled form")
    let direct = try #require(Hyphenator.load(path: dictionary, cache: nil))
    let words = try Self.words(list, count: 4000)
    let expected = Self.points(direct, words)
    #expect(expected.reduce(0) { $0 + $1.count } > 1000)
    let ours = Self.points(compiled, words)
    let wrong = zip(words, zip(ours, expected)).filter { $1.0 != $1.1 }.map { "\($0): \($1.0) vs \($1.1)" }
    #expect(wrong.isEmpty, "\(wrong.count) of \(words.count) differ: \(wrong.prefix(10))")
  }

  @Test func aChangedDictionaryIsCompiledAgain() throws {
    let (cache, dictionary) = try Self.fixture()
    _ = try #require(Hyphenator.load(path: dictionary, cache: cache))
    let word = Array("receipts".utf16)[...]
    let before = try #require(Hyphenator.load(path: dictionary, cache: cache))
    #expect(before.isCompiled)
    // A pattern that allows a break in "receipts" after "rec" (French has none there).
    let original = try String(contentsOfFile: dictionary, encoding: .utf8)
    try (original + "c1e\n").write(toFile: dictionary, atomically: false, encoding: .utf8)
    let after = try #require(Hyphenator.load(path: dictionary, cache: cache))
    #expect(!after.isCompiled, "the changed file is loaded by libhyphen, not read from the stale compiled form")
    #expect(after.points(in: word) != before.points(in: word))
    let again = try #require(Hyphenator.load(path: dictionary, cache: cache))
    #expect(again.isCompiled && again.points(in: word) == after.points(in: word), "and compiled again")
  }

  @Test func aDamagedCompiledFileIsIgnoredAndReplaced() throws {
    let (cache, dictionary) = try Self.fixture()
    _ = Hyphenator.load(path: dictionary, cache: cache)
    let file = try Self.cacheFile(cache)
    let good = try Data(contentsOf: URL(fileURLWithPath: file))
    let word = Array("dégustation".utf16)[...]
    let expected = try #require(Hyphenator.load(path: dictionary, cache: nil)).points(in: word)
    var flipped = good
    flipped[good.count / 2] ^= 0x40
    for damaged in [flipped, good.prefix(good.count - 100), Data("not a dictionary".utf8), Data()] {
      try damaged.write(to: URL(fileURLWithPath: file))
      let loaded = try #require(Hyphenator.load(path: dictionary, cache: cache))
      #expect(!loaded.isCompiled && loaded.points(in: word) == expected)
      #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == good, "the damaged file was replaced")
    }
  }

  /// Bytes that pass no checksum (read directly): a damaged compiled form is refused or, when
  /// its damage is consistent, hyphenates without leaving the word or looping — never a crash.
  @Test func noDamagedFormIsFollowedOutOfBounds() throws {
    let (_, dictionary) = try Self.fixture()
    let payload = try #require(Self.payload(dictionary))
    #expect(payload.withUnsafeBytes { CompiledHyphenDictionary($0) } != nil)
    var random = SeededGenerator(defaultSeed: 35)
    var refused = 0
    let words = ["dégustation", "caractéristique", "établissement", "aaaaaaaaaaaaaaaaaaaaa", "zzz-zzz"]
    for _ in 0..<400 {
      var damaged = payload
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
      }
      guard let compiled = damaged.withUnsafeBytes({ CompiledHyphenDictionary($0) }) else {
        refused += 1
        continue
      }
      let hyphenator = Hyphenator(path: dictionary, compiled: compiled)
      for word in words { _ = hyphenator.points(in: Array(word.utf16)[...]) }
    }
    #expect(refused > 100, "most damage is caught by the checks (\(refused) of 400)")
    #expect(Data(payload.prefix(payload.count - 1)).withUnsafeBytes { CompiledHyphenDictionary($0) } == nil)
  }

  @Test func processesWritingAtOnceLeaveAWholeFile() throws {
    let (cache, dictionary) = try Self.fixture("hyph_en_US.dic")
    DispatchQueue.concurrentPerform(iterations: 6) { _ in _ = Hyphenator.load(path: dictionary, cache: cache) }
    #expect(try #require(Hyphenator.load(path: dictionary, cache: cache)).isCompiled)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter { $0.hasSuffix(".tmp") }
    #expect(leftovers.isEmpty)
  }

  /// The compiled form of a dictionary, as the cache would write it (without its header).
  static func payload(_ dictionary: String) -> [UInt8]? {
    CompiledHyphenDictionary.compile(path: dictionary)
  }
}
