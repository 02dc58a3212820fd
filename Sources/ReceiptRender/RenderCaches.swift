/// What drawing keeps between receipts: black glyph runs' coverage, images' dithered dots,
/// images' cairo surfaces for PDFs and raster pages' pixel memory. An engine's context, handed
/// to every renderer it makes (``RasterRenderer/init(gray:glyphDither:printableOnly:caches:)``,
/// ``PDFRenderer/init(creator:creationDate:caches:)``). The executables' engines share
/// ``process``; a test makes its own. cairo's font faces (`CairoFonts`) are not in it: they are
/// the process's fonts, one cairo face per font file, whoever draws. Each part is bounded
/// (ARCHITECTURE.md, "Process-wide caches") and keyed by everything its answer depends on.
package final class RenderCaches: Sendable {
  /// Coverage of black glyph runs seen three times.
  let glyphRuns = GlyphRunBitmaps()
  /// Images' dithered dots per size and ink.
  let imageDots = ImageDotCache()
  /// Images' cairo surfaces for PDFs, lent to one render at a time.
  let imageSurfaces = ImageSurfacePool()
  /// Pixel memory of raster pages for the next page.
  let pageBuffers = PageBuffers()

  /// The context the executables' engines share: made once, at its first use.
  package static let process = RenderCaches()

  /// An empty context.
  package init() {}
}
