public import Foundation
public import ReceiptModel

/// A printer model as data: what its head prints and how it is driven. Shipped models are the
/// JSON files in `Sources/ReceiptPrint/Models/` (each cites the vendor's specification); more
/// are read from `$RECEIPT_MODELS` (a directory of such files) or given as a file path. To add a
/// model, add a JSON file there.
public struct PrinterModel: Codable, Hashable, Sendable {
  /// The name used on the command line and in configuration (`epson-tm-t88v`).
  public var name: String
  /// The vendor's name for it.
  public var title: String
  /// Head resolution in dots per inch.
  public var dpi: Int
  /// Printable dots per paper width (`{"80mm": 512, "58mm": 420}`).
  public var paper: [String: Int]
  /// `escpos` (the only command set encoded so far).
  public var commandSet: String
  /// The raster command: `gs-v-0` (GS v 0).
  public var imageCommand: String
  /// Rows per raster command (the printer's band buffer).
  public var bandHeight: Int
  /// Drawer kick pins the model has; the first is the one `<drawer/>` kicks (none: no connector).
  public var drawerPins: [Int]
  /// Where each fact comes from.
  public var sources: [String]

  /// The head, for layout.
  public var printHead: PrintHead { PrintHead(resolution: Resolution(dpi: dpi), printableDots: paper) }

  /// Checks the facts a model must have.
  func validated(source: String) throws -> PrinterModel {
    func fail(_ m: String) -> PrintError { .badModel("printer model \(source): \(m)") }
    guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
      throw fail("name must be letters, digits and '-'")
    }
    guard (72...1200).contains(dpi) else { throw fail("dpi must be 72…1200") }
    guard !paper.isEmpty, paper.allSatisfy({ Paper(parsing: $0.key) != nil && (8...4096).contains($0.value) }) else {
      throw fail("paper maps paper widths such as \"80mm\" to printable dots (8…4096)")
    }
    guard commandSet == "escpos", imageCommand == "gs-v-0" else {
      throw fail("only commandSet \"escpos\" with imageCommand \"gs-v-0\" is encoded so far")
    }
    guard (1...4096).contains(bandHeight) else { throw fail("bandHeight must be 1…4096 rows") }
    guard drawerPins.allSatisfy({ [2, 5].contains($0) }), Set(drawerPins).count == drawerPins.count else {
      throw fail("drawerPins lists the drawer connector's pins, 2 and/or 5 (first: the default), or none")
    }
    return self
  }

  /// The shipped models, by name.
  public static let shipped: [PrinterModel] = [
    PackageResources.epson_tm_t88v_json, PackageResources.generic_80mm_json, PackageResources.generic_58mm_json,
  ].map {  // the shipped files are checked like users' files (and by PrinterModelTests)
    try! JSONDecoder().decode(PrinterModel.self, from: Data($0)).validated(source: "shipped")
  }

  /// Every model: the shipped ones and those in `$RECEIPT_MODELS` (which win by name).
  public static func all(environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> [PrinterModel]
  {
    var byName = Dictionary(shipped.map { ($0.name, $0) }) { a, _ in a }
    if let directory = environment["RECEIPT_MODELS"] {
      let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      for file in files.sorted() where file.hasSuffix(".json") {
        let model = try load(URL(fileURLWithPath: directory).appendingPathComponent(file))
        byName[model.name] = model
      }
    }
    return byName.values.sorted { $0.name < $1.name }
  }

  /// A model by name, or a JSON file by path (it has a `/` or ends in `.json`).
  public static func named(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws -> PrinterModel
  {
    if name.contains("/") || name.hasSuffix(".json") { return try load(URL(fileURLWithPath: name)) }
    let models = try all(environment: environment)
    if let model = models.first(where: { $0.name == name.lowercased() }) { return model }
    throw PrintError.badModel(
      "unknown printer model '\(name)'; known: \(models.map(\.name).joined(separator: ", ")) (or a model's JSON file)")
  }

  private static func load(_ url: URL) throws -> PrinterModel {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw PrintError.badModel("cannot read printer model \(url.path)")
    }
    guard data.count <= 64 << 10 else { throw PrintError.badModel("printer model \(url.path) is over 64 KiB") }
    do {
      return try JSONDecoder().decode(PrinterModel.self, from: data).validated(source: url.lastPathComponent)
    } catch let error as PrintError {
      throw error
    } catch {
      throw PrintError.badModel("printer model \(url.lastPathComponent) is not a model file: \(error)")
    }
  }
}
