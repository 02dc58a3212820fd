internal import CCairo
import Foundation
import ReceiptModel

extension PDFRenderer {
  /// The zlib level cairo's PDF streams are compressed at in this process, read back from a
  /// one-page PDF's content stream (RFC 1950, 2.2: FLEVEL, the top two bits of the header's
  /// second byte — 0 fastest, 2 zlib's default); nil when the stream cannot be read.
  ///
  /// cairo 1.16 asks zlib for level 6 and has no setting. The executables (`receipt`,
  /// `receipt-daemon`) link target `CDeflateLevel`, which defines zlib's `deflateInit_` in the
  /// program so that cairo's streams start at level 1 (~15 % faster PDFs, files ~2.6 % larger);
  /// libraries never do. This is their start-up self-check (`receipt versions` reports it; the
  /// daemon warns when it is not in effect): a static zlib, another linker, or a library that
  /// starts calling `deflateInit_` would show here, not as a silent change of speed.
  public static var streamDeflateLevel: Int? {
    let sink = ByteSink()
    guard
      let surface = cairo_pdf_surface_create_for_stream(
        { closure, data, length in
          guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
          Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().append(data, count: Int(length))
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque(), 72, 72)
    else { return nil }
    let context = cairo_create(surface)
    cairo_set_source_rgb(context, 0, 0, 0)
    cairo_rectangle(context, 10, 10, 20, 20)
    cairo_fill(context)
    cairo_show_page(context)
    cairo_destroy(context)
    cairo_surface_finish(surface)
    let ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    cairo_surface_destroy(surface)
    guard ok else { return nil }
    return withExtendedLifetime(sink) { Self.firstStreamLevel(in: [UInt8](sink.data)) }
  }

  /// FLEVEL of the first stream in `pdf` whose data starts with a valid zlib header.
  static func firstStreamLevel(in pdf: [UInt8]) -> Int? {
    let keyword = Array("stream".utf8)
    var index = 0
    while index + keyword.count + 3 < pdf.count {
      defer { index += 1 }
      guard pdf[index..<index + keyword.count].elementsEqual(keyword), index == 0 || pdf[index - 1] != UInt8(ascii: "d")
      else { continue }
      var start = index + keyword.count
      if pdf[start] == 0x0D { start += 1 }
      guard pdf[start] == 0x0A, start + 2 < pdf.count else { continue }
      let (cmf, flg) = (Int(pdf[start + 1]), Int(pdf[start + 2]))
      if cmf == 0x78, (cmf << 8 | flg) % 31 == 0 { return flg >> 6 }
    }
    return nil
  }
}
