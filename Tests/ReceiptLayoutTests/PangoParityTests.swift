import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

/// Line breaks against Pango's on a corpus of the languages receipts are printed in, at the text
/// widths of 58 mm (118 pt) and 80 mm (186 pt) paper: same font (DejaVu Sans 9 with fontconfig's
/// fallback), same width, hyphenation off. Pango is an independent engine (its own itemizer,
/// its own break rules from UAX #14 and libthai), so equal lines mean our breaking is what a
/// reader of these scripts expects.
@Suite struct PangoParityTests {
  let engine = try! ReceiptLayoutEngine()

  static let corpus: [(name: String, language: String, text: String)] = [
    (
      "latin", "en",
      "Thank you for shopping with us. Returns are accepted within 30 days with this receipt; "
        + "gift cards cannot be exchanged for cash. Opening hours: Monday to Saturday, 8:00-20:00."
    ),
    (
      "german compounds", "de",
      "Vielen Dank für Ihren Einkauf! Umtausch nur mit Kassenbon innerhalb von 14 Tagen. "
        + "Mehrwertsteuerbetrag, Lebensmittelunverträglichkeiten und Rindfleischetikettierung."
    ),
    (
      "french", "fr",
      "Merci de votre visite ! Les articles soldés ne sont ni repris ni échangés ; "
        + "conservez ce ticket, il vous sera demandé pour toute réclamation « garantie »."
    ),
    (
      "japanese", "ja",
      "本日はご来店いただき誠にありがとうございました。返品・交換の際は必ずこのレシートをお持ちください。"
    ),
    (
      "arabic", "ar",
      "شكراً لتسوقكم معنا. يمكن استبدال المنتجات خلال أربعة عشر يوماً مع هذا الإيصال. نتمنى لكم يوماً سعيداً."
    ),
    (
      "thai", "th",
      "ขอบคุณที่ใช้บริการ สามารถเปลี่ยนสินค้าได้ภายในสิบสี่วันพร้อมใบเสร็จนี้ ขอให้มีความสุขตลอดวัน"
    ),
    ("hebrew", "he", "תודה שקניתם אצלנו. ניתן להחליף מוצרים תוך ארבעה עשר יום בהצגת הקבלה הזאת. יום נעים!"),
    (
      "mixed", "en",
      "Order 4711 · Café Mocha 2× · 合計 ¥1,280 · المجموع ٤٥٫٠٠ · Straße 12 — thank you, merci, danke!"
    ),
  ]

  /// A line as the letters it holds, whatever order a PDF extractor gives right-to-left text in
  /// (pdftotext and our runs order mixed-direction lines differently; the break is the same), and
  /// without combining marks (pdftotext drops Arabic tanwin that our runs keep).
  static func characters(_ line: String) -> [UInt32] {
    line.unicodeScalars.filter { scalar in
      !scalar.properties.isWhitespace && scalar.properties.generalCategory != .nonspacingMark
        && !(0x200E...0x200F).contains(scalar.value) && !(0x202A...0x202E).contains(scalar.value)
    }.map(\.value).sorted()
  }

  /// Where we break differently from Pango, and why (the test expects exactly these).
  static let differences: [String: String] = [
    // Pango's word wrapping lets a word wider than the line overflow it; paper has no room
    // beyond its edge, so such a word is split between letters here.
    "german compounds@118": "a word wider than the line is split, not left to overflow"
  ]

  /// Whether a word is wider than `width` (it takes more than one line).
  func isWider(_ word: Substring, than width: Int) throws -> Bool {
    try engine.lineCount(
      AttributedText(String(word), attributes: TextAttributes(font: FontDescriptor(size: 9))), width: Double(width)) > 1
  }

  @Test(arguments: [118, 186])
  func linesMatchPangoInEveryLanguage(width: Int) throws {
    for sample in Self.corpus {
      let text = AttributedText(
        sample.text, attributes: TextAttributes(font: FontDescriptor(size: 9), language: sample.language),
        paragraphStyle: ParagraphStyle(hyphenation: .none))
      let ours = try engine.lines(text, width: Double(width))
      let theirs = try Tool.pangoLines(sample.text, font: "DejaVu Sans 9", width: width, language: sample.language)
      #expect(ours.count > 1, "\(sample.name) wraps at \(width) pt")
      let same = ours.map(Self.characters) == theirs.map(Self.characters)
      guard let reason = Self.differences["\(sample.name)@\(width)"] else {
        #expect(same, "\(sample.name) at \(width) pt: \(ours) vs \(theirs)")
        continue
      }
      #expect(!same, "listed as different (\(reason)) but equal now: take it off the list")
      // The lines agree up to Pango's first overflowing line.
      let overflow = try #require(
        try theirs.firstIndex { try $0.split(separator: " ").contains { try isWider($0, than: width) } })
      #expect(ours.prefix(overflow).map(Self.characters) == theirs.prefix(overflow).map(Self.characters))
    }
  }
}
