public import Foundation
public import ReceiptLayout
public import ReceiptModel
import ReceiptRender

/// What a document's pages are read with.
public struct DocumentReadOptions: Sendable {
  /// The printer's resolution: PDFs are drawn at it.
  public var resolution: Int
  /// The width of the paper in points: `fit` draws a PDF page to this width directly.
  public var paperWidth: Double
  public var scaling: DocumentScaling
  /// The pages to print, 1-based (IPP `page-ranges`); nil: all.
  public var pageRanges: [ClosedRange<Int>]?

  /// Creates options.
  public init(
    resolution: Int, paperWidth: Double, scaling: DocumentScaling = .auto, pageRanges: [ClosedRange<Int>]? = nil
  ) {
    self.resolution = resolution
    self.paperWidth = paperWidth
    self.scaling = scaling
    self.pageRanges = pageRanges
  }

  /// Whether page `number` (1-based) is printed.
  public func includes(page number: Int) -> Bool {
    pageRanges.map { ranges in ranges.contains { $0.contains(number) } } ?? true
  }
}

/// A document read into pages, every bound checked before pixels are allocated: documents come
/// from the network (IPP) and are untrusted.
public enum DocumentPages {
  /// Most pages a document may have.
  public static let maxPages = 200
  /// Most bytes of gray pixels one document may come to (all pages).
  public static let maxPixels = 1 << 28

  /// Reads `data` as `format` into pages (not for ``DocumentFormat/order``).
  public static func read(_ data: Data, format: DocumentFormat, options: DocumentReadOptions) throws
    -> [DocumentPage]
  {
    let pages: [DocumentPage]
    switch format {
    case .pwgRaster, .urf:
      pages = try RasterDocumentReader.read(data, options: options)
    case .jpeg, .png:
      let image: GrayImage
      do {
        image = try GrayImage.decode(data)
      } catch let error as LayoutError {
        throw PrintError.document("the \(format == .png ? "PNG" : "JPEG") image cannot be printed: \(error)")
      }
      // A picture has no size of its own: it is as wide as the paper (its pixels' shape kept).
      let width = options.paperWidth
      pages = [DocumentPage(image: image, width: width, length: width * Double(image.height) / Double(image.width))]
    case .pdf:
      do {
        pages = try PDFRasterizer.rasterize(
          data, resolution: options.resolution, fitWidth: fitWidth(options), pages: options.includes(page:),
          maxPages: maxPages, maxPixels: maxPixels
        ).map { DocumentPage(image: $0.image, width: $0.width, length: $0.length) }
      } catch let error as RenderError {
        throw PrintError.document("the PDF cannot be printed: \(error)")
      }
    case .order:
      throw PrintError.document("an order is printed through its template, not as pages")
    }
    guard !pages.isEmpty else {
      throw PrintError.document("the document has no page to print (page-ranges outside its pages?)")
    }
    return pages
  }

  /// The width a PDF page is drawn to when it is scaled to the paper (nil: at its own size; the
  /// decision for pages of other widths is made per page when they are laid out).
  static func fitWidth(_ options: DocumentReadOptions) -> Double? {
    switch options.scaling {
    case .fit, .fill: options.paperWidth
    case .none, .auto: nil
    }
  }
}
