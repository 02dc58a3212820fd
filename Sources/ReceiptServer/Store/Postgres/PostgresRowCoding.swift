import Foundation
import PostgresNIO

/// A `Decodable` record read from a PostgreSQL row by column name — its coding keys are the
/// columns (``JobColumn`` for a job) — so no row is ever read by position. Values postgres-nio
/// decodes itself (text, integers, bytea, timestamptz) are read as they are; others (the enums
/// of the queue's states) through their raw values.
struct PostgresRowDecoder: Decoder {
  let row: PostgresRandomAccessRow
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ row: PostgresRow) { self.row = row.makeRandomAccess() }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Columns<Key>(row: row))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a row has columns"))
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a row has columns"))
  }

  /// A row's columns as a keyed container.
  struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: PostgresRandomAccessRow
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { row.contains(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
      try cell(key).bytes == nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try Cell(cell: try cell(key), key: key).decode(T.self)
    }

    // The primitive types the protocol names one by one, each read as any other value.
    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
      try Cell(cell: try cell(key), key: key).decode(T.self)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    private func cell(_ key: Key) throws -> PostgresCell {
      guard row.contains(key.stringValue) else {
        throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "the row has no such column"))
      }
      return row[key.stringValue]
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column is one value"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column is one value"))
    }

    func superDecoder() throws -> any Decoder {
      throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: ""))
    }
    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }
  }

  /// One cell, decoded as postgres-nio decodes it, or through a raw value.
  struct Cell: Decoder, SingleValueDecodingContainer {
    let cell: PostgresCell
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeAny(type) }

    private func decodeAny<T: Decodable>(_ type: T.Type) throws -> T {
      if let native = T.self as? any PostgresDecodable.Type {
        return try Self.decode(cell, as: native) as! T  // the cast of the same type cannot fail
      }
      return try T(from: self)
    }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeAny(type) }
    func decode(_ type: String.Type) throws -> String { try decodeAny(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeAny(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeAny(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeAny(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeAny(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeAny(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeAny(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeAny(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeAny(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeAny(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeAny(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeAny(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeAny(type) }

    private static func decode<T: PostgresDecodable>(_ cell: PostgresCell, as type: T.Type) throws -> T {
      try cell.decode(T.self, context: .default)
    }

    func decodeNil() -> Bool { cell.bytes == nil }
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
      throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a column is one value"))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
      throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "one value"))
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
  }
}

/// A record's columns as PostgreSQL statement parameters, by column name: what an `INSERT` or
/// `UPDATE` built from the declared columns binds. A column the record leaves out (an optional
/// that is nil: `encodeIfPresent` writes nothing) is bound as NULL.
struct PostgresRowEncoder {
  /// A column's parameter.
  enum Value {
    case bound(any PostgresEncodable)
    case null
  }

  /// The columns `value` encodes, by name.
  static func columns(of value: some Encodable) throws -> [String: Value] {
    let storage = Storage()
    try value.encode(to: RecordEncoder(storage: storage))
    return storage.values
  }

  /// Parameters for `columns`, in their order, into `bindings` (NULL where `values` has none).
  static func bind(_ columns: [String], from values: [String: Value], into bindings: inout PostgresBindings) throws {
    for column in columns {
      switch values[column] ?? .null {
      case .bound(let value): try bindings.append(value)
      case .null: bindings.appendNull()
      }
    }
  }

  final class Storage {
    var values: [String: Value] = [:]
  }

  struct RecordEncoder: Encoder {
    let storage: Storage
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      KeyedEncodingContainer(Columns<Key>(storage: storage))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a row has columns, not a list") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("a row has columns") }
  }

  struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: Storage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { storage.values[key.stringValue] = .null }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
      storage.values[key.stringValue] = try Self.value(value)
    }

    /// A value as a parameter: itself when postgres-nio encodes it, else its one raw value.
    static func value<T: Encodable>(_ value: T) throws -> Value {
      if let native = value as? any PostgresEncodable { return .bound(native) }
      let single = Single()
      try value.encode(to: single)
      guard let raw = single.value else { return .null }
      return .bound(raw)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
      -> KeyedEncodingContainer<NestedKey>
    { fatalError("a column is one value") }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      fatalError("a column is one value")
    }
    mutating func superEncoder() -> any Encoder { fatalError("a column is one value") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("a column is one value") }
  }

  /// The one value of a raw-value type (an enum of strings).
  final class Single: Encoder, SingleValueEncodingContainer {
    var value: (any PostgresEncodable)?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      fatalError("a column is one value")
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a column is one value") }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = nil }
    func encode<T: Encodable>(_ value: T) throws { try encodeAny(value) }

    private func encodeAny<T: Encodable>(_ value: T) throws {
      guard let native = value as? any PostgresEncodable else {
        throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "not a column value"))
      }
      self.value = native
    }
    func encode(_ value: Bool) throws { try encodeAny(value) }
    func encode(_ value: String) throws { try encodeAny(value) }
    func encode(_ value: Double) throws { try encodeAny(value) }
    func encode(_ value: Float) throws { try encodeAny(value) }
    func encode(_ value: Int) throws { try encodeAny(value) }
    func encode(_ value: Int8) throws { try encodeAny(value) }
    func encode(_ value: Int16) throws { try encodeAny(value) }
    func encode(_ value: Int32) throws { try encodeAny(value) }
    func encode(_ value: Int64) throws { try encodeAny(value) }
    func encode(_ value: UInt) throws { try encodeAny(value) }
    func encode(_ value: UInt8) throws { try encodeAny(value) }
    func encode(_ value: UInt16) throws { try encodeAny(value) }
    func encode(_ value: UInt32) throws { try encodeAny(value) }
    func encode(_ value: UInt64) throws { try encodeAny(value) }
  }
}
