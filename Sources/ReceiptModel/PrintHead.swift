/// What a printer model's head can print: its resolution and, per paper width, how many dots
/// it reaches. Laying out for a head makes the preview what that printer prints, dot for dot.
public struct PrintHead: Hashable, Sendable {
  /// The head's resolution.
  public var resolution: Resolution
  /// Printable dots by paper name (`80mm`: 512).
  public var printableDots: [String: Int]

  /// Creates a print head.
  public init(resolution: Resolution, printableDots: [String: Int]) {
    self.resolution = resolution
    self.printableDots = printableDots
  }

  /// The page setup for this head: its resolution, and the printable width of `setup`'s paper
  /// (nil when the head does not take that paper). Margins stay.
  public func fitting(_ setup: PageSetup) -> PageSetup? {
    guard let dots = printableDots[setup.paper.name] else { return nil }
    var fitted = setup
    let width = Length.inches(Double(dots) / Double(resolution.dpi))
    fitted.paper = Paper(name: setup.paper.name, width: setup.paper.width, printableWidth: width)
    fitted.resolution = resolution
    return fitted
  }

  /// The paper names this head takes, for messages.
  public var papers: [String] { printableDots.keys.sorted() }
}
