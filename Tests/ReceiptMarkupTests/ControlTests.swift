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

  /// Nested repeats: each name is bound to its own item, an inner name hides an outer one and
  /// an order member of that name, and `loop` is the innermost repeat's (outside the inner one
  /// it is the outer's again).
  @Test func nestedRepeatsBindTheirOwnNamesAndLoop() throws {
    let data = #"""
      {"name": "Shop", "groups": [{"name": "Drinks", "items": ["Tea", "Coffee"]}, {"name": "Food", "items": ["Pie"]}]}
      """#
    let body = """
      <repeat items="$groups" as="g"><text>${loop.number}/${loop.count} $g.name</text>\
      <repeat items="$g.items" as="name"><text>$g.name:$name ${loop.index} ${loop.first} ${loop.last}</text></repeat>\
      <text>after ${loop.number} ${loop.last}</text></repeat><text>$name</text>
      """
    let r = try TemplateFixture.body(body, data: data)
    #expect(
      r.texts == [
        "1/2 Drinks", "Drinks:Tea 0 true false", "Drinks:Coffee 1 false true", "after 1 false",
        "2/2 Food", "Food:Pie 0 true true", "after 2 true", "Shop",
      ])
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
