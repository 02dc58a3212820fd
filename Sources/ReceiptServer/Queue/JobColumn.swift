import Foundation

/// A job's stored fields, declared once: the columns of both stores' `job` table, in the order
/// the tables list them. They are ``Job``'s coding keys, so the compiler holds every column to a
/// property of the same name; GRDB reads and writes a job by them, the PostgreSQL store builds its
/// statements, decodes its rows by name (``PostgresRowDecoder``) and its change feed from them,
/// and `JobSchemaTests` compares each store's live table — name, kind, nullability — with this
/// declaration.
///
/// A new column: a property of ``Job``, its case here (with its kind and nullability), and one
/// migration per store (`SQLiteJobStore+Schema`, `PostgresSchema`).
enum JobColumn: String, CodingKey, CaseIterable, Sendable {
  case sequence, id, idempotencyKey, printer, template, data, locale, copies, state, attempts, crashes, error
  case cupsJobID, printerState, createdAt, updatedAt, notBefore, orderID, route, label, fallback, fallbackFor
  case failoverReason, reprintOf, reprint, documentSHA256, sentAt, processID, interruptions, stage
  case documentFormat, jobName, user, printOptions, recipient

  /// What a column holds.
  enum Kind: Sendable, Equatable {
    case integer, text, blob, date
  }

  var kind: Kind {
    switch self {
    case .sequence, .copies, .attempts, .crashes, .cupsJobID, .reprint, .interruptions: .integer
    case .data: .blob
    case .createdAt, .updatedAt, .notBefore, .sentAt: .date
    default: .text
    }
  }

  /// Whether the column may be NULL (the property is an optional).
  var isNullable: Bool {
    switch self {
    case .idempotencyKey, .locale, .error, .cupsJobID, .printerState, .orderID, .route, .label, .fallback,
      .fallbackFor, .failoverReason, .reprintOf, .documentSHA256, .sentAt, .processID, .stage, .documentFormat,
      .jobName, .user, .printOptions, .recipient:
      true
    default: false
    }
  }

  /// The columns a change of a stored job writes back: all but its identity (`sequence`, `id`)
  /// and its document (`data`, written only when it changed: a held job's document arriving).
  static let changeable = allCases.filter { ![.sequence, .id, .data].contains($0) }
}

extension Job {
  /// The stored fields are the declared columns (see ``JobColumn``).
  typealias CodingKeys = JobColumn
}
