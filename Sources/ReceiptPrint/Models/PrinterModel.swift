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
  /// The command set: `escpos` (Epson and compatibles) or `star` (Star Graphic mode raster).
  public var commandSet: String
  /// The raster command: `gs-v-0` (ESC/POS `GS v 0`) or `star-raster` (Star `b n1 n2`).
  public var imageCommand: String
  /// Rows per raster command (the printer's band buffer).
  public var bandHeight: Int
  /// Drawer kick pins the model has; the first is the one `<drawer/>` kicks (none: no connector).
  public var drawerPins: [Int]
  /// The cutter: `partial`, `full` (every cut is a full cut) or `none` (tear bar: no cut sent).
  public var cutter: String
  /// Paper between the print head and the cutter, in millimetres (the printer feeds it before
  /// cutting: `GS V` function B, Star's EOT mode with cut feed).
  public var cutterFeedMillimetres: Double?
  /// What the printer reports: `realtime` (ESC/POS `DLE EOT`), `asb` (automatic status back,
  /// `GS a`) and `process-id` (`GS ( H` fn 48: it says when a receipt has printed) for an ESC/POS
  /// model; `star-asb` (Star's automatic status, asked with `ESC ACK SOH`) for a Star model.
  public var status: [String]
  /// Print speed in millimetres per second (the maker's maximum), for time estimates.
  public var speed: Int?
  /// The printer's own motion units after `ESC @` (ESC/POS `GS P` x and y, in units per inch),
  /// as its vendor documents them; nil where no vendor reference gives them. `ESC J`, `ESC 3`
  /// and `GS V`'s feed count in the vertical one.
  public var motionUnits: MotionUnits?
  /// Whether the printer takes `GS P` (ESC/POS): the encoder then sets the vertical unit to the
  /// dot pitch after every `ESC @`. A model that does not must give its vertical unit in
  /// ``motionUnits`` (a multiple or a divisor of its dpi), and feeds are converted into it.
  public var setsMotionUnits: Bool
  /// Where each fact comes from.
  public var sources: [String]

  /// The head, for layout.
  public var printHead: PrintHead { PrintHead(resolution: Resolution(dpi: dpi), printableDots: paper) }

  /// How the ESC/POS encoder measures feeds for this model.
  public var motion: ESCPOSEncoder.Motion {
    if setsMotionUnits || commandSet != "escpos" { return .setToDots }
    return .printerDefault(perInch: motionUnits?.y ?? dpi)
  }

  /// Whether the printer answers `GS ( H` fn 48 once a receipt has printed.
  public var confirmsPrints: Bool { status.contains("process-id") }
  /// Whether the printer sends ESC/POS automatic status back (`GS a`).
  public var sendsAutomaticStatus: Bool { status.contains("asb") }
  /// How the printer is asked its state (nil: it is not asked).
  public var statusProtocol: RawStatusProtocol? {
    status.contains("star-asb") ? .star : status.contains("realtime") ? .escpos : nil
  }

  private enum CodingKeys: String, CodingKey {
    case name, title, dpi, paper, commandSet, imageCommand, bandHeight, drawerPins, cutter, cutterFeedMillimetres
    case status, speed, motionUnits, setsMotionUnits, sources
  }

  /// Reads a model file; `cutter` (partial), `status` (realtime for ESC/POS, none for Star) and
  /// `speed` may be left out.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decode(String.self, forKey: .name)
    title = try c.decode(String.self, forKey: .title)
    dpi = try c.decode(Int.self, forKey: .dpi)
    paper = try c.decode([String: Int].self, forKey: .paper)
    commandSet = try c.decode(String.self, forKey: .commandSet)
    imageCommand = try c.decode(String.self, forKey: .imageCommand)
    bandHeight = try c.decode(Int.self, forKey: .bandHeight)
    drawerPins = try c.decode([Int].self, forKey: .drawerPins)
    cutter = try c.decodeIfPresent(String.self, forKey: .cutter) ?? "partial"
    cutterFeedMillimetres = try c.decodeIfPresent(Double.self, forKey: .cutterFeedMillimetres)
    status = try c.decodeIfPresent([String].self, forKey: .status) ?? (commandSet == "escpos" ? ["realtime"] : [])
    speed = try c.decodeIfPresent(Int.self, forKey: .speed)
    motionUnits = try c.decodeIfPresent(MotionUnits.self, forKey: .motionUnits)
    setsMotionUnits = try c.decodeIfPresent(Bool.self, forKey: .setsMotionUnits) ?? (commandSet == "escpos")
    sources = try c.decode([String].self, forKey: .sources)
  }

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
    guard
      (commandSet == "escpos" && imageCommand == "gs-v-0") || (commandSet == "star" && imageCommand == "star-raster")
    else {
      throw fail("commandSet and imageCommand are \"escpos\" with \"gs-v-0\", or \"star\" with \"star-raster\"")
    }
    guard (1...4096).contains(bandHeight) else { throw fail("bandHeight must be 1…4096 rows") }
    guard drawerPins.allSatisfy({ [2, 5].contains($0) }), Set(drawerPins).count == drawerPins.count else {
      throw fail("drawerPins lists the drawer connector's pins, 2 and/or 5 (first: the default), or none")
    }
    guard ["partial", "full", "none"].contains(cutter) else { throw fail("cutter is partial, full or none") }
    if commandSet == "escpos" {
      guard status.allSatisfy(["realtime", "asb", "process-id"].contains) else {
        throw fail("status lists what the printer reports: realtime, asb, process-id (ESC/POS)")
      }
    } else {
      guard status.allSatisfy({ $0 == "star-asb" }) else {
        throw fail("a Star model's status is star-asb (ESC ACK SOH) or none: ESC/POS status requests would print")
      }
    }
    // A default may be finer than GS P can set (the TM-T88's 360 per inch).
    if let units = motionUnits, !((1...1440).contains(units.x) && (1...1440).contains(units.y)) {
      throw fail("motionUnits are the printer's default GS P x and y in units per inch, 1…1440")
    }
    if commandSet == "escpos", !setsMotionUnits {
      guard let y = motionUnits?.y, y % dpi == 0 || dpi % y == 0 else {
        throw fail(
          "a model without GS P (setsMotionUnits false) gives its vertical motion unit in motionUnits.y, "
            + "a multiple or a divisor of its dpi, so feeds can be converted exactly")
      }
    }
    return self
  }

  /// The shipped models, by name.
  public static let shipped: [PrinterModel] = [
    PackageResources.epson_tm_t88v_json, PackageResources.epson_tm_t88vi_json, PackageResources.epson_tm_t20iii_json,
    PackageResources.epson_tm_m30iii_json, PackageResources.star_tsp143iv_json, PackageResources.star_mcprint3_json,
    PackageResources.bixolon_srp_350iii_json, PackageResources.generic_80mm_json, PackageResources.generic_58mm_json,
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

/// A printer's motion units (ESC/POS `GS P`): 1/x inch across the paper, 1/y inch along it.
public struct MotionUnits: Codable, Hashable, Sendable {
  /// Horizontal units per inch.
  public var x: Int
  /// Vertical units per inch (paper feed).
  public var y: Int

  /// Creates motion units.
  public init(x: Int, y: Int) {
    self.x = x
    self.y = y
  }
}
