public import Foundation
import PostgresNIO
import Synchronization

/// Which daemon drives a printer.
///
/// Ownership is a session-level advisory lock (`pg_try_advisory_lock`) held on a connection of its
/// own, chosen over a lease table because PostgreSQL ends it by itself when the session dies: a
/// daemon killed with `kill -9` loses its printers the moment the kernel closes its socket (a
/// vanished machine within TCP keepalive, ~15 s), with no lease length to tune. It is fenced:
/// every taking-over increments the printer's `epoch`; a job is claimed with the token
/// `instance#epoch` on the owning session, and this daemon's later writes about it apply only
/// while the job still carries that token — a daemon that lost its session cannot claim, and
/// cannot overwrite what the new owner recorded.
extension PostgresJobStore {
  public func own(printer: String, maxCrashes: Int, now: Date) throws -> [Job]? {
    if owners.withLock({ $0[printer] }) != nil { return [] }
    let session = try guarded { try sessions.connect() }
    do {
      // A vanished client machine is noticed within about 15 s (idle 5 s, 5 probes 2 s apart).
      for setting in ["tcp_keepalives_idle = 5", "tcp_keepalives_interval = 2", "tcp_keepalives_count = 5"] {
        try sessions.run(PostgresQuery(unsafeSQL: "SET " + setting), on: session)
      }
      let name = "receipt owns \(printer) (\(instance))"
      try sessions.run("SELECT set_config('application_name', \(String(name.prefix(60))), false)", on: session)
      let locked = try sessions.run(
        "SELECT pg_try_advisory_lock(\(PostgresSchema.ownerLock), hashtext(\(printer)))", on: session)
      guard try locked.first?.decode(Bool.self) == true else {
        session.hangUp()
        return nil
      }
      let (ownership, recovered) = try takeOver(printer, session: session, maxCrashes: maxCrashes, now: now)
      owners.withLock { $0[printer] = ownership }
      return recovered
    } catch {
      session.hangUp()
      throw error
    }
  }

  /// Records the new owner and puts the jobs the last owner left `printing` back at the head of
  /// the queue (counting a crash for each it was still rendering or sending, unless it stopped
  /// cleanly), in one transaction on the owning session.
  private func takeOver(_ printer: String, session: PostgresConnection, maxCrashes: Int, now: Date) throws -> (
    PrinterOwnership, [Job]
  ) {
    try sessions.run("BEGIN", on: session)
    let previous = try sessions.run(
      "SELECT epoch, clean, owner FROM printer_owner WHERE printer = \(printer) FOR UPDATE", on: session
    ).first.map { try $0.decode((Int64, Bool, String).self) }
    let epoch = (previous?.0 ?? 0) + 1
    // This daemon taking its own printer back (its session broke: PostgreSQL restarted) is no crash.
    let clean = previous.map { $0.1 || $0.2 == instance } ?? true
    try sessions.run(
      """
      INSERT INTO printer_owner (printer, epoch, owner, clean, since) VALUES (\(printer), \(epoch), \(instance), false, \(now))
      ON CONFLICT (printer) DO UPDATE SET epoch = excluded.epoch, owner = excluded.owner, clean = false,
        since = excluded.since
      """, on: session)
    var jobs = try sessions.run(
      """
      SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE printer = \(printer) AND state = 'printing'
      ORDER BY sequence FOR UPDATE
      """, on: session
    ).map(Job.init(postgres:))
    for i in jobs.indices {
      jobs[i].recoverFromCrash(counted: !clean, maxCrashes: maxCrashes, now: now)
      try sessions.run(
        """
        UPDATE job SET state = \(jobs[i].state.rawValue), crashes = \(jobs[i].crashes), error = \(jobs[i].error),
          stage = NULL, "updatedAt" = \(now), claim = NULL
        WHERE sequence = \(jobs[i].sequence)
        """, on: session)
    }
    try sessions.run("COMMIT", on: session)
    return (PrinterOwnership(session: session, epoch: epoch, token: "\(instance)#\(epoch)"), jobs)
  }

  public func owns(printer: String) -> Bool {
    guard let ownership = owners.withLock({ $0[printer] }) else { return false }
    do {
      try sessions.run("SELECT 1", on: ownership.session)
      return true
    } catch {
      // The session is gone, and with it the lock: another daemon may own the printer now.
      logger.error("lost printer \(printer): its database session failed (\(error))")
      ownership.session.hangUp()
      owners.withLock { _ = $0.removeValue(forKey: printer) }
      return false
    }
  }

  public func release(printer: String) {
    guard let ownership = owners.withLock({ $0.removeValue(forKey: printer) }) else { return }
    do {
      try sessions.run(
        "UPDATE printer_owner SET clean = true WHERE printer = \(printer) AND epoch = \(ownership.epoch)",
        on: ownership.session)
      try sessions.run(
        "SELECT pg_advisory_unlock(\(PostgresSchema.ownerLock), hashtext(\(printer)))", on: ownership.session)
    } catch {
      logger.warning("could not record the clean release of printer \(printer): \(error)")
    }
    ownership.session.hangUp()
  }

  /// Which daemon owns each printer, as `printer_owner` last recorded it.
  public func printerOwners() throws -> [String: String] {
    var result: [String: String] = [:]
    for row in try query("SELECT printer, owner FROM printer_owner WHERE NOT clean") {
      let (printer, owner) = try row.decode((String, String).self)
      result[printer] = owner
    }
    return result
  }
}
