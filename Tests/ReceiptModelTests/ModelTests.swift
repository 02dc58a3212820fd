import ReceiptModel
import Testing

@Suite struct LengthTests {
  @Test(arguments: [
    ("80mm", 226.771653), ("9pt", 9), ("0.125in", 9), ("12", 12), ("203dots", 72), (" 3 mm ", 8.503937),
    ("\u{00A0}9PT\u{2003}", 9), ("\t12 pt", 12), ("1e1pt", 10),
  ])
  func parsing(text: String, points: Double) throws {
    let length = try #require(Length(parsing: text))
    #expect(abs(length.points - points) < 1e-5)
  }

  @Test(arguments: ["", "mm", "abc", "12furlongs", "nanmm", "9\npt", "é9pt", "9pté", "\u{00A0}"])
  func rejects(text: String) { #expect(Length(parsing: text) == nil) }

  @Test func dotsAt203dpi() {
    #expect(abs(Paper.mm80.printableWidth.dots(at: .dpi203) - 575.43) < 0.01)
    #expect(abs(Paper.mm58.printableWidth.dots(at: .dpi203) - 383.62) < 0.01)
  }
}

@Suite struct PaperTests {
  @Test func knownProfiles() throws {
    #expect(Paper(parsing: "58mm") == .mm58)
    #expect(Paper(parsing: "80MM") == .mm80)
    let custom = try #require(Paper(parsing: "76mm"))
    #expect(abs(custom.width.millimetres - 76) < 1e-9)
    #expect(custom.printableWidth < custom.width)
    #expect(Paper(parsing: "A4") == nil)
  }

  @Test func contentWidthIsPrintableMinusMargins() {
    let setup = PageSetup()
    #expect(abs(setup.contentWidth.points - (72 / 25.4 * 72 - 18)) < 1e-9)
    #expect(abs(setup.contentOriginX.points - (4 / 25.4 * 72 + 9)) < 1e-9)
  }
}

@Suite struct FontDescriptorTests {
  @Test func parsesFamilyStyleAndSize() throws {
    let d = try #require(FontDescriptor(parsing: "DejaVu Sans, WenQuanYi Micro Hei bold 12"))
    #expect(d.families == ["DejaVu Sans", "WenQuanYi Micro Hei"])
    #expect(d.weight == 700)
    #expect(d.size == 12)
    #expect(FontDescriptor(parsing: "DejaVu Sans 0") == nil)
  }

  /// Parsed descriptors are kept by their text: asked again (and after the kept ones were
  /// dropped for being too many), every text gives what it gave the first time.
  @Test func aKeptDescriptorIsTheOneItsTextGives() throws {
    let texts = (0..<300).map { "DejaVu Sans\($0 % 3 == 0 ? " bold" : "") \(1 + $0 % 40)" } + ["Mono 0", "Mono 9pt"]
    let first = texts.map { FontDescriptor(parsing: $0) }
    for _ in 0..<2 {
      #expect(texts.map { FontDescriptor(parsing: $0) } == first)
    }
    #expect(first[3]?.weight == 700 && first[4]?.weight == 400 && first[5]?.size == 6)
    #expect(first[300] == nil && first[301]?.size == 9)
  }
}

@Suite struct AttributedTextTests {
  @Test func appendMergesEqualRuns() throws {
    var text = AttributedText("Total ")
    text.append("9.99", TextAttributes())
    text.append(" EUR", TextAttributes(underline: true))
    try #require(text.runs.count == 2)
    #expect(text.runs[0].range == 0..<10)
    #expect(text.runs[1].range == 10..<14)
    #expect(text.attributes(at: 11).underline)
  }

  @Test func utf16Offsets() {
    var text = AttributedText("😀", attributes: TextAttributes())
    text.append("x", TextAttributes(inverse: true))
    #expect(text.runs[1].range == 2..<3)
  }

  @Test func plainTextDropsOneTrailingNewline() {
    let doc = ReceiptDocument.plainText("a\r\nb\n")
    guard case .text(let t) = doc.blocks[0] else {
      Issue.record("expected text")
      return
    }
    #expect(t.string == "a\nb")
  }
}

/// Lengths parsed from their bytes (ASCII) give what parsing by characters gives.
@Suite struct LengthParsingTests {
  @Test func bytesAndCharactersAgreeOnEveryKindOfText() throws {
    var texts = [
      "12", "12pt", "80mm", "0.125in", "24dots", "24dot", " 3 mm ", "\t4PT", "1E3", "1e3mm", "INF", "nan", "-0",
      "-2.5mm", "mm", "pt", "", " ", "3 m m", "3mmm", "0x1p3", "0X1P3mm", "+5", "5.", ".5", "1_000", "\n3mm", "3mm\n",
      "3 dots", "3DOTS", "3Dot", "in", "1in ", "12px", "٣mm", "3mm\u{301}", "\u{600} 3mm", "3\u{A0}mm", "1e400",
    ]
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("0123456789.-+eEmMpPtTiInNdDoOsSxX \t")
    for _ in 0..<3_000 {
      texts.append(String((0..<Int.random(in: 0...7, using: &generator)).map { _ in alphabet.randomElement()! }))
    }
    for resolution in [Resolution.dpi203, Resolution(dpi: 180)] {
      for text in texts {
        let bytes = Length.parsedASCII(text, resolution: resolution)
        let characters = Length.parsedByCharacters(text, resolution: resolution)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
          #expect(bytes == .some(characters), "'\(text)'")
        } else {
          #expect(bytes == nil, "'\(text)' is not ASCII")
        }
        #expect(Length(parsing: text, resolution: resolution) == characters, "'\(text)'")
      }
    }
  }
}
