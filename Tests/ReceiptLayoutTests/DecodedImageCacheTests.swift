import Foundation
import Testing

@testable import ReceiptLayout

/// A logo is decoded once per process (``DecodedImageCache``) and shared by every receipt; what
/// the cache returns must be what decoding gives, and a broken image must fail every time.
@Suite(.serialized) struct DecodedImageCacheTests {
  static let logo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Templates/logo.png").standardizedFileURL

  @Test func aKeptImageIsTheDecodedImage() throws {
    let data = try Data(contentsOf: Self.logo)
    let cache = DecodedImageCache()
    let first = try cache.image(data)
    let second = try cache.image(Data(data))  // equal bytes, another buffer
    #expect(cache.count == 1)
    #expect(first == (try ImageDecoder.decode(data)))
    #expect(second == first)
  }

  @Test func aBrokenImageFailsEveryTime() throws {
    var data = try Data(contentsOf: Self.logo)
    data.removeLast(data.count / 2)  // truncated
    let cache = DecodedImageCache()
    for _ in 0..<2 {
      #expect(throws: LayoutError.self) { try cache.image(data) }
    }
    #expect(cache.count == 0)
  }

  @Test func imagesDifferingInOnePixelAreDifferentKeys() {
    // The hash samples pixels; equality must still see every one.
    let width = 300
    let height = 40
    var pixels = [UInt8](repeating: 255, count: width * height)
    let a = GrayImage(width: width, height: height, pixels: pixels)
    pixels[1] = 0  // between samples
    let b = GrayImage(width: width, height: height, pixels: pixels)
    #expect(a != b)
    #expect(Set([a, b]).count == 2)
    #expect(a.hashValue == GrayImage(width: width, height: height, pixels: a.pixels).hashValue)
  }
}
