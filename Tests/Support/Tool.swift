import Foundation

/// Runs external tools (poppler, zbar, pango-view, the `receipt` binary) for independent checks.
public enum Tool {
  /// The result of a finished process.
  public struct Result: Sendable {
    /// The exit status, or the number of the signal that ended it (as `Process` said).
    public var status: Int32
    /// The signal that ended it, nil when it exited.
    public var signal: Int32?
    /// Standard output as text, decoded when asked: tools that write megabytes of pixels
    /// (pngtopnm) would pay for a UTF-8 repair of every byte.
    public var stdout: String { String(decoding: output, as: UTF8.self) }
    public var stderr: String
    public var output: Data
  }

  /// Runs a program (looked up in PATH unless absolute) and waits for it.
  ///
  /// Its standard input, output and error are files, not pipes, and it is a ``ChildProcess``,
  /// not Foundation's `Process`: a pipe's reader sees no end of file until every holder of its
  /// other end has exited, and a child spawned by another thread meanwhile could hold it (a
  /// `psql` of a few milliseconds took the 60 s of a `pg_sleep` started beside it,
  /// `StoreStallTests`); `Process` sees its child end only when a socket shared with it closes,
  /// which such a child could hold too (a `cat` took the 20 s of a `sleep`, `ToolTests`). A
  /// file needs no end of file: it is read once the program has exited.
  @discardableResult
  public static func run(
    _ program: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
  )
    throws -> Result
  {
    let files = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let (outURL, errURL, inURL) = (
      files.appendingPathComponent("out"), files.appendingPathComponent("err"), files.appendingPathComponent("in")
    )
    guard FileManager.default.createFile(atPath: inURL.path, contents: stdin ?? Data()) else {
      throw RigError("cannot write \(inURL.path) for \(program)")
    }
    // `env` looks the program up in the child's PATH (the one `environment` may set).
    let child = try ChildProcess(
      program.hasPrefix("/") ? program : "/usr/bin/env", program.hasPrefix("/") ? arguments : [program] + arguments,
      environment: environment, stdin: .read(inURL), stdout: .write(outURL), stderr: .write(errURL))
    let ended = child.wait()
    let outData = try Data(contentsOf: outURL)
    let errData = try Data(contentsOf: errURL)
    return Result(
      status: ended.signal ?? ended.status, signal: ended.signal, stderr: String(decoding: errData, as: UTF8.self),
      output: outData)
  }

  /// Pango's line breaks of a text (hinting off, 72 dpi, subpixel positions — otherwise it rounds
  /// every glyph position to a whole point), from `pdftotext` of `pango-view`'s PDF.
  public static func pangoLines(_ text: String, font: String, width: Int, language: String? = nil) throws -> [String] {
    let dir = try temporaryDirectory()
    let input = dir.appendingPathComponent("p.txt")
    try text.write(to: input, atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("p.pdf")
    var arguments = [
      "-q", "--dpi=72", "--margin=0", "--hinting=none", "--hint-metrics=off", "--subpixel-positions",
      "--width=\(width)", "--font=\(font)", "--wrap=word", "-o", pdf.path, input.path,
    ]
    if let language { arguments.insert("--language=\(language)", at: 0) }
    let result = try run("pango-view", arguments)
    guard result.status == 0 else { throw RigError("pango-view exited \(result.status): \(result.stderr)") }
    return try run("pdftotext", [pdf.path, "-"]).stdout.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty && $0 != "\u{0C}" }
  }

  /// The user's manual: README.md and every page of docs/, in the README's order, as one text
  /// (what the tests read promises and examples from).
  public static var manual: String {
    let pages = [
      "README.md", "docs/getting-started.md", "docs/commands.md", "docs/templates.md", "docs/printers.md",
      "docs/daemon.md", "docs/ipp.md", "docs/operations.md", "docs/benchmarks.md", "docs/development.md",
    ]
    return pages.map { (try? String(contentsOf: packageRoot.appendingPathComponent($0), encoding: .utf8)) ?? "" }
      .joined(separator: "\n")
  }

  /// A fresh temporary directory (under the process's ``Scratch/root``).
  public static func temporaryDirectory() throws -> URL { try Scratch.directory("tmp") }

  /// `pdfinfo`'s page sizes in points (all pages).
  public static func pdfPageSizes(_ pdf: URL) throws -> [(width: Double, height: Double)] {
    let info = try run("pdfinfo", ["-f", "1", "-l", "999", pdf.path])
    return info.stdout.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("Page") && line.contains("size:") else { return nil }
      let parts = line.split(separator: " ").compactMap { Double($0) }
      let numbers = parts.count >= 3 ? Array(parts.suffix(from: parts.count - 2)) : parts
      return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }
  }

  /// The directory holding the built products (the test bundle sits there).
  public static var productsDirectory: URL {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return bundle
  }

  /// The checkout's root directory.
  public static var packageRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
  }

  /// The `receipt` binary users get: the release build linked with the static Swift runtime and
  /// Foundation (`make release`, `make install`, the systemd unit), which `make test` builds
  /// before the tests. Static and dynamic Foundation behave differently, so end-to-end tests run
  /// this one, never the debug build. `RECEIPT_BINARY` names another.
  public static func shippedBinary() throws -> String {
    let path =
      ProcessInfo.processInfo.environment["RECEIPT_BINARY"]
      ?? packageRoot.appendingPathComponent(".build/release/receipt").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw RigError("no release binary at \(path): run `make release` first (`make test` does)")
    }
    if ProcessInfo.processInfo.environment["RECEIPT_BINARY"] == nil, let stale = staleBinary {
      throw RigError(stale)
    }
    return path
  }

  /// A reason to refuse the release binaries, or nil: each must be newer than every source file
  /// it is built from (`receipt`: all of `Sources/` but the daemon's modules; `receipt-daemon`:
  /// all but the CLI's own), or the end-to-end tests would test yesterday's code. Looked at once.
  static let staleBinary: String? = {
    let release = packageRoot.appendingPathComponent(".build/release")
    let sources = packageRoot.appendingPathComponent("Sources")
    let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
    let binaries: [(String, Set<String>)] = [
      ("receipt", ["ReceiptServer", "receipt-daemon", "receipt-bench"]),
      ("receipt-daemon", ["receipt", "receipt-bench"]),
    ]
    for (binary, excluded) in binaries {
      let path = release.appendingPathComponent(binary).path
      guard let built = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date else {
        return "no release binary at \(path): run `make release` first (`make test` does)"
      }
      var newest: (Date, String)?
      for module in modules where !excluded.contains(module) {
        let root = sources.appendingPathComponent(module)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.contentModificationDateKey])
        while let file = files?.nextObject() as? URL {
          guard let date = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
          else { continue }
          if date > newest?.0 ?? .distantPast { newest = (date, file.path) }
        }
      }
      if let (date, file) = newest, date > built {
        return
          "\(path) is older than \(file): run `make release` (it builds and touches the binaries; the end-to-end tests run the shipped binary)"
      }
    }
    return nil
  }()
}

extension Tool {
  /// A PNG decoded by netpbm's `pngtopnm` (an independent decoder): width, height, bits per pixel
  /// and the raw PBM (1 = black, MSB-first) or PGM (0 = black) rows.
  /// Fails (throws) with netpbm's message when pngtopnm is missing or refuses the file.
  public static func decodePNG(_ png: URL) throws -> (width: Int, height: Int, bits: Int, data: [UInt8]) {
    let result = try run("pngtopnm", [png.path])
    guard result.status == 0 else { throw RigError("pngtopnm \(png.path) exited \(result.status): \(result.stderr)") }
    return try decodePNM([UInt8](result.output), name: png.path)
  }

  /// A binary PBM (P4) or 8-bit PGM (P5) as netpbm or pdftoppm write it: width, height, bits
  /// per pixel and the raw rows.
  public static func decodePNM(_ bytes: [UInt8], name: String) throws -> (
    width: Int, height: Int, bits: Int, data: [UInt8]
  ) {
    guard bytes.starts(with: Array("P4".utf8)) || bytes.starts(with: Array("P5".utf8)) else {
      throw RigError("\(name) is not a binary PBM or PGM")
    }
    var tokens: [String] = []
    var i = 0
    let needed = bytes.starts(with: Array("P4".utf8)) ? 3 : 4
    func byte() throws -> UInt8 {
      guard i < bytes.count else { throw RigError("\(name) has a truncated PNM header") }
      return bytes[i]
    }
    while tokens.count < needed {
      while try byte() == 0x23 || byte().isWhitespaceByte {  // skip comments and space
        if try byte() == 0x23 { while try byte() != 0x0A { i += 1 } }
        i += 1
      }
      var token = ""
      while try !byte().isWhitespaceByte {
        token.append(Character(UnicodeScalar(try byte())))
        i += 1
      }
      tokens.append(token)
    }
    i += 1  // the single whitespace before the raster
    guard let width = Int(tokens[1]), let height = Int(tokens[2]), i <= bytes.count else {
      throw RigError("\(name) has an unreadable PNM header: \(tokens)")
    }
    guard needed == 3 || tokens[3] == "255" else { throw RigError("\(name) is not 8 bits a dot: \(tokens)") }
    return (width, height, tokens[0] == "P4" ? 1 : 8, Array(bytes[i...]))
  }
}

extension UInt8 {
  fileprivate var isWhitespaceByte: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

extension Tool {
  /// Decodes barcodes with zxing-cpp (PyPI) from 8-bit gray pixels (0 = black); returns
  /// "FORMAT\ttext" lines.
  public static func zxing(gray: [UInt8], width: Int, height: Int) throws -> [String] {
    let script = """
      import sys, numpy, zxingcpp
      w, h = int(sys.argv[1]), int(sys.argv[2])
      image = numpy.frombuffer(sys.stdin.buffer.read(), dtype=numpy.uint8).reshape(h, w)
      for r in zxingcpp.read_barcodes(image):
          print(r.format.name, r.text, sep='\\t')
      """
    let result = try run("python3", ["-c", script, String(width), String(height)], stdin: Data(gray))
    return result.stdout.split(separator: "\n").map(String.init)
  }

  /// The texts zxing-cpp decodes from a PGM/PBM file written by poppler or netpbm.
  public static func zxingTexts(pnm: (width: Int, height: Int, bits: Int, data: [UInt8])) throws -> [String] {
    var gray = pnm.data
    if pnm.bits == 1 {
      let stride = (pnm.width + 7) / 8
      gray = (0..<(pnm.width * pnm.height)).map { i in
        let (y, x) = (i / pnm.width, i % pnm.width)
        return pnm.data[y * stride + x / 8] & (0x80 >> UInt8(x % 8)) != 0 ? 0 : 255
      }
    }
    return try zxing(gray: gray, width: pnm.width, height: pnm.height).map {
      String($0.split(separator: "\t").last ?? "")
    }
  }
}

extension Tool {
  /// What a finished process cost, as GNU time measured it (wall and CPU seconds, peak RSS).
  public struct Cost: Sendable {
    public var seconds: Double
    public var cpuSeconds: Double
    public var peakBytes: Int
  }

  /// Runs a program under GNU `time` (`/usr/bin/time`, Debian's `time` package): its result and
  /// what it cost, measured by the kernel's accounting rather than by the test's clock.
  public static func runMeasured(
    _ program: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
  ) throws -> (Result, Cost) {
    let report = try temporaryDirectory().appendingPathComponent("time.txt")
    let result = try run(
      "/usr/bin/time", ["-f", "%e %U %S %M", "-o", report.path, program] + arguments, stdin: stdin,
      environment: environment)
    let fields = try String(contentsOf: report, encoding: .utf8).split(separator: "\n").last?.split(separator: " ")
    guard let fields, fields.count == 4, let wall = Double(fields[0]), let user = Double(fields[1]),
      let system = Double(fields[2]), let kilobytes = Int(fields[3])
    else { throw RigError("cannot read GNU time's report in \(report.path)") }
    return (result, Cost(seconds: wall, cpuSeconds: user + system, peakBytes: kilobytes * 1024))
  }
}

extension Data {
  /// The bytes a hexadecimal string spells (two digits a byte; anything else ends the bytes).
  public init(hex: String) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(hex.utf8.count / 2)
    var high: UInt8?
    for c in hex.utf8 {
      let digit: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
      default:
        self.init(bytes)
        return
      }
      if let h = high {
        bytes.append(h << 4 | digit)
        high = nil
      } else {
        high = digit
      }
    }
    self.init(bytes)
  }
}
