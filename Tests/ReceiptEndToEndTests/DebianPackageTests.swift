import Foundation
import ReceiptTestSupport
import Testing

/// The Debian package `make deb` builds (`make test` builds it before the tests), as a shop's
/// technician meets it: `apt-get install`, the packaged templates, the unit checked by
/// systemd and run as it says (its user, its configuration), man pages, completions, and a purge
/// that leaves only what Debian policy keeps (the system user).
@Suite(.serialized, .timeLimit(.minutes(10))) struct DebianPackageTests {
  func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Tool.Result {
    try Tool.run(program, arguments, environment: environment)
  }

  var package: URL? { DebianPackageLintTests.package }

  @Test func theDebianPackageInstallsRunsAndPurgesCleanly() throws {
    let deb = try #require(package, "no out/receipt_*.deb: make deb builds it (make test does)")
    let install = try run("apt-get", ["install", "-y", deb.path], environment: ["DEBIAN_FRONTEND": "noninteractive"])
    #expect(install.status == 0, "\(install.stderr)")
    // The package's own scripts warn about nothing (adduser once did, about the home directory).
    let warnings = (install.stdout + install.stderr).split(separator: "\n").filter {
      $0.localizedCaseInsensitiveContains("warning") && !$0.hasPrefix("W: ")
    }
    #expect(warnings.isEmpty, "\(warnings)")
    defer { _ = try? run("apt-get", ["purge", "-y", "receipt"], environment: ["DEBIAN_FRONTEND": "noninteractive"]) }
    #expect(
      try run("id", ["-nG", "receipt"]).stdout.split(separator: " ").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }.contains("lp"))

    // The shop's templates: seeded from the shipped ones, the service's own, kept on reinstall.
    let shop = "/var/lib/receipt/templates/receipt.xml"
    #expect(FileManager.default.fileExists(atPath: shop))
    #expect(try run("stat", ["-c", "%U", shop]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "receipt")
    let changed = try String(contentsOfFile: shop, encoding: .utf8) + "<!-- the shop's own -->\n"
    try changed.write(toFile: shop, atomically: true, encoding: .utf8)
    let reinstall = try run(
      "apt-get", ["install", "--reinstall", "-y", deb.path], environment: ["DEBIAN_FRONTEND": "noninteractive"])
    #expect(reinstall.status == 0, "\(reinstall.stderr)")
    #expect(
      try String(contentsOfFile: shop, encoding: .utf8) == changed, "an upgrade never touches the shop's templates")

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
    // In the unit's working directory (`env --chdir`), as systemd starts it.
    let daemon = try ChildProcess(
      "/usr/sbin/runuser",
      ["-u", user, "--", "env", "--chdir=\(directory)", environment, "RECEIPT_PRINTERS=till=dir:\(printed)"] + exec + [
        "--port", "0", "--ipp-port", "0",
      ], stdout: .write(log), stderr: .standardOutput)
    defer {
      daemon.send(SIGTERM)
      daemon.wait()
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
    daemon.send(SIGTERM)
    daemon.wait()

    // Man pages render; the bash completion completes an option.
    let pages = try FileManager.default.contentsOfDirectory(atPath: "/usr/share/man/man1").filter {
      $0.hasPrefix("receipt")
    }
    #expect(pages.count >= 9, "\(pages)")
    // Every page renders without a warning from man (groff's and mandoc's checks), every page it
    // refers to (SEE ALSO, .Xr) is installed, no page refers to a help page, and a subcommand's
    // synopsis shows the command as it is run.
    let installed = pages.map { "/usr/share/man/man1/\($0)" } + ["/usr/share/man/man5/serve.json.5.gz"]
    #expect(FileManager.default.fileExists(atPath: "/usr/share/man/man5/serve.json.5.gz"))
    for path in installed {
      let man = try run("man", ["--warnings", "-l", path], environment: ["MANPAGER": "cat", "COLUMNS": "80"])
      #expect(man.status == 0 && man.stdout.contains("NAME"), "\(path): \(man.stderr)")
      #expect(man.stderr.isEmpty, "\(path) warns: \(man.stderr)")
      let source = try run("zcat", ["-f", path]).stdout
      for reference in source.split(separator: "\n").filter({ $0.hasPrefix(".Xr ") }) {
        let parts = reference.split(separator: " ")
        try #require(parts.count >= 3, "\(path): \(reference)")
        let found = try run("man", ["-w", String(parts[2]), String(parts[1])])
        #expect(found.status == 0, "\(path) refers to \(parts[1])(\(parts[2])), which is not installed")
      }
      #expect(!source.contains("receipt-help"), "\(path)")
    }
    let serve = try run("man", ["receipt-serve"], environment: ["MANPAGER": "cat", "COLUMNS": "200"]).stdout
    #expect(serve.contains("receipt serve [--config config]"), "\(serve.prefix(600))")
    #expect(serve.contains("serve.json(5)") && !serve.contains("README"), "\(serve)")

    // Completions of values, typed at a shell: bash (its completion function, as bash-completion
    // calls it) and zsh (an interactive zsh on a pseudo-terminal, Tab pressed).
    func bash(_ line: String) throws -> [String] {
      let script = """
        source /usr/share/bash-completion/completions/receipt
        COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"
        [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _receipt receipt "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
        """
      return try run("bash", ["-c", script]).stdout.split(separator: "\n").map(String.init)
    }
    #expect(try bash("receipt render --pa") == ["--paper"])
    let models = try bash("receipt render --model ")
    #expect(models.contains("epson-tm-t88v") && models.contains("star-mcprint3"), "\(models)")
    #expect(try bash("receipt render --paper ").sorted() == ["112mm", "58mm", "80mm"])
    #expect(try bash("receipt render --format e") == ["escpos"])
    let templates = try bash("receipt render --template ")
    #expect(
      templates.contains("receipt") && templates.contains("kitchen"), "names of the installed templates: \(templates)")
    let orders = work.appendingPathComponent("orders")
    try FileManager.default.createDirectory(at: orders, withIntermediateDirectories: true)
    try "{}".write(to: orders.appendingPathComponent("1042.json"), atomically: true, encoding: .utf8)
    let files = try run(
      "bash",
      [
        "-c",
        """
        cd \(work.path) && source /usr/share/bash-completion/completions/receipt
        COMP_LINE='receipt render orders/'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(receipt render orders/); COMP_CWORD=2
        _receipt receipt orders/ render; printf '%s\\n' "${COMPREPLY[@]}"
        """,
      ]
    ).stdout
    #expect(files.contains("orders/1042.json"), "\(files)")
    let zsh = try run(
      "zsh",
      [
        Tool.packageRoot.appendingPathComponent("Tests/Support/complete.zsh").path,
        "/usr/share/zsh/vendor-completions", "receipt render --model ",
      ]
    ).stdout
    #expect(zsh.contains("epson-tm-t88v") && zsh.contains("generic-58mm"), "\(zsh)")
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

/// lintian on the package `make deb` builds: no error and no warning. A suite of its own, so
/// that it runs beside the installation above rather than before it (lintian alone takes ~20 s
/// of CPU; in the one test they were the longest chain of the test run).
@Suite(.timeLimit(.minutes(10))) struct DebianPackageLintTests {
  static var package: URL? {
    let out = Tool.packageRoot.appendingPathComponent("out")
    let debs = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [])
      .filter { $0.hasPrefix("receipt_") && $0.hasSuffix(".deb") }.sorted()
    return debs.last.map { out.appendingPathComponent($0) }
  }

  @Test func lintianFindsNoErrorAndNoWarning() throws {
    let deb = try #require(Self.package, "no out/receipt_*.deb: make deb builds it (make test does)")
    // Its output is in the test log.
    let lintian = try Tool.run("lintian", [deb.path])
    print("lintian \(deb.lastPathComponent):\n\(lintian.stdout)\(lintian.stderr)")
    #expect(lintian.status == 0, "\(lintian.stderr)")
    #expect(!lintian.stdout.split(separator: "\n").contains { $0.hasPrefix("E:") || $0.hasPrefix("W:") })
  }
}
