public import Foundation
package import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptRender

/// The facade over the pipeline (markup → model → layout → render → print). The CLI and the
/// daemon use only this. Create one and reuse it: fonts and shaping caches stay warm.
public final class ReceiptEngine: Sendable {
  private let layoutEngine: ReceiptLayoutEngine
  /// What this engine keeps between receipts (``EngineCaches``).
  package let caches: EngineCaches

  /// Creates an engine (loads the font configuration) that shares the process's caches with
  /// every other engine (``EngineCaches/process``).
  public convenience init() throws {
    try self.init(caches: .process)
  }

  /// Creates an engine that keeps what it parses and formats in `caches`.
  package init(caches: EngineCaches) throws {
    self.caches = caches
    do {
      layoutEngine = try ReceiptLayoutEngine(caches: caches.layout)
    } catch {
      throw ReceiptError(.layout, "\(error)")
    }
  }

  /// Largest plain-text input.
  public static let maxPlainTextBytes = 1 << 20

  /// Reads a UTF-8 text file into a plain-text document (`lp`-style printing).
  public func plainTextDocument(
    contentsOf path: String, font: FontDescriptor = .receiptDefault, pageSetup: PageSetup = PageSetup()
  ) throws -> ReceiptDocument {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ReceiptError(.input, "cannot read \(path): \(Self.reason(error))")
    }
    return try plainTextDocument(data, path: path, font: font, pageSetup: pageSetup)
  }

  /// A UTF-8 text file's bytes as a plain-text document (`path` names it in errors and titles).
  public func plainTextDocument(
    _ data: Data, path: String, font: FontDescriptor = .receiptDefault, pageSetup: PageSetup = PageSetup()
  ) throws -> ReceiptDocument {
    guard data.count <= Self.maxPlainTextBytes else {
      throw ReceiptError(
        .data, "\(path) is \(data.count) bytes; plain text is limited to \(Self.maxPlainTextBytes) bytes (1 MiB)")
    }
    guard let text = String(validating: data, as: UTF8.self) else {
      throw ReceiptError(.data, "\(path) is not UTF-8 text; convert it (e.g. iconv -t UTF-8)")
    }
    let title = URL(fileURLWithPath: path).lastPathComponent
    var document = ReceiptDocument.plainText(
      text, attributes: TextAttributes(font: font), pageSetup: pageSetup, title: title)
    // A font file the caller names by path (`--font /path/Face.ttf 9`) is the caller's choice.
    document.fontDirectories = font.families.filter { $0.hasPrefix("/") }.map {
      URL(fileURLWithPath: $0).deletingLastPathComponent().path
    }
    return document
  }

  /// Binds order JSON into a template of a templates directory. Warnings (lenient mode) are
  /// returned with the document.
  public func templateDocument(
    template: String, data: Data, templates: URL, options: TemplateOptions = TemplateOptions()
  ) throws -> RenderedTemplate {
    try ReceiptError.wrapping {
      try TemplateLibrary(directory: templates, caches: caches.markup).render(
        template: template, data: data, options: options)
    }
  }

  /// Binds an order into a template given as its text (includes, styles and strings still come
  /// from `templates`).
  public func templateDocument(
    source: Data, named name: String, data: Data, templates: URL, options: TemplateOptions = TemplateOptions()
  ) throws -> RenderedTemplate {
    try ReceiptError.wrapping {
      try TemplateLibrary(directory: templates, caches: caches.markup).render(
        source: source, named: name, data: data, options: options)
    }
  }

  /// Checks a template given as its text, without data; returns warnings, throws the first error.
  public func validate(source: Data, named name: String, templates: URL) throws -> [String] {
    try ReceiptError.wrapping {
      try TemplateLibrary(directory: templates, caches: caches.markup).validate(source: source, named: name)
    }
  }

  /// Checks a template (and optionally binds data to it); returns warnings, throws the first error.
  public func validate(
    template: String, templates: URL, data: Data? = nil, strict: Bool = false, dataName: String = "order"
  ) throws -> [String] {
    try ReceiptError.wrapping {
      try TemplateLibrary(directory: templates, caches: caches.markup).validate(
        template: template, data: data, strict: strict, dataName: dataName)
    }
  }

  /// Lays out a document: pages with content heights and cut lengths.
  package func layout(_ document: ReceiptDocument) throws -> LaidOutReceipt {
    do {
      return try layoutEngine.layout(document)
    } catch let error as LayoutError {
      throw ReceiptError(error)
    } catch {
      throw ReceiptError(.layout, "\(error)")
    }
  }

  /// Lays out and renders a document to the bytes of a format, with the measurements of the
  /// pages that were rendered (one layout serves both).
  public func render(_ document: ReceiptDocument, format: OutputFormat, options: RenderOptions = RenderOptions())
    throws -> RenderedReceipt
  {
    try render(document, formats: [format], options: options)[0]
  }

  /// One document in several formats; formats drawn with the same ink share one layout (the
  /// designer's PNG preview and its ESC/POS byte count are laid out once).
  public func render(_ document: ReceiptDocument, formats: [OutputFormat], options: RenderOptions = RenderOptions())
    throws -> [RenderedReceipt]
  {
    if formats.contains(.escpos) && options.gray {
      throw ReceiptError(.data, "ESC/POS output is always 1-bit; leave out the gray option")
    }
    var layouts: [Bool: (document: ReceiptDocument, laidOut: LaidOutReceipt)] = [:]
    return try formats.map { format in
      // One ink (1-bit raster, ESC/POS): emoji from a monochrome font where one has them.
      let monochrome = format != .pdf && !options.gray
      if layouts[monochrome] == nil {
        var document = document
        document.pageSetup.monochrome = monochrome
        layouts[monochrome] = (document, try layout(document))
      }
      let (document, laidOut) = layouts[monochrome]!
      return try encode(laidOut, of: document, format: format, options: options)
    }
  }

  private func encode(
    _ laidOut: LaidOutReceipt, of document: ReceiptDocument, format: OutputFormat, options: RenderOptions
  ) throws -> RenderedReceipt {
    let parts: [Data] = try ReceiptError.wrapping {
      switch format {
      case .png:
        let dpi = document.pageSetup.resolution.dpi
        // Page by page: one page's dots in memory at a time.
        var pngs: [Data] = []
        let count = min(laidOut.pages.count, options.pageLimit ?? .max)
        try RasterRenderer(gray: options.gray, caches: caches.render).render(laidOut, pages: 0..<count) { _, image in
          pngs.append(try PNGWriter().encode(image, dpi: dpi))
        }
        return pngs
      case .pdf, .pwg, .ras, .escpos:
        return [
          try format.printPath!.encode(laidOut, gray: options.gray, model: options.model, caches: caches.render)
        ]
      }
    }
    let pages = laidOut.pages.map { PageMeasurement(page: $0, resolution: document.pageSetup.resolution) }
    return RenderedReceipt(parts: parts, format: format, pages: pages, warnings: laidOut.warnings)
  }

  /// Per-page measurements of a document, and what layout had to substitute.
  public func measure(_ document: ReceiptDocument) throws -> (pages: [PageMeasurement], warnings: [String]) {
    let laidOut = try layout(document)
    return (
      laidOut.pages.map { PageMeasurement(page: $0, resolution: document.pageSetup.resolution) }, laidOut.warnings
    )
  }

  /// The zlib level (FLEVEL: 0 fastest, 2 zlib's default) the PDFs' streams are compressed at in
  /// this process, read back from a PDF cairo wrote: 0 when the executable links `CDeflateLevel`
  /// (both shipped ones do); nil when unreadable. The start-up self-check of that interposition.
  public static var pdfStreamDeflateLevel: Int? { PDFRenderer.streamDeflateLevel }

  /// The program's version (debian/changelog's; `receipt --version`, the IPP printers'
  /// firmware version).
  public static let version = "1.0.0"

  /// Versions of the C libraries in use, read from the libraries themselves.
  public static var libraryVersions: KeyValuePairs<String, String> {
    [
      "freetype": LayoutLibraries.freetype, "harfbuzz": LayoutLibraries.harfbuzz, "icu": LayoutLibraries.icu,
      "fontconfig": LayoutLibraries.fontconfig, "cairo": RenderLibraries.cairo, "zint": LayoutLibraries.zint,
      "cups": PrintLibraries.cups,
    ]
  }

  static func reason(_ error: any Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
      let code = POSIXErrorCode(rawValue: Int32(underlying.code))
    {
      return String(cString: strerror(code.rawValue))
    }
    if ns.domain == NSCocoaErrorDomain && ns.code == NSFileReadNoSuchFileError { return "no such file" }
    return ns.localizedDescription
  }
}

/// A rendered receipt: the output bytes and the size of every page in them.
public struct RenderedReceipt: Sendable {
  /// The encoded output: one file for PDF, PWG, CUPS raster and ESC/POS (all pages inside),
  /// one PNG per page.
  public var parts: [Data]
  public var format: OutputFormat
  /// One entry per continuous page.
  public var pages: [PageMeasurement]
  /// What layout had to substitute (e.g. a font that is not installed).
  public var warnings: [String] = []
}

/// The size of one laid-out page.
public struct PageMeasurement: Sendable, Codable, Equatable {
  /// Unrounded content height in points.
  public var contentHeight: Double
  /// Page length in points: ceil(content height) + top and bottom margins.
  public var cutLength: Double
  /// Page width (paper width) in points.
  public var width: Double
  /// Cut length in millimetres.
  public var cutLengthMillimetres: Double
  /// Cut length in printer dots (rounded up).
  public var cutLengthDots: Int

  init(page: LaidOutPage, resolution: Resolution) {
    contentHeight = page.contentHeight
    cutLength = page.cutLength
    width = page.width
    cutLengthMillimetres = Length.pt(page.cutLength).millimetres
    cutLengthDots = Length.pt(page.cutLength).dots(at: resolution).clampedInt(.up, in: 0...Int.max)
  }
}
