import Foundation
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// Which daemon drives a printer.
///
/// Ownership is a session-level advisory lock (`pg_try_advisory_lock`) held on a connection of its
/// own, chosen over a lease table because PostgreSQL ends it by itself when the session dies: a
/// daemon killed with `kill -9` loses its printers the moment the kernel closes its socket (a
/// vanished machine within TCP keepalive, ~15 s), with no lease length to tune. It is fenced:
/// every taking-over increments the printer's `epoch`; a job is claimed with the token
/// `instance#epoch` on the owning connection, and this daemon's later writes about it apply only
/// while the job still carries that token — a daemon that lost its connection cannot claim, and
/// cannot overwrite what the new owner recorded.
extension PostgresJobStore {
  func takeOwnership(of printer: String) async throws -> LastStop? {
    if owners.withLock({ $0[printer] }) != nil { return .clean }
    try await waitUntilMigrated()
    let (url, logger, instance) = (self.url, self.logger, self.instance)
    let connection = try await guarded {
      try await bounded(timeout, what: url.redacted) { _ in
        try await PostgresConnection.connect(
          configuration: url.configuration, id: Int.random(in: 1...1 << 30), logger: logger)
      }
    }
    do {
      let taken: (PrinterOwnership, LastStop)? = try await guarded {
        try await bounded(timeout, what: url.redacted, onTimeout: { try? await connection.close() }) { _ in
          // A vanished client machine is noticed within about 15 s (idle 5 s, 5 probes 2 s apart).
          for setting in ["tcp_keepalives_idle = 5", "tcp_keepalives_interval = 2", "tcp_keepalives_count = 5"] {
            try await connection.query(PostgresQuery(unsafeSQL: "SET " + setting), logger: logger)
          }
          let name = String("receipt owns \(printer) (\(instance))".prefix(60))
          try await connection.query("SELECT set_config('application_name', \(name), false)", logger: logger)
          let locked = try await connection.query(
            "SELECT pg_try_advisory_lock(\(PostgresSchema.ownerLock), hashtext(\(printer)))", logger: logger
          ).collect()
          guard try locked.first?.decode(Bool.self) == true else { return nil }
          return try await Self.transaction(on: connection, logger) { connection in
            let previous = try await connection.query(
              "SELECT epoch, clean, owner FROM printer_owner WHERE printer = \(printer) FOR UPDATE", logger: logger
            ).collect().first.map { try $0.decode((Int64, Bool, String).self) }
            let epoch = (previous?.0 ?? 0) + 1
            try await connection.query(
              """
              INSERT INTO printer_owner (printer, epoch, owner, clean, since)
              VALUES (\(printer), \(epoch), \(instance), false, now())
              ON CONFLICT (printer) DO UPDATE SET epoch = excluded.epoch, owner = excluded.owner, clean = false,
                since = excluded.since
              """, logger: logger)
            // This daemon taking its own printer back (its connection broke: PostgreSQL
            // restarted) is no crash.
            let lastStop: LastStop = previous.map { $0.1 || $0.2 == instance ? .clean : .unclean } ?? .never
            return (PrinterOwnership(connection: connection, epoch: epoch, token: "\(instance)#\(epoch)"), lastStop)
          }
        }
      }
      guard let (ownership, lastStop) = taken else {
        try? await connection.close()
        return nil
      }
      owners.withLock { $0[printer] = ownership }
      return lastStop
    } catch {
      try? await connection.close()
      throw error
    }
  }

  func owns(printer: String) async -> Bool {
    guard let ownership = owners.withLock({ $0[printer] }) else { return false }
    do {
      // A session already closed (a claim whose commit failed ends it) is not asked: postgres-nio
      // would never answer, and the printer would stay this daemon's until the bound.
      guard !ownership.connection.isClosed else { throw SessionClosed() }
      try await bounded(timeout, what: url.redacted, onTimeout: { try? await ownership.connection.close() }) { _ in
        try await ownership.connection.query("SELECT 1", logger: self.logger)
      }
      return true
    } catch {
      // The session is gone, and with it the lock: another daemon may own the printer now.
      logger.error("lost printer \(printer): its database session failed (\(StatementError.describe(error)))")
      try? await ownership.connection.close()
      owners.withLock { _ = $0.removeValue(forKey: printer) }
      return false
    }
  }

  func holds(printer: String) -> Bool {
    guard let ownership = owners.withLock({ $0[printer] }) else { return false }
    guard ownership.connection.isClosed else { return true }
    logger.error("lost printer \(printer): its database session ended")
    owners.withLock { if $0[printer]?.epoch == ownership.epoch { $0.removeValue(forKey: printer) } }
    return false
  }

  func release(printer: String) async {
    guard let ownership = owners.withLock({ $0.removeValue(forKey: printer) }) else { return }
    do {
      try await bounded(timeout, what: url.redacted) { _ in
        try await ownership.connection.query(
          "UPDATE printer_owner SET clean = true WHERE printer = \(printer) AND epoch = \(ownership.epoch)",
          logger: self.logger)
        try await ownership.connection.query(
          "SELECT pg_advisory_unlock(\(PostgresSchema.ownerLock), hashtext(\(printer)))", logger: self.logger)
      }
    } catch {
      logger.warning("could not record the clean release of printer \(printer): \(StatementError.describe(error))")
    }
    try? await ownership.connection.close()
  }

  /// Which daemon owns each printer, as `printer_owner` last recorded it.
  func printerOwners() async throws -> [String: String] {
    var result: [String: String] = [:]
    for row in try await rows("SELECT printer, owner FROM printer_owner WHERE NOT clean") {
      let (printer, owner) = try row.decode((String, String).self)
      result[printer] = owner
    }
    return result
  }
}
