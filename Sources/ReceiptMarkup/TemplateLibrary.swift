import Foundation
import ReceiptModel

/// The templates directory: loads templates, style sheets, strings and images by name, never
/// from outside the directory.
public struct TemplateLibrary: Sendable {
  /// The directory (symlinks resolved).
  public let directory: URL

  /// Opens a templates directory.
  public init(directory: URL) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw TemplateError(
        file: directory.path, message: "templates directory not found; give --templates DIR or set RECEIPT_TEMPLATES")
    }
    self.directory = directory.resolvingSymlinksInPath().standardizedFileURL
  }

  /// The names of the templates (`.xml` files at the top level).
  public func templateNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".xml") }
      .map { String($0.dropLast(4)) }.sorted()
  }

  /// A file inside the directory by relative name (`header`, `header.xml`, `logos/cafe.png`).
  /// Absolute paths, `..`, and symlinks leading out are refused.
  func file(_ name: String, defaultExtension: String?, at location: SourceLocation?) throws -> URL {
    func fail(_ message: String) -> TemplateError {
      location.map { TemplateError($0, message) } ?? TemplateError(file: name, message: message)
    }
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./"))
    guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains(".."),
      name.unicodeScalars.allSatisfy(allowed.contains)
    else {
      throw fail("'\(name)' is not a name inside the templates directory (no absolute paths, no '..')")
    }
    var url = directory.appendingPathComponent(name)
    if let ext = defaultExtension, url.pathExtension.isEmpty { url.appendPathExtension(ext) }
    let resolved = url.resolvingSymlinksInPath().standardizedFileURL
    guard resolved.path.hasPrefix(directory.path + "/") else {
      throw fail("'\(name)' leads outside the templates directory")
    }
    guard FileManager.default.fileExists(atPath: resolved.path) else {
      let known = (try? templateNames()) ?? []
      var message = "no file '\(url.lastPathComponent)' in the templates directory"
      if let near = suggestion(for: name, among: known) { message += "; did you mean '\(near)'?" }
      throw fail(message)
    }
    return resolved
  }

  func read(_ url: URL, limit: Int, at location: SourceLocation?) throws -> Data {
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    guard size <= limit else {
      throw location.map { TemplateError($0, "\(url.lastPathComponent) is \(size) bytes; the limit is \(limit)") }
        ?? TemplateError(file: url.path, message: "file is \(size) bytes; the limit is \(limit)")
    }
    return try Data(contentsOf: url)
  }
}
