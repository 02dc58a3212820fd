import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOFoundationEssentialsCompat
import ReceiptKit
@_spi(Internals) import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// `PUT /v1/templates/{name}`: what was saved.
struct TemplateSaveResponse: Codable {
  var name: String
  /// The replaced version, kept in the templates directory (`.history/…`); absent for a new one.
  var previous: String?
  var warnings: [String]
}

/// `GET /v1/models`: the printer models a preview can be laid out for.
struct ModelListResponse: Codable {
  struct Model: Codable {
    var name: String
    var title: String
    var dpi: Int
    /// Printable dots by paper width.
    var paper: [String: Int]
  }
  var models: [Model]
}

/// `GET /v1/examples`: sample orders in the templates directory's `Examples/`.
struct ExampleListResponse: Codable {
  var examples: [String]
}

extension HTTPAPI {
  /// The largest template the API saves (as the parser reads).
  static let maxTemplateBytes = 1 << 20
  /// Where replaced templates are kept, inside the templates directory.
  static let historyDirectory = ".history"

  /// GET /v1/templates/{name}: a receipt template's XML.
  func templateSource(_ name: String) throws -> Response {
    guard TemplateName.isPlain(name) else { throw TemplateName.problem(name) }
    let library = try TemplateLibrary(directory: configuration.templates)
    let url = library.directory.appendingPathComponent("\(name).xml")
    // As jobs read it: a regular file, not a symlink to somewhere else.
    guard library.isTemplate(name), !Self.isSymbolicLink(url), let data = try? Data(contentsOf: url) else {
      throw Problem.notFound("no template named '\(name)'")
    }
    return Response(
      status: .ok, headers: [.contentType: "application/xml; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// PUT /v1/templates/{name}: checks the template as the printer would bind it, keeps the
  /// version it replaces in `.history/`, then writes it durably (a file renamed into place: a
  /// crash leaves the old or the new template, never half of one). Needs a token: templates
  /// decide what every job prints, so a daemon without tokens does not take them.
  func saveTemplate(_ name: String, _ request: Request) async throws -> Response {
    guard !configuration.tokens.isEmpty else {
      throw Problem.forbidden(
        "saving templates needs a token: set tokens in the daemon's configuration (receipt design makes one)")
    }
    guard TemplateName.isPlain(name) else { throw TemplateName.problem(name) }
    let type = (request.headers[.contentType] ?? "").split(separator: ";").first.map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    guard type == "application/xml" || type == "text/xml" else {
      throw Problem.unsupportedMediaType("send the template with Content-Type: application/xml (UTF-8)")
    }
    let body: Data
    do {
      body = Data(buffer: try await request.body.collect(upTo: Self.maxTemplateBytes))
    } catch {
      throw Problem(
        status: .contentTooLarge, title: "Content too large",
        detail: "templates are limited to \(Self.maxTemplateBytes) bytes")
    }
    guard String(data: body, encoding: .utf8) != nil else {
      throw Problem.badRequest("the template is not UTF-8 text")
    }
    let library = try TemplateLibrary(directory: configuration.templates)
    let target = library.directory.appendingPathComponent("\(name).xml")
    // Writing through a symlink would change a file outside the templates directory.
    let history = library.directory.appendingPathComponent(Self.historyDirectory)
    for link in [target, history] where Self.isSymbolicLink(link) {
      throw Problem.conflict(
        "'\(link.lastPathComponent)' in the templates directory is a symbolic link; the API writes only plain files "
          + "there (replace the link with the file, or edit it on the machine)")
    }
    if FileManager.default.fileExists(atPath: target.path), !library.isTemplate(name) {
      throw Problem.conflict("'\(name).xml' is a fragment (included by templates), not a receipt; choose another name")
    }
    let warnings: [String]
    do {
      warnings = try engine.validate(source: body, named: name, templates: configuration.templates)
    } catch let error as ReceiptError {
      throw error.problem(source: true)
    }
    do {
      return try write(body, name: name, to: target, in: library.directory, warnings: warnings)
    } catch {
      let reason = (error as? ReceiptError)?.message ?? "\(error)"
      throw Problem(
        status: .internalServerError, title: "Not saved",
        detail: "\(reason); check that the daemon may write the templates directory \(library.directory.path)")
    }
  }

  /// Keeps the current version in `.history/`, then writes the new one.
  private func write(_ body: Data, name: String, to target: URL, in directory: URL, warnings: [String]) throws
    -> Response
  {
    try templateSaves.withLock { _ in
      var previous: String?
      if let old = try? Data(contentsOf: target) {
        let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
          .replacingOccurrences(of: ":", with: "")
        let kept = "\(Self.historyDirectory)/\(name)-\(stamp).xml"
        try FileManager.default.createDirectory(
          at: directory.appendingPathComponent(Self.historyDirectory), withIntermediateDirectories: true)
        try OutputFile.write(old, to: directory.appendingPathComponent(kept).path)
        previous = kept
      }
      try OutputFile.write(body, to: target.path)
      logger.info("template \(name) saved\(previous.map { "; the previous version is \($0)" } ?? "")")
      return json(
        TemplateSaveResponse(name: name, previous: previous, warnings: warnings),
        status: previous == nil ? .created : .ok, headers: [.location: "/v1/templates/\(name)"])
    }
  }

  /// Whether a path is a symbolic link itself (`lstat`: not followed).
  static func isSymbolicLink(_ url: URL) -> Bool {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink
  }

  /// GET /v1/models.
  func modelList() throws -> Response {
    let models = try PrinterModel.all()
    return json(
      ModelListResponse(models: models.map { .init(name: $0.name, title: $0.title, dpi: $0.dpi, paper: $0.paper) }))
  }

  /// The sample orders directory.
  private var examplesDirectory: URL { configuration.templates.appendingPathComponent("Examples") }

  /// GET /v1/examples.
  func exampleList() throws -> Response {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: examplesDirectory.path)) ?? []
    let names = files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter(TemplateName.isPlain)
    return json(ExampleListResponse(examples: names.sorted()))
  }

  /// GET /v1/examples/{name}: a sample order.
  func example(_ name: String) throws -> Response {
    guard TemplateName.isPlain(name) else { throw TemplateName.problem(name) }
    let url = examplesDirectory.appendingPathComponent("\(name).json")
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
    guard size <= JSONValue.maxBytes, let data = try? Data(contentsOf: url) else {
      throw Problem.notFound("no example order named '\(name)'")
    }
    return Response(
      status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }
}
