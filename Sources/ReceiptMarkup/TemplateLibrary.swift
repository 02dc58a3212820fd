public import Foundation
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// The templates directory: loads templates, style sheets, strings and images by name, never
/// from outside the directory.
public struct TemplateLibrary: Sendable {
  /// The directory (symlinks resolved).
  public let directory: URL

  /// Where what binding keeps between receipts goes (see ``MarkupCaches``).
  package let caches: MarkupCaches

  /// Opens a templates directory; its receipts share the process's parsed files and bindings.
  public init(directory: URL) throws {
    try self.init(directory: directory, caches: .process)
  }

  /// Opens a templates directory whose receipts keep what they parse and format in `caches`
  /// (an engine's context).
  package init(directory: URL, caches: MarkupCaches) throws {
    self.caches = caches
    // One realpath(3) and one stat: a library is opened for every receipt of a batch, and
    // Foundation's existence check and symlink resolution were a dozen system calls.
    var info = stat()
    guard let real = Self.realPath(directory.path), stat(real, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
      throw TemplateError(
        file: directory.path, message: "templates directory not found; give --templates DIR or set RECEIPT_TEMPLATES")
    }
    self.directory = URL(fileURLWithPath: real, isDirectory: true)
    realDirectory = real
  }

  /// The directory as `realpath(3)` resolves it: what every file's resolved path starts with.
  private let realDirectory: String

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

  /// Whether a file's root element is `<fragment>` (something to include, not a receipt). Read
  /// from the file's first 4 KiB as bytes: the daemon asks this of every submission, and
  /// Foundation's string search (`range(of:)`) was 4 % of a daemon's time under load.
  private func isFragment(_ url: URL) -> Bool {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
    defer { try? handle.close() }
    let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
    func starts(_ prefix: StaticString, at index: Int) -> Bool {
      let count = prefix.utf8CodeUnitCount
      guard index + count <= head.count else { return false }
      return prefix.withUTF8Buffer { head[index..<index + count].elementsEqual($0) }
    }
    func end(of marker: StaticString, from index: Int) -> Int? {
      var i = index
      while i < head.count {
        if starts(marker, at: i) { return i + marker.utf8CodeUnitCount }
        i += 1
      }
      return nil
    }
    var i = 0
    while let open = head[i...].firstIndex(of: UInt8(ascii: "<")) {
      if starts("<?", at: open), let after = end(of: "?>", from: open + 2) {
        i = after
      } else if starts("<!--", at: open), let after = end(of: "-->", from: open + 4) {
        i = after
      } else {
        // The element's name: its letters (a byte ≥ 0x80 is part of a non-ASCII letter).
        let name = head[(open + 1)...].prefix {
          $0 >= 0x80 || (($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z"))
        }
        return name.elementsEqual("fragment".utf8)
      }
    }
    return false
  }

  /// The characters a file name inside the directory may use.
  private static let nameCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./"))

  /// A file inside the directory by relative name (`header`, `header.xml`, `logos/cafe.png`):
  /// its path with every symlink resolved (`realpath(3)`). Absolute paths, `..`, and symlinks
  /// leading out are refused. Called for every include, style sheet and image of every receipt,
  /// so it works on path strings, without Foundation's URL machinery.
  func file(_ name: String, defaultExtension: String?, at location: SourceLocation?) throws -> String {
    func fail(_ message: String) -> TemplateError {
      location.map { TemplateError($0, message) } ?? TemplateError(file: name, message: message)
    }
    guard !name.isEmpty, !name.hasPrefix("/"), Self.isRelativeName(name) else {
      throw fail("'\(name)' is not a name inside the templates directory (no absolute paths, no '..')")
    }
    var path = directory.path + "/" + name
    if let ext = defaultExtension, !Self.hasExtension(Self.lastComponent(name)) { path += "." + ext }
    guard let resolved = Self.realPath(path) else {
      let known = (try? templateNames()) ?? []
      let shown = path.split(separator: "/").last.map(String.init) ?? name
      var message = "no file '\(shown)' in the templates directory"
      if let near = suggestion(for: name, among: known) { message += "; did you mean '\(near)'?" }
      throw fail(message)
    }
    guard resolved.hasPrefix(realDirectory + "/") else {
      throw fail("'\(name)' leads outside the templates directory")
    }
    return resolved
  }

  /// Whether a file name has an extension: a dot neither first nor last. By its bytes: a dot is
  /// one byte, and never part of another character's.
  static func hasExtension(_ name: Substring) -> Bool {
    let bytes = name.utf8
    guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
    return dot != bytes.startIndex && bytes.index(after: dot) != bytes.endIndex
  }

  /// The last `/`-separated component of a name (all of it when it has no `/`).
  static func lastComponent(_ name: String) -> Substring {
    guard let slash = name.utf8.lastIndex(of: UInt8(ascii: "/")) else { return name[...] }
    return name[name.utf8.index(after: slash)...]
  }

  /// Whether a relative name uses only letters, digits, `-`, `_`, `.` and `/`, and has no `..`
  /// component. ASCII names (nearly all) are checked by their bytes in one pass; others by
  /// their scalars against ``nameCharacters``, as before.
  static func isRelativeName(_ name: String) -> Bool {
    func isNameByte(_ b: UInt8) -> Bool {
      (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E
        || b == 0x2F
    }
    var componentLength = 0  // bytes of the current component so far
    var componentDots = 0  // of which dots
    var ascii = true
    for b in name.utf8 {
      if b == UInt8(ascii: "/") {
        if componentLength == 2, componentDots == 2 { return false }
        componentLength = 0
        componentDots = 0
        continue
      }
      componentLength += 1
      if b == UInt8(ascii: ".") { componentDots += 1 }
      if b >= 0x80 {
        ascii = false
      } else if !isNameByte(b) {
        return false
      }
    }
    if componentLength == 2, componentDots == 2 { return false }
    return ascii || name.unicodeScalars.allSatisfy(Self.nameCharacters.contains)
  }

  /// `realpath(3)`: the path with every symlink, `.` and `//` resolved; nil when a component
  /// does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Reads a regular file of at most `limit` bytes; anything else is a template error.
  func read(_ path: String, limit: Int, at location: SourceLocation?) throws -> Data {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    func fail(_ message: String) -> TemplateError {
      location.map { TemplateError($0, "\(name): \(message)") } ?? TemplateError(file: path, message: message)
    }
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw fail("not a regular file (a directory or a device?); name a file")
    }
    guard info.st_size <= limit else { throw fail("\(info.st_size) bytes; the limit is \(limit)") }
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path, isDirectory: false))
      guard data.count <= limit else { throw fail("\(data.count) bytes; the limit is \(limit)") }
      return data
    } catch let error as TemplateError {
      throw error
    } catch {
      throw fail("cannot be read (\((error as NSError).localizedDescription))")
    }
  }
}
