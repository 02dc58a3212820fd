public import Foundation

/// Where a daemon printer sends its jobs.
public enum PrinterTarget: Sendable, Equatable {
  /// A CUPS queue (on the default server, or `server`).
  case cups(queue: String, server: String?)
  /// A raw ESC/POS printer at `socket://host:port`.
  case socket(String)
  /// A directory that receives one PDF per job (archives, tests).
  case directory(URL)
  /// A raw ESC/POS printer on a local device: `usb:/dev/usb/lp0`, `serial:/dev/ttyUSB0?baud=…`.
  case device(String)

  /// Parses `cups:QUEUE`, `socket://HOST:PORT`, `usb:DEVICE`, `serial:DEVICE?…` or `dir:PATH`
  /// (``PrinterAddress/parse(_:bareQueues:)``: the one parser of addresses).
  public init?(parsing text: String, server: String? = nil) {
    switch PrinterAddress.parse(text, bareQueues: false) {
    case .cups(let queue)?: self = .cups(queue: queue, server: server)
    case .socket(let uri)?: self = .socket(uri)
    case .device(let name)?: self = .device(name)
    case .directory(let url)?: self = .directory(url)
    case nil: return nil
    }
  }
}

extension PrinterTarget {
  /// The target as a printer address (``PrinterAddress/open(_:server:)``).
  public var address: String {
    switch self {
    case .cups(let queue, _): "cups:\(queue)"
    case .socket(let uri): uri
    case .device(let address): address
    case .directory(let url): "dir:\(url.path)"
    }
  }

  /// The CUPS server of a CUPS target.
  public var server: String? {
    if case .cups(_, let server) = self { return server }
    return nil
  }
}

/// A named printer of the daemon.
public struct PrinterConfig: Sendable, Equatable {
  public var name: String
  public var target: PrinterTarget
  /// The printer model receipts are laid out for (nil: the template's paper and resolution).
  public var model: PrinterModel?
  /// The roll in the printer: what documents (IPP jobs) print on and what IPP clients are told.
  /// Nil: 80 mm, or the model's only paper.
  public var paper: Paper?
  /// Whether an IPP job whose length its client did not choose keeps only its printed rows and
  /// the margins (``DocumentPrintOptions/trimRoll``); off for pre-printed forms.
  public var trimRoll: Bool
  /// Creates a printer.
  public init(
    name: String, target: PrinterTarget, model: PrinterModel? = nil, paper: Paper? = nil, trimRoll: Bool = true
  ) {
    self.name = name
    self.target = target
    self.model = model
    self.paper = paper
    self.trimRoll = trimRoll
  }

  /// The roll documents print on: ``paper``, else 80 mm when the model takes it (or there is no
  /// model), else the model's first paper.
  public var roll: Paper {
    if let paper { return paper }
    guard let model, model.paper["80mm"] == nil, let first = model.paper.keys.sorted().first else { return .mm80 }
    return Paper(parsing: first) ?? .mm80
  }
}

extension PrinterTarget: CustomStringConvertible {
  /// The target as it is written in configuration (`cups:QUEUE`, `socket://…`, `usb:…`, `dir:PATH`).
  public var description: String { address }
}

extension PrinterConfig {
  /// Parses `NAME=TARGET` (a flag or an environment entry).
  public static func parse(_ spec: String, setting: String) throws -> PrinterConfig {
    let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let target = PrinterTarget(parsing: parts[1]) else {
      throw ReceiptError(
        .data,
        "\(setting) takes NAME=cups:QUEUE, NAME=socket://HOST:PORT, NAME=usb:DEVICE, NAME=serial:DEVICE?baud=N or NAME=dir:PATH, not '\(spec)'"
      )
    }
    return PrinterConfig(name: parts[0], target: target)
  }
}
