import ReceiptModel

/// Turns 8-bit gray pixels (0 = black) into black/white dots.
enum Dither {
  /// 8×8 Bayer matrix, values 0…63.
  private static let bayer: [[Int]] = {
    var m = [[0]]
    while m.count < 8 {
      let n = m.count
      var next = [[Int]](repeating: [Int](repeating: 0, count: 2 * n), count: 2 * n)
      for y in 0..<n {
        for x in 0..<n {
          let v = 4 * m[y][x]
          next[y][x] = v
          next[y][x + n] = v + 2
          next[y + n][x] = v + 3
          next[y + n][x + n] = v + 1
        }
      }
      m = next
    }
    return m
  }()

  /// Returns, for each pixel of a `width`×`height` gray image, whether it prints black.
  static func apply(_ method: DitherMethod, gray: [UInt8], width: Int, height: Int) -> [Bool] {
    switch method {
    case .threshold:
      return gray.map { $0 < 128 }
    case .ordered:
      var out = [Bool](repeating: false, count: gray.count)
      for y in 0..<height {
        for x in 0..<width {
          let threshold = (bayer[y & 7][x & 7] * 4 + 2)  // 2…254
          out[y * width + x] = Int(gray[y * width + x]) < threshold
        }
      }
      return out
    case .floydSteinberg:
      return diffuse(
        gray, width: width, height: height, kernel: [(1, 0, 7), (-1, 1, 3), (0, 1, 5), (1, 1, 1)], divisor: 16)
    case .atkinson:
      return diffuse(
        gray, width: width, height: height,
        kernel: [(1, 0, 1), (2, 0, 1), (-1, 1, 1), (0, 1, 1), (1, 1, 1), (0, 2, 1)],
        divisor: 8)
    }
  }

  /// Error diffusion: each pixel's quantization error goes to its neighbours by the kernel.
  private static func diffuse(
    _ gray: [UInt8], width: Int, height: Int, kernel: [(dx: Int, dy: Int, weight: Int)], divisor: Int
  ) -> [Bool] {
    var values = gray.map { Int($0) * 16 }  // fixed point, 4 fractional bits
    var out = [Bool](repeating: false, count: gray.count)
    for y in 0..<height {
      for x in 0..<width {
        let i = y * width + x
        let old = values[i]
        let black = old < 128 * 16
        out[i] = black
        let error = old - (black ? 0 : 255 * 16)
        for (dx, dy, weight) in kernel {
          let nx = x + dx
          let ny = y + dy
          guard nx >= 0, nx < width, ny < height else { continue }
          values[ny * width + nx] += error * weight / divisor
        }
      }
    }
    return out
  }
}
