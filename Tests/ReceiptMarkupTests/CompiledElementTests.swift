import Foundation
import ReceiptMarkup
import ReceiptModel
import Testing

/// An element's attributes are worked out once per receipt when they bind nothing
/// (`CompiledElement`): every item of a repeat must still get exactly what reading its
/// attributes afresh gives — its own bound values, its cell's properties where it is a cell.
@Suite struct CompiledElementTests {
  /// Every text block's first-run attributes and paragraph style, in document order.
  private func styles(_ rendered: RenderedTemplate) -> [(TextAttributes, ParagraphStyle)] {
    func walk(_ blocks: [Block]) -> [(TextAttributes, ParagraphStyle)] {
      blocks.flatMap { block -> [(TextAttributes, ParagraphStyle)] in
        switch block {
        case .text(let t): return [(t.runs[0].attributes, t.paragraphStyle)]
        case .column(let c): return walk(c.children)
        case .row(let r): return walk(r.cells.map(\.block))
        default: return []
        }
      }
    }
    return walk(rendered.document.blocks)
  }

  @Test func itemsOfARepeatGetTheirOwnBoundValuesBesideKeptStaticOnes() throws {
    let fixture = try TemplateFixture([
      "t.xml": """
      <?properties {"plain": {"bold": true, "line-spacing": "2pt"}}?>
      <receipt><repeat items="$items">
        <text class="plain" size="${item.size}" align="${item.align}">$item.name</text>
        <text class="plain" italic="true" tab-interval="30pt">static</text>
      </repeat></receipt>
      """
    ])
    let data =
      #"{"items": [{"name": "a", "size": 8, "align": "left"}, {"name": "b", "size": 14, "align": "right"},"#
      + #" {"name": "c", "size": "11", "align": "center"}]}"#
    let found = styles(try fixture.render(data))
    #expect(found.count == 6)
    let bound = stride(from: 0, to: found.count, by: 2).map { found[$0] }
    #expect(bound.map(\.0.font.size) == [8, 14, 11])
    #expect(bound.map(\.1.alignment) == [.left, .right, .center])
    #expect(bound.allSatisfy { $0.0.font.weight == 700 && $0.1.lineSpacing == 2 && !$0.0.font.italic })
    let kept = stride(from: 1, to: found.count, by: 2).map { found[$0] }
    #expect(kept.allSatisfy { $0.0.font.italic && $0.0.font.weight == 700 && $0.1.defaultTabInterval == 30 })
    // The kept element inherits from its parent each time: the same patch on the same style.
    #expect(Set(kept.map(\.0)).count == 1)
  }

  @Test func aStaticElementInheritsWhatEachItemsParentGivesIt() throws {
    // The inner <text> binds nothing and is kept; its parent row's size is bound, so the style
    // it is applied to differs per item: only what the element itself sets may be kept.
    let rendered = try TemplateFixture.body(
      #"<repeat items="$items"><column size="${item.size}"><text bold="true">x</text></column></repeat>"#,
      data: #"{"items": [{"size": 7}, {"size": 12}, {"size": 9}]}"#)
    let found = styles(rendered)
    #expect(found.map(\.0.font.size) == [7, 12, 9])
    #expect(found.allSatisfy { $0.0.font.weight == 700 })
  }

  @Test func aFragmentIncludedInARowAndOutsideOneIsACellOnlyInTheRow() throws {
    let fixture = try TemplateFixture([
      "part.xml": #"<fragment><text width="20mm" align="right">p</text></fragment>"#,
      "t.xml": """
      <receipt><repeat items="$items">
        <row><include template="part"/><text>q</text></row>
        <column><include template="part"/></column>
      </repeat></receipt>
      """,
    ])
    #expect {
      try fixture.render(#"{"items": [1, 2]}"#)
    } throws: { "\($0)".contains("width") }
    let cellOnly = try TemplateFixture([
      "part.xml": #"<fragment><text weight="2">p</text></fragment>"#,
      "t.xml":
        #"<receipt><repeat items="$items"><row><include template="part"/><text>q</text></row></repeat></receipt>"#,
    ])
    let rows = try cellOnly.render(#"{"items": [1, 2, 3]}"#).document.blocks.compactMap { block -> Row? in
      if case .row(let r) = block { return r }
      return nil
    }
    #expect(rows.count == 3)
    #expect(rows.allSatisfy { $0.cells[0].width == .weight(2) && $0.cells[1].width == .auto })
  }

  @Test func theSameStaticRowCellKeepsItsWidthAndAlignmentEveryItem() throws {
    let rendered = try TemplateFixture.body(
      #"<repeat items="$items"><row><text width="12mm" align="center">$item</text><text weight="1">-</text></row></repeat>"#,
      data: #"{"items": ["a", "b", "c"]}"#)
    let rows = rendered.document.blocks.compactMap { block -> Row? in
      if case .row(let r) = block { return r }
      return nil
    }
    #expect(rows.count == 3)
    for row in rows {
      #expect(row.cells[0].width == .fixed(.mm(12)))
      #expect(row.cells[0].alignment == .center)
      #expect(row.cells[1].width == .weight(1))
    }
  }

  /// Compiled elements are shared by the receipts of a template (`CompiledElements`): a style
  /// sheet that changes between two receipts, with the template's elements the same, changes
  /// the next receipt.
  @Test func aStyleSheetChangedBetweenReceiptsIsUsedByTheNext() throws {
    let fixture = try TemplateFixture([
      "t.xml": """
      <?properties styles?>
      <receipt><repeat items="$items"><text class="big">$item</text></repeat></receipt>
      """,
      "styles.json": #"{"big": {"size": 14}}"#,
    ])
    let data = #"{"items": ["a", "b"]}"#
    let sizes = { () throws -> [Double] in self.styles(try fixture.render(data)).map(\.0.font.size) }
    #expect(try sizes() == [14, 14])
    #expect(try sizes() == [14, 14])
    // The same length, so only the file's modification time and contents tell them apart.
    try #"{"big": {"size": 20}}"#.write(
      to: fixture.directory.appendingPathComponent("styles.json"), atomically: false, encoding: .utf8)
    #expect(try sizes() == [20, 20])
  }

  /// A length in dots is points at the receipt's resolution: the same element compiled for a
  /// 203-dpi receipt is compiled again for a 180-dpi one.
  @Test func theSameElementAtAnotherResolutionIsCompiledForIt() throws {
    let fixture = try TemplateFixture([
      "t.xml": #"<receipt><repeat items="$items"><text line-spacing="18dots">$item</text></repeat></receipt>"#
    ])
    let data = #"{"items": ["a", "b"]}"#
    var options = TemplateOptions()
    options.pageSetup = PageSetup(resolution: .dpi203)
    let at203 = styles(try fixture.render(data, options: options)).map(\.1.lineSpacing)
    options.pageSetup = PageSetup(resolution: Resolution(dpi: 180))
    let at180 = styles(try fixture.render(data, options: options)).map(\.1.lineSpacing)
    let dots203: Double = 18 * 72 / 203
    #expect(at203 == [dots203, dots203])
    #expect(at180 == [7.2, 7.2])
  }

  @Test func anErrorInAStaticAttributeIsReportedAsBefore() throws {
    #expect {
      try TemplateFixture.body(
        #"<repeat items="$items"><text size="huge">x</text></repeat>"#, data: #"{"items": [1, 2]}"#)
    } throws: { "\($0)".contains("size on <text> must be a number") }
  }
}
