import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Crafted and damaged images are data errors with a reason, never a crash or a huge bitmap.
/// The files are made by netpbm and Python's zlib (not by the code under test) and then edited.
@Suite struct HostileImageTests {
  /// A small real JPEG from netpbm's `pnmtojpeg`.
  static func jpeg(width: Int = 16, height: Int = 16) throws -> [UInt8] {
    let dir = try Tool.temporaryDirectory()
    let pgm = dir.appendingPathComponent("g.pgm")
    try Data(Array("P5\n\(width) \(height)\n255\n".utf8) + [UInt8](repeating: 128, count: width * height)).write(
      to: pgm)
    return [UInt8](try Tool.run("pnmtojpeg", [pgm.path]).output)
  }

  /// The JPEG with its SOF0 frame size set to `width`×`height`, after `fill` 0xFF fill bytes
  /// (legal before any marker; libjpeg skips them).
  static func jpeg(declaring width: Int, _ height: Int, fill: Int = 0, decoy: Bool = false) throws -> Data {
    var bytes = try jpeg()
    let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
    bytes[sof + 5] = UInt8(height >> 8)
    bytes[sof + 6] = UInt8(height & 0xFF)
    bytes[sof + 7] = UInt8(width >> 8)
    bytes[sof + 8] = UInt8(width & 0xFF)
    var prefix = [UInt8](repeating: 0xFF, count: fill)
    if decoy {
      // A comment segment holding what a byte scanner that misreads fill bytes takes for a
      // 16×16 frame header.
      prefix +=
        [0xFF, 0xFE, 0x00, 0x13] + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00]
        + [0, 0, 0, 0]
    }
    bytes.insert(contentsOf: prefix, at: sof)
    return Data(bytes)
  }

  func layout(_ image: Data) throws -> LaidOutReceipt {
    try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.image(ImageBlock(data: image))]))
  }

  @Test func theRealFrameSizeIsCheckedNotADecoy() throws {
    // 60000×60000 behind fill bytes and a decoy header: 3.6 gigapixels if decoded.
    for image in [
      try Self.jpeg(declaring: 60000, 60000), try Self.jpeg(declaring: 60000, 60000, fill: 5),
      try Self.jpeg(declaring: 60000, 60000, fill: 3, decoy: true), try Self.jpeg(declaring: 5000, 5000),
    ] {
      #expect {
        try layout(image)
      } throws: { error in
        guard let error = error as? LayoutError, error.isDataError else { return false }
        return "\(error)".contains("too large")
      }
    }
  }

  @Test func aSmallJPEGStillDecodes() throws {
    let receipt = try layout(Data(try Self.jpeg(width: 40, height: 20)))
    guard case .image(let placed) = receipt.pages[0].items[0] else {
      Issue.record("no image")
      return
    }
    #expect(
      placed.image.width == 40 && placed.image.height == 20 && placed.image.pixels.allSatisfy { abs(Int($0) - 128) < 8 }
    )
  }

  @Test func truncatedAndCorruptImagesAreDataErrors() throws {
    let jpeg = try Self.jpeg(width: 64, height: 64)
    let png = try Tool.run(
      "python3",
      [
        "-c",
        """
        import struct, sys, zlib
        def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        raw = b''.join(b'\\x00' + b'\\x80' * 32 for _ in range(32))
        sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 32, 32, 8, 0, 0, 0, 0))
          + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
        """,
      ]
    ).output
    var badCRC = [UInt8](png)
    badCRC[40] ^= 0xFF  // inside IDAT
    let cases: [(String, Data)] = [
      ("truncated JPEG", Data(jpeg.prefix(jpeg.count / 2))), ("JPEG header only", Data(jpeg.prefix(200))),
      ("truncated PNG", png.prefix(png.count / 2)), ("damaged PNG", Data(badCRC)),
      ("not an image", Data("GIF89a".utf8)), ("empty", Data()),
      ("PNG signature only", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])),
    ]
    for (name, data) in cases {
      do {
        let receipt = try layout(data)
        // libjpeg may fill a truncated scan with gray and warn: then it decodes, at its size.
        #expect(name == "truncated JPEG", "\(name) decoded: \(receipt.pages[0].items.count) items")
      } catch let error as LayoutError {
        #expect(error.isDataError, "\(name): \(error)")
        #expect(!"\(error)".contains("out of memory"), "\(name): \(error)")
      }
    }
    _ = try layout(png)  // the undamaged one decodes
  }

  @Test func aGrayPNGWithAlphaIsCompositedOnWhite() throws {
    // Gray + alpha, 8 bits: black at alpha 0 (transparent) must print white.
    let png = try Tool.run(
      "python3",
      [
        "-c",
        """
        import struct, sys, zlib
        def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        raw = b''.join(b'\\x00' + b'\\x00\\x00' * 8 + b'\\x00\\xff' * 8 for _ in range(4))
        sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 4, 8, 4, 0, 0, 0))
          + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
        """,
      ]
    ).output
    guard case .image(let placed) = try layout(png).pages[0].items[0] else {
      Issue.record("no image")
      return
    }
    let row = Array(placed.image.pixels.prefix(16))
    #expect(row.prefix(8).allSatisfy { $0 == 255 } && row.suffix(8).allSatisfy { $0 == 0 }, "\(row)")
  }
}
