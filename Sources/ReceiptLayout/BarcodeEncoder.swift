internal import CZint
import ReceiptModel

/// A barcode encoded by zint: modules as rows of booleans, row heights in modules (0 = stretch
/// to the bar height), quiet zones in modules, and the human-readable text.
struct EncodedBarcode {
  var modules: [[Bool]]
  var rowHeights: [Double]
  var quietZone: Int
  var humanReadable: String
}

/// Encodes barcodes with libzint (a `zint_symbol` per call, freed with `ZBarcode_Delete`).
enum BarcodeEncoder {
  static func encode(_ barcode: Barcode) throws -> EncodedBarcode {
    guard let symbol = ZBarcode_Create() else {
      throw LayoutError.barcode(symbology: barcode.symbology.rawValue, data: barcode.data, reason: "out of memory")
    }
    defer { ZBarcode_Delete(symbol) }
    var (type, mode, quiet) = parameters(barcode.symbology)
    type = try checkedType(barcode, default: type)
    symbol.pointee.symbology = type
    symbol.pointee.input_mode = mode
    symbol.pointee.warn_level = WARN_FAIL_ALL
    if barcode.symbology == .qr { symbol.pointee.option_1 = 2 }  // error correction level M
    let bytes = Array(barcode.data.utf8)
    if barcode.symbology.isTwoDimensional, bytes.contains(where: { $0 >= 0x80 }) {
      symbol.pointee.eci = 26  // UTF-8, said explicitly (zint would warn that it chose an ECI)
    }
    guard !bytes.isEmpty else {
      throw LayoutError.barcode(symbology: barcode.symbology.rawValue, data: barcode.data, reason: "no data")
    }
    let status = ZBarcode_Encode(symbol, bytes, Int32(bytes.count))
    if status != 0 {
      let reason = String(cString: receipt_zint_error(symbol))
      throw LayoutError.barcode(symbology: barcode.symbology.rawValue, data: barcode.data, reason: reason)
    }
    // zint's fixed arrays through C accessors (shim.h): touching them from Swift would build
    // the type metadata of a 200 × 144 tuple at run time, a sixth of a one-shot render.
    let rows = Int(symbol.pointee.rows)
    let width = Int(symbol.pointee.width)
    var modules: [[Bool]] = []
    for r in 0..<rows {
      guard let row = receipt_zint_row(symbol, Int32(r)) else { break }
      modules.append((0..<width).map { c in row[c >> 3] >> (c & 7) & 1 == 1 })
    }
    let heights = (0..<rows).map { Double(receipt_zint_row_height(symbol, Int32($0))) }
    let text = String(cString: receipt_zint_text(symbol))
    let linear = !barcode.symbology.isTwoDimensional
    return EncodedBarcode(
      modules: modules, rowHeights: linear ? heights.map { _ in 0 } : heights.map { $0 > 0 ? $0 : 1 },
      quietZone: quiet, humanReadable: linear ? text : "")
  }

  /// EAN/UPC lengths: with the check digit zint verifies it (`_CHK` types), without it computes it.
  private static func checkedType(_ barcode: Barcode, default type: Int32) throws -> Int32 {
    let lengths: (withoutCheck: Int, withCheck: Int, chk: Int32, plain: Int32)
    switch barcode.symbology {
    case .ean13: lengths = (12, 13, BARCODE_EANX_CHK, BARCODE_EANX)
    case .ean8: lengths = (7, 8, BARCODE_EANX_CHK, BARCODE_EANX)
    case .upca: lengths = (11, 12, BARCODE_UPCA_CHK, BARCODE_UPCA)
    default: return type
    }
    let digits = barcode.data
    guard digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) else {
      throw LayoutError.barcode(symbology: barcode.symbology.rawValue, data: digits, reason: "only digits are allowed")
    }
    switch digits.count {
    case lengths.withCheck: return lengths.chk
    case lengths.withoutCheck: return lengths.plain
    default:
      throw LayoutError.barcode(
        symbology: barcode.symbology.rawValue, data: digits,
        reason:
          "needs \(lengths.withoutCheck) digits, or \(lengths.withCheck) with the check digit; got \(digits.count)")
    }
  }

  /// zint symbology, input mode and quiet zone (modules) for a symbology.
  private static func parameters(_ symbology: Symbology) -> (Int32, Int32, Int) {
    switch symbology {
    case .ean13, .ean8: return (BARCODE_EANX, DATA_MODE, 10)
    case .upca: return (BARCODE_UPCA, DATA_MODE, 10)
    case .code128: return (BARCODE_CODE128, UNICODE_MODE, 10)
    case .gs1_128: return (BARCODE_GS1_128, GS1_MODE, 10)
    case .code39: return (BARCODE_CODE39, DATA_MODE, 10)
    case .itf: return (BARCODE_C25INTER, DATA_MODE, 10)
    case .qr: return (BARCODE_QRCODE, UNICODE_MODE, 4)
    case .pdf417: return (BARCODE_PDF417, UNICODE_MODE, 2)
    case .datamatrix: return (BARCODE_DATAMATRIX, UNICODE_MODE, 2)
    case .aztec: return (BARCODE_AZTEC, UNICODE_MODE, 2)
    }
  }
}
