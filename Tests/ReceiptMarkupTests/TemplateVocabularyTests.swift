import Foundation
import ReceiptMarkup
import Testing

/// The designer's completion lists (``TemplateVocabulary``) against the renderer itself: every
/// element offered renders where it is offered, every attribute offered is not refused as
/// unknown, every value offered renders, and a name the renderer refuses is not offered.
@Suite struct TemplateVocabularyTests {
  /// What an element needs to render at all, besides the attribute under test.
  static let required: [String: String] = [
    "barcode": #"type="code128" data="A1""#, "qrcode": #"data="A1""#, "image": #"src="logo.png""#,
    "repeat": #"items="$items""#, "if": #"test="$x""#, "elseif": #"test="$x""#, "include": #"template="part""#,
  ]

  static func element(_ name: String, _ attribute: String = "") -> String {
    // The attribute under test replaces a required one of the same name.
    let needed = (required[name] ?? "").split(separator: " ").filter {
      attribute.isEmpty || !$0.hasPrefix(attribute.prefix { $0 != "=" } + "=")
    }
    let attributes = (needed.map(String.init) + [attribute]).filter { !$0.isEmpty }.joined(separator: " ")
    let open = "<\(name)\(attributes.isEmpty ? "" : " " + attributes)"
    switch name {
    case "elseif", "else": return #"<if test="$x"><text>a</text></if>"# + open + "><text>b</text></\(name)>"
    case "text": return open + ">t</text>"
    case "column", "row", "repeat", "if": return open + "><text>t</text></\(name)>"
    default: return open + "/>"
    }
  }

  static func render(_ body: String) -> String {
    do {
      let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==")!
      let directory = try TemplateFixture(["part.xml": "<fragment><text>p</text></fragment>"]).directory
      try png.write(to: directory.appendingPathComponent("logo.png"))
      try "<receipt>\(body)</receipt>".write(
        to: directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
      _ = try TemplateLibrary(directory: directory).render(
        template: "t", data: Data(#"{"items": [1], "x": true}"#.utf8), options: TemplateOptions())
      return "ok"
    } catch {
      return "\(error)"
    }
  }

  @Test func everyBlockElementOfferedRenders() {
    #expect(TemplateVocabulary.blockElements.count >= 15)
    for name in TemplateVocabulary.blockElements {
      #expect(Self.render(Self.element(name)) == "ok", "<\(name)>")
    }
  }

  @Test func everyAttributeOfferedIsKnownAndEveryValueOfferedRenders() {
    for name in TemplateVocabulary.blockElements {
      for attribute in TemplateVocabulary.attributes(of: name) ?? [] {
        // A value the attribute cannot take: the renderer may refuse it, but as a bad value.
        let result = Self.render(Self.element(name, "\(attribute)=\"%\""))
        #expect(!result.contains("unknown attribute"), "\(attribute) on <\(name)>: \(result)")
        for value in TemplateVocabulary.values(of: attribute, on: name) ?? [] {
          #expect(
            Self.render(Self.element(name, "\(attribute)=\"\(value)\"")) == "ok", "\(attribute)=\(value) <\(name)>")
        }
      }
    }
    for name in TemplateVocabulary.inlineElements where !["br", "tab"].contains(name) {
      for attribute in TemplateVocabulary.attributes(of: name) ?? [] {
        for value in TemplateVocabulary.values(of: attribute, on: name) ?? ["%"] {
          let body = "<text><\(name) \(attribute)=\"\(value)\">t</\(name)></text>"
          let result = Self.render(body)
          #expect(!result.contains("unknown attribute"), "\(body): \(result)")
        }
      }
    }
  }

  @Test func aNameTheRendererRefusesIsNotOffered() throws {
    #expect(Self.render(Self.element("text", #"colour="red""#)).contains("unknown attribute"))
    #expect(TemplateVocabulary.attributes(of: "text")?.contains("colour") == false)
    #expect(Self.render("<para/>").contains("unknown element"))
    #expect(!TemplateVocabulary.blockElements.contains("para"))
    // The schema CodeMirror reads: roots, and per element its attributes and children.
    let schema = try #require(
      try JSONSerialization.jsonObject(with: TemplateVocabulary.editorSchema()) as? [String: Any])
    #expect(schema["!top"] as? [String] == ["receipt", "fragment"])
    let text = try #require(schema["text"] as? [String: Any])
    #expect((text["children"] as? [String])?.contains("b") == true)
    #expect((text["children"] as? [String])?.contains("qrcode") == false)
    let cut = try #require((schema["cut"] as? [String: Any])?["attrs"] as? [String: Any])
    #expect(cut["type"] as? [String] == ["partial", "full"])
  }
}
