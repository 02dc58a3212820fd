import Foundation

/// The printer devices this process is writing to. A USB or serial printer has one line, and a
/// status request written while a job is being sent lands inside the job's bytes: Epson's
/// reference (`DLE EOT`, "Notes") warns that a real-time command inside another command's data
/// is read as that data, so a request in the middle of a raster band shifts every byte after it
/// and the rest of the receipt prints as garbage. A job takes its device's line for as long as
/// it sends; a status request takes it only when it is free, and is not made while a job is
/// being sent (the job's own sender knows best). Keyed by the device's real path, so a
/// `/dev/serial/by-id/…` link and its `/dev/ttyUSB0` are one line. Within one process (the
/// daemon's workers and its API); another process writing the same device is not seen.
final class DeviceLines: @unchecked Sendable {  // `busy` only under `condition`
  static let shared = DeviceLines()

  private let condition = NSCondition()
  private var busy: Set<String> = []

  /// The key of a device path: its real path when it resolves.
  static func key(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Takes the line if no one has it; false when a job (or a status request) has it.
  func tryTake(_ key: String) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return busy.insert(key).inserted
  }

  /// Takes the line, waiting until `deadline` for a status request to end; false if it did not.
  func take(_ key: String, before deadline: Date) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while busy.contains(key) {
      guard condition.wait(until: deadline) else { return false }
    }
    busy.insert(key)
    return true
  }

  /// Gives the line back.
  func give(_ key: String) {
    condition.lock()
    busy.remove(key)
    condition.broadcast()
    condition.unlock()
  }

  /// Whether someone has the line (tests).
  func isBusy(_ key: String) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return busy.contains(key)
  }
}
