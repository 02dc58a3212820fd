public import Foundation

/// An IPP request or response as Swift values (RFC 8010/8011). Reading and writing the wire
/// format is libcups' (``IPPCodec``); this type only holds what it read or is to write, so the
/// printer's logic (ReceiptServer's IPP front) is plain Swift and testable without a socket.
public struct IPPMessage: Sendable, Equatable {
  /// The IPP version (2.0 is written as 20).
  public var version: Int
  /// The operation of a request, or the status of a response.
  public var code: Int
  public var requestID: Int32
  /// The attribute groups in order (operation, job, printer, unsupported …).
  public var groups: [IPPAttributeGroup]

  /// Creates a message.
  public init(version: Int = 20, code: Int, requestID: Int32, groups: [IPPAttributeGroup] = []) {
    self.version = version
    self.code = code
    self.requestID = requestID
    self.groups = groups
  }

  /// The first attribute named `name` in a group with `tag` (any group when nil).
  public func attribute(_ name: String, in tag: IPPGroupTag? = nil) -> IPPAttribute? {
    for group in groups where tag == nil || group.tag == tag {
      if let found = group.attributes.first(where: { $0.name == name }) { return found }
    }
    return nil
  }

  /// The attributes of the first group with `tag` (empty when there is none).
  public func attributes(in tag: IPPGroupTag) -> [IPPAttribute] {
    groups.first { $0.tag == tag }?.attributes ?? []
  }
}

/// A group of attributes and its delimiter tag.
public struct IPPAttributeGroup: Sendable, Equatable {
  public var tag: IPPGroupTag
  public var attributes: [IPPAttribute]

  /// Creates a group.
  public init(_ tag: IPPGroupTag, _ attributes: [IPPAttribute] = []) {
    self.tag = tag
    self.attributes = attributes
  }
}

/// The delimiter tags of attribute groups.
public enum IPPGroupTag: Int, Sendable, Equatable {
  case operation = 1, job = 2, printer = 4, unsupported = 5, subscription = 6, eventNotification = 7, document = 9
}

/// One attribute: a name and its values (all of one syntax, except where IPP allows a choice,
/// e.g. `keyword | name`).
public struct IPPAttribute: Sendable, Equatable {
  public var name: String
  public var values: [IPPValue]

  /// Creates an attribute.
  public init(_ name: String, _ values: [IPPValue]) {
    self.name = name
    self.values = values
  }

  /// Creates an attribute of one value.
  public init(_ name: String, _ value: IPPValue) { self.init(name, [value]) }

  /// The first value as text (any string syntax), nil for other syntaxes.
  public var string: String? { values.first?.string }
  /// The first value as an integer (integer or enum), nil for other syntaxes.
  public var integer: Int? { values.first?.integer }
  /// The first value as a boolean.
  public var boolean: Bool? {
    if case .boolean(let value)? = values.first { return value }
    return nil
  }
  /// The first value's members when it is a collection.
  public var collection: [IPPAttribute]? {
    if case .collection(let members)? = values.first { return members }
    return nil
  }
}

/// An attribute value, by its syntax.
public enum IPPValue: Sendable, Equatable {
  case integer(Int32)
  case enumeration(Int32)
  case boolean(Bool)
  case octetString([UInt8])
  case dateTime(Date)
  case resolution(x: Int32, y: Int32, perInch: Bool)
  case range(Int32, Int32)
  case collection([IPPAttribute])
  case text(String)
  case name(String)
  case keyword(String)
  case uri(String)
  case uriScheme(String)
  case charset(String)
  case naturalLanguage(String)
  case mimeMediaType(String)
  /// `unknown`, `no-value`, `unsupported`, `not-settable`, `delete-attribute`, `admin-define`.
  case outOfBand(IPPOutOfBand)

  /// The value as text when its syntax is a string one.
  public var string: String? {
    switch self {
    case .text(let s), .name(let s), .keyword(let s), .uri(let s), .uriScheme(let s), .charset(let s),
      .naturalLanguage(let s), .mimeMediaType(let s):
      s
    default: nil
    }
  }

  /// The value as a number when it is an integer or an enum.
  public var integer: Int? {
    switch self {
    case .integer(let v), .enumeration(let v): Int(v)
    default: nil
    }
  }

  /// The syntax's name, for messages (`keyword`, `rangeOfInteger` …).
  public var syntax: String {
    switch self {
    case .integer: "integer"
    case .enumeration: "enum"
    case .boolean: "boolean"
    case .octetString: "octetString"
    case .dateTime: "dateTime"
    case .resolution: "resolution"
    case .range: "rangeOfInteger"
    case .collection: "collection"
    case .text: "text"
    case .name: "name"
    case .keyword: "keyword"
    case .uri: "uri"
    case .uriScheme: "uriScheme"
    case .charset: "charset"
    case .naturalLanguage: "naturalLanguage"
    case .mimeMediaType: "mimeMediaType"
    case .outOfBand(let kind): kind.rawValue
    }
  }
}

/// IPP's out-of-band values (they stand for a value without one).
public enum IPPOutOfBand: String, Sendable, Equatable {
  case unsupported, unknown
  case noValue = "no-value"
  case notSettable = "not-settable"
  case deleteAttribute = "delete-attribute"
  case adminDefine = "admin-define"
}
