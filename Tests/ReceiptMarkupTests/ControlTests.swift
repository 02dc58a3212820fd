import Foundation
import ReceiptMarkup
import ReceiptModel
import Testing

@Suite struct ControlTests {
  let order =
    #"{"items": [{"name": "Tea", "qty": 1}, {"name": "Cake", "qty": 3}, {"name": "Pie", "qty": 2}], "tip": 0, "type": "delivery", "total": 120}"#

  @Test func repeatWithLoopVariables() throws {
    let r = try TemplateFixture.body(
      #"<repeat items="$items" as="i"><text>${loop.number}/${loop.count} $i.name</text></repeat>"#, data: order)
    #expect(r.texts == ["1/3 Tea", "2/3 Cake", "3/3 Pie"])
  }

  @Test func ifAndElseWithComparisons() throws {
    let body = """
      <if test="$tip"><text>tip</text></if><else><text>no tip</text></else>
      <if test="$type == 'delivery'"><text>deliver</text></if>
      <if test="$total >= 100"><text>big</text></if>
      <if test="!$missing"><text>nothing missing</text></if>
      <repeat items="$items" as="i"><if test="$i.qty > 1"><text>$i.name</text></if></repeat>
      """
    let r = try TemplateFixture.body(body, data: order)
    #expect(r.texts == ["no tip", "deliver", "big", "nothing missing", "Cake", "Pie"])
  }

  @Test func elseMustFollowIf() {
    #expect { try TemplateFixture.body("<text>a</text><else><text>b</text></else>") } throws: {
      "\($0)".contains("<else> must follow an <if>")
    }
  }

  @Test func repeatOutputIsLimited() {
    let many = "{\"items\": [" + Array(repeating: "1", count: 10_001).joined(separator: ",") + "]}"
    #expect { try TemplateFixture.body(#"<repeat items="$items"><feed/></repeat>"#, data: many) } throws: {
      "\($0)".contains("more than 10000 repeated items")
    }
  }

  @Test func rowsTakeWeightsWidthsAndAlignment() throws {
    let r = try TemplateFixture.body(
      #"<column grid="true"><row spacing="6pt"><text weight="2">Name</text><text width="20mm" align="trailing">9.99</text></row></column>"#
    )
    guard case .column(let c) = r.document.blocks[0], case .row(let row) = c.children[0] else {
      Issue.record("expected a column with a row")
      return
    }
    #expect(c.grid)
    #expect(row.spacing == 6)
    #expect(row.cells[0].width == .weight(2))
    #expect(row.cells[1].width == .fixed(.mm(20)))
    #expect(row.cells[1].alignment == .trailing)
  }

  @Test func includeSplicesAFragmentFromASubdirectory() throws {
    let fixture = try TemplateFixture([
      "t.xml": #"<receipt><include template="parts/header"/><text>body</text></receipt>"#,
      "parts/header.xml": "<fragment><text>header $name</text></fragment>",
    ])
    #expect(try fixture.render(#"{"name": "Cafe"}"#).texts == ["header Cafe", "body"])
  }

  @Test func includeCyclesAreRefused() throws {
    let fixture = try TemplateFixture([
      "t.xml": #"<receipt><include template="a"/></receipt>"#,
      "a.xml": #"<fragment><include template="b"/></fragment>"#,
      "b.xml": #"<fragment><include template="a"/></fragment>"#,
    ])
    #expect { try fixture.render() } throws: { "\($0)".contains("includes itself") }
  }
}
