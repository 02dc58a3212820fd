import ArgumentParser
import ReceiptKit

struct Versions: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "versions",
    abstract: "Print the versions of the C libraries receipt runs on.",
    discussion: "Example: receipt versions"
  )

  func run() {
    for (name, version) in ReceiptEngine.libraryVersions { print("\(name) \(version)") }
  }
}
