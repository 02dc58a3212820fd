public import Foundation

/// Locale identifiers a receipt may name (`de`, `de_DE`, `de-DE`): only languages Foundation
/// (ICU) knows, so `klingon` is an error instead of a silent fallback to unlocalised formats.
public enum TemplateLocale {
  /// ICU's locales, enumerated once (every receipt checks its locale).
  private static let available = Set(Locale.availableIdentifiers)
  private static let isoLanguages = Set(Locale.LanguageCode.isoLanguageCodes.map(\.identifier))
  private static let regions = Set(Locale.Region.isoRegions.map(\.identifier))
  private static let availableLanguages = Set(available.map { String($0.split(separator: "_").first ?? "") })

  /// Whether `identifier` names a language Foundation knows.
  public static func isKnown(_ identifier: String) -> Bool {
    let normalized = identifier.replacingOccurrences(of: "-", with: "_")
    guard (2...35).contains(normalized.count) else { return false }
    if available.contains(normalized) { return true }
    let parts = normalized.split(separator: "_")
    let language = String(parts.first ?? "")
    guard isoLanguages.contains(language), availableLanguages.contains(language) else { return false }
    // A region, if given, must be a known one (de_XX is not a locale).
    guard parts.count > 1 else { return true }
    let region = String(parts.last!)
    return region.count == 4 || regions.contains(region)
  }

  /// The locale, or an error naming where it came from and how to fix it.
  static func checked(_ identifier: String, source: String, at location: SourceLocation?) throws -> Locale {
    guard isKnown(identifier) else {
      let message =
        "unknown locale '\(identifier)' (\(source)); give a language and region such as de_DE, ja_JP or ar_SA"
      throw location.map { TemplateError($0, message) } ?? TemplateError(file: "order", message: message)
    }
    return Locale(identifier: identifier)
  }
}
