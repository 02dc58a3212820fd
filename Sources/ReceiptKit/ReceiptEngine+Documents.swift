public import Foundation
package import ReceiptLayout
import ReceiptPrint

/// How a document (PDF, PWG or Apple raster, JPEG, PNG) is printed on the roll.
public struct DocumentPrintOptions: Sendable {
  /// The roll in the printer (its width; the printable width comes from the printer's model).
  public var paper: Paper
  public var scaling: DocumentScaling
  public var content: DocumentContent
  /// The pages to print, 1-based; nil: all.
  public var pageRanges: [ClosedRange<Int>]?
  /// A line printed above the first page (`*** REPRINT ***` when a print was interrupted).
  public var mark: String?
  /// Each page keeps its printed rows with 9 pt of paper above and below, never scaled: for a
  /// page whose length the client did not choose (a desktop's default roll size of 200 mm for a
  /// 120 mm receipt). A page already that short is unchanged.
  public var trimRoll: Bool

  /// Creates options.
  public init(
    paper: Paper = .mm80, scaling: DocumentScaling = .auto, content: DocumentContent = .auto,
    pageRanges: [ClosedRange<Int>]? = nil, mark: String? = nil, trimRoll: Bool = false
  ) {
    self.paper = paper
    self.scaling = scaling
    self.content = content
    self.pageRanges = pageRanges
    self.mark = mark
    self.trimRoll = trimRoll
  }
}

extension ReceiptEngine {
  /// A document's pages laid out on the roll for `setup` (the printer's paper and resolution):
  /// what ``prepareDocument(_:format:options:request:)`` prints and the daemon previews.
  /// `shouldStop` gives the reading up (``PrintError/abandoned(_:)``) when the document is read
  /// in a process of its own (``DocumentPages/helper``).
  package func layOutDocument(
    _ data: Data, format: DocumentFormat, setup: PageSetup, options: DocumentPrintOptions, title: String,
    shouldStop: (@Sendable () -> Bool)? = nil
  ) throws -> LaidOutReceipt {
    try ReceiptError.wrapping {
      let read = DocumentReadOptions(
        resolution: setup.resolution.dpi, paperWidth: setup.paper.width.points, scaling: options.scaling,
        pageRanges: options.pageRanges, shouldStop: shouldStop)
      var pages = try DocumentPages.read(data, format: format, options: read)
      if options.trimRoll { pages = pages.map { $0.trimmed(margin: Insets.receiptDefault.bottom.points) } }
      var header: LaidOutPage?
      if let mark = options.mark {
        var markSetup = setup
        markSetup.margins = Insets(top: .pt(9), leading: .pt(0), bottom: .pt(6), trailing: .pt(0))
        markSetup.monochrome = true
        let text = ReceiptDocument.plainText(
          mark,
          attributes: TextAttributes(font: FontDescriptor(size: 12, weight: 700)),
          paragraphStyle: ParagraphStyle(alignment: .center), pageSetup: markSetup)
        header = try layout(text).pages.first
      }
      return try DocumentLayout.layOut(
        pages, setup: setup, scaling: options.scaling, content: options.content, title: title, header: header)
    }
  }

  /// Everything before a document's first byte goes to the printer: the printer opened, the
  /// document read and laid out at the printer's resolution on its roll, checked against its
  /// paper, archived, drawn and encoded (``send(_:)`` sends it).
  public func prepareDocument(
    _ data: Data, format: DocumentFormat, options: DocumentPrintOptions, request: PrintRequest
  ) throws -> PreparedPrint {
    guard (1...99).contains(request.copies) else { throw ReceiptError(.data, "copies must be between 1 and 99") }
    return try ReceiptError.wrapping {
      let printer = try PrinterAddress.open(request.printer, server: request.server)
      var setup = PageSetup(paper: options.paper, resolution: Resolution(dpi: printer.capabilities.resolution ?? 203))
      if let head = request.model?.printHead {
        guard let fitted = head.fitting(setup) else {
          throw ReceiptError(
            .data,
            "the printer model \(request.model!.name) takes \(head.papers.joined(separator: " or ")) paper, not \(options.paper.name)"
          )
        }
        setup = fitted
      }
      setup.monochrome = printer.capabilities.format != .pdf
      let title = request.jobName ?? "document"
      let laidOut = try layOutDocument(
        data, format: format, setup: setup, options: options, title: title, shouldStop: request.shouldStop)
      return try prepare(laidOut, printer: printer, request: request, name: title)
    }
  }

  /// The common end of printing a laid-out receipt: checked against the printer's paper,
  /// archived, drawn and encoded.
  func prepare(_ laidOut: LaidOutReceipt, printer: any Printer, request: PrintRequest, name: String) throws
    -> PreparedPrint
  {
    let job = job(request, name: name)
    try printer.capabilities.check(laidOut, printer: printer.name)
    if let archive = request.archive { try archive(try PrintPath.pdf.encode(laidOut, caches: caches.render)) }
    return PreparedPrint(
      printer: printer, job: job, receipt: laidOut, document: try printer.encode(laidOut, job: job),
      wait: request.wait, resolution: laidOut.pageSetup.resolution)
  }

  /// The print job a request asks for (a process ID of its own when it waits for a printer that
  /// confirms prints), drawn with this engine's caches.
  func job(_ request: PrintRequest, name: String) -> PrintJob {
    var job = PrintJob(
      name: name, copies: request.copies, options: request.options, holdWhenStopped: request.holdWhenStopped,
      model: request.model, processID: request.processID ?? (request.wait ? Self.processID() : nil),
      shouldStop: request.shouldStop)
    job.renderCaches = caches.render
    return job
  }
}
