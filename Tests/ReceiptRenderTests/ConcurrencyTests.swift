import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

/// The daemon renders previews and prints on several threads at once with one layout engine.
@Suite struct ConcurrencyTests {
  /// Regression: the drawing fonts' lock was held while calling cairo, and cairo's face
  /// destructor took it under cairo's own lock; a preview and a print at once deadlocked.
  @Test func rendersOnManyThreadsAtOnceFinishAndAgree() throws {
    let engine = try ReceiptLayoutEngine()
    let texts = [
      "RECEIPT #1042\n2 × Cappuccino\t7.00", "領収書 合計 ¥1,200 ありがとうございました", "Café ☕️ 🍰 Total 9.50",
      "إيصال المجموع ٩٫٥٠", "ΑΠΟΔΕΙΞΗ Σύνολο 4,20 €",
    ]
    let receipts = try texts.map { try engine.layout(.plainText($0)) }
    let reference = try receipts.map { try PDFRenderer().render($0) }
    let rasters = try receipts.map { try RasterRenderer().render($0) }
    let done = DispatchGroup()
    let failures = Collected<String>()
    for thread in 0..<4 {
      done.enter()
      Thread.detachNewThread {
        defer { done.leave() }
        for round in 0..<100 {
          let i = (thread + round) % receipts.count
          do {
            let pdf = try PDFRenderer().render(receipts[i])
            if pdf != reference[i] { failures.add("thread \(thread): PDF \(i) differs from the one made alone") }
            if try RasterRenderer().render(receipts[i]) != rasters[i] {
              failures.add("thread \(thread): raster \(i) differs from the one made alone")
            }
            if try engine.layout(.plainText(texts[i])) != receipts[i] {
              failures.add("thread \(thread): layout \(i) differs from the one made alone")
            }
          } catch {
            failures.add("thread \(thread): \(error)")
          }
        }
      }
    }
    let finished = done.wait(timeout: .now() + 120) == .success
    #expect(finished, "renders on four threads finish (no deadlock)")
    #expect(failures.all.isEmpty, "\(failures.all)")
  }
}
