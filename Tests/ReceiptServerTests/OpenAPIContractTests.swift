import Foundation
import ReceiptKit
import Testing

@testable import ReceiptServer

/// A job's fields are named once in code (``JobResponse``) and once in the OpenAPI document:
/// the two must agree, field for field, required for required.
@Suite struct OpenAPIContractTests {
  /// The property names and required names of a schema under `components/schemas`.
  static func schema(_ name: String) throws -> (properties: Set<String>, required: Set<String>) {
    let text = String(decoding: ReceiptServer.openAPIDocument, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let schemas = try #require(lines.firstIndex(of: "  schemas:"))
    let start = try #require(lines[schemas...].firstIndex(of: "    \(name):"))
    var properties = Set<String>()
    var required = Set<String>()
    var inProperties = false
    for line in lines[(start + 1)...] {
      let indent = line.prefix { $0 == " " }.count
      if indent <= 4, !line.trimmingCharacters(in: .whitespaces).isEmpty { break }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if indent == 6 {
        inProperties = trimmed == "properties:"
        if trimmed.hasPrefix("required: [") {
          required = Set(
            trimmed.dropFirst(11).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
      } else if indent == 8, inProperties, let colon = trimmed.firstIndex(of: ":") {
        properties.insert(String(trimmed[..<colon]))
      }
    }
    return (properties, required)
  }

  /// The JSON keys of a value, and those present when every optional is nil.
  static func keys(_ full: some Encodable, _ minimal: some Encodable) throws -> (all: Set<String>, always: Set<String>)
  {
    func keys(_ value: some Encodable) throws -> Set<String> {
      let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any]
      return Set(try #require(object).keys)
    }
    return (try keys(full), try keys(minimal))
  }

  @Test func theJobSchemaIsTheEncodersKeys() throws {
    let now = Date()
    var job = Job(
      id: "a", sequence: 1, idempotencyKey: "k", printer: "archive", template: "receipt", data: Data("{}".utf8),
      locale: "de-DE", copies: 1, state: .printing, attempts: 0, crashes: 1, error: "e", cupsJobID: 7,
      printerState: "held", createdAt: now, updatedAt: now, notBefore: now, orderID: "o", route: "kitchen",
      label: "KITCHEN", fallback: "counter", fallbackFor: "kitchen", failoverReason: "paper out", reprintOf: "b",
      reprint: 1, documentSHA256: "00", sentAt: now, processID: "0042", interruptions: 1, stage: .rendering,
      documentFormat: .pdf, jobName: "Beleg", user: "ana", recipient: "ana@example.com")
    let full = JobResponse(job)
    job.state = .queued
    job.stage = nil
    job.crashes = 0
    job.sentAt = nil
    job.processID = nil
    job.interruptions = 0
    job.orderID = nil
    job.route = nil
    job.fallbackFor = nil
    job.failoverReason = nil
    job.reprintOf = nil
    job.reprint = 0
    job.documentSHA256 = nil
    job.locale = nil
    job.error = nil
    job.cupsJobID = nil
    job.printerState = nil
    job.documentFormat = nil
    job.jobName = nil
    job.user = nil
    job.recipient = nil
    let (all, always) = try Self.keys(full, JobResponse(job))
    let schema = try Self.schema("Job")
    #expect(all == schema.properties, "encoder \(all.sorted()) vs OpenAPI \(schema.properties.sorted())")
    #expect(always == schema.required, "always present \(always.sorted()) vs required \(schema.required.sorted())")
    #expect(schema.properties.count == 29)
  }

  @Test func theOrderSchemaIsTheEncodersKeys() throws {
    let now = Date()
    let order = Order(id: "o", idempotencyKey: nil, data: Data("{}".utf8), locale: "de_DE", routes: nil, createdAt: now)
    var minimal = order
    minimal.locale = nil
    let (all, always) = try Self.keys(OrderResponse(order, jobs: []), OrderResponse(minimal, jobs: []))
    let schema = try Self.schema("Order")
    #expect(all == schema.properties && always == schema.required, "\(all) \(always) \(schema)")
  }

  @Test func theProblemSchemaIsTheEncodersKeys() throws {
    let (all, always) = try Self.keys(
      ProblemResponse(
        title: "t", status: 400, detail: "d", field: "f", location: ProblemLocation(file: "a.xml", line: 1, column: 2)),
      ProblemResponse(title: "t", status: 400, detail: "d"))
    let schema = try Self.schema("Problem")
    #expect(all == schema.properties && always == schema.required, "\(all) \(schema)")
  }
}

/// One table maps a pipeline error to the CLI's exit code, one conformance to the HTTP status;
/// the typed error underneath is kept.
@Suite struct ErrorMappingTests {
  @Test func everyStageHasItsExitCodeAndStatus() {
    let expected: [ReceiptError.Stage: (Int32, Int)] = [
      .input: (66, 422), .data: (65, 422), .layout: (70, 500), .render: (70, 500), .output: (73, 500),
      .printer: (69, 503), .unavailable: (69, 503), .job: (75, 503),
    ]
    #expect(Set(expected.keys) == Set(ReceiptError.Stage.allCases))
    for (stage, (code, status)) in expected {
      let error = ReceiptError(stage, "x")
      #expect(stage.exitCode == code, "\(stage)")
      #expect(Int(error.problem.status.code) == status, "\(stage)")
    }
  }

  @Test func aCorruptLogoIsBadDataWithItsLayoutErrorKept() throws {
    let engine = try ReceiptEngine()
    let corrupt = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2])
    let document = ReceiptDocument(blocks: [.image(ImageBlock(data: corrupt))])
    do {
      _ = try engine.render(document, format: .png)
      Issue.record("a corrupt PNG rendered")
    } catch let error as ReceiptError {
      #expect(error.stage == .data && error.stage.exitCode == 65 && error.problem.status == .unprocessableContent)
      #expect(error.underlying != nil, "the LayoutError is kept")
    }
  }
}
