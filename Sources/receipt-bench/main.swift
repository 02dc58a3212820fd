// Layout benchmark: warm layout time per 40-character line and per 40-line receipt.
// Run with `make bench` (release build). Reports medians of repeated runs; it asserts nothing.
import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptRender

if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "record" {
  try record(orders: CommandLine.arguments[2], templates: CommandLine.arguments[3], output: CommandLine.arguments[4])
  exit(0)
}

let engine = try ReceiptLayoutEngine()
let words = "coffee latte bagel muffin tea juice water scone toast bowl salad wrap soup cake cookie pie".split(
  separator: " ")

/// A 40-character line of receipt-like words.
func line(_ seed: Int) -> String {
  var text = ""
  var i = seed
  while text.count < 40 {
    text += (text.isEmpty ? "" : " ") + words[i % words.count]
    i += 7
  }
  return String(text.prefix(40))
}

/// Median wall time of `body` over `runs` runs after `warmup` runs, in seconds.
func median(runs: Int, warmup: Int = 20, _ body: () throws -> Void) rethrows -> Double {
  for _ in 0..<warmup { try body() }
  var times: [Double] = []
  let clock = ContinuousClock()
  for _ in 0..<runs {
    let d = try clock.measure(body)
    times.append(Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds))
  }
  times.sort()
  return times[times.count / 2]
}

let width = PageSetup().contentWidth.points
let lines = (0..<40).map(line)
let single = AttributedText(lines[0])
let perLine = try median(runs: 2000) { _ = try engine.measure(single, width: width) }
if CommandLine.arguments.dropFirst().first == "line" {  // for profilers: the one-line case only
  print(String(format: "one 40-char line: %.2f µs", perLine * 1e6))
  exit(0)
}

let shapingOnly = try median(runs: 2000) { _ = try engine.shapeOnly(lines[0], font: .receiptDefault) }

let receipt = ReceiptDocument(blocks: lines.map { .text(AttributedText($0)) })
let perReceipt = try median(runs: 300) { _ = try engine.layout(receipt) }

var rows: [Block] = []
for (i, text) in lines.enumerated() {
  rows.append(
    .row(
      Row([
        Cell(.text(AttributedText(String(text.prefix(24)))), width: .weight(1)),
        Cell(.text(AttributedText(String(format: "%.2f", Double(i) * 1.25))), alignment: .trailing),
      ])))
}
let grid = ReceiptDocument(blocks: [.column(Column(rows, grid: true))])
let perGrid = try median(runs: 200) { _ = try engine.layout(grid) }

// Renderers on one 40-line receipt with a QR code and a Code 128 (layout included where named).
var withCodes = lines.map { Block.text(AttributedText($0)) }
withCodes += [
  .barcode(Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 3)),
  .barcode(Barcode(.code128, data: "RCPT-1042")),
]
let codeReceipt = ReceiptDocument(blocks: withCodes)
let laidOut = try engine.layout(codeReceipt)
let layoutOnly = try median(runs: 200) { _ = try engine.layout(codeReceipt) }
let raster = try median(runs: 200) { _ = try RasterRenderer().render(laidOut) }
if CommandLine.arguments.dropFirst().first == "raster" {  // for profilers: the raster step only
  print(String(format: "raster: %.0f µs", raster * 1e6))
  exit(0)
}
let pages = try RasterRenderer().render(laidOut)
let layoutPWG = try median(runs: 200) {
  let l = try engine.layout(codeReceipt)
  _ = try PWGRasterWriter().encode(try RasterRenderer().render(l), setup: l.pageSetup)
}
let pwgOnly = try median(runs: 200) { _ = try PWGRasterWriter().encode(pages, setup: laidOut.pageSetup) }
let pngOnly = try median(runs: 100) { _ = try PNGWriter().encode(pages[0], dpi: 203) }
if CommandLine.arguments.dropFirst().first == "png" {  // for profilers: the PNG encoder only
  print(String(format: "png: %.0f µs", pngOnly * 1e6))
  exit(0)
}
let escposOnly = try median(runs: 200) { _ = ESCPOSEncoder().encode(pages, receipt: laidOut) }
let pdf = try median(runs: 100) { _ = try PDFRenderer().render(laidOut) }

let pangoPerLine = 31.0  // µs, Pango layout of a 40-char line, C -O2 on this VM class (shared/NOTES.md)
print("receipt layout benchmark (release, warm, median)")
print(
  String(
    format: "  one 40-char line:          %8.2f µs   (target ≤ 5 µs; Pango ~%.0f µs → %.1f× faster)", perLine * 1e6,
    pangoPerLine, pangoPerLine / (perLine * 1e6)))
print(
  String(
    format: "  HarfBuzz shaping alone:     %8.2f µs   (layout / shaping = %.1f×)", shapingOnly * 1e6,
    perLine / shapingOnly))
print(String(format: "  40-line text receipt:      %8.2f µs   (%.2f µs/line)", perReceipt * 1e6, perReceipt * 1e6 / 40))
print(String(format: "  40-row grid item receipt:  %8.2f µs", perGrid * 1e6))
print("renderers, 40-line receipt + QR + Code 128 (\(pages[0].width)×\(pages[0].height) dots)")
print(String(format: "  layout:                    %8.0f µs", layoutOnly * 1e6))
print(String(format: "  raster 1-bit (cairo):      %8.0f µs", raster * 1e6))
print(String(format: "  + PWG encode (libcups):    %8.0f µs", pwgOnly * 1e6))
print(String(format: "  + PNG encode (libpng):     %8.0f µs", pngOnly * 1e6))
print(String(format: "  + ESC/POS encode:          %8.0f µs", escposOnly * 1e6))
print(String(format: "  PDF (cairo):               %8.0f µs", pdf * 1e6))
print(String(format: "  layout + PWG raster:       %8.0f µs   (target ≤ 2000 µs)", layoutPWG * 1e6))
