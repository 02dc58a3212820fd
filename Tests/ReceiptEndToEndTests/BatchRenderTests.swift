import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `receipt render ORDER… -o DIR/` and `receipt render - -o DIR/` (JSON Lines), with the shipped
/// binary: every output is byte for byte what one-shot `receipt render` writes for the same
/// input, a bad input fails alone with its name and the exit code says so, and names never
/// collide.
@Suite struct BatchRenderTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  static var examples: [String] {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Templates/Examples").standardizedFileURL.path
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }
      .sorted().map { directory + "/" + $0 }
  }

  @Test(arguments: ["pdf", "escpos", "png"])
  func aBatchWritesWhatOneShotRenderWrites(format: String) throws {
    let examples = Self.examples
    #expect(examples.count >= 6)
    let directory = try Tool.temporaryDirectory()
    let batch = try Tool.run(
      receipt, ["render"] + examples + ["-o", directory.path + "/batch/", "--format", format, "--jobs", "2"])
    #expect(batch.status == 0, "\(batch.stderr)")
    #expect(batch.stdout.contains("rendered \(examples.count) of \(examples.count) receipts"), "\(batch.stdout)")
    for example in examples {
      let name = URL(fileURLWithPath: example).deletingPathExtension().lastPathComponent
      let single = directory.appendingPathComponent("\(name).\(format)")
      let one = try Tool.run(receipt, ["render", example, "-o", single.path])
      #expect(one.status == 0, "\(one.stderr)")
      let batched = try Data(contentsOf: directory.appendingPathComponent("batch/\(name).\(format)"))
      #expect(batched == (try Data(contentsOf: single)), "\(name).\(format) differs from one-shot render")
      if format == "pdf" {  // the shipped binary's own deflateInit_ (CDeflateLevel) is the one cairo calls
        let headers = PDFStreams.headers(of: [UInt8](batched))
        #expect(!headers.isEmpty && headers.allSatisfy { $0.isZlib && $0.level == 0 }, "\(name): \(headers)")
      }
    }
  }

  @Test func aBadOrderFailsAloneAndTheExitCodeSaysSo() throws {
    let directory = try Tool.temporaryDirectory()
    let bad = directory.appendingPathComponent("broken.json")
    try #"{"items": [1, 2,"#.write(to: bad, atomically: true, encoding: .utf8)
    let missing = directory.appendingPathComponent("missing.json").path
    let good = Self.examples.filter { $0.hasSuffix("small.json") || $0.hasSuffix("large.json") }
    let out = directory.appendingPathComponent("out")
    let result = try Tool.run(
      receipt, ["render", good[0], bad.path, missing, good[1], "-o", out.path + "/", "--quiet", "--jobs", "1"])
    #expect(result.status == 65, "the first failure's code (bad data): \(result.status) \(result.stderr)")
    #expect(result.stderr.contains("broken.json"), "\(result.stderr)")
    #expect(result.stderr.contains("missing.json"), "\(result.stderr)")
    #expect(result.stdout.isEmpty, "--quiet: \(result.stdout)")
    let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
    #expect(written == ["large.pdf", "small.pdf"], "\(written)")
  }

  @Test func jsonLinesOnStandardInputAreOneReceiptEach() throws {
    let directory = try Tool.temporaryDirectory()
    let small = try Data(contentsOf: URL(fileURLWithPath: Self.examples.first { $0.hasSuffix("small.json") }!))
    let line = String(
      decoding: try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: small)), as: UTF8.self
    )
    // Line 2 is blank (skipped, still counted), line 3 is not JSON.
    let input = "\(line)\n\n{nope\n\(line)\n"
    let result = try Tool.run(
      receipt, ["render", "-", "-o", directory.path + "/", "--format", "escpos"], stdin: Data(input.utf8))
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("stdin:3"), "\(result.stderr)")
    let written = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(written == ["000001.escpos", "000004.escpos"], "\(written)")
    let single = directory.appendingPathComponent("one.escpos")
    _ = try Tool.run(receipt, ["render", "-", "-o", single.path], stdin: Data(line.utf8))
    #expect(try Data(contentsOf: directory.appendingPathComponent("000001.escpos")) == Data(contentsOf: single))
  }

  /// A batch writes only files of its own: a symlink placed at an output name once had a file
  /// outside the directory overwritten, and a FIFO there blocked the batch for ever. Each is an
  /// error for its input; the others are written.
  @Test func aBatchNeverWritesThroughALinkOrIntoAFIFO() throws {
    let directory = try Tool.temporaryDirectory()
    let out = directory.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let outside = directory.appendingPathComponent("outside.txt")
    try "precious".write(to: outside, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: out.appendingPathComponent("small.pdf").path, withDestinationPath: outside.path)
    #expect(mkfifo(out.appendingPathComponent("large.pdf").path, 0o644) == 0)
    let inputs = Self.examples.filter { $0.hasSuffix("small.json") || $0.hasSuffix("large.json") }
    let others = Self.examples.filter { !inputs.contains($0) }
    let started = Date()
    // Under `timeout` (SIGKILL: a child of the test may have SIGTERM blocked): a batch blocked on
    // the FIFO, as it once was, is ended at 60 s.
    let result = try Tool.run(
      "timeout", ["-s", "KILL", "60", receipt, "render"] + inputs + others + ["-o", out.path + "/", "--jobs", "2"])
    #expect(Date().timeIntervalSince(started) < 30, "no input blocks the batch")
    #expect(result.status == 73, "cannot write output: \(result.status) \(result.stderr)")
    #expect(result.stderr.contains("small.pdf is a symbolic link, not a regular file"), "\(result.stderr)")
    #expect(result.stderr.contains("large.pdf is a FIFO, not a regular file"), "\(result.stderr)")
    #expect(try String(contentsOf: outside, encoding: .utf8) == "precious", "the file outside is untouched")
    for other in others {
      let name = URL(fileURLWithPath: other).deletingPathExtension().lastPathComponent
      #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(name).pdf").path), "\(name)")
    }
  }

  /// An order line far over the limit is refused without being held: a 200 MB line once took
  /// 434 MB before its refusal. The lines around it are rendered.
  @Test func aHugeOrderLineIsRefusedInBoundedMemory() throws {
    let directory = try Tool.temporaryDirectory()
    let small = try Data(contentsOf: URL(fileURLWithPath: Self.examples.first { $0.hasSuffix("small.json") }!))
    let line = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: small))
    let input = directory.appendingPathComponent("day.jsonl")
    FileManager.default.createFile(atPath: input.path, contents: nil)
    let handle = try FileHandle(forWritingTo: input)
    try handle.write(contentsOf: line + Data("\n{\"note\": \"".utf8))
    let filler = Data(repeating: 0x61, count: 1 << 20)
    for _ in 0..<200 { try handle.write(contentsOf: filler) }
    try handle.write(contentsOf: Data("\"}\n".utf8) + line + Data("\n".utf8))
    try handle.close()
    let (result, cost) = try Tool.runMeasured(
      "/bin/sh",
      [
        "-c", "exec \"$0\" render - -o \"$1\" --format escpos < \"$2\"", receipt, directory.path + "/",
        input.path,
      ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("stdin:2 is 209715212 bytes; order data is limited to 8388608"), "\(result.stderr)")
    #expect(cost.peakBytes < 150 << 20, "peak RSS \(cost.peakBytes >> 20) MiB")
    let written = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".escpos") }
    #expect(written.sorted() == ["000001.escpos", "000003.escpos"], "\(written)")
  }

  @Test func inputsThatWouldWriteTheSameFileAreRefusedFirst() throws {
    let directory = try Tool.temporaryDirectory()
    let other = directory.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    let small = Self.examples.first { $0.hasSuffix("small.json") }!
    try FileManager.default.copyItem(atPath: small, toPath: other.appendingPathComponent("small.json").path)
    let out = directory.appendingPathComponent("out")
    let result = try Tool.run(
      receipt, ["render", small, other.appendingPathComponent("small.json").path, "-o", out.path + "/"])
    #expect(result.status == 64 && result.stderr.contains("would both write small"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path), "nothing was written")
    // --jobs and --quiet belong to batches.
    #expect(try Tool.run(receipt, ["render", small, "-o", out.path + ".pdf", "--quiet"]).status == 64)
  }
}
