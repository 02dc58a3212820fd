internal import CCairo
public import Foundation
public import ReceiptLayout
import ReceiptModel

/// Writes a laid-out receipt as a PDF through cairo: one page per continuous page, the paper's
/// width by the cut length, white (the paper) under the ink, fonts embedded and subset by cairo,
/// text extractable, every stream deflated at zlib's fastest level in the executables
/// (see ``streamDeflateLevel``).
///
/// Output is deterministic: the creation date is fixed, so the same receipt gives the same bytes.
public struct PDFRenderer: Sendable {
  /// Document metadata: creator tool name.
  public var creator: String
  /// The creation date written into the PDF (fixed by default for reproducible output).
  public var creationDate: String

  /// Where images' cairo surfaces are kept between renders (its engine's context; tests give
  /// a renderer a pool of its own).
  var imagePool: ImageSurfacePool

  /// Creates a renderer that keeps images' surfaces in the process's context.
  public init(creator: String = "receipt", creationDate: String = "2000-01-01T00:00:00Z") {
    self.init(creator: creator, creationDate: creationDate, caches: .process)
  }

  /// Creates a renderer that keeps images' surfaces in `caches`.
  package init(creator: String = "receipt", creationDate: String = "2000-01-01T00:00:00Z", caches: RenderCaches) {
    self.creator = creator
    self.creationDate = creationDate
    imagePool = caches.imageSurfaces
  }

  /// Renders to PDF bytes.
  public func render(_ receipt: LaidOutReceipt) throws -> Data {
    try render(receipt, recording: nil)
  }

  /// Renders to PDF bytes, each cairo call written down in `recording` too (the benchmarks'
  /// cairo floor: `receipt-bench record`).
  package func render(_ receipt: LaidOutReceipt, recording: PaintRecording?) throws -> Data {
    let images = LentImageSurfaces(from: imagePool)
    // Given back once `write` has returned: its cairo surface and context are destroyed then.
    defer { images.giveBack() }
    return try write(receipt, images: images, recording: recording)
  }

  private func write(_ receipt: LaidOutReceipt, images: LentImageSurfaces, recording: PaintRecording?) throws -> Data {
    let sink = ByteSink()
    let first = receipt.pages.first
    let pdf = try CairoSurface(
      taking: cairo_pdf_surface_create_for_stream(
        { closure, data, length in
          guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
          Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().append(data, count: Int(length))
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque(), first?.width ?? 1, first?.cutLength ?? 1), what: "a PDF")
    let surface = pdf.pointer
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, receipt.title)
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, creator)
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, creationDate)
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, creationDate)
    let context = try CairoContext(pdf)
    let cr = context.pointer
    let painter = CairoPainter()
    painter.imageSurfaces = images
    painter.recording = recording
    for page in receipt.pages {
      cairo_pdf_surface_set_size(surface, page.width, page.cutLength)
      recording?.page(width: page.width, height: page.cutLength)
      // The paper, white, first: cairo's PDF analysis unions every later drawing call's box into
      // a region of the page, which costs a pass over its rectangles each time (an Arabic receipt
      // makes ~200 calls) — unless the region is already the whole page. 4 % of a PDF receipt.
      cairo_set_source_rgb(cr, 1, 1, 1)
      cairo_paint(cr)
      try painter.paint(page, on: cr)
      cairo_show_page(cr)
    }
    cairo_surface_finish(surface)
    try pdf.check()
    return withExtendedLifetime((sink, context)) { sink.data }
  }
}
