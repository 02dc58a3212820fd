import Foundation
import ReceiptKit
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// The progress line of a batch on a terminal (`rendered 812 of 3000, 2 failed, 403/s`),
/// redrawn at most ten times a second on standard error, and the summary at the end.
///
/// Its counts are its lock's (``BatchRender`` reports outcomes under its own lock too, so it is
/// never contended).
package final class BatchProgress: @unchecked Sendable {
  private let lock = NSLock()
  private let total: Int?
  private let visible: Bool
  private let start = Date()
  private var lastDraw = Date.distantPast
  private var rendered = 0
  private var failed = 0
  private var failure: Int32?
  /// The exit code of the first input that failed.
  package var firstFailure: Int32? { lock.withLock { failure } }

  /// A progress line shown when `visible` (a terminal, not `--quiet`).
  package init(total: Int?, visible: Bool) {
    self.total = total
    self.visible = visible
  }

  /// Counts an outcome, and redraws the line now and then.
  package func count(_ outcome: BatchOutcome) {
    lock.withLock {
      if let error = outcome.error {
        failed += 1
        if failure == nil { failure = error.stage.exitCode }
      } else {
        rendered += 1
      }
      if visible, Date().timeIntervalSince(lastDraw) >= 0.1 { draw() }
    }
  }

  /// Clears the line (before an error message is printed).
  package func clear() {
    if visible { write("\r\u{1B}[K") }
  }

  /// The final state of the line, and a new line.
  package func finish() {
    guard visible else { return }
    lock.withLock { draw() }
    write("\n")
  }

  /// `rendered 9988 of 10000 receipts to out/ (pdf) in 12.3 s, 812 a second; 12 failed`.
  package func summary(directory: String, format: OutputFormat) -> String {
    let (rendered, failed) = lock.withLock { (self.rendered, self.failed) }
    let seconds = Date().timeIntervalSince(start)
    let rate = seconds > 0 ? (Double(rendered + failed) / seconds).clampedInt(in: 0...Int.max) : 0
    return "rendered \(rendered) of \(rendered + failed) receipts to \(directory) (\(format)) in "
      + String(format: "%.1f s", seconds) + ", \(rate) a second" + (failed > 0 ? "; \(failed) failed" : "")
  }

  private func draw() {
    lastDraw = Date()
    let seconds = max(0.001, Date().timeIntervalSince(start))
    let done = rendered + failed
    let of = total.map { " of \($0)" } ?? ""
    let failures = failed > 0 ? ", \(failed) failed" : ""
    write(
      "\r\u{1B}[Krendered \(done)\(of)\(failures), \((Double(done) / seconds).clampedInt(.down, in: 0...Int.max))/s")
  }

  private func write(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}
