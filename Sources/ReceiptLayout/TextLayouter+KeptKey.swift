import Foundation
import ReceiptModel

extension TextLayouter {
  /// A kept text's key. Its hash is worked out once (the text's bytes, the number of runs, the
  /// mode: what tells kept texts apart in practice, without hashing every run's attributes);
  /// the dictionary compares a key with several stored ones per lookup (open addressing keeps
  /// no hashes), so equality looks at the hashes first and at everything else only when they
  /// agree, and the fields sit in one shared box (a probe copies one reference, not five).
  struct KeptKey: Hashable {
    final class Fields {
      let text: AttributedText
      let mode: LineBreakMode
      let monochrome: Bool
      /// The fonts a document may use beside fontconfig's (`<receipt fonts=…>`): they decide
      /// which font a family names.
      let fontDirectories: [String]
      init(text: AttributedText, mode: LineBreakMode, monochrome: Bool, fontDirectories: [String]) {
        (self.text, self.mode, self.monochrome, self.fontDirectories) = (text, mode, monochrome, fontDirectories)
      }
    }
    let fields: Fields
    let hash: Int

    init(text: AttributedText, mode: LineBreakMode, monochrome: Bool, fontDirectories: [String]) {
      fields = Fields(text: text, mode: mode, monochrome: monochrome, fontDirectories: fontDirectories)
      var hasher = Hasher()
      let hashed = text.string.utf8.withContiguousStorageIfAvailable {
        hasher.combine(bytes: UnsafeRawBufferPointer($0))
      }
      if hashed == nil { for byte in text.string.utf8 { hasher.combine(byte) } }
      hasher.combine(text.runs.count)
      // A number for the case: hashing the enum itself hashes its raw value, a string.
      switch mode {
      case .word: hasher.combine(0)
      case .char: hasher.combine(1)
      case .truncate: hasher.combine(2)
      }
      hasher.combine(monochrome)
      hash = hasher.finalize()
    }

    static func == (a: KeptKey, b: KeptKey) -> Bool {
      guard a.hash == b.hash else { return false }
      let (x, y) = (a.fields, b.fields)
      return x === y
        || (x.mode == y.mode && x.monochrome == y.monochrome && sameScalars(x.text.string, y.text.string)
          && x.text.runs == y.text.runs && x.text.paragraphStyle == y.text.paragraphStyle
          && x.fontDirectories == y.fontDirectories)
    }

    /// Texts are the same when their bytes are: `String`'s `==` and hash go by canonical
    /// equivalence (normalizing), which layout must not — "Å" as U+212B ANGSTROM SIGN and as
    /// U+00C5 are equal strings of equal length, but different characters to shape and to write
    /// in a PDF's text layer. (Comparing bytes is also what made hashing the text cheap.)
    static func sameScalars(_ a: String, _ b: String) -> Bool {
      let same = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y in
          x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        }
      }
      if let same, let same { return same }
      return a.utf8.elementsEqual(b.utf8)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
  }
}
