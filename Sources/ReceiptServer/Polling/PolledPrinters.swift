import Foundation
import ReceiptKit
@_spi(Internals) import ReceiptModel

/// What the daemon knows of its printers that poll (`cloudprnt:`, `epson-sdp:`), shared by their
/// workers and the protocols' routes: each one's last poll and the status it last reported, and the one job offered
/// to it — drawn by its worker (``offer(_:drawn:token:documents:now:)``), fetched by the device with
/// its token, then confirmed (or reported failed) by it. The worker waits for that outcome
/// (``outcome(of:token:)``) and records it in the queue as it does for every printer.
final class PolledPrinters: Sendable {
  /// Where an offer stands.
  enum Stage: Sendable, Equatable {
    /// Offered since then; the device has not fetched it.
    case offered(Date)
    /// Fetched by the device then, not confirmed yet.
    case fetched(Date)
    /// The device said how it ended.
    case ended(PolledConfirmation)
  }

  /// A job offered to a device: its token (one per attempt) and its document in each media
  /// type it is offered in, preferred first.
  struct Offer: Sendable {
    /// The job as its receipt was drawn: recorded as sent when the device first fetches it.
    let drawn: Job
    let token: String
    let documents: [(type: String, data: Data)]
    var stage: Stage

    /// The media types it is offered in.
    var mediaTypes: [String] { documents.map(\.type) }
  }

  /// A printer that polls: its configuration, its last poll, the device's answers to the
  /// client actions, the job it is offered, and its worker's wake-up.
  private struct Entry: Sendable {
    let printer: PrinterConfig
    var lastPoll: Date?
    var status: PrinterStatus?
    /// When a status a device reported once (not with every poll) stops holding its queue.
    var statusUntil: Date?
    var client: [String: String] = [:]
    var offer: Offer?
    var wake: (@Sendable () -> Void)?
  }

  private let entries: Locked<[String: Entry]>
  /// Device address (`cloudprnt:MAC`, `epson-sdp:ID`) → printer name.
  private let names: [String: String]
  /// Seconds without a poll after which a printer is unreachable (and an offer not fetched is
  /// given up).
  let pollTimeout: TimeInterval
  /// Seconds a device has to confirm a job it fetched.
  let confirmTimeout: TimeInterval

  init(printers: [PrinterConfig], pollTimeout: TimeInterval, confirmTimeout: TimeInterval) {
    var entries: [String: Entry] = [:]
    var names: [String: String] = [:]
    for printer in printers {
      guard case .polled(let device) = printer.target.delivery else { continue }
      entries[printer.name] = Entry(printer: printer)
      names[device] = printer.name
    }
    self.entries = Locked(entries)
    self.names = names
    self.pollTimeout = pollTimeout
    self.confirmTimeout = confirmTimeout
  }

  /// Whether any printer's address starts with `prefix` (`cloudprnt:`): a protocol's routes
  /// answer only then.
  func any(_ prefix: String) -> Bool { names.keys.contains { $0.hasPrefix(prefix) } }

  /// The printer a device is, by its address (`cloudprnt:MAC`, `epson-sdp:ID`).
  func printer(device: String) -> PrinterConfig? {
    guard let name = names[device] else { return nil }
    return entries.withLock { $0[name]?.printer }
  }

  /// Lets `printer`'s worker be woken when its device fetches or confirms.
  func register(_ printer: String, wake: @escaping @Sendable () -> Void) {
    entries.withLock { $0[printer]?.wake = wake }
  }

  /// Records a poll; returns the offer's token while the device should fetch it (offered, not
  /// fetched yet, and the device can print), and whether the device was asked for its client
  /// information already. A fetched job is not announced again — the device prints it, or it
  /// vanished and the job is offered again, as a reprint, after the confirmation deadline — and
  /// one the device reports an error for (a `4xx` code: paper out mid-receipt) has failed.
  func polled(_ printer: String, status reported: PrinterStatus?, client: [String: String] = [:], now: Date)
    -> (token: String?, knowsClient: Bool)
  {
    let (result, wake) = entries.withLock { entries -> ((String?, Bool), (@Sendable () -> Void)?) in
      guard var entry = entries[printer] else { return ((nil, true), nil) }
      let knew = !entry.client.isEmpty
      entry.lastPoll = now
      if let reported {
        entry.status = reported
        entry.statusUntil = nil
      } else if let until = entry.statusUntil, now >= until {
        entry.status = nil
      }
      let canPrint = entry.status?.state != .stopped
      entry.client.merge(client) { _, new in new }
      var token: String?
      var wake: (@Sendable () -> Void)?
      if var offer = entry.offer {
        switch offer.stage {
        case .offered:
          if canPrint { token = offer.token }
        case .fetched:
          if let reported, reported.state == .stopped {
            offer.stage = .ended(.failed("the printer reported \(reported.message) while printing"))
            entry.offer = offer
            wake = entry.wake
          }
        case .ended: break
        }
      }
      entries[printer] = entry
      return ((token, knew || !client.isEmpty), wake)
    }
    wake?()
    return result
  }

  /// Why `printer` must not be offered a job now: it has not polled within ``pollTimeout``
  /// (or not yet), or its last poll says it cannot print. Nil while it can.
  func hold(_ printer: String, now: Date) -> PrinterStatus? {
    entries.withLock { entries in
      guard let entry = entries[printer] else { return nil }
      guard let last = entry.lastPoll else {
        return PrinterStatus(
          state: .unavailable, reasons: ["offline-report"], message: "it has not polled the daemon yet")
      }
      if now.timeIntervalSince(last) > pollTimeout {
        return PrinterStatus(
          state: .unavailable, reasons: ["offline-report"],
          message: "it has not polled the daemon for \(String(format: "%.0f", now.timeIntervalSince(last))) s")
      }
      guard let status = entry.status, status.state == .stopped, entry.statusUntil.map({ now < $0 }) ?? true else {
        return nil
      }
      return status
    }
  }

  /// What `GET /v1/printers` shows: the state (as ``hold(_:now:)``, else the last poll's), its
  /// reasons, and when it last polled.
  func state(_ printer: String, now: Date) -> (state: PrinterState, reasons: [String], lastPoll: Date?) {
    let (status, last) = entries.withLock { ($0[printer]?.status, $0[printer]?.lastPoll) }
    if let hold = hold(printer, now: now) { return (hold.state, hold.reasonKeywords + [hold.message], last) }
    let polled = status ?? PrinterStatus(state: .idle)
    return (polled.state, polled.reasonKeywords, last)
  }

  /// Records a status a device reported once (a Server Direct Print result): it holds the
  /// printer's queue, if it says the printer cannot print, for ``pollTimeout`` — then the job is
  /// offered again (such a printer says nothing of its state while it polls).
  func reported(_ printer: String, status: PrinterStatus, now: Date = Date()) {
    entries.withLock { entries in
      entries[printer]?.status = status
      entries[printer]?.statusUntil = now.addingTimeInterval(pollTimeout)
    }
  }

  /// Offers a drawn job to `printer`'s device (the one offer it has).
  func offer(
    _ printer: String, drawn: Job, token: String, documents: [(type: String, data: Data)], now: Date = Date()
  ) {
    entries.withLock {
      $0[printer]?.offer = Offer(drawn: drawn, token: token, documents: documents, stage: .offered(now))
    }
  }

  /// The offer with `token`, if it is `printer`'s current one.
  func current(_ printer: String, token: String?) -> Offer? {
    entries.withLock { entries in
      guard let offer = entries[printer]?.offer, token == nil || offer.token == token else { return nil }
      return offer
    }
  }

  /// The device fetched the offer with `token` as `type` (nil: the first offered): its document,
  /// the job as drawn, and whether this is the first fetch (the queue records it as sent then).
  /// Nil when `token` is not the current offer or it is not offered as `type`.
  func fetched(_ printer: String, token: String, type: String? = nil, now: Date = Date()) -> (
    document: Data, drawn: Job, first: Bool
  )? {
    let (result, wake) = entries.withLock { entries -> ((Data, Job, Bool)?, (@Sendable () -> Void)?) in
      guard var offer = entries[printer]?.offer, offer.token == token,
        let document = offer.documents.first(where: { type == nil || $0.type == type })?.data
      else { return (nil, nil) }
      switch offer.stage {
      case .offered:
        offer.stage = .fetched(now)
        entries[printer]?.offer = offer
        return ((document, offer.drawn, true), entries[printer]?.wake)
      case .fetched: return ((document, offer.drawn, false), nil)
      case .ended: return (nil, nil)
      }
    }
    wake?()
    return result
  }

  /// The device's confirmation of the offer with `token`; false when it is not the current one.
  @discardableResult
  func confirmed(_ printer: String, token: String?, _ confirmation: PolledConfirmation) -> Bool {
    let wake = entries.withLock { entries -> (@Sendable () -> Void)?? in
      guard var offer = entries[printer]?.offer, token == nil || offer.token == token else { return .none }
      if case .ended = offer.stage { return .none }
      offer.stage = .ended(confirmation)
      entries[printer]?.offer = offer
      return .some(entries[printer]?.wake)
    }
    guard let wake else { return false }
    wake?()
    return true
  }

  /// Where the offer with `token` stands (nil: withdrawn).
  func stage(_ printer: String, token: String) -> Stage? {
    entries.withLock { entries in
      guard let offer = entries[printer]?.offer, offer.token == token else { return nil }
      return offer.stage
    }
  }

  /// Withdraws `printer`'s offer with `token` (it ended, or its worker gave it up).
  func withdraw(_ printer: String, token: String) {
    entries.withLock { entries in
      if entries[printer]?.offer?.token == token { entries[printer]?.offer = nil }
    }
  }
}
