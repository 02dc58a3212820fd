import ReceiptModel

/// What an element's text-style attributes (`font`, `size`, `bold`, …) set: each field the value
/// it writes, nil where it writes nothing. Applying the attributes is only ever writing fields
/// (no value depends on the style it is applied to), so the patch worked out once from an
/// element's attributes gives every style it is applied to exactly what applying the attributes
/// one by one would; ``TemplateRenderer`` keeps the patches of elements whose attributes bind
/// nothing, instead of reading their attributes again at every repeated item.
struct TextPatch {
  var families: [String]?
  var size: Double?
  var weight: Int?
  var italic: Bool?
  var underline: Bool?
  var strikethrough: Bool?
  var inverse: Bool?
  var horizontalScale: Double?
  var verticalScale: Double?
  var letterSpacing: Double?
  var language: String?

  /// Writes the patch's fields into `text`.
  func apply(to text: inout TextAttributes) {
    if let families { text.font.families = families }
    if let size { text.font.size = size }
    if let weight { text.font.weight = weight }
    if let italic { text.font.italic = italic }
    if let underline { text.underline = underline }
    if let strikethrough { text.strikethrough = strikethrough }
    if let inverse { text.inverse = inverse }
    if let horizontalScale { text.horizontalScale = horizontalScale }
    if let verticalScale { text.verticalScale = verticalScale }
    if let letterSpacing { text.letterSpacing = letterSpacing }
    if let language { text.language = language }
  }
}

/// What an element's paragraph attributes (`align`, `line-spacing`, `tabs`, …) set, as
/// ``TextPatch`` is for text style.
struct ParagraphPatch {
  var alignment: TextAlignment?
  var lineSpacing: Double?
  var paragraphSpacing: Double?
  var headIndent: Double?
  var firstLineHeadIndent: Double?
  var tailIndent: Double?
  var defaultTabInterval: Double?
  var tabGap: Double?
  var lineBreakMode: LineBreakMode?
  var hyphenation: Hyphenation?
  var maxLines: Int?
  var baseDirection: BaseDirection?
  var tabStops: [TabStop]?

  /// Writes the patch's fields into `p`.
  func apply(to p: inout ParagraphStyle) {
    if let alignment { p.alignment = alignment }
    if let lineSpacing { p.lineSpacing = lineSpacing }
    if let paragraphSpacing { p.paragraphSpacing = paragraphSpacing }
    if let headIndent { p.headIndent = headIndent }
    if let firstLineHeadIndent { p.firstLineHeadIndent = firstLineHeadIndent }
    if let tailIndent { p.tailIndent = tailIndent }
    if let defaultTabInterval { p.defaultTabInterval = defaultTabInterval }
    if let tabGap { p.tabGap = tabGap }
    if let lineBreakMode { p.lineBreakMode = lineBreakMode }
    if let hyphenation { p.hyphenation = hyphenation }
    if let maxLines { p.maxLines = maxLines }
    if let baseDirection { p.baseDirection = baseDirection }
    if let tabStops { p.tabStops = tabStops }
  }
}
