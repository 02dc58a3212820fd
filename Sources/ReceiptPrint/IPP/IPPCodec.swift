internal import CCups
public import Foundation
import ReceiptModel

/// IPP's wire format, read and written by libcups (`ippReadIO`, `ippWriteIO` and its attribute
/// accessors): no IPP encoding is written here, only the copy between libcups' `ipp_t` and
/// ``IPPMessage``. Requests are untrusted: the attribute part is bounded (``maxAttributeBytes``)
/// and its framing checked by ``IPPFrameScanner`` (nesting, value count) before libcups reads it.
public enum IPPCodec {
  /// The most bytes of attributes a request may have before its document (a Print-Job with every
  /// attribute a client sends is a few KiB).
  public static let maxAttributeBytes = 256 << 10

  /// Reads a request (or response): the message and the offset where its document data starts.
  /// Throws ``IPPCodecError`` when the bytes are not a whole IPP message.
  public static func decode(_ bytes: Data) throws -> (message: IPPMessage, documentOffset: Int) {
    try LibCUPS.load()
    // The framing first: libcups sees only a whole attribute part of a shape it can read.
    var scanner = IPPFrameScanner(limit: maxAttributeBytes)
    switch scanner.scan(bytes) {
    case .invalid(let why): throw IPPCodecError(why)
    case .needMore: throw IPPCodecError("not a whole IPP message (\(bytes.count) bytes): the attributes do not end")
    case .complete: break
    }
    let source = IPPByteSource(bytes, limit: maxAttributeBytes)
    guard let ipp = LibCUPS.ippNew() else { throw IPPCodecError("libcups could not allocate a message") }
    defer { LibCUPS.ippDelete(ipp) }
    let state = LibCUPS.ippReadIO(
      Unmanaged.passUnretained(source).toOpaque(),
      { context, buffer, length in
        guard let context, let buffer else { return -1 }
        return Unmanaged<IPPByteSource>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: length)
      }, 1, nil, ipp)
    guard state == IPP_STATE_DATA else {
      if source.overLimit {
        throw IPPCodecError("the request's attributes are over \(maxAttributeBytes / 1024) KiB")
      }
      throw IPPCodecError("not a whole IPP message (\(bytes.count) bytes): \(LibCUPS.lastErrorMessage)")
    }
    var minor: Int32 = 0
    let major = LibCUPS.ippGetVersion(ipp, &minor)
    let message = IPPMessage(
      version: Int(major) * 10 + Int(minor), code: Int(LibCUPS.ippGetOperation(ipp).rawValue),
      requestID: LibCUPS.ippGetRequestId(ipp), groups: groups(of: ipp))
    return (message, source.offset)
  }

  /// Writes a message (a response: `code` is its status).
  public static func encode(_ message: IPPMessage) throws -> Data {
    try LibCUPS.load()
    guard let ipp = LibCUPS.ippNew() else { throw IPPCodecError("libcups could not allocate a message") }
    defer { LibCUPS.ippDelete(ipp) }
    LibCUPS.ippSetVersion(ipp, Int32(message.version / 10), Int32(message.version % 10))
    LibCUPS.ippSetStatusCode(ipp, ipp_status_t(rawValue: Int32(truncatingIfNeeded: message.code)))
    LibCUPS.ippSetRequestId(ipp, message.requestID)
    // libcups writes a delimiter where the group changes; a separator starts another group of
    // the same kind (the jobs of Get-Jobs). An empty group is not written.
    let groups = message.groups.filter { !$0.attributes.isEmpty }
    for (index, group) in groups.enumerated() {
      if index > 0 && group.tag == groups[index - 1].tag { LibCUPS.ippAddSeparator(ipp) }
      let tag = ipp_tag_t(rawValue: Int32(group.tag.rawValue))
      for attribute in group.attributes { try add(attribute, group: tag, to: ipp) }
    }
    let sink = ByteSink()
    let state = LibCUPS.ippWriteIO(
      Unmanaged.passUnretained(sink).toOpaque(),
      { context, buffer, length in
        guard let context, let buffer else { return -1 }
        Unmanaged<ByteSink>.fromOpaque(context).takeUnretainedValue().append(buffer, count: length)
        return length
      }, 1, nil, ipp)
    guard state == IPP_STATE_DATA else { throw IPPCodecError("libcups could not write the message") }
    return sink.data
  }
}

/// A message libcups could not read or write.
public struct IPPCodecError: Error, CustomStringConvertible, Sendable {
  public var description: String
  init(_ description: String) { self.description = description }
}

/// Feeds a request's bytes to `ippReadIO`, refusing to go past `limit`.
final class IPPByteSource {
  private let data: Data
  private let limit: Int
  private(set) var offset = 0
  private(set) var overLimit = false

  init(_ data: Data, limit: Int) {
    self.data = data
    self.limit = limit
  }

  func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
    guard offset + count <= limit else {
      overLimit = true
      return -1
    }
    let n = min(count, data.count - offset)
    guard n > 0 else { return 0 }
    data.copyBytes(to: buffer, from: data.startIndex + offset..<data.startIndex + offset + n)
    offset += n
    return n
  }
}

extension IPPCodec {
  /// The groups of a read message, in order; a separator or a new delimiter starts a group.
  fileprivate static func groups(of ipp: OpaquePointer) -> [IPPAttributeGroup] {
    var groups: [IPPAttributeGroup] = []
    var current: IPPAttributeGroup?
    var attribute = LibCUPS.ippFirstAttribute(ipp)
    while let attr = attribute {
      defer { attribute = LibCUPS.ippNextAttribute(ipp) }
      let tag = Int(LibCUPS.ippGetGroupTag(attr).rawValue)
      guard let name = LibCUPS.ippGetName(attr).map({ String(cString: $0) }), let groupTag = IPPGroupTag(rawValue: tag)
      else {
        // A separator ends the group.
        if let group = current { groups.append(group) }
        current = nil
        continue
      }
      if current?.tag != groupTag {
        if let group = current { groups.append(group) }
        current = IPPAttributeGroup(groupTag)
      }
      current?.attributes.append(IPPAttribute(name, values(of: attr)))
    }
    if let group = current { groups.append(group) }
    return groups
  }

  /// An attribute's values as Swift values.
  fileprivate static func values(of attr: OpaquePointer) -> [IPPValue] {
    let tag = LibCUPS.ippGetValueTag(attr)
    return (0..<LibCUPS.ippGetCount(attr)).map { i -> IPPValue in
      func string() -> String { LibCUPS.ippGetString(attr, i, nil).map { String(cString: $0) } ?? "" }
      switch tag {
      case IPP_TAG_INTEGER: return .integer(LibCUPS.ippGetInteger(attr, i))
      case IPP_TAG_ENUM: return .enumeration(LibCUPS.ippGetInteger(attr, i))
      case IPP_TAG_BOOLEAN: return .boolean(LibCUPS.ippGetBoolean(attr, i) != 0)
      case IPP_TAG_RANGE:
        var upper: Int32 = 0
        let lower = LibCUPS.ippGetRange(attr, i, &upper)
        return .range(lower, upper)
      case IPP_TAG_RESOLUTION:
        var y: Int32 = 0
        var units = IPP_RES_PER_INCH
        let x = LibCUPS.ippGetResolution(attr, i, &y, &units)
        return .resolution(x: x, y: y, perInch: units == IPP_RES_PER_INCH)
      case IPP_TAG_DATE:
        guard let date = LibCUPS.ippGetDate(attr, i) else { return .outOfBand(.unknown) }
        return .dateTime(Date(timeIntervalSince1970: TimeInterval(LibCUPS.ippDateToTime(date))))
      case IPP_TAG_STRING:
        var length: Int32 = 0
        guard let bytes = LibCUPS.ippGetOctetString(attr, i, &length) else { return .octetString([]) }
        return .octetString(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
      case IPP_TAG_BEGIN_COLLECTION:
        guard let member = LibCUPS.ippGetCollection(attr, i) else { return .collection([]) }
        return .collection(groups(of: member).flatMap(\.attributes) + ungrouped(member))
      case IPP_TAG_TEXT, IPP_TAG_TEXTLANG: return .text(string())
      case IPP_TAG_NAME, IPP_TAG_NAMELANG: return .name(string())
      case IPP_TAG_KEYWORD: return .keyword(string())
      case IPP_TAG_URI: return .uri(string())
      case IPP_TAG_URISCHEME: return .uriScheme(string())
      case IPP_TAG_CHARSET: return .charset(string())
      case IPP_TAG_LANGUAGE: return .naturalLanguage(string())
      case IPP_TAG_MIMETYPE: return .mimeMediaType(string())
      case IPP_TAG_UNSUPPORTED_VALUE: return .outOfBand(.unsupported)
      case IPP_TAG_NOVALUE: return .outOfBand(.noValue)
      case IPP_TAG_NOTSETTABLE: return .outOfBand(.notSettable)
      case IPP_TAG_DELETEATTR: return .outOfBand(.deleteAttribute)
      case IPP_TAG_ADMINDEFINE: return .outOfBand(.adminDefine)
      default: return .outOfBand(.unknown)
      }
    }
  }

  /// A collection's members: libcups gives them the group tag "zero", so ``groups(of:)`` skips
  /// them; they are read here.
  fileprivate static func ungrouped(_ ipp: OpaquePointer) -> [IPPAttribute] {
    var members: [IPPAttribute] = []
    var attribute = LibCUPS.ippFirstAttribute(ipp)
    while let attr = attribute {
      if LibCUPS.ippGetGroupTag(attr) == IPP_TAG_ZERO, let name = LibCUPS.ippGetName(attr) {
        members.append(IPPAttribute(String(cString: name), values(of: attr)))
      }
      attribute = LibCUPS.ippNextAttribute(ipp)
    }
    return members
  }

  /// Adds an attribute to a message (or a collection) through libcups' typed adders.
  fileprivate static func add(_ attribute: IPPAttribute, group: ipp_tag_t, to ipp: OpaquePointer) throws {
    guard let first = attribute.values.first else {
      throw IPPCodecError("attribute \(attribute.name) has no value")
    }
    // libcups gives one attribute one value tag: IPP's `keyword | name` choices are written
    // as one syntax (receipt's attributes never mix them).
    if let other = attribute.values.first(where: { $0.syntax != first.syntax }) {
      throw IPPCodecError("attribute \(attribute.name) mixes \(first.syntax) and \(other.syntax) values")
    }
    _ = try addValues(attribute.values, name: attribute.name, group: group, to: ipp)
  }

  private static func stringTag(_ value: IPPValue) -> ipp_tag_t? {
    switch value {
    case .text: IPP_TAG_TEXT
    case .name: IPP_TAG_NAME
    case .keyword: IPP_TAG_KEYWORD
    case .uri: IPP_TAG_URI
    case .uriScheme: IPP_TAG_URISCHEME
    case .charset: IPP_TAG_CHARSET
    case .naturalLanguage: IPP_TAG_LANGUAGE
    case .mimeMediaType: IPP_TAG_MIMETYPE
    default: nil
    }
  }

  /// Adds values of one syntax as one attribute.
  private static func addValues(_ values: [IPPValue], name: String, group: ipp_tag_t, to ipp: OpaquePointer) throws
    -> OpaquePointer?
  {
    let count = Int32(values.count)
    switch values[0] {
    case .integer, .enumeration:
      let numbers = values.compactMap { $0.integer.map { Int32(truncatingIfNeeded: $0) } }
      let tag = values[0].syntax == "enum" ? IPP_TAG_ENUM : IPP_TAG_INTEGER
      return LibCUPS.ippAddIntegers(ipp, group, tag, name, count, numbers)
    case .boolean:
      let flags = values.map { value -> CChar in
        if case .boolean(let b) = value { return b ? 1 : 0 }
        return 0
      }
      return LibCUPS.ippAddBooleans(ipp, group, name, count, flags)
    case .range:
      var lower: [Int32] = []
      var upper: [Int32] = []
      for case .range(let a, let b) in values {
        lower.append(a)
        upper.append(b)
      }
      return LibCUPS.ippAddRanges(ipp, group, name, count, lower, upper)
    case .resolution(_, _, let perInch):
      var xs: [Int32] = []
      var ys: [Int32] = []
      for case .resolution(let x, let y, _) in values {
        xs.append(x)
        ys.append(y)
      }
      return LibCUPS.ippAddResolutions(
        ipp, group, name, count, perInch ? IPP_RES_PER_INCH : IPP_RES_PER_CM, xs, ys)
    case .dateTime(let date):
      return LibCUPS.ippAddDate(
        ipp, group, name, LibCUPS.ippTimeToDate(time_t(clamping: date.timeIntervalSince1970.clampedInt(.down))))
    case .octetString(let bytes):
      let attr = bytes.withUnsafeBytes {
        LibCUPS.ippAddOctetString(ipp, group, name, $0.baseAddress, Int32($0.count))
      }
      for case .octetString(let more) in values.dropFirst() {
        var pointer: OpaquePointer? = attr
        _ = more.withUnsafeBytes {
          LibCUPS.ippSetOctetString(ipp, &pointer, LibCUPS.ippGetCount(attr), $0.baseAddress, Int32($0.count))
        }
      }
      return attr
    case .collection:
      var members: [OpaquePointer?] = []
      defer { for member in members { LibCUPS.ippDelete(member) } }
      for case .collection(let attributes) in values {
        guard let member = LibCUPS.ippNew() else { throw IPPCodecError("libcups could not allocate a collection") }
        members.append(member)
        for attribute in attributes { try add(attribute, group: IPP_TAG_ZERO, to: member) }
      }
      // ippAddCollections takes a reference to each member; ours are released above.
      return members.withUnsafeBufferPointer { pointer in
        pointer.baseAddress!.withMemoryRebound(to: OpaquePointer?.self, capacity: members.count) {
          LibCUPS.ippAddCollections(ipp, group, name, count, UnsafeMutablePointer(mutating: $0))
        }
      }
    case .outOfBand(let kind):
      let tag: ipp_tag_t =
        switch kind {
        case .unsupported: IPP_TAG_UNSUPPORTED_VALUE
        case .unknown: IPP_TAG_UNKNOWN
        case .noValue: IPP_TAG_NOVALUE
        case .notSettable: IPP_TAG_NOTSETTABLE
        case .deleteAttribute: IPP_TAG_DELETEATTR
        case .adminDefine: IPP_TAG_ADMINDEFINE
        }
      return LibCUPS.ippAddOutOfBand(ipp, group, tag, name)
    default:
      guard let tag = stringTag(values[0]) else { throw IPPCodecError("attribute \(name): unknown syntax") }
      let strings = values.compactMap(\.string)
      return withCStrings(strings) { pointers in
        LibCUPS.ippAddStrings(ipp, group, tag, name, count, nil, pointers)
      }
    }
  }

  /// Calls `body` with C strings of `strings` that live as long as the call.
  private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}
