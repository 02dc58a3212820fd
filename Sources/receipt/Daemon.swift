import ArgumentParser
import ReceiptCommandLine

/// `receipt serve`: checks its options, then becomes `receipt-daemon serve` (same process).
struct Serve: ParsableCommand {
  static let configuration = ServeOptions.configuration

  @OptionGroup var options: ServeOptions

  func run() throws { try reportingErrors { try DaemonLauncher.become("serve") } }
}

/// `receipt design`: checks its options, then becomes `receipt-daemon design` (same process).
struct Design: ParsableCommand {
  static let configuration = DesignOptions.configuration

  @OptionGroup var options: DesignOptions

  func run() throws { try reportingErrors { try DaemonLauncher.become("design") } }
}
