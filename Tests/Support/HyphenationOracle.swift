import Foundation

/// Where words may be hyphenated, by readers of Debian's `hyph_*.dic` files that share no code
/// with receipt:
/// - pyphen (PyPI): a separate Python implementation of the pattern algorithm. It knows one level
///   of patterns only, so it is the oracle for single-level dictionaries (French, English);
/// - PyHyphen (PyPI): libhyphen's two-level algorithm (compound boundaries, then syllables:
///   `NEXTLEVEL` dictionaries such as German) behind its own binding, which converts the word
///   to the dictionary's encoding and reads libhyphen's output itself — the reading receipt
///   once got wrong.
/// Points are character (code point) offsets; non-standard points (a spelling change at the
/// break, such as old German `ck` → `k-k`) are left out, as receipt leaves them out.
public enum HyphenationOracle {
  /// The oracle's points for each word (lower-cased first, as hyphenators do).
  public static func positions(of words: [String], dictionary: String) throws -> [[Int]] {
    let (left, right) = try minimums(of: dictionary)
    let script =
      try isTwoLevel(dictionary)
      ? """
      import sys, json
      from hyphen import hnj
      h = hnj.hyphenator_(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), 2, 2)
      def points(w):
          w = w.lower()
          return [len(a) for a, b in h.apply(w, 1) if a + b == w] if len(w) >= 4 else []
      print(json.dumps([points(w) for w in json.load(sys.stdin)]))
      """
      : """
      import sys, json, pyphen
      d = pyphen.Pyphen(filename=sys.argv[1], left=int(sys.argv[2]), right=int(sys.argv[3]))
      print(json.dumps([[int(p) for p in d.positions(w) if p.data is None] for w in json.load(sys.stdin)]))
      """
    let input = try JSONSerialization.data(withJSONObject: words)
    let result = try Tool.run("python3", ["-c", script, dictionary, "\(left)", "\(right)"], stdin: input)
    guard result.status == 0, let points = try JSONSerialization.jsonObject(with: result.output) as? [[Int]] else {
      throw RigError(
        "the hyphenation oracle failed (scripts/setup.sh --test installs pyphen and pyhyphen): \(result.stderr)")
    }
    return points
  }

  /// The dictionary's header lines (its first kilobytes, read as Latin-1: ASCII keywords).
  static func header(_ dictionary: String) throws -> [Substring] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: dictionary))
    defer { try? handle.close() }
    return String(decoding: try handle.read(upToCount: 4096) ?? Data(), as: UTF8.self).split(separator: "\n")
  }

  /// Whether the dictionary has a second level of patterns (`NEXTLEVEL`, anywhere in the file).
  static func isTwoLevel(_ dictionary: String) throws -> Bool {
    let text = try Data(contentsOf: URL(fileURLWithPath: dictionary))
    return text.range(of: Data("\nNEXTLEVEL".utf8)) != nil
  }

  /// The fewest characters kept before and after a hyphen: `LEFTHYPHENMIN` and `RIGHTHYPHENMIN`
  /// from the header, at least 2 each.
  public static func minimums(of dictionary: String) throws -> (left: Int, right: Int) {
    let lines = try header(dictionary)
    func value(_ key: String) -> Int {
      lines.first { $0.hasPrefix(key + " ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 2
    }
    return (max(2, value("LEFTHYPHENMIN")), max(2, value("RIGHTHYPHENMIN")))
  }
}
