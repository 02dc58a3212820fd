import Foundation
import ReceiptPrint
import Testing

/// ``IPPFrameScanner`` finds where a message's attributes end and refuses nesting and counts
/// that hurt the reader. The messages are written by libcups (`ippWriteIO` through
/// ``IPPCodec/encode(_:)``), not by the scanner's author: the oracle of where a part ends is
/// libcups' own framing.
@Suite struct IPPFrameScannerTests {
  /// A request with `media-col` nested `depth` collections deep, written by libcups.
  func nested(_ depth: Int) throws -> Data {
    var value = IPPValue.collection([IPPAttribute("x-dimension", .integer(8000))])
    for _ in 1..<depth { value = .collection([IPPAttribute("media-size", value)]) }
    let message = IPPMessage(
      code: 0x0004, requestID: 7,
      groups: [
        IPPAttributeGroup(
          .operation,
          [
            IPPAttribute("attributes-charset", .charset("utf-8")),
            IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
          ]), IPPAttributeGroup(.job, [IPPAttribute("media-col", value), IPPAttribute("copies", .integer(1))]),
      ])
    return try IPPCodec.encode(message)
  }

  @Test(arguments: [1, 4, 16]) func libcupsMessagesEndWhereLibcupsEndsThem(depth: Int) throws {
    let bytes = try nested(depth)
    var scanner = IPPFrameScanner(limit: 256 << 10)
    #expect(scanner.scan(bytes + Data("%PDF-1.4".utf8)) == .complete(length: bytes.count))
    // libcups reads the same message back, with the document after it.
    let (message, offset) = try IPPCodec.decode(bytes + Data("%PDF".utf8))
    #expect(offset == bytes.count && message.requestID == 7)
  }

  /// Bytes arriving one at a time give the same answer as all at once, in linear time.
  @Test func aMessageTrickledByteByByteIsTheSame() throws {
    let bytes = try nested(8)
    var scanner = IPPFrameScanner(limit: 256 << 10)
    var seen = Data()
    var results: [IPPFrameScanner.Result] = []
    for byte in bytes {
      seen.append(byte)
      results.append(scanner.scan(seen))
    }
    #expect(results.dropLast().allSatisfy { $0 == .needMore })
    #expect(results.last == .complete(length: bytes.count))
  }

  @Test func deepCollectionsAndFloodsAreRefusedBeforeLibcupsReadsThem() throws {
    var scanner = IPPFrameScanner(limit: 256 << 10)
    guard case .invalid(let why) = scanner.scan(try nested(17)) else {
      Issue.record("17 levels were taken")
      return
    }
    #expect(why.contains("deeper than 16"))
    // 10,000 levels (the request that overflowed the daemon's stack), written by hand as an
    // attacker would: libcups never sees it.
    var deep = Data([2, 0, 0, 4, 0, 0, 0, 1, 2, 0x34, 0, 9] + Array("media-col".utf8) + [0, 0])
    for _ in 0..<10_000 { deep += Data([0x4A, 0, 0, 0, 1, UInt8(ascii: "m"), 0x34, 0, 0, 0, 0]) }
    #expect(throws: IPPCodecError.self) { try IPPCodec.decode(deep) }
    var many = Data([2, 0, 0, 4, 0, 0, 0, 1, 1])
    for i in 0..<10_001 { many += Data([0x21, 0, 1, UInt8(ascii: "a"), 0, 4, 0, 0, 0, UInt8(i & 0xFF)]) }
    var counting = IPPFrameScanner(limit: 256 << 10)
    #expect(counting.scan(many + Data([3])) == .invalid("the request has more than 10000 attribute values"))
    var unbalanced = IPPFrameScanner(limit: 256 << 10)
    #expect(unbalanced.scan(Data([2, 0, 0, 4, 0, 0, 0, 1, 1, 0x37, 0, 0, 0, 0, 3])) != .complete(length: 15))
  }

  @Test func anAttributePartOverTheLimitIsRefused() {
    var header = Data([2, 0, 0, 4, 0, 0, 0, 1, 1, 0x41, 0, 1, UInt8(ascii: "a"), 0xFF, 0xFF])
    header += Data(repeating: 0x61, count: 0xFFFF)
    var scanner = IPPFrameScanner(limit: 1024)
    guard case .invalid = scanner.scan(header) else {
      Issue.record("64 KiB of attributes passed a 1 KiB limit")
      return
    }
  }
}
