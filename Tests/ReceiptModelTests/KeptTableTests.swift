@_spi(Internals) import ReceiptModel
import Testing

/// The bounded tables of prepared paragraphs, glyph-run coverage and formatted numbers: when
/// full they keep what was asked for again and let go of what was asked for once.
@Suite struct KeptTableTests {
  @Test func aFullTableKeepsWhatWasAskedForAgain() {
    var table = KeptTable<String, Int>(capacity: 8)
    for i in 0..<8 { table.keep(i, for: "k\(i)") }
    #expect(table.value(for: "k1") == 1)
    let updated = table.update("k2") { $0 += 100 }
    let absent = table.update("absent") { $0 += 1 }
    #expect(updated && !absent)
    let madeRoom = table.keep(8, for: "k8")
    #expect(madeRoom, "full: room was made")
    #expect(table.count == 3)
    #expect(table.value(for: "k1") == 1)
    #expect(table.value(for: "k2") == 102)
    #expect(table.value(for: "k8") == 8)
    #expect(table.value(for: "k0") == nil)
    #expect(Set(table.values) == [1, 102, 8])
  }

  @Test func marksLastUntilTheTableFillsAgain() {
    var table = KeptTable<Int, Int>(capacity: 4)
    for i in 0..<4 { table.keep(i, for: i) }
    _ = table.value(for: 0)
    table.keep(4, for: 4)  // keeps 0 (asked for again) and 4; 1, 2 and 3 go
    #expect(table.count == 2)
    table.keep(5, for: 5)
    table.keep(6, for: 6)
    table.keep(7, for: 7)  // full again: 0 was not asked for since, so it goes now
    #expect(table.value(for: 0) == nil)
    #expect(table.value(for: 7) == 7)
  }

  @Test func replacingAValueMakesNoRoom() {
    var table = KeptTable<Int, String>(capacity: 2)
    table.keep("a", for: 1)
    table.keep("b", for: 2)
    let madeRoom = table.keep("c", for: 2)
    #expect(!madeRoom)
    #expect(table.count == 2 && table.value(for: 2) == "c")
  }

  @Test func aWorkingSetLargerThanHalfStartsItEmpty() {
    var table = KeptTable<Int, Int>(capacity: 4)
    for i in 0..<4 { table.keep(i, for: i) }
    for i in 0..<3 { _ = table.value(for: i) }
    table.keep(4, for: 4)
    #expect(table.count == 1 && table.value(for: 4) == 4)
    table.removeAll()
    #expect(table.count == 0)
  }
}
