import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Configuration from a file, the environment and flags, and its checks.
@Suite struct ConfigurationTests {
  typealias Settings = ReceiptServer.Configuration.Settings

  func file(_ text: String) throws -> URL {
    let url = try Tool.temporaryDirectory().appendingPathComponent("serve.json")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// Every default in the README's configuration table is the daemon's: the table is read
  /// (the oracle is what users are told) and compared with a configuration given only printers.
  @Test func theREADMEsDefaultsAreTheDaemons() throws {
    let readme = Tool.manual
    var defaults: [String: String] = [:]
    for row in readme.split(separator: "\n") where row.hasPrefix("| `") {
      let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count == 6 else { continue }
      for name in cells[1].matches(of: /`([a-zA-Z]+)`/).map({ String($0.output.1) }) { defaults[name] = cells[4] }
    }
    /// The numbers of a default cell, in order ("60 s, 10 s" → [60, 10]).
    func numbers(_ setting: String) -> [Double] {
      (defaults[setting] ?? "").matches(of: /[0-9]+(\.[0-9]+)?/).compactMap { Double($0.output.0) }
    }
    var settings = Settings()
    settings.printers = ["a": "dir:/tmp/receipt-defaults"]
    let c = try ReceiptServer.Configuration(settings, templates: ServerFixture.templates)
    #expect(defaults["host"] == "`127.0.0.1`" && c.host == "127.0.0.1")
    #expect(numbers("port").first == Double(c.port), "port")
    #expect(numbers("maxAttempts") == [Double(c.maxAttempts)], "maxAttempts")
    #expect(numbers("maxBodyBytes") == [1, 10] && c.maxBodyBytes == 1 << 20 && c.shutdownGrace == 10)
    #expect(numbers("maxConnections").first == Double(c.maxConnections), "maxConnections")
    #expect(numbers("idleTimeout") == [c.idleTimeout, c.headerTimeout], "idleTimeout, headerTimeout")
    #expect(numbers("maxCrashes") == [Double(c.maxCrashes)], "maxCrashes")
    #expect(numbers("failoverAfter") == [c.failoverAfter], "failoverAfter")
    #expect(numbers("archiveDays").contains(Double(c.archiveDays)), "archiveDays: \(defaults["archiveDays"] ?? "")")
    #expect(defaults["maxEventStreams"]?.contains("an eighth of `maxConnections`, 1–64") == true)
    #expect(c.eventStreamLimit == min(64, max(1, c.maxConnections / 8)))
    #expect(c.effectiveDefaultPrinter == "a", "first printer")
    #expect(numbers("pollTimeout") == [c.pollTimeout, c.confirmTimeout], "pollTimeout, confirmTimeout")
  }

  @Test func theShippedExampleFileLoads() throws {
    let example = ServerFixture.templates.appendingPathComponent("../dist/receipt-serve.json").standardizedFileURL
    let configuration = try ReceiptServer.Configuration(
      try Settings(file: example), templates: ServerFixture.templates)
    #expect(configuration.printers.map(\.name) == ["archive", "counter", "kitchen"])
    #expect(configuration.effectiveDefaultPrinter == "counter")
    #expect(configuration.printers.first { $0.name == "kitchen" }?.target == .socket(host: "10.0.0.42", port: 9100))
    #expect(configuration.corsOrigins == ["https://pos.example.com"])
    #expect(configuration.printers.first { $0.name == "kitchen" }?.model?.name == "epson-tm-t88v")
    #expect(configuration.printers.first { $0.name == "counter" }?.model == nil)
    try configuration.validate()
  }

  @Test func aPostgresDatabaseInTheFileIsAURLNotAPathAndABadOneSaysTheForm() throws {
    let directory = try Tool.temporaryDirectory()
    let file = directory.appendingPathComponent("serve.json")
    try #"{"database": "postgres://receipt@db.local:5433/queue", "printers": {"a": "dir:out"}}"#.write(
      to: file, atomically: true, encoding: .utf8)
    let configuration = try ReceiptServer.Configuration(try Settings(file: file), templates: ServerFixture.templates)
    #expect(configuration.database == "postgres://receipt@db.local:5433/queue", "not resolved against the file")
    #expect(configuration.archiveDirectory?.lastPathComponent == "receipt-archive")
    let url = try PostgresURL(configuration.database)
    #expect(url.host == "db.local" && url.port == 5433 && url.database == "queue" && url.user == "receipt")
    let bad = #expect(throws: ReceiptError.self) {
      try ReceiptServer(
        configuration: .init(
          database: "postgres://db.local/queue", templates: ServerFixture.templates,
          printers: [PrinterConfig(name: "a", target: .directory(directory))]))
    }
    #expect(bad?.message.contains("names no user; the form is postgres://user") == true, "\(String(describing: bad))")
  }

  @Test func withoutPrintersTheMachinesCUPSQueuesAreServed() throws {
    let rig = try PrintRig.get()
    var settings = Settings()
    settings.cupsServer = rig.server
    let filled = try settings.withCUPSQueuesIfNoPrinters()
    #expect(filled.printers?["roll"] == "cups:roll" && filled.printers?["thermal"] == "cups:thermal", "\(filled)")
    let configuration = try ReceiptServer.Configuration(filled, templates: ServerFixture.templates)
    #expect(configuration.printers.contains { $0.target == .cups(queue: "roll", server: rig.server) })
    // Configured printers are kept as they are.
    settings.printers = ["a": "dir:/tmp"]
    #expect(try settings.withCUPSQueuesIfNoPrinters().printers == ["a": "dir:/tmp"])
    // No cupsd there: the error names the server with its port and says what to do.
    var nowhere = Settings()
    nowhere.cupsServer = "127.0.0.1:9"
    #expect {
      try nowhere.withCUPSQueuesIfNoPrinters()
    } throws: { "\($0)".contains("127.0.0.1:9") && "\($0)".contains("give --printer NAME=TARGET") }
  }

  @Test func usbAndSerialPrintersAreTargets() throws {
    let url = try file(
      #"{"printers": {"a": "usb:/dev/usb/lp0", "b": "serial:/dev/ttyUSB0?baud=115200&flow=rtscts"}}"#)
    let configuration = try ReceiptServer.Configuration(try Settings(file: url), templates: ServerFixture.templates)
    #expect(
      configuration.printers.map(\.target.address) == [
        "usb:/dev/usb/lp0", "serial:/dev/ttyUSB0?baud=115200&flow=rtscts",
      ])
    #expect(configuration.printers.allSatisfy { $0.target.delivery == .raw })
    let bad = try file(#"{"printers": {"a": "serial:/dev/ttyUSB0?baud=12345"}}"#)
    #expect {
      try ReceiptServer.Configuration(try Settings(file: bad), templates: ServerFixture.templates)
    } throws: { "\($0)".contains("usb:DEVICE, serial:DEVICE?baud=N") }
  }

  /// A CloudPRNT printer needs a Star model and its credentials; credentials are for printers
  /// that poll only; two printers cannot be one device.
  @Test func aCloudPRNTPrinterNeedsAStarModelAndCredentials() throws {
    func check(_ json: String, _ message: String) throws {
      let url = try file(json)
      #expect {
        try ReceiptServer.Configuration(try Settings(file: url), templates: ServerFixture.templates)
      } throws: { "\($0)".contains(message) }
    }
    let printer = #""printers": {"till": "cloudprnt:00:11:62:1d:9a:b7"}"#
    try check(#"{\#(printer), "printerCredentials": {"till": "a:b"}}"#, "needs a Star model")
    try check(
      #"{\#(printer), "printerModels": {"till": "epson-tm-t88vi"}, "printerCredentials": {"till": "a:b"}}"#,
      "needs a Star model")
    try check(#"{\#(printer), "printerModels": {"till": "star-mcprint3"}}"#, "give it printerCredentials")
    try check(
      #"{\#(printer), "printerModels": {"till": "star-mcprint3"}, "printerCredentials": {"till": "nopassword"}}"#,
      "give it printerCredentials")
    try check(#"{"printers": {"a": "dir:out"}, "printerCredentials": {"a": "x:y"}}"#, "does not poll the daemon")
    try check(
      #"{"printers": {"a": "cloudprnt:0011621d9ab7", "b": "cloudprnt:00-11-62-1D-9A-B7"}, "printerModels": {"a": "star-mcprint3", "b": "star-mcprint3"}, "printerCredentials": {"a": "x:y", "b": "x:z"}}"#,
      "the same CloudPRNT MAC address")
    let good = try file(
      #"{\#(printer), "printerModels": {"till": "star-mcprint3"}, "printerCredentials": {"till": "till:pw"}, "pollTimeout": 5, "confirmTimeout": 60}"#
    )
    let configuration = try ReceiptServer.Configuration(try Settings(file: good), templates: ServerFixture.templates)
    #expect(configuration.printers.first?.credentials == "till:pw" && configuration.pollTimeout == 5)
    #expect(configuration.confirmTimeout == 60)
  }

  @Test func printerModelsMustBeKnownAndNameAPrinter() throws {
    let unknown = try file(#"{"printers": {"a": "dir:out"}, "printerModels": {"a": "tm-nope"}}"#)
    #expect {
      try ReceiptServer.Configuration(try Settings(file: unknown), templates: ServerFixture.templates)
    } throws: { "\($0)".contains("printer 'a': unknown printer model 'tm-nope'") }
    let stray = try file(#"{"printers": {"a": "dir:out"}, "printerModels": {"b": "generic-80mm"}}"#)
    #expect {
      try ReceiptServer.Configuration(try Settings(file: stray), templates: ServerFixture.templates)
    } throws: { "\($0)".contains("printerModels names 'b'") }
  }

  @Test func relativePathsAreTakenFromTheFilesDirectory() throws {
    let url = try file(#"{"database": "q.sqlite", "printers": {"a": "dir:out"}, "templates": "../T"}"#)
    let settings = try Settings(file: url)
    let base = url.deletingLastPathComponent()
    #expect(settings.database == base.appendingPathComponent("q.sqlite").path)
    #expect(settings.printers?["a"] == "dir:" + base.appendingPathComponent("out").path)
    #expect(settings.templates == base.deletingLastPathComponent().appendingPathComponent("T").path)
  }

  @Test func typosAndWrongTypesAreClearErrors() throws {
    let typo = try file(#"{"prnters": {}}"#)
    #expect {
      try Settings(file: typo)
    } throws: { ($0 as? ReceiptError)?.message.contains("unknown setting 'prnters'") == true }
    let wrong = try file(#"{"port": "eighty"}"#)
    #expect {
      try Settings(file: wrong)
    } throws: { ($0 as? ReceiptError)?.message.contains("'port' has the wrong type") == true }
    #expect(throws: ReceiptError.self) { try Settings(file: URL(fileURLWithPath: "/nonexistent/serve.json")) }
    var bad = Settings()
    bad.printers = ["a": "lpt1"]
    #expect {
      try ReceiptServer.Configuration(bad, templates: ServerFixture.templates)
    } throws: { ($0 as? ReceiptError)?.message.contains("'lpt1' is not cups:QUEUE") == true }
  }

  @Test func routeMistakesAreFoundAtStartWithTheRoutesName() throws {
    let printers = #""printers": {"counter": "dir:/tmp/c", "kitchen": "dir:/tmp/k"}"#
    let route = #""name": "kitchen", "printer": "kitchen", "template": "kitchen""#
    let cases: [(String, String)] = [
      (#"[{\#(route), "station": "x"}]"#, "unknown field 'station'"),
      (#"[{"name": "kitchen", "printer": "kitchen"}]"#, "'routes[0].template' is missing"),
      (#"[{\#(route), "fallback": "bar"}]"#, "fallback 'bar' is not a configured printer"),
      (#"[{\#(route), "fallback": "kitchen"}]"#, "the fallback must be another printer"),
      (#"[{\#(route), "filter": "station = 'kitchen'"}]"#, "route 'kitchen': filter"),
      (#"[{"name": "kitchen", "printer": "kitchen", "template": "menu"}]"#, "no template named 'menu'"),
      (#"[{\#(route)}, {\#(route)}]"#, "'kitchen' is used twice"),
      (#"[{\#(route), "copies": 0}]"#, "copies must be 1 to 99"),
      (#"[{"name": "../k", "printer": "kitchen", "template": "kitchen"}]"#, "must be 1 to 64 letters"),
    ]
    for (routes, message) in cases {
      #expect("\(routes)") {
        let settings = try Settings(file: try file(#"{\#(printers), "routes": \#(routes)}"#))
        try ReceiptServer.Configuration(settings, templates: ServerFixture.templates).validate()
      } throws: { error in
        let text = (error as? ReceiptError)?.message ?? "\(error)"
        return text.contains(message)
      }
    }
    let good = try Settings(
      file: try file(#"{\#(printers), "routes": [{\#(route), "fallback": "counter"}], "failoverAfter": 5}"#))
    let configuration = try ReceiptServer.Configuration(good, templates: ServerFixture.templates)
    try configuration.validate()
    #expect(configuration.routes.first?.fallback == "counter" && configuration.failoverAfter == 5)
  }

  @Test func theShippedRestaurantExampleLoads() throws {
    let example = ServerFixture.templates.appendingPathComponent("../dist/receipt-restaurant.json").standardizedFileURL
    let settings = try Settings(file: example)
    #expect(settings.routes?.map(\.name) == ["counter", "kitchen", "bar"])
    var configuration = try ReceiptServer.Configuration(settings, templates: ServerFixture.templates)
    configuration.templates = ServerFixture.templates
    try configuration.validate()
  }

  @Test func flagsBeatTheEnvironmentWhichBeatsTheFile() throws {
    let url = try file(#"{"port": 9000, "host": "127.0.0.1", "printers": {"a": "dir:/tmp/a"}, "maxAttempts": 3}"#)
    let environment = try Settings(environment: [
      "RECEIPT_PORT": "9100", "RECEIPT_PRINTERS": "b=cups:Roll, c=socket://10.0.0.9:9100",
      "RECEIPT_TOKENS": "aaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbb",
    ])
    var flags = Settings()
    flags.port = 9200
    let merged = try Settings(file: url).overridden(by: environment).overridden(by: flags)
    #expect(merged.port == 9200 && merged.maxAttempts == 3)
    #expect(merged.printers == ["b": "cups:Roll", "c": "socket://10.0.0.9:9100"])
    #expect(merged.tokens == ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"])
    #expect(throws: ReceiptError.self) { try Settings(environment: ["RECEIPT_PORT": "x"]) }
    #expect(throws: ReceiptError.self) { try Settings(environment: ["RECEIPT_PRINTERS": "nameonly"]) }
  }

  @Test func unsafeOrInconsistentSetupsAreRefused() throws {
    let printers = [PrinterConfig(name: "a", target: .directory(URL(fileURLWithPath: "/tmp/a")))]
    let templates = ServerFixture.templates
    func refused(_ configuration: ReceiptServer.Configuration, _ text: String) {
      #expect {
        try configuration.validate()
      } throws: { ($0 as? ReceiptError)?.message.contains(text) == true }
    }
    refused(.init(host: "0.0.0.0", templates: templates, printers: printers), "needs a bearer token")
    refused(.init(host: "0.0.0.0", templates: templates, printers: printers, tokens: ["short"]), "at least 16")
    refused(.init(templates: templates, printers: []), "no printers")
    refused(.init(templates: templates, printers: printers + printers), "unique")
    refused(.init(templates: templates, printers: printers, defaultPrinter: "b"), "default printer 'b'")
    refused(.init(templates: templates, printers: printers, corsOrigins: ["pos.example.com"]), "CORS origin")
    try ReceiptServer.Configuration(
      host: "0.0.0.0", templates: templates, printers: printers, tokens: ["0123456789abcdef"]
    ).validate()
  }
}
