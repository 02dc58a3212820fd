import ReceiptLayout
import ReceiptModel
import Testing

/// Roll trimming (a document whose length its client did not choose): the page keeps its
/// printed rows and a margin on either side, and what is kept is the client's page, row for row.
@Suite struct DocumentTrimTests {
  /// A page of `rows` rows 8 pixels wide at 72 pixels an inch (one row a point), white but for
  /// `ink` rows of `gray`.
  func page(rows: Int, ink: [Int], gray: UInt8 = 0) -> DocumentPage {
    var pixels = [UInt8](repeating: 255, count: rows * 8)
    for row in ink { for x in 0..<8 { pixels[row * 8 + x] = gray } }
    return DocumentPage(image: GrayImage(width: 8, height: rows, pixels: pixels), width: 8, length: Double(rows))
  }

  @Test func aPageEndsAfterItsLastPrintedRowAndTheMargin() {
    let drawn = page(rows: 200, ink: [3, 50, 119])
    let trimmed = drawn.trimmed(margin: 9)
    #expect(trimmed.length == 129, "rows 0…119 and 9 rows of margin")
    #expect(trimmed.image.height == 129 && trimmed.image.width == 8)
    #expect(Array(trimmed.image.pixels) == Array(drawn.image.pixels.prefix(129 * 8)), "the client's page, row for row")
    #expect(trimmed.width == drawn.width, "never scaled")
  }

  @Test func aPageCentredOnALongerOneKeepsItsMarginAbove() {
    // cupsd centres a short page on the queue's default one: blank above and below.
    let drawn = page(rows: 300, ink: [100, 180])
    let trimmed = drawn.trimmed(margin: 9)
    #expect(trimmed.length == 99, "rows 91…189")
    #expect(Array(trimmed.image.pixels) == Array(drawn.image.pixels[91 * 8..<190 * 8]))
  }

  @Test func aPageAlreadyThatShortIsUnchanged() {
    let drawn = page(rows: 130, ink: [5, 125])
    #expect(drawn.trimmed(margin: 9) == drawn)
  }

  @Test func paperNoiseIsNotInkButLightGrayIs() {
    #expect(page(rows: 200, ink: [150], gray: 252).trimmed(margin: 9).length == 9, "JPEG noise on white")
    #expect(page(rows: 200, ink: [150], gray: 200).trimmed(margin: 9).length == 19, "a light gray prints")
  }

  @Test func theScaleOfPixelsToPointsIsKept() {
    // 400 rows over 200 points (144 pixels an inch): ink to row 99 is 50 points, + 9 of margin.
    var drawn = page(rows: 400, ink: [0, 99])
    drawn.length = 200
    drawn.width = 4
    let trimmed = drawn.trimmed(margin: 9)
    #expect(trimmed.image.height == 118 && trimmed.length == 59)
  }
}
