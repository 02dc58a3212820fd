import Foundation
import Testing

@testable import ReceiptMarkup

/// Which files of a templates directory are receipt templates (what `receipt templates` lists and
/// what the daemon accepts as a job's `template`): a top-level `.xml` file whose root element is
/// not `<fragment>`, whatever declarations and comments come before it.
@Suite struct TemplateNameTests {
  @Test func fragmentsAreNotTemplatesWhateverComesBeforeTheRoot() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = [
      "receipt": #"<?xml version="1.0" encoding="UTF-8"?><!-- a <fragment> in a comment --><receipt/>"#,
      "header": "<?xml version=\"1.0\"?>\n<!-- <receipt> in a comment -->\n<fragment><text>Café</text></fragment>",
      "footer": "\u{FEFF}<fragment/>",
      "fragmentary": "<fragmentary/>",
      "kitchen": "<!-- only a comment --><!-- and another --><receipt root=\"order\"/>",
    ]
    for (name, text) in files {
      try Data(text.utf8).write(to: directory.appendingPathComponent("\(name).xml"))
    }
    let library = try TemplateLibrary(directory: directory)
    #expect(try library.templateNames() == ["fragmentary", "kitchen", "receipt"])
    #expect(library.isTemplate("receipt") && library.isTemplate("kitchen") && library.isTemplate("fragmentary"))
    #expect(!library.isTemplate("header") && !library.isTemplate("footer"))
    #expect(!library.isTemplate("missing") && !library.isTemplate("../receipt") && !library.isTemplate("receipt.xml"))
  }
}

/// The byte checks of a file name inside the templates directory (`TemplateLibrary.file`), against
/// the same names read by characters: components split at `/`, characters against
/// `CharacterSet`, the extension's dot by `Character`.
@Suite struct TemplateFileNameTests {
  static let names = [
    "header", "header.xml", "logos/cafe.png", "../receipt", "a/../b", "a/..", "..", ".", "...", "a/.../b", "..a",
    "a..", "a//b", "a/", "/etc/passwd", "a b", "a\\b", "café", "logos/çafé.png", "..\u{301}", "x$y", "a:b", "ü/..",
    "a.b.c", ".hidden", "dir.d/file", "dir.d/", "trailing.", "%2e%2e", "名前.xml", "😀",
  ]

  @Test(arguments: names)
  func aNameIsRefusedOrAcceptedAsFoundationReadsIt(_ name: String) {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./"))
    let foundation = !name.split(separator: "/").contains("..") && name.unicodeScalars.allSatisfy(allowed.contains)
    #expect(TemplateLibrary.isRelativeName(name) == foundation)
    let last = name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    #expect(TemplateLibrary.lastComponent(name) == last)
    // A dot neither first nor last, found by characters (a dot with a combining mark after it
    // is a dot to the file system, not to `Character`: not among these names' extensions).
    if !last.unicodeScalars.contains(where: { $0.properties.generalCategory == .nonspacingMark }) {
      let dot = last.lastIndex(of: ".")
      #expect(
        TemplateLibrary.hasExtension(last)
          == (dot.map { $0 != last.startIndex && last.index(after: $0) != last.endIndex } ?? false))
    }
  }
}
