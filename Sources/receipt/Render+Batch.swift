import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

extension Render {
  /// Several inputs, or an output directory (`out/`, or a directory that exists).
  var isBatch: Bool {
    var directory: ObjCBool = false
    return inputs.count > 1 || output.hasSuffix("/")
      || (output != "-" && FileManager.default.fileExists(atPath: output, isDirectory: &directory)
        && directory.boolValue)
  }

  /// `receipt render ORDER… -o DIR/` (and `-`: JSON Lines on stdin): ``BatchRender`` with the
  /// one-shot command's options, errors per input on stderr, a progress line on a terminal.
  func runBatch() throws {
    let format = try outputFormat()
    guard inputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("- (stdin) can be given once") }
    let items: BatchInputs
    do {
      items = try BatchInputs(inputs)
    } catch let error as ReceiptError {
      throw ValidationError(error.message)
    }
    let options = try templateOptions()
    let (templateName, templates) = (try template.name(), try template.directory())
    let (font, setup, model) = (try page.fontDescriptor(), try page.pageSetup(), try page.printerModel())
    let renderOptions = RenderOptions(gray: gray, model: model)
    let batch = BatchRender(
      directory: URL(fileURLWithPath: output), format: format,
      workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount
    ) {
      engine, item, data in
      let document: ReceiptDocument
      if item.isOrder {
        var options = options
        options.dataName = item.label
        let bound = try engine.templateDocument(
          template: templateName, data: data, templates: templates, options: options)
        document = bound.document
        return try engine.render(document, format: format, options: renderOptions).adding(warnings: bound.warnings)
      }
      document = try engine.plainTextDocument(data, path: item.label, font: font, pageSetup: setup)
      return try engine.render(document, format: format, options: renderOptions)
    }
    let progress = BatchProgress(total: items.total, visible: !quiet && isatty(STDERR_FILENO) == 1)
    let failures = try batch.run(next: { items.next() }) { outcome in
      for warning in outcome.warnings { Console.error("receipt: warning: \(outcome.item): \(warning)") }
      if let error = outcome.error {
        for warning in (error.underlying as? TemplateError)?.warnings ?? [] {
          Console.error("receipt: warning: \(outcome.item): \(warning)")
        }
        progress.clear()
        // Template and JSON errors already name the input (`small.json:3:7: …`).
        let message = error.message.hasPrefix(outcome.item) ? error.message : "\(outcome.item): \(error.message)"
        Console.error("receipt: error: \(message)")
      }
      progress.count(outcome)
    }
    progress.finish()
    if let read = items.readError {
      Console.error("receipt: error: \(read.message)")
      throw ExitCode(read.stage.exitCode)
    }
    if !quiet {
      try Console.out(progress.summary(directory: output, format: format))
    }
    if failures > 0 { throw ExitCode(progress.firstFailure ?? ReceiptError.Stage.data.exitCode) }
  }

  /// The template options of the command line (paper, model, locale, strictness).
  private func templateOptions() throws -> TemplateOptions {
    var options = TemplateOptions(
      locale: template.locale, strict: template.strict, pageSetup: try page.explicitPageSetup(),
      printHead: try page.printerModel()?.printHead)
    options.modelName = try page.printerModel()?.name
    return options
  }
}

extension RenderedReceipt {
  /// With the template's warnings first.
  func adding(warnings more: [String]) -> RenderedReceipt {
    var copy = self
    copy.warnings = more + warnings
    return copy
  }
}
