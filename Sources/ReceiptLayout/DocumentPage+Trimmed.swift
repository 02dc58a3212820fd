import ReceiptModel

extension DocumentPage {
  /// The lightest gray that counts as printed: lighter pixels are paper (a JPEG's noise, a
  /// scan's background), so a blank end with a few of them is still blank.
  static let paperGray: UInt8 = 250

  /// The page from its first printed row less `margin` points to its last printed row plus
  /// `margin` (roll trimming): the blank paper beyond is dropped, nothing is scaled, so what
  /// remains is dot for dot the page the client drew. A client's default page is longer than its
  /// receipt, which it places at the top or in the middle (cupsd centres it). A page with no
  /// printed row keeps one margin's length; a page already that short is returned as it is.
  public func trimmed(margin: Double) -> DocumentPage {
    guard image.height > 0, image.width > 0, length > 0 else { return self }
    let pointsPerRow = length / Double(image.height)
    let marginRows = (margin / pointsPerRow).clampedInt(.up, in: 0...image.height)
    let kept: Range<Int>
    if let (first, last) = printedRows {
      kept = max(0, first - marginRows)..<min(image.height, last + 1 + marginRows)
    } else {
      kept = 0..<min(image.height, max(1, marginRows))
    }
    guard kept.count < image.height else { return self }
    let pixels = Array(image.pixels[kept.lowerBound * image.width..<kept.upperBound * image.width])
    return DocumentPage(
      image: GrayImage(width: image.width, height: kept.count, pixels: pixels), width: width,
      length: Double(kept.count) * pointsPerRow, isBilevel: isBilevel)
  }

  /// The first and last rows with a pixel darker than paper; nil when every row is paper.
  var printedRows: (first: Int, last: Int)? {
    let (width, height) = (image.width, image.height)
    return image.pixels.withUnsafeBufferPointer { pixels in
      func printed(_ row: Int) -> Bool {
        let start = row * width
        for x in start..<start + width where pixels[x] < Self.paperGray { return true }
        return false
      }
      guard let first = (0..<height).first(where: printed) else { return nil }
      let last = (first..<height).last(where: printed) ?? first
      return (first, last)
    }
  }
}
