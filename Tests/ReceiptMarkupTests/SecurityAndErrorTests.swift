import Foundation
import ReceiptMarkup
import ReceiptModel
import Testing

/// Hostile and malformed templates fail with file:line:column and leak nothing.
@Suite struct SecurityAndErrorTests {
  func error(_ files: [String: String], data: String = "{}") -> String {
    do {
      _ = try TemplateFixture(files).render(data)
      return "no error"
    } catch {
      return "\(error)"
    }
  }

  @Test func externalEntitiesAreRefusedAndNothingLeaks() {
    let xxe = """
      <?xml version="1.0"?>
      <!DOCTYPE receipt [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
      <receipt><text>&secret;</text></receipt>
      """
    let message = error(["t.xml": xxe])
    #expect(message.hasPrefix("t.xml:2:1: <!DOCTYPE is not allowed"))
    #expect(!message.contains("root:"))
  }

  @Test func billionLaughsIsRefused() {
    var lol = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
    for i in 1...9 {
      lol += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">"
    }
    lol += "]><receipt><text>&lol9;</text></receipt>"
    #expect(error(["t.xml": lol]).contains("<!DOCTYPE is not allowed"))
  }

  @Test func includesAndImagesCannotLeaveTheDirectory() {
    for name in ["../../etc/passwd", "/etc/passwd", "a/../../t", "..%2Fetc"] {
      let message = error(["t.xml": "<receipt><include template=\"\(name)\"/></receipt>"])
      #expect(message.hasPrefix("t.xml:1:"), "\(message)")
      #expect(message.contains("templates directory") || message.contains("no file"), "\(message)")
      #expect(!message.contains("root:"))
    }
    #expect(
      error(["t.xml": #"<receipt><image src="../../../etc/passwd"/></receipt>"#]).contains(
        "not a name inside the templates directory"))
  }

  @Test func symlinksOutOfTheDirectoryAreRefused() throws {
    let fixture = try TemplateFixture(["t.xml": #"<receipt><include template="evil"/></receipt>"#])
    try FileManager.default.createSymbolicLink(
      at: fixture.directory.appendingPathComponent("evil.xml"),
      withDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
    #expect { try fixture.render() } throws: { "\($0)".contains("leads outside the templates directory") }
  }

  @Test func deepNestingAndHugeFilesAreRefused() {
    let deep =
      "<receipt>" + String(repeating: "<column>", count: 70) + String(repeating: "</column>", count: 70) + "</receipt>"
    #expect(error(["t.xml": deep]).contains("nest deeper than 64"))
    let huge = "<receipt>" + String(repeating: "<feed/>", count: 200_000) + "</receipt>"
    #expect(error(["t.xml": huge]).contains("the limit is"))
  }

  @Test func malformedXMLGivesLineAndColumn() {
    let message = error(["t.xml": "<receipt>\n  <text>open\n</receipt>"])
    #expect(message.hasPrefix("t.xml:3:"), "\(message)")
    #expect(message.contains("malformed XML"))
  }

  @Test func unknownElementsAndAttributesSuggestNames() {
    #expect(error(["t.xml": "<receipt>\n<colum/></receipt>"]).contains("t.xml:2:"))
    #expect(error(["t.xml": "<receipt><colum/></receipt>"]).contains("did you mean '<column>'?"))
    #expect(error(["t.xml": #"<receipt><text allign="center">x</text></receipt>"#]).contains("did you mean 'align'?"))
    #expect(error(["t.xml": "<receipt><b>x</b></receipt>"]).contains("<b> belongs inside <text>"))
    #expect(error(["t.xml": "<receipt>loose text</receipt>"]).contains("text must be inside <text>"))
  }

  @Test func badValuesSayWhatIsExpected() {
    #expect(
      error(["t.xml": #"<receipt><row><text weight="heavy">x</text></row></receipt>"#]).contains(
        "weight on <text> must be a number"))
    #expect(
      error(["t.xml": #"<receipt><text align="middle">x</text></receipt>"#]).contains("align on <text> must be one of"))
    #expect(
      error(["t.xml": #"<receipt><barcode type="qrcod" data="1"/></receipt>"#]).contains("did you mean 'qrcode'?")
        == false)
    #expect(
      error(["t.xml": #"<receipt><barcode type="code12" data="1"/></receipt>"#]).contains("did you mean 'code128'?"))
    #expect(error(["t.xml": #"<receipt paper="A4"><feed/></receipt>"#]).contains("paper must be 58mm"))
    #expect(error(["t.xml": #"<receipt><text tabs="rite 10">x</text></receipt>"#]).contains("tab stop"))
    #expect(error(["t.xml": #"<receipt><include template="nope"/></receipt>"#]).contains("no file 'nope.xml'"))
  }
}
