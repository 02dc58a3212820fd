import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptRender

/// `receipt-bench record ORDERS.jsonl TEMPLATES OUTDIR`: each order (one JSON per line) bound
/// into `receipt.xml`, laid out and rendered to PDF as `receipt render` does, with the renderer's
/// cairo calls written down as OUTDIR/N.ops (images beside them) for the cairo floor
/// (scripts/bench/cairo-floor.c, run by scripts/bench-batch.py).
func record(orders: String, templates: String, output: String) throws {
  let engine = try ReceiptEngine()
  let directory = URL(fileURLWithPath: output)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let images = PaintRecording.Images()
  let lines = try String(contentsOfFile: orders, encoding: .utf8).split(separator: "\n")
  for (n, line) in lines.enumerated() {
    var options = TemplateOptions()
    options.dataName = "stdin:\(n + 1)"
    let bound = try engine.templateDocument(
      template: "receipt", data: Data(line.utf8), templates: URL(fileURLWithPath: templates), options: options)
    let laidOut = try engine.layout(bound.document)
    let recording = PaintRecording(title: laidOut.title, directory: directory, name: "\(n)", images: images)
    _ = try PDFRenderer().render(laidOut, recording: recording)
    try Data(recording.text.utf8).write(to: directory.appendingPathComponent("\(n).ops"))
  }
}
