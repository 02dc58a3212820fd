import Foundation
@_spi(Internals) import ReceiptModel

/// Counters and latency histograms for `GET /metrics` (Prometheus text format).
final class ServerMetrics: Sendable {
  private static let buckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30]

  private struct State {
    var render = [Int](repeating: 0, count: ServerMetrics.buckets.count + 1)
    var renderSum = 0.0
    var printing = [Int](repeating: 0, count: ServerMetrics.buckets.count + 1)
    var printSum = 0.0
    /// Per route since the daemon started: tickets accepted, printed, and moved to a fallback.
    var routeCounters: [String: [String: Int]] = [:]
    /// Per webhook since the daemon started: deliveries by outcome (`accepted`, `repeated`,
    /// `refused`: a bad signature).
    var webhookCounters: [String: [String: Int]] = [:]
  }

  private let state = Locked(State())

  func countTicket(route: String) { count("accepted", route: route) }
  func countPrintedTicket(route: String) { count("printed", route: route) }
  func countFailover(route: String) { count("failed_over", route: route) }

  /// A webhook delivery: a new one (`accepted: true`), one seen before (`false`), or — from
  /// the signature check — refused.
  func countWebhook(_ name: String, accepted: Bool?) {
    let outcome = accepted.map { $0 ? "accepted" : "repeated" } ?? "refused"
    state.withLock { $0.webhookCounters[name, default: [:]][outcome, default: 0] += 1 }
  }

  private func count(_ what: String, route: String) {
    state.withLock { $0.routeCounters[what, default: [:]][route, default: 0] += 1 }
  }

  func observeRender(seconds: Double) {
    state.withLock { state in
      state.render[Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count] += 1
      state.renderSum += seconds
    }
  }

  func observePrint(seconds: Double) {
    state.withLock { state in
      state.printing[Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count] += 1
      state.printSum += seconds
    }
  }

  /// The Prometheus exposition of the histograms and the job counts.
  func exposition(counts: JobCounts, eventListeners: Int = 0) -> String {
    let state = self.state.withLock { $0 }
    var out = "# HELP receipt_event_listeners Clients reading GET /v1/events.\n# TYPE receipt_event_listeners gauge\n"
    out += "receipt_event_listeners \(eventListeners)\n"
    out += "# HELP receipt_jobs Jobs by printer and state.\n# TYPE receipt_jobs gauge\n"
    for (printer, states) in counts.byPrinter {
      for (job, n) in states { out += "receipt_jobs{printer=\"\(printer)\",state=\"\(job.rawValue)\"} \(n)\n" }
    }
    for what in ["accepted", "printed", "failed_over"] {
      out += "# HELP receipt_route_tickets_\(what)_total Tickets of orders per route.\n"
      out += "# TYPE receipt_route_tickets_\(what)_total counter\n"
      for (route, n) in (state.routeCounters[what] ?? [:]).sorted(by: { $0.key < $1.key }) {
        out += "receipt_route_tickets_\(what)_total{route=\"\(route)\"} \(n)\n"
      }
    }
    out += "# HELP receipt_webhook_deliveries_total Webhook deliveries by outcome.\n"
    out += "# TYPE receipt_webhook_deliveries_total counter\n"
    for (webhook, outcomes) in state.webhookCounters.sorted(by: { $0.key < $1.key }) {
      for (outcome, n) in outcomes.sorted(by: { $0.key < $1.key }) {
        out += "receipt_webhook_deliveries_total{webhook=\"\(webhook)\",outcome=\"\(outcome)\"} \(n)\n"
      }
    }
    for (name, counts, sum) in [
      ("receipt_render_seconds", state.render, state.renderSum),
      ("receipt_print_seconds", state.printing, state.printSum),
    ] {
      out += "# TYPE \(name) histogram\n"
      var cumulative = 0
      for (i, bound) in Self.buckets.enumerated() {
        cumulative += counts[i]
        out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
      }
      cumulative += counts[Self.buckets.count]
      out += "\(name)_bucket{le=\"+Inf\"} \(cumulative)\n\(name)_sum \(sum)\n\(name)_count \(cumulative)\n"
    }
    return out
  }
}
