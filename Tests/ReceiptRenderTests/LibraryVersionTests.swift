import Foundation
import ReceiptLayout
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Every C library is callable: its version, read from the library at run time, matches what the
/// system's package tools report for the installed library.
@Suite struct LibraryVersionTests {
  func pkgConfig(_ name: String) throws -> String {
    try Tool.run("pkg-config", ["--modversion", name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }
  func debianVersion(_ package: String) throws -> String {
    let v = try Tool.run("dpkg-query", ["-W", "-f=${Version}", package]).stdout
    return String(v.split(separator: "+").first!.split(separator: "-").first!)
  }

  @Test func harfbuzz() throws { #expect(LayoutLibraries.harfbuzz == (try pkgConfig("harfbuzz"))) }
  @Test func icu() throws { #expect(LayoutLibraries.icu == (try pkgConfig("icu-uc"))) }
  @Test func fontconfig() throws { #expect(LayoutLibraries.fontconfig == (try pkgConfig("fontconfig"))) }
  @Test func cairo() throws { #expect(RenderLibraries.cairo == (try pkgConfig("cairo"))) }
  @Test func freetype() throws { #expect(LayoutLibraries.freetype == (try debianVersion("libfreetype6"))) }
  @Test func zint() throws { #expect(LayoutLibraries.zint == (try debianVersion("libzint-dev"))) }
}
