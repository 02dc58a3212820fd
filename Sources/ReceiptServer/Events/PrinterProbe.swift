import Foundation
import ReceiptKit

/// What every configured printer is doing, with its queue: asked of the printers themselves
/// (CUPS' queue, a raw printer's ESC/POS status) on the daemon's blocking pool (`429` when it is
/// busy). `GET /v1/printers` answers with it and the printer watch of the event feed polls it.
struct PrinterProbe: Sendable {
  let configuration: ReceiptServer.Configuration
  let store: any JobStore
  let engine: ReceiptEngine
  let blocking: BlockingPool
  /// The printers that poll: their state is what their last poll said.
  let polled: PolledPrinters

  /// Every configured printer with its queue counts and state.
  func responses() async throws -> [PrinterResponse] {
    let counts = try await store.counts()
    let owners = try await store.printerOwners()
    let states = try await blocking.run { configuration.printers.map(state) }
    return zip(configuration.printers, states).map { printer, status in
      let (state, reasons) = status
      var response = PrinterResponse(
        name: printer.name, target: printer.target.description, queued: counts.count(printer.name, .queued),
        printing: counts.count(printer.name, .printing), state: state, reasons: reasons, owner: owners[printer.name])
      if case .polled = printer.target.delivery {
        let polled = self.polled.state(printer.name, now: Date())
        response.state = polled.state == .unavailable ? "unreachable" : polled.state.rawValue
        response.reasons = polled.reasons
        response.lastPoll = polled.lastPoll
      }
      return response
    }
  }

  /// What a printer is doing, as its ``Printer`` says: CUPS' queue state and reasons
  /// (`rejecting` when it takes no jobs), a directory's availability, `unknown` for a socket
  /// printer; `missing` or `unreachable` when it cannot be opened.
  private func state(_ printer: PrinterConfig) -> (String, [String]) {
    let target = printer.target
    if case .polled = target.delivery { return ("unknown", []) }  // its polls say (above)
    guard printer.answersStatusRequests else {
      return ("unknown", ["the printer model \(printer.model?.name ?? "") is not asked for its status"])
    }
    do {
      let status = try engine.printerStatus(target.address, server: target.server, model: printer.model)
      let reasons = (status.reasonKeywords + [status.message]).filter { !$0.isEmpty }
      return (status.acceptingJobs ? status.state.rawValue : "rejecting", reasons)
    } catch let error as ReceiptError {
      return (error.isPermanent ? "missing" : "unreachable", [error.message])
    } catch {
      return ("unreachable", ["\(error)"])
    }
  }
}
