/// The printers' icons (`printer-icons`, PWG 5100.13: 48, 128 and 512 pixels square, listed in
/// that order), PNGs drawn by scripts/printer-icon.py and compiled in. A printer serves them at
/// `/ipp/print/NAME/icons/SIZE.png` (`icon.png`: the 128-pixel one).
enum IPPIcon {
  /// The sizes, smallest first.
  static let sizes = [48, 128, 512]

  /// The PNG of one size, nil for a size there is none of.
  static func png(size: Int) -> [UInt8]? {
    switch size {
    case 48: PackageResources.printer_icon_48_png
    case 128: PackageResources.printer_icon_128_png
    case 512: PackageResources.printer_icon_512_png
    default: nil
    }
  }

  /// The icons' URIs under a printer's page, in `printer-icons`' order.
  static func uris(page: String) -> [String] { sizes.map { "\(page)/icons/\($0).png" } }
}
