import ArgumentParser
import ReceiptCommandLine
import ReceiptKit

struct Versions: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "versions",
    abstract: "Print the versions of the C libraries receipt runs on.",
    discussion: "Example: receipt versions"
  )

  func run() throws {
    try reportingErrors {
      for (name, version) in ReceiptEngine.libraryVersions { try Console.out("\(name) \(version)") }
      // The self-check of CDeflateLevel, which this executable links (ReceiptEngine.pdfStreamDeflateLevel).
      let level = ReceiptEngine.pdfStreamDeflateLevel
      let note = level == 0 ? "fastest" : "not the fastest: see target CDeflateLevel"
      try Console.out("pdf-streams zlib FLEVEL \(level.map(String.init) ?? "unknown") (\(note))")
    }
  }
}
