import ReceiptPrint
import ReceiptTestSupport
import Testing

/// libcups is callable: its version matches the installed package, and it computes raster sizes
/// as NOTES.md says.
@Suite struct PrintLibraryTests {
  @Test func cupsVersionIsTheInstalledOne() throws {
    let v = try Tool.run("dpkg-query", ["-W", "-f=${Version}", "libcups2"]).stdout
    #expect(PrintLibraries.cups == String(v.split(separator: "+").first!.split(separator: "-").first!))
  }

  @Test func libcupsComputesRasterSizes() throws {
    // size in dots = floor(hundredths of mm × dpi / 2540); 80 mm at 203 dpi = 639 dots.
    let size = try #require(PrintLibraries.pwgRasterSize(widthMillimetres: 80, lengthMillimetres: 123.4, dpi: 203))
    #expect(size.width == 8000 * 203 / 2540)
    #expect(size.height == 12340 * 203 / 2540)
  }
}
