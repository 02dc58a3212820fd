import Foundation
import ReceiptTestSupport
import Testing

/// The Debian package `make deb` builds (`make test` builds it before the tests), as a shop's
/// technician meets it: lintian, `apt-get install`, the packaged templates, the unit checked by
/// systemd and run as it says (its user, its configuration), man pages, completions, and a purge
/// that leaves only what Debian policy keeps (the system user).
@Suite(.serialized, .timeLimit(.minutes(10))) struct DebianPackageTests {
  func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Tool.Result {
    try Tool.run(program, arguments, environment: environment)
  }

  var package: URL? {
    let out = Tool.packageRoot.appendingPathComponent("out")
    let debs = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [])
      .filter { $0.hasPrefix("receipt_") && $0.hasSuffix(".deb") }.sorted()
    return debs.last.map { out.appendingPathComponent($0) }
  }

  @Test func theDebianPackageInstallsRunsAndPurgesCleanly() throws {
    let deb = try #require(package, "no out/receipt_*.deb: make deb builds it (make test does)")
    // lintian: no error and no warning (its output is in the test log).
    let lintian = try run("lintian", [deb.path])
    print("lintian \(deb.lastPathComponent):\n\(lintian.stdout)\(lintian.stderr)")
    #expect(!lintian.stdout.split(separator: "\n").contains { $0.hasPrefix("E:") || $0.hasPrefix("W:") })

    let install = try run("apt-get", ["install", "-y", deb.path], environment: ["DEBIAN_FRONTEND": "noninteractive"])
    #expect(install.status == 0, "\(install.stderr)")
    defer { _ = try? run("apt-get", ["purge", "-y", "receipt"], environment: ["DEBIAN_FRONTEND": "noninteractive"]) }
    #expect(
      try run("id", ["-nG", "receipt"]).stdout.split(separator: " ").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }.contains("lp"))

    // /usr/bin/receipt with the packaged templates, from a directory that has none.
    let work = try Tool.temporaryDirectory()
    let pdf = work.appendingPathComponent("receipt.pdf")
    let render = try Tool.run(
      "/bin/sh",
      [
        "-c",
        "cd \(work.path) && /usr/bin/receipt render /usr/share/receipt/Templates/Examples/small.json -o \(pdf.path)",
      ])
    #expect(render.status == 0, "\(render.stderr)")
    #expect(try run("pdftotext", [pdf.path, "-"]).stdout.contains("Corner Café"))

    // The unit: systemd finds nothing wrong; its ExecStart, as its user, in its directory, with its
    // configuration, prints a job to a directory printer.
    let unitPath = "/lib/systemd/system/receipt.service"
    let verify = try run("systemd-analyze", ["verify", unitPath])
    #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
    func value(_ key: String) -> String? {
      unit.split(separator: "\n").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
    }
    let user = try #require(value("User"))
    let exec = try #require(value("ExecStart")).split(separator: " ").map(String.init)
    let directory = try #require(value("WorkingDirectory"))
    let environment = try #require(value("Environment"))
    #expect(
      user == "receipt" && exec.first == "/usr/bin/receipt" && environment.hasPrefix("RECEIPT_CONFIG=/etc/receipt/"))
    let printed = "\(directory)/printed"
    #expect(try run("runuser", ["-u", user, "--", "mkdir", "-p", printed]).status == 0)
    let log = work.appendingPathComponent("serve.log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
    daemon.arguments =
      ["-u", user, "--", "env", environment, "RECEIPT_PRINTERS=till=dir:\(printed)"] + exec + [
        "--port", "0", "--ipp-port", "0",
      ]
    daemon.currentDirectoryURL = URL(fileURLWithPath: directory)
    daemon.standardOutput = try FileHandle(forWritingTo: log)
    daemon.standardError = daemon.standardOutput
    try daemon.run()
    defer {
      kill(daemon.processIdentifier, SIGTERM)
      daemon.waitUntilExit()
    }
    var port: Int?
    #expect(
      waitUntil(seconds: 30) {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        port = text.split(separator: "\n").first { $0.hasPrefix("receipt serve: http://") }
          .flatMap { URL(string: String($0.dropFirst("receipt serve: ".count).prefix { $0 != " " }))?.port }
        return port != nil
      }, "the daemon starts as the unit runs it: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    let order = try String(contentsOfFile: "/usr/share/receipt/Templates/Examples/small.json", encoding: .utf8)
    let post = try RawConnection.post(port: port ?? 0, "/v1/jobs", #"{"template": "receipt", "data": \#(order)}"#)
    #expect(post.contains("202 Accepted"), "\(post.prefix(300))")
    #expect(
      waitUntil(seconds: 30) {
        ((try? FileManager.default.contentsOfDirectory(atPath: printed)) ?? []).contains { $0.hasSuffix(".pdf") }
      }, "the job printed into \(printed)")
    kill(daemon.processIdentifier, SIGTERM)
    daemon.waitUntilExit()

    // Man pages render; the bash completion completes an option.
    let pages = try FileManager.default.contentsOfDirectory(atPath: "/usr/share/man/man1").filter {
      $0.hasPrefix("receipt")
    }
    #expect(pages.count >= 9, "\(pages)")
    for page in pages {
      let man = try run(
        "man", ["-l", "/usr/share/man/man1/\(page)"], environment: ["MANPAGER": "cat", "COLUMNS": "80"])
      #expect(man.status == 0 && man.stdout.contains("NAME"), "\(page): \(man.stderr)")
    }
    let completion = try run(
      "bash",
      [
        "-c",
        #"source /usr/share/bash-completion/completions/receipt; COMP_WORDS=(receipt render --pa); COMP_CWORD=2; COMP_LINE="receipt render --pa"; COMP_POINT=${#COMP_LINE}; _receipt receipt --pa render; echo "${COMPREPLY[@]}""#,
      ])
    #expect(completion.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "--paper", "\(completion)")
    #expect(FileManager.default.fileExists(atPath: "/usr/share/zsh/vendor-completions/_receipt"))
    #expect(FileManager.default.fileExists(atPath: "/usr/share/fish/vendor_completions.d/receipt.fish"))

    // Purge: the package's files, its configuration and its state go; the system user stays.
    let purge = try run("apt-get", ["purge", "-y", "receipt"], environment: ["DEBIAN_FRONTEND": "noninteractive"])
    #expect(purge.status == 0, "\(purge.stderr)")
    #expect(try run("dpkg", ["-s", "receipt"]).status != 0)
    for path in [
      "/usr/bin/receipt", "/usr/bin/receipt-daemon", "/usr/share/receipt", "/etc/receipt", "/var/lib/receipt",
      unitPath, "/etc/systemd/system/multi-user.target.wants/receipt.service",
    ] {
      #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left after the purge")
    }
  }
}
