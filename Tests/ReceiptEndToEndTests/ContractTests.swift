import Foundation
import ReceiptTestSupport
import Testing

/// The OpenAPI file is a valid 3.1 document, and a property-based run of schemathesis against
/// the live (shipped) daemon — 20 examples per operation, fixed seed: the same run every time,
/// not as many as fit in a time — finds no 5xx and no answer that breaks it.
@Suite(.serialized) struct ContractTests {
  var root: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..") }
  var contract: URL { root.appendingPathComponent("Sources/ReceiptServer/Resources/openapi.yaml").standardizedFileURL }

  @Test func theOpenAPIFileValidates() throws {
    let result = try Tool.run("python3", ["-m", "openapi_spec_validator", contract.path])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
  }

  @Test func schemathesisFindsNoServerErrorAndNoContractBreach() throws {
    let work = try Tool.temporaryDirectory()
    // Routes, so orders are accepted and printed too (every item on the counter route).
    let config = work.appendingPathComponent("serve.json")
    try #"{"routes": [{"name": "counter", "printer": "archive", "template": "receipt"}]}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--printer",
        "archive=dir:\(work.appendingPathComponent("archive").path)", "--templates",
        root.appendingPathComponent("Templates").standardizedFileURL.path,
      ],
      log: work.appendingPathComponent("serve.log"))
    try FileManager.default.createDirectory(
      at: work.appendingPathComponent("archive"), withIntermediateDirectories: true)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let base = "http://127.0.0.1:\(daemon.port)"
    // One worker: with two, Python 3.11.7's AST constructor (used by hypothesis to describe its
    // strategies) fails with "recursion depth mismatch" now and then (a CPython bug fixed in
    // 3.11.8), a tooling error, not a finding. Excluded checks, and why: positive_data_acceptance
    // expects any schema-valid job to be accepted, but a template or printer name is only valid if
    // it exists (422 otherwise); use_after_free expects a DELETEd job to be gone, but DELETE
    // cancels and the job is kept; Tests/Contract/schemathesis.toml: a job's PDF is 404 until the
    // job has printed. Every other check runs (schemathesis 4 runs all but max_response_time,
    // which needs a limit, by default). `--checks all` is not given: a check named on the command
    // line overrides the file's per-operation settings, and the PDF's 404 then failed the stateful
    // phase whenever it asked before the job had printed. /v1/events is a stream that never ends
    // by itself (EventStreamTests and the browser test cover it); without tokens PUT
    // /v1/templates is 403, so nothing is written to Templates/. /cloudprnt and /epson-sdp are the
    // printers' protocols, absent without such a printer; CloudPRNTTests and EpsonSDPTests drive
    // them with simulated devices.
    let result = try Tool.run(
      "python3",
      [
        "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'st'; sys.exit(schemathesis())",
        "--config-file", root.appendingPathComponent("Tests/Contract/schemathesis.toml").path, "run",
        "\(base)/openapi.yaml", "--url", base, "--exclude-checks",
        "positive_data_acceptance,use_after_free", "--exclude-path", "/v1/events", "--exclude-path", "/cloudprnt",
        "--exclude-path", "/epson-sdp",
        "--max-examples", "20",
        "--seed", "20261121",
        "--workers", "1", "--no-color", "--generation-database", "none", "--request-timeout", "10",
        "--report-junit-path", work.appendingPathComponent("schemathesis.xml").path,
      ])
    let summary = result.stdout.components(separatedBy: "SUMMARY").last ?? result.stdout
    #expect(result.status == 0, "\(summary)\n\(result.stderr)")
    #expect(result.stdout.contains("Tested: 21"), "every operation but the event stream was exercised")
    #expect(daemon.terminate() == 0, "still alive and stops cleanly after the run")
  }
}
