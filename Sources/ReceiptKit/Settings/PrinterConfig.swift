public import Foundation

/// A named printer of the daemon.
public struct PrinterConfig: Sendable, Equatable {
  public var name: String
  /// Where its jobs go: a printer address of one of the kinds ``PrinterAddress/kinds``.
  public var target: PrinterAddress
  /// The printer model receipts are laid out for (nil: the template's paper and resolution).
  public var model: PrinterModel?
  /// The roll in the printer: what documents (IPP jobs) print on and what IPP clients are told.
  /// Nil: 80 mm, or the model's only paper.
  public var paper: Paper?
  /// Whether an IPP job whose length its client did not choose keeps only its printed rows and
  /// the margins (``DocumentPrintOptions/trimRoll``); off for pre-printed forms.
  public var trimRoll: Bool
  /// `USER:PASSWORD`: the HTTP Basic credentials a printer that polls the daemon must send.
  public var credentials: String?
  /// Creates a printer.
  public init(
    name: String, target: PrinterAddress, model: PrinterModel? = nil, paper: Paper? = nil, trimRoll: Bool = true,
    credentials: String? = nil
  ) {
    self.credentials = credentials
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

extension PrinterConfig {
  /// Parses `NAME=TARGET` (a flag or an environment entry).
  public static func parse(_ spec: String, setting: String) throws -> PrinterConfig {
    let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let target = PrinterAddress.parse(parts[1], bareQueues: false) else {
      let forms = PrinterAddress.syntax.map { "NAME=\($0)" }
      throw ReceiptError(
        .data, "\(setting) takes \(forms.dropLast().joined(separator: ", ")) or \(forms.last!), not '\(spec)'")
    }
    return PrinterConfig(name: parts[0], target: target)
  }
}
