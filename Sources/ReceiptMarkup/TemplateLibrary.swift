public import Foundation
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
      .filter { !isFragment(directory.appendingPathComponent($0)) }
      .map { String($0.dropLast(4)) }.sorted()
  }

  /// Whether `name` is a receipt template in the directory (a plain name, an existing file, not
  /// a fragment): the daemon's check of a client's choice, without listing the directory.
  public func isTemplate(_ name: String) -> Bool {
    guard Self.isPlainName(name) else { return false }
    let url = directory.appendingPathComponent("\(name).xml")
    return FileManager.default.fileExists(atPath: url.path) && !isFragment(url)
  }

  /// Whether `name` can name a template: 1 to 64 ASCII letters, digits, `-` and `_` — nothing
  /// that can be a path or carry an extension.
  public static func isPlainName(_ name: String) -> Bool {
    (1...64).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }
  }

  /// Whether a file's root element is `<fragment>` (something to include, not a receipt).
  private func isFragment(_ url: URL) -> Bool {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
    defer { try? handle.close() }
    let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
    var rest = Substring(head)
    while let open = rest.firstIndex(of: "<") {
      rest = rest[open...]
      if rest.hasPrefix("<?"), let end = rest.range(of: "?>") {
        rest = rest[end.upperBound...]
      } else if rest.hasPrefix("<!--"), let end = rest.range(of: "-->") {
        rest = rest[end.upperBound...]
      } else {
        return rest.dropFirst().prefix { $0.isLetter } == "fragment"
      }
    }
    return false
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

  /// Reads a regular file of at most `limit` bytes; anything else is a template error.
  func read(_ url: URL, limit: Int, at location: SourceLocation?) throws -> Data {
    func fail(_ message: String) -> TemplateError {
      location.map { TemplateError($0, "\(url.lastPathComponent): \(message)") }
        ?? TemplateError(file: url.path, message: message)
    }
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    guard attributes?[.type] as? FileAttributeType == .typeRegular else {
      throw fail("not a regular file (a directory or a device?); name a file")
    }
    let size = attributes?[.size] as? Int ?? 0
    guard size <= limit else { throw fail("\(size) bytes; the limit is \(limit)") }
    do {
      let data = try Data(contentsOf: url)
      guard data.count <= limit else { throw fail("\(data.count) bytes; the limit is \(limit)") }
      return data
    } catch let error as TemplateError {
      throw error
    } catch {
      throw fail("cannot be read (\((error as NSError).localizedDescription))")
    }
  }
}
