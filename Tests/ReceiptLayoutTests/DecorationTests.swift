import ReceiptLayout
import ReceiptModel
import Testing

@Suite struct DecorationTests {
  let engine = try! ReceiptLayoutEngine()

  var rects: (LaidOutPage) -> [FilledRect] {
    { page in
      page.items.compactMap {
        if case .rect(let r) = $0 { return r }
        return nil
      }
    }
  }

  @Test func decimalTabsAlignTheSeparators() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: 120, alignment: .decimal)])
    let page = try engine.page([.text(AttributedText("A\t9.99\nB\t1234.5\nC\t0.125", paragraphStyle: style))])
    let numbers = page.runs.filter { $0.text.first?.isNumber == true }
    #expect(numbers.count == 3)
    // The x of each "." (its glyph's position) is the same on every line.
    let dots = numbers.map { run -> Double in
      let offset = run.text.utf16.firstIndex(of: 0x2E).map {
        run.text.utf16.distance(from: run.text.utf16.startIndex, to: $0)
      }!
      return run.origin.x + run.glyphs.first { $0.cluster == offset }!.x
    }
    #expect(dots.allSatisfy { abs($0 - dots[0]) < 1e-6 })
    #expect(abs(dots[0] - PageSetup().contentOriginX.points - 120) < 1e-6)
  }

  @Test func inverseTextIsWhiteOnABlackBandOfTheLineHeight() throws {
    var text = AttributedText("Normal ")
    text.append("TOTAL", TextAttributes(inverse: true))
    let page = try engine.page([.text(text)])
    let band = try #require(rects(page).first { $0.ink == .black })
    let run = try #require(page.runs.first { $0.text == "TOTAL" })
    #expect(run.ink == .white)
    #expect(abs(band.rect.height - 11.640625) < 1e-9)
    #expect(abs(band.rect.x - run.origin.x) < 1e-9 && abs(band.rect.width - run.width) < 1e-9)
  }

  @Test func underlineSitsBelowTheBaselineAcrossTheRun() throws {
    let page = try engine.page([.text(AttributedText("Signature", attributes: TextAttributes(underline: true)))])
    let run = try #require(page.runs.first)
    let line = try #require(rects(page).first)
    #expect(line.rect.y > run.origin.y)
    #expect(line.rect.y < run.origin.y + 3)
    #expect(abs(line.rect.width - run.width) < 1e-9)
  }

  @Test func doubleWidthAndHeightScaleAdvancesAndLineHeight() throws {
    let plain = try engine.page([.text(AttributedText("WIDE"))])
    let scaled = try engine.page([
      .text(AttributedText("WIDE", attributes: TextAttributes(horizontalScale: 2, verticalScale: 2)))
    ])
    #expect(abs(scaled.runs[0].width - 2 * plain.runs[0].width) < 1e-9)
    #expect(abs(scaled.contentHeight - 2 * plain.contentHeight) < 1e-9)
  }

  @Test func justifiedLinesFillTheWidthExceptTheLast() throws {
    let style = ParagraphStyle(alignment: .justified)
    let text = AttributedText(
      "Receipts are printed on continuous paper so the printer needs to know how long each one is.",
      paragraphStyle: style)
    let page = try engine.page([.text(text)])
    let right = PageSetup().contentOriginX.points + PageSetup().contentWidth.points
    let lines = page.lines
    #expect(lines.count >= 2)
    for line in lines.dropLast() {
      let last = line.last!
      let end = last.origin.x + last.width
      #expect(abs(end - right) < 1e-6, "justified line ends at \(end), not \(right)")
    }
    let lastLine = lines.last!.last!
    #expect(lastLine.origin.x + lastLine.width < right - 1)
  }
}

@Suite struct MoreTabAndRowTests {
  let engine = try! ReceiptLayoutEngine()
  let setup = PageSetup()

  @Test func strikethroughCrossesTheLowercaseLetters() throws {
    let page = try engine.page([.text(AttributedText("void", attributes: TextAttributes(strikethrough: true)))])
    let run = try #require(page.runs.first)
    let strike = try #require(
      page.items.compactMap { item -> FilledRect? in
        if case .rect(let r) = item { return r }
        return nil
      }.first)
    // Above the baseline, below the x-height (~0.55 em for DejaVu Sans at 10 pt).
    #expect(strike.rect.maxY < run.origin.y)
    #expect(strike.rect.y > run.origin.y - 5.5)
  }

  @Test func centerTabStopCentresTheSegment() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: 100, alignment: .center)])
    let page = try engine.page([.text(AttributedText("A\tcentred", paragraphStyle: style))])
    let run = try #require(page.runs.first { $0.text == "centred" })
    #expect(abs(run.origin.x + run.width / 2 - (setup.contentOriginX.points + 100)) < 1e-9)
  }

  @Test func tabsInARightToLeftParagraphCountFromTheRight() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: 100, alignment: .left)])
    let page = try engine.page([.text(AttributedText("المجموع\t٩٫٩٩", paragraphStyle: style))])
    let right = setup.contentOriginX.points + setup.contentWidth.points
    let word = try #require(page.runs.first { $0.text == "المجموع" })
    let price = try #require(page.runs.first { $0.text == "٩٫٩٩" })
    #expect(abs(word.origin.x + word.width - right) < 1e-9)
    // A "left" stop in right-to-left text: the segment starts (its right edge) 100 pt from the right.
    #expect(abs(price.origin.x + price.width - (right - 100)) < 1e-9)
  }

  @Test func baselineAlignedCellsShareTheirBaseline() throws {
    let big = AttributedText("TOTAL", attributes: TextAttributes(font: FontDescriptor(size: 18)))
    let small = AttributedText("EUR 10.20", attributes: TextAttributes(font: FontDescriptor(size: 8)))
    let row = Row([Cell(.text(big), width: .weight(1)), Cell(.text(small))], verticalAlignment: .baseline)
    let page = try engine.page([.row(row)])
    let baselines = Set(page.runs.map { ($0.origin.y * 1e6).rounded() })
    #expect(page.runs.count == 2)
    #expect(baselines.count == 1)
  }
}
