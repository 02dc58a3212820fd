import Foundation
import Logging
import ReceiptKit

/// How the daemon sends e-receipts: the shop's sender address and the transport's handoff.
struct MailSettings: Sendable {
  /// `From:` of every e-receipt (`mailFrom`).
  let from: String
  let handoff: MailHandoff
  /// Seconds a transport may take to take a message before the attempt is retried.
  var timeout: TimeInterval = 300
}

extension PrintWorker {
  /// An e-receipt: the job's document as a PDF (the same bytes `/v1/render` gives for it) with
  /// its text, handed to the mail transport (``MailHandoff``) once. A handoff of this job from
  /// before a restart is looked at first: finished well, the job is done without a second
  /// message; still running, it is waited for; cut off before its transport finished, the
  /// message was not handed over and is sent again. Printed means the transport took it.
  func printMail(_ job: Job, fixed: String?) async throws -> Int? {
    guard let mail else {
      throw ReceiptError(.printer, "no mail transport: set mailFrom in the configuration", permanent: true)
    }
    let handoff = mail.handoff
    let name = job.id
    if case .finished(let status, _) = handoff.state(of: name), status != 0 {
      handoff.remove(name)  // an earlier attempt's refusal was recorded then; this one sends again
    }
    if handoff.state(of: name) == .none {
      guard let recipient = fixed ?? job.recipient else {
        throw ReceiptError(.data, "job \(job.id) has no e-mail address", permanent: true)
      }
      let message = try await pool.run { [self] in
        let document = try self.document(job)
        let pdf = try self.engine.render(document, format: .pdf).parts[0]
        if let archive = self.archive { _ = try ArchiveFile.write(pdf, job: job.id, in: archive) }
        let domain = mail.from.split(separator: "@").last.map(String.init) ?? "localhost"
        let title = document.title.isEmpty ? "Receipt" : document.title
        do {
          return try MailMessage(
            from: mail.from, to: recipient, subject: title, text: document.plainText, pdf: pdf,
            fileName: Self.attachmentName(title), messageID: "\(job.id)@\(domain)")
        } catch let error as MailError {
          throw ReceiptError(.data, "\(error)", permanent: true)
        }
      }
      await handedOver(job)
      do {
        // On the printer's thread: it writes the message and waits for `setsid` to fork.
        try await pool.run { try handoff.start(message, name: name) }
      } catch let error as MailError {
        throw ReceiptError(.printer, "\(error)", permanent: !error.isTemporary)
      }
    } else {
      logger.info("job \(job.id): its e-mail was handed to the transport before a restart; its outcome decides")
    }
    let state = await handoff.wait(for: name, timeout: mail.timeout, shouldStop: shouldStop)
    switch state {
    case .finished(let status, _) where status == 0:
      handoff.remove(name)
      return nil
    case .finished(let status, let said):
      let error = MailError.refused(status: status, message: said)
      throw ReceiptError(.printer, "\(error)", permanent: !error.isTemporary)
    case .running:
      if mustLeave { throw Interrupted() }
      throw ReceiptError(.printer, "the mail transport has not finished after \(Int(mail.timeout)) s; waiting again")
    case .none:
      handoff.remove(name)
      throw ReceiptError(.printer, "the mail transport stopped before it took the message; sending it again")
    }
  }

  /// The attachment's file name: the title's letters, digits and dashes (`Receipt-1042.pdf`).
  static func attachmentName(_ title: String) -> String {
    let kept = title.map { $0.isLetter || $0.isNumber ? $0 : "-" }
    let name = String(kept).split(separator: "-").joined(separator: "-")
    return (name.isEmpty ? "receipt" : String(name.prefix(80))) + ".pdf"
  }
}
