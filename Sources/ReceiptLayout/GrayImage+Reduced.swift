/// A picture with more pixels than the printer has dots for it, made smaller before it is kept:
/// a 19 KB raster document describing a 16,384-pixel square page once cost the daemon 2.4 GB
/// (the page, then its RGB copy for the PDF archive), to print 640 dots across.
extension GrayImage {
  /// The image at `width` × `height` pixels (each at most the image's own), each new pixel the
  /// average of the source pixels whose box it covers (area averaging: no pixel is skipped, so
  /// thin lines stay as gray). Written here rather than drawn with cairo: cairo's surfaces stop
  /// at 32,767 pixels, and a document's page may be 65,536 rows long.
  public func reduced(toWidth newWidth: Int, height newHeight: Int) -> GrayImage {
    precondition(newWidth >= 1 && newHeight >= 1 && newWidth <= width && newHeight <= height)
    if newWidth == width && newHeight == height { return self }
    // Box boundaries: target column x covers source columns xs[x] ..< xs[x + 1] (never empty).
    let xs = (0...newWidth).map { $0 * width / newWidth }
    let ys = (0...newHeight).map { $0 * height / newHeight }
    var out = [UInt8](repeating: 255, count: newWidth * newHeight)
    var sums = [Int](repeating: 0, count: newWidth)
    pixels.withUnsafeBufferPointer { source in
      out.withUnsafeMutableBufferPointer { target in
        for y in 0..<newHeight {
          for x in 0..<newWidth { sums[x] = 0 }
          for row in ys[y]..<ys[y + 1] {
            let start = row * width
            for x in 0..<newWidth {
              var sum = 0
              for column in xs[x]..<xs[x + 1] { sum += Int(source[start + column]) }
              sums[x] += sum
            }
          }
          let rows = ys[y + 1] - ys[y]
          for x in 0..<newWidth {
            let count = rows * (xs[x + 1] - xs[x])
            target[y * newWidth + x] = UInt8((sums[x] + count / 2) / count)
          }
        }
      }
    }
    return GrayImage(width: newWidth, height: newHeight, pixels: out)
  }
}
