public import ReceiptLayout

/// Bounds on what a receipt may cost to draw as dots, checked from the layout before anything is
/// drawn: receipts, templates and order data are untrusted, and a `<cut/>` per item at 1,200 dpi
/// on wide paper once asked for gigabytes.
extension RasterRenderer {
  /// Most dots one page may have: its drawing surface takes a byte per dot (256 MiB). A 4 m
  /// receipt on 80 mm paper at 203 dpi has 20 million.
  public static let maxPageDots = 1 << 28
  /// Most bytes of dots one output may hold, every page and copy counted (256 MiB: two million
  /// 1-bit rows of 80 mm at 203 dpi; at 8-bit gray, an eighth of that).
  public static let maxRasterBytes = 1 << 28

  /// Throws ``RenderError/tooManyDots(_:)`` when drawing `pages` of the receipt (all of them
  /// when nil), `copies` times, would exceed the bounds.
  public func checkBudget(_ receipt: LaidOutReceipt, pages: Range<Int>? = nil, copies: Int = 1) throws {
    var bytes = 0
    for page in receipt.pages[pages ?? receipt.pages.indices] {
      let (width, height) = Self.size(of: page, setup: receipt.pageSetup)
      guard width.multipliedReportingOverflow(by: height).partialValue <= Self.maxPageDots, width < 1 << 20,
        height < 1 << 20
      else {
        throw RenderError.tooManyDots(
          "a page of \(width)×\(height) dots is more than one page may have (\(Self.maxPageDots) dots); "
            + "shorten it with <cut/>, or lower the resolution or the paper width")
      }
      bytes += (gray ? width : (width + 7) / 8) * height
    }
    guard bytes.multipliedReportingOverflow(by: max(1, copies)).partialValue <= Self.maxRasterBytes else {
      throw RenderError.tooManyDots(
        "the receipt comes to \(bytes * max(1, copies) >> 20) MiB of dots (pages × copies); "
          + "the limit is \(Self.maxRasterBytes >> 20) MiB: print fewer pages or copies, or lower the resolution")
    }
  }
}
