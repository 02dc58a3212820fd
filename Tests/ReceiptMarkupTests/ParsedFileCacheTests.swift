import Foundation
import Testing

@testable import ReceiptMarkup

#if canImport(Glibc)
  import Glibc
#endif

/// Templates and strings are parsed once per process (``ParsedFileCache``), and a file that
/// changes — replaced by a rename, or rewritten in place at the same size — is parsed again
/// for the next receipt.
@Suite struct ParsedFileCacheTests {
  @Test func aChangedTemplateOrStringsFileIsReadAgain() throws {
    let fixture = try TemplateFixture([
      "t.xml": "<receipt><text>@greeting one</text></receipt>", "Strings/en.json": #"{"greeting": "Hello"}"#,
    ])
    #expect(try fixture.render().texts == ["Hello one"])
    // Replaced (a new inode), as the designer saves.
    try "<receipt><text>@greeting two</text></receipt>".write(
      to: fixture.directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    #expect(try fixture.render().texts == ["Hello two"])
    // Rewritten in place, same size: the modification time tells.
    let handle = try FileHandle(forWritingTo: fixture.directory.appendingPathComponent("t.xml"))
    try handle.write(contentsOf: Data("<receipt><text>@greeting six</text></receipt>".utf8))
    try handle.close()
    #expect(try fixture.render().texts == ["Hello six"])
    try #"{"greeting": "Howdy"}"#.write(
      to: fixture.directory.appendingPathComponent("Strings/en.json"), atomically: true, encoding: .utf8)
    #expect(try fixture.render().texts == ["Howdy six"])
  }

  /// An edit in place whose modification time is put back afterwards (`cp -p`, `rsync --inplace
  /// -t`, `touch -r`): same inode, size and mtime — only the change time, which no one can set,
  /// tells. The kept parse was once used for it.
  @Test func anEditWhoseModificationTimeWasRestoredIsReadAgain() throws {
    let fixture = try TemplateFixture(["t.xml": "<receipt><text>before</text></receipt>"])
    let path = fixture.directory.appendingPathComponent("t.xml").path
    var original = stat()
    #expect(stat(path, &original) == 0)
    #expect(try fixture.render().texts == ["before"])
    usleep(20_000)  // a change time of its own, whatever the file system's granularity
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.write(contentsOf: Data("<receipt><text>after!</text></receipt>".utf8))
    try handle.close()
    var times = [original.st_atim, original.st_mtim]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    var edited = stat()
    #expect(stat(path, &edited) == 0)
    #expect(edited.st_size == original.st_size && edited.st_mtim.tv_nsec == original.st_mtim.tv_nsec)
    #expect(edited.st_ino == original.st_ino)
    #expect(try fixture.render().texts == ["after!"])
  }

  /// A locale's strings are merged from its chain of files once and kept: a file of the chain
  /// that appears, changes or goes away is seen by the next receipt, with its warning.
  @Test func aStringsFileOfTheChainThatAppearsOrGoesIsSeen() throws {
    let fixture = try TemplateFixture([
      "t.xml": "<receipt><text>@greeting @bye</text></receipt>",
      "Strings/en.json": #"{"greeting": "Hello", "bye": "Bye"}"#,
    ])
    let german = TemplateOptions(locale: "de_DE")
    let german1 = try fixture.render(options: german)
    #expect(german1.texts == ["Hello Bye"])
    #expect(german1.warnings.contains { $0.contains("no Strings/de_DE.json or Strings/de.json") })
    let de = fixture.directory.appendingPathComponent("Strings/de.json")
    try #"{"greeting": "Hallo"}"#.write(to: de, atomically: true, encoding: .utf8)
    let german2 = try fixture.render(options: german)
    #expect(german2.texts == ["Hallo Bye"])
    #expect(german2.warnings.isEmpty)
    try #"{"greeting": "Hallo", "bye": "Tschüss"}"#.write(to: de, atomically: true, encoding: .utf8)
    #expect(try fixture.render(options: german).texts == ["Hallo Tschüss"])
    try FileManager.default.removeItem(at: de)
    #expect(try fixture.render(options: german).texts == ["Hello Bye"])
    // Another locale's chain is its own.
    #expect(try fixture.render().texts == ["Hello Bye"])
  }

  @Test func aBrokenTemplateReportsItsErrorEveryTime() throws {
    let fixture = try TemplateFixture(["t.xml": "<receipt><text>x</receipt>"])
    for _ in 0..<2 {
      #expect(throws: TemplateError.self) { try fixture.render() }
    }
  }
}

/// Style sheets are parsed once per process too, and read again when they change.
@Suite struct ParsedStyleSheetTests {
  let template = "<?properties styles?><receipt><text class=\"big\">x</text></receipt>"

  @Test func aChangedStyleSheetIsReadAgain() throws {
    let fixture = try TemplateFixture(["t.xml": template, "styles.json": #"{"big": {"size": 14}}"#])
    #expect(try fixture.render().firstSize == 14)
    try #"{"big": {"size": 20}}"#.write(
      to: fixture.directory.appendingPathComponent("styles.json"), atomically: true, encoding: .utf8)
    #expect(try fixture.render().firstSize == 20)
  }

  @Test func aBrokenStyleSheetReportsItsErrorEveryTime() throws {
    for sheet in [#"{"big": {"size": 14"#, #"{"big": [1, 2]}"#] {
      let fixture = try TemplateFixture(["t.xml": template, "styles.json": sheet])
      for _ in 0..<2 {
        #expect(throws: TemplateError.self) { try fixture.render() }
      }
    }
  }
}

extension RenderedTemplate {
  /// The font size of the first text block.
  fileprivate var firstSize: Double? { firstText?.runs.first?.attributes.font.size }
}
