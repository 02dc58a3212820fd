internal import CCairo
internal import CFreeType
import Foundation
import ReceiptLayout
@_spi(Internals) import ReceiptModel

/// cairo font faces for the renderers, each on its own FreeType face (never the layout engine's:
/// cairo rescales the faces it draws with). A face is made once per process and kept, as the
/// layout engine keeps its fonts: cairo then keeps its glyph caches between receipts (a batch
/// otherwise spends ~7 % of its time opening fonts and loading the same glyphs again). cairo
/// locks a face while it uses it, so every thread draws with the same faces.
final class CairoFonts {
  nonisolated(unsafe) private static var library: FT_Library?
  private static let lock = NSLock()
  /// Every face made in this process, owned for the process's life.
  private static let shared = Locked<[FontFace: Face]>([:])
  /// This painter's faces already looked up (no lock on the hot path).
  private var faces: [FontFace: OpaquePointer] = [:]
  nonisolated(unsafe) private static let userDataKey = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)

  /// A cairo font face pointer that may cross threads: cairo's faces are reference counted
  /// atomically and locked while in use.
  private struct Face: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  /// The process-wide FreeType library used for drawing (FreeType faces are created under a lock).
  private static func sharedLibrary() throws -> FT_Library {
    if let library { return library }
    var created: FT_Library?
    guard FT_Init_FreeType(&created) == 0, let created else {
      throw RenderError.font(path: "", reason: "FreeType failed to initialise")
    }
    library = created
    return created
  }

  /// The cairo font face for a font file and index.
  func face(for font: FontFace) throws -> OpaquePointer {
    if let face = faces[font] { return face }
    if let face = Self.shared.withLock({ $0[font] }) {
      faces[font] = face.pointer
      return face.pointer
    }
    let made = try Self.make(font)
    // Two threads may make the same face at once: the first one stored is kept.
    let kept = Self.shared.withLock { shared in
      if let first = shared[font] { return first }
      shared[font] = Face(pointer: made)
      return Face(pointer: made)
    }
    if kept.pointer != made { cairo_font_face_destroy(made) }
    faces[font] = kept.pointer
    return kept.pointer
  }

  /// A new cairo face on a new FreeType face; the caller owns its reference.
  private static func make(_ font: FontFace) throws -> OpaquePointer {
    // The lock guards FreeType's library only. It is never held while calling cairo: cairo calls
    // the destructor below under its own font-map lock, and taking the two in opposite orders on
    // two threads deadlocks (seen under load in the daemon: a render and a print at once).
    CairoFonts.lock.lock()
    var ftFace: FT_Face?
    let error: FT_Error
    do {
      error = FT_New_Face(try CairoFonts.sharedLibrary(), font.path, FT_Long(font.index), &ftFace)
      CairoFonts.lock.unlock()
    } catch {
      CairoFonts.lock.unlock()
      throw error
    }
    guard error == 0, let ftFace else {
      throw RenderError.font(path: font.path, reason: "FreeType error \(error)")
    }
    let flags = Int32(FT_LOAD_NO_HINTING) | (font.isColor ? Int32(FT_LOAD_COLOR) : 0)
    guard let face = cairo_ft_font_face_create_for_ft_face(ftFace, flags) else {
      CairoFonts.lock.lock()
      FT_Done_Face(ftFace)
      CairoFonts.lock.unlock()
      throw RenderError.cairo("cannot create a font face for \(font.path)")
    }
    var synthesize: UInt32 = 0
    if font.synthesizeBold { synthesize |= CAIRO_FT_SYNTHESIZE_BOLD.rawValue }
    if font.synthesizeOblique { synthesize |= CAIRO_FT_SYNTHESIZE_OBLIQUE.rawValue }
    if synthesize != 0 { cairo_ft_font_face_set_synthesize(face, synthesize) }
    let status = cairo_font_face_set_user_data(face, CairoFonts.userDataKey, UnsafeMutableRawPointer(ftFace)) {
      pointer in
      CairoFonts.lock.lock()
      defer { CairoFonts.lock.unlock() }
      FT_Done_Face(pointer?.assumingMemoryBound(to: FT_FaceRec.self))
    }
    if status != CAIRO_STATUS_SUCCESS {
      cairo_font_face_destroy(face)
      CairoFonts.lock.lock()
      FT_Done_Face(ftFace)
      CairoFonts.lock.unlock()
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
    return face
  }
}
