public import Foundation
package import ReceiptLayout
@_spi(Internals) public import ReceiptModel
import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// What a document's pages are read with.
public struct DocumentReadOptions: Sendable {
  /// The printer's resolution: PDFs are drawn at it.
  public var resolution: Int
  /// The width of the paper in points: `fit` draws a PDF page to this width directly.
  public var paperWidth: Double
  public var scaling: DocumentScaling
  /// The pages to print, 1-based (IPP `page-ranges`); nil: all.
  public var pageRanges: [ClosedRange<Int>]?
  /// Asked while a document is read in a process of its own: true gives the reading up (the
  /// daemon stops); ``PrintError/abandoned(_:)`` is thrown then.
  public var shouldStop: (@Sendable () -> Bool)?

  /// Creates options.
  public init(
    resolution: Int, paperWidth: Double, scaling: DocumentScaling = .auto, pageRanges: [ClosedRange<Int>]? = nil,
    shouldStop: (@Sendable () -> Bool)? = nil
  ) {
    self.resolution = resolution
    self.paperWidth = paperWidth
    self.scaling = scaling
    self.pageRanges = pageRanges
    self.shouldStop = shouldStop
  }

  /// Whether page `number` (1-based) is printed.
  public func includes(page number: Int) -> Bool {
    pageRanges.map { ranges in ranges.contains { $0.contains(number) } } ?? true
  }
}

/// A document read into pages, every bound checked before pixels are allocated: documents come
/// from the network (IPP) and are untrusted. With a ``helper`` (the programs set it to
/// themselves) a document is read in a process of its own under a time and memory budget
/// (``ContainedDocumentReader``), so no document can take the daemon down.
public enum DocumentPages {
  /// Most pages a document may have.
  public static let maxPages = 200
  /// Most bytes of gray pixels one document may come to (all pages), as it is read.
  public static let maxPixels = 1 << 28
  /// Most bytes of gray pixels of the pages handed to the printer, once each page is reduced to
  /// the dots it is printed with.
  public static let maxPrintedPixels = 1 << 27
  /// Most bytes one page of a raster document may decompress to (16-bit CMYK at the largest
  /// size would be 2 GiB: bytes are bounded, not only pixels).
  public static let maxPageBytes = 1 << 30
  /// Wall-clock and CPU seconds reading one document may take, all its pages together: 60, or
  /// `RECEIPT_DOCUMENT_SECONDS` (1…3600).
  public static let timeLimit = TimeInterval(limit("RECEIPT_DOCUMENT_SECONDS", 60, in: 1...3600))
  /// Address space of the process that reads one document (and of each poppler it runs): 1 GiB,
  /// or `RECEIPT_DOCUMENT_MIB` MiB (64…65536).
  public static let memoryLimit = limit("RECEIPT_DOCUMENT_MIB", 1024, in: 64...65_536) << 20

  /// A limit from the environment when it is a whole number in `range`, else `fallback`.
  private static func limit(_ name: String, _ fallback: Int, in range: ClosedRange<Int>) -> Int {
    guard let text = ProcessInfo.processInfo.environment[name], let value = Int(text), range.contains(value) else {
      return fallback
    }
    return value
  }

  private static let helperPath = Locked<String?>(nil)

  /// The program that reads documents in a process of its own (`PROGRAM read-document …`); nil
  /// reads them in this process. `receipt` and `receipt-daemon` set it to themselves at start.
  public static var helper: String? {
    get { helperPath.withLock { $0 } }
    set { helperPath.withLock { $0 = newValue } }
  }

  /// Reads `data` as `format` into pages (not for ``DocumentFormat/order``): in a process of its
  /// own when there is a ``helper``.
  package static func read(_ data: Data, format: DocumentFormat, options: DocumentReadOptions) throws
    -> [DocumentPage]
  {
    guard format != .order else {
      throw PrintError.document("an order is printed through its template, not as pages")
    }
    if let helper {
      return try ContainedDocumentReader.read(data, format: format, options: options, helper: helper)
    }
    return try readHere(data, format: format, options: options)
  }

  /// Reads `data` as `format` into pages in this process (the reader process, tests, fuzzing).
  package static func readHere(_ data: Data, format: DocumentFormat, options: DocumentReadOptions) throws
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
    // No more pixels than the printer has dots for each page: what leaves the reader is small.
    let printed = pages.map {
      DocumentLayout.reducedToPrint($0, paper: options.paperWidth, scaling: options.scaling, dpi: options.resolution)
    }
    guard printed.reduce(0, { $0 + $1.image.width * $1.image.height }) <= maxPrintedPixels else {
      throw PrintError.document(
        "the document comes to over \(maxPrintedPixels >> 20) million dots on this printer; print fewer pages at once")
    }
    return printed
  }

  /// The reader process's side (`PROGRAM read-document`): reads the file at `input` in this
  /// process and writes its pages to `output` for ``ContainedDocumentReader``.
  public static func serveReader(input: String, output: String, format: DocumentFormat, options: DocumentReadOptions)
    throws
  {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: input))
    } catch {
      throw PrintError.document("cannot read the document's file \(input)")
    }
    let pages = try readHere(data, format: format, options: options)
    let fd = open(output, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw PrintError.output("cannot write \(output): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    try DocumentPageFile.write(pages, to: fd)
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
