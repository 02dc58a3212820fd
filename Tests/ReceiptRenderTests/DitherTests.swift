import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

@Suite struct DitherTests {
  /// A 240×64 horizontal gradient from black to white, 8-bit gray PNG written by Python's zlib.
  func gradientPNG() throws -> Data {
    let script = """
      import struct, sys, zlib
      w, h = 240, 64
      def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
      row = b'\\x00' + bytes(int(x * 255 / (w - 1)) for x in range(w))
      sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
        + chunk(b'IDAT', zlib.compress(row * h)) + chunk(b'IEND', b''))
      """
    return try Tool.run("python3", ["-c", script]).output
  }

  /// The logo's dots (240×64 at 203 dpi: one pixel per dot) for a method.
  func logo(_ method: DitherMethod) throws -> (page: RasterImage, x: Int, y: Int) {
    let doc = ReceiptDocument(blocks: [.image(ImageBlock(data: try gradientPNG(), dither: method))])
    let laidOut = try ReceiptLayoutEngine().layout(doc)
    guard case .image(let placed) = laidOut.pages[0].items[0] else { throw RigError("no image") }
    let page = try RasterRenderer().render(laidOut)[0]
    return (page, Int((placed.rect.x * 203 / 72).rounded()), Int((placed.rect.y * 203 / 72).rounded()))
  }

  func dots(_ l: (page: RasterImage, x: Int, y: Int)) -> [Bool] {
    (0..<64).flatMap { y in (0..<240).map { x in l.page.isBlack(x: l.x + x, y: l.y + y) } }
  }

  @Test func everyMethodKeepsTheToneAndDiffersFromThreshold() throws {
    let threshold = dots(try logo(.threshold))
    // Threshold: the dark half is solid, the light half empty.
    #expect(abs(Double(threshold.filter { $0 }.count) / Double(threshold.count) - 0.5) < 0.02)
    var patterns: [[Bool]] = [threshold]
    for method in [DitherMethod.ordered, .floydSteinberg, .atkinson] {
      let d = dots(try logo(method))
      let differing = zip(d, threshold).filter { $0 != $1 }.count
      #expect(Double(differing) / Double(d.count) > 0.15, "\(method) looks like a threshold")
      // The mid-gray column band (gray ~96…160) mixes black and white dots.
      let band = (0..<64).flatMap { y in (90..<150).map { d[y * 240 + $0] } }
      let fraction = Double(band.filter { $0 }.count) / Double(band.count)
      #expect(fraction > 0.3 && fraction < 0.7, "\(method): \(fraction)")
      // Darker on the left than on the right.
      let left = (0..<64).flatMap { y in (0..<60).map { d[y * 240 + $0] } }.filter { $0 }.count
      let right = (0..<64).flatMap { y in (180..<240).map { d[y * 240 + $0] } }.filter { $0 }.count
      #expect(left > 3 * right)
      patterns.append(d)
    }
    #expect(Set(patterns).count == 4, "the four methods give four different results")
  }

  /// Three flat gray patches (25 %, 50 % and 75 % ink), 80×64 pixels each.
  func patchesPNG() throws -> Data {
    let script = """
      import struct, sys, zlib
      w, h = 240, 64
      def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
      row = b'\\x00' + bytes([191] * 80 + [128] * 80 + [64] * 80)
      sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
        + chunk(b'IDAT', zlib.compress(row * h)) + chunk(b'IEND', b''))
      """
    return try Tool.run("python3", ["-c", script]).output
  }

  /// Whether flat gray came out dithered: each patch's share of black dots near its ink (±10 %:
  /// Atkinson's diffusion keeps only 6/8 of the error and lightens light tones),
  /// and every 8×8 block inside a patch holds black and white dots (no solid areas). Threshold
  /// output makes each patch all black or all white.
  func isDithered(_ method: DitherMethod) throws -> Bool {
    let doc = ReceiptDocument(blocks: [.image(ImageBlock(data: try patchesPNG(), dither: method))])
    let laidOut = try ReceiptLayoutEngine().layout(doc)
    guard case .image(let placed) = laidOut.pages[0].items[0] else { throw RigError("no image") }
    let page = try RasterRenderer().render(laidOut)[0]
    let (x0, y0) = (Int((placed.rect.x * 203 / 72).rounded()), Int((placed.rect.y * 203 / 72).rounded()))
    for (patch, ink) in [(0, 0.25), (1, 0.5), (2, 0.75)] {
      let xs = (patch * 80 + 8)..<(patch * 80 + 72)
      let dots = (8..<56).flatMap { y in xs.map { page.isBlack(x: x0 + $0, y: y0 + y) } }
      let share = Double(dots.filter { $0 }.count) / Double(dots.count)
      guard abs(share - ink) < 0.1 else { return false }
      for by in stride(from: 8, to: 56, by: 8) {
        for bx in stride(from: xs.lowerBound, to: xs.upperBound, by: 8) {
          let block = (by..<(by + 8)).flatMap { y in (bx..<(bx + 8)).map { page.isBlack(x: x0 + $0, y: y0 + y) } }
          guard block.contains(true), block.contains(false) else { return false }
        }
      }
    }
    return true
  }

  @Test func flatGrayIsDitheredByEveryMethodButThreshold() throws {
    #expect(try !isDithered(.threshold), "the check tells threshold output apart")
    for method in [DitherMethod.ordered, .floydSteinberg, .atkinson] {
      #expect(try isDithered(method), "\(method)")
    }
  }

  @Test func colorEmojiIsDitheredNotASilhouette() throws {
    let text = AttributedText("😀", attributes: TextAttributes(font: FontDescriptor(size: 28)))
    let laidOut = try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.text(text)]))
    // The color glyph (beneath it, its text layer in a monochrome font, in the paper's color).
    let run = try #require(laidOut.pages[0].runs.first { $0.font.isColor })
    #expect(laidOut.pages[0].runs.contains { !$0.font.isColor && $0.text == "😀" && $0.ink == .white })
    let page = try RasterRenderer().render(laidOut)[0]
    let x0 = Int((run.origin.x * 203 / 72).rounded())
    let y0 = Int(((run.origin.y - 28) * 203 / 72).rounded())
    let size = Int((run.width * 203 / 72).rounded())
    let box = (0..<size).flatMap { y in (0..<size).map { page.isBlack(x: x0 + $0, y: y0 + y) } }
    let fraction = Double(box.filter { $0 }.count) / Double(box.count)
    #expect(fraction > 0.05 && fraction < 0.8, "emoji box is \(fraction) black")
    // Inside the face (a cheek: yellow, light): dithered, mostly white with some black dots. A
    // silhouette would be solid black there.
    let cheek = (Int(Double(size) * 0.55)..<Int(Double(size) * 0.65)).flatMap { y in
      (Int(Double(size) * 0.2)..<Int(Double(size) * 0.3)).map { page.isBlack(x: x0 + $0, y: y0 + y) }
    }
    let ink = Double(cheek.filter { $0 }.count) / Double(cheek.count)
    #expect(ink > 0.02 && ink < 0.5, "the yellow cheek is \(ink) black")
  }
}
