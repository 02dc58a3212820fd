/// A bounded table of what was worked out once and is asked for again (prepared paragraphs,
/// glyph-run coverage, formatted numbers), which keeps its working set when it fills.
///
/// A batch of thousands of receipts, or a daemon's day, asks for two kinds of entries: those of
/// the store's header, the menu's names and prices, asked for receipt after receipt, and those
/// of one order (its number, its total), asked for once. A table that starts again empty when
/// full drops both: in a batch of 10,000 orders the prepared-paragraph table filled every ~900
/// receipts and prepared its whole working set again each time. This one, when full, lets go of
/// the entries not asked for since it last filled and keeps the rest (a second chance, as a
/// CLOCK page cache gives); if what it keeps is still more than half of it, the working set is
/// larger than the table and it starts empty (so pruning costs at most one pass per half
/// table's new entries).
///
/// SPI (`@_spi(Internals)`: not part of ReceiptKit's API) with inlinable bodies, not `package`:
/// Swift 6.3 specializes a generic of another module only when it is public — a `package`
/// declaration's inlinable body is not used, and every lookup went through value witnesses (3 % of an ESC/POS receipt's instructions).
@_spi(Internals) public struct KeptTable<Key: Hashable, Value> {
  @usableFromInline
  struct Entry {
    @usableFromInline var value: Value
    /// Asked for since the table last filled.
    @usableFromInline var used: Bool

    @inlinable
    init(value: Value, used: Bool) { (self.value, self.used) = (value, used) }
  }

  /// Most entries kept.
  public let capacity: Int
  @usableFromInline var entries: [Key: Entry] = [:]

  /// An empty table of at most `capacity` entries.
  @inlinable
  public init(capacity: Int) {
    precondition(capacity > 0)
    self.capacity = capacity
  }

  /// How many entries are kept.
  @inlinable
  public var count: Int { entries.count }

  /// The kept values (in no order).
  @inlinable
  public var values: some Sequence<Value> { entries.values.lazy.map(\.value) }

  /// The value kept for `key`, which counts as asked for again.
  @inlinable
  public mutating func value(for key: Key) -> Value? {
    guard let i = entries.index(forKey: key) else { return nil }
    entries.values[i].used = true
    return entries.values[i].value
  }

  /// Changes the value kept for `key` (which counts as asked for again); false when none is kept.
  @discardableResult
  @inlinable
  public mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
    guard let i = entries.index(forKey: key) else { return false }
    entries.values[i].used = true
    change(&entries.values[i].value)
    return true
  }

  /// Keeps `value` for `key`, making room first when the table is full (a value kept for the
  /// key already is replaced and keeps its mark). True when room was made (owners that count
  /// something of the values count again).
  @discardableResult
  @inlinable
  public mutating func keep(_ value: Value, for key: Key) -> Bool {
    if let i = entries.index(forKey: key) {
      entries.values[i].value = value
      return false
    }
    let full = entries.count >= capacity
    if full { makeRoom() }
    entries[key] = Entry(value: value, used: false)
    return full
  }

  /// Lets go of the entries not asked for since the table last filled (all of them when what is
  /// left would still fill more than half of it), and starts counting again. Owners that bound
  /// something besides the count (bytes, text length) call it when that bound is reached.
  @inlinable
  public mutating func makeRoom() {
    let kept = entries.filter(\.value.used)
    guard kept.count * 2 <= capacity else {
      entries.removeAll(keepingCapacity: true)
      return
    }
    entries = kept.mapValues { Entry(value: $0.value, used: false) }
    entries.reserveCapacity(capacity)
  }

  /// Forgets every entry.
  @inlinable
  public mutating func removeAll() { entries.removeAll(keepingCapacity: true) }
}

extension KeptTable: Sendable where Key: Sendable, Value: Sendable {}
extension KeptTable.Entry: Sendable where Key: Sendable, Value: Sendable {}
