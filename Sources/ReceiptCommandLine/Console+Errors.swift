import ArgumentParser
import Foundation
import ReceiptKit

/// Reads a file, or standard input for "-", with the order size limit.
package func readInput(_ path: String) throws -> Data {
  let data: Data
  if path == "-" {
    data = FileHandle.standardInput.readDataToEndOfFile()
  } else {
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ReceiptError(.input, "cannot read \(path): no such file or not readable")
    }
  }
  guard data.count <= JSONValue.maxBytes else {
    throw ReceiptError(.data, "\(path) is \(data.count) bytes; order data is limited to \(JSONValue.maxBytes)")
  }
  return data
}

/// Runs a command body, turning pipeline errors into one line on stderr and an exit code.
package func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let error as ReceiptError {
    // Warnings found before the error often explain it (a missing value, then a failed check).
    for warning in (error.underlying as? TemplateError)?.warnings ?? [] {
      Console.error("receipt: warning: \(warning)")
    }
    Console.error("receipt: error: \(error.message)")
    throw ExitCode(error.stage.exitCode)
  }
}

/// The async form of `reportingErrors`.
package func reportingErrorsAsync(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let error as ReceiptError {
    try reportingErrors { throw error }
  }
}
