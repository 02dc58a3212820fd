import ReceiptModel

extension TextLayouter {
  /// A kept text's key. Its hash is worked out once (the text's bytes, not `String`'s canonical
  /// equivalence — see `ExactText` —, the number of runs, the mode: what tells kept texts apart
  /// in practice, without hashing every run's attributes);
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
      ExactText.hashBytes(of: text.string, into: &hasher)
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
        || (x.mode == y.mode && x.monochrome == y.monochrome && x.text.isExactly(y.text)
          && x.fontDirectories == y.fontDirectories)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
  }
}
