import Foundation
import ReceiptMarkup
import Testing

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
