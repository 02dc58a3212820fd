import Foundation
import ReceiptMarkup
import Testing

/// A route's item filter and condition on real order data: 64-bit ids and string prices come
/// through a filtered ticket digit for digit; filters see each item's members and the order.
@Suite struct TicketRuleTests {
  static let library = try! TemplateLibrary(
    directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL)

  static let order = try! JSONValue.parseOrder(
    Data(
      #"""
      {"id": 820982911946154508, "table": "7", "service": "dinner",
       "items": [
         {"name": "Soup", "station": "kitchen", "price": "4.80", "qty": 1},
         {"name": "Beer", "station": "bar", "price": "5.20", "qty": 2},
         {"name": "Steak", "station": "kitchen", "price": "24.00", "qty": 1, "course": 2}],
       "note": "tab\tand \"quotes\" \u0001"}
      """#.utf8))

  static func names(_ ticket: JSONValue?) -> [String] {
    guard case .array(let items)? = ticket?.value(at: ["items"]) else { return [] }
    return items.compactMap { item -> String? in
      if case .string(let name)? = item.value(at: ["name"]) { return name }
      return nil
    }
  }

  @Test func aFilterKeepsItsStationsItemsAndTheRestOfTheOrderExactly() throws {
    let kitchen = try TicketRule(name: "kitchen", filter: "station == 'kitchen'")
    let ticket = try #require(try kitchen.ticket(for: Self.order, library: Self.library))
    #expect(Self.names(ticket) == ["Soup", "Steak"])
    let text = String(decoding: ticket.serialized, as: UTF8.self)
    #expect(text.contains(#""id":820982911946154508"#), "the 64-bit id as written")
    #expect(text.contains(#""price":"4.80""#) && text.contains(#""price":"24.00""#))
    #expect(try JSONValue.parse(ticket.serialized) == ticket, "serialized JSON parses back to the same value")
    #expect(text.contains(#"tab\tand \"quotes\" \u0001"#), "strings escaped")
  }

  @Test func filtersSeeTheOrderAndExpressions() throws {
    let mains = try TicketRule(name: "r", filter: "station == 'kitchen' and (course == 2 or price > 20)")
    #expect(Self.names(try mains.ticket(for: Self.order, library: Self.library)) == ["Steak"])
    let drinks = try TicketRule(name: "r", filter: "qty * price >= 10 and qty > 1 and $service == 'dinner'")
    #expect(Self.names(try drinks.ticket(for: Self.order, library: Self.library)) == ["Beer"])
  }

  @Test func anEmptyTicketIsNotPrintedUnlessAConditionSaysSo() throws {
    let terrace = try TicketRule(name: "r", filter: "station == 'terrace'")
    #expect(try terrace.ticket(for: Self.order, library: Self.library) == nil)
    let big = try TicketRule(name: "r", filter: "station == 'kitchen'", condition: "(items | count) > 2")
    #expect(try big.ticket(for: Self.order, library: Self.library) == nil)
    let always = try TicketRule(name: "r", condition: "table == '7'")
    #expect(Self.names(try always.ticket(for: Self.order, library: Self.library)).count == 3)
  }

  @Test func nestedItemPathsAndWrongShapes() throws {
    let nested = try JSONValue.parseOrder(Data(#"{"order": {"lines": [{"station": "bar"}, {"station": "x"}]}}"#.utf8))
    let rule = try TicketRule(name: "r", items: "order.lines", filter: "station == 'bar'")
    let ticket = try #require(try rule.ticket(for: nested, library: Self.library))
    guard case .array(let lines)? = ticket.value(at: ["order", "lines"]) else {
      Issue.record("no lines")
      return
    }
    #expect(lines.count == 1)
    let notArray = try JSONValue.parseOrder(Data(#"{"items": "soup"}"#.utf8))
    #expect(throws: TemplateError.self) {
      try TicketRule(name: "r", filter: "x == 1").ticket(for: notArray, library: Self.library)
    }
  }

  @Test func mistakesAreFoundWhenTheRouteIsRead() {
    for (items, filter) in [("items", "station =="), ("items", "a ==== b"), ("it..ems", "x"), ("", "x")] {
      #expect(throws: TemplateError.self, "\(items) \(filter)") {
        try TicketRule(name: "r", items: items, filter: filter)
      }
    }
    do {
      _ = try TicketRule(name: "route 'kitchen'", filter: "station == ")
    } catch {
      #expect("\(error)".contains("route 'kitchen'") && "\(error)".contains("column 12"), "\(error)")
    }
  }
}
