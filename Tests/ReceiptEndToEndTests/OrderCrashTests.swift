import Foundation
import ReceiptTestSupport
import Testing

/// `POST /v1/orders` to the shipped daemon under concurrent clients, killed with SIGKILL at
/// random moments and restarted. Clients resend an unanswered order with its Idempotency-Key.
/// Every order that got 202 (or 200) has all three tickets printed once — counter, kitchen and
/// bar, each at its directory printer — and no order has only some; a resent key is the same
/// order.
@Suite(.serialized) struct OrderCrashTests {
  @Test func killNineDuringOrdersLeavesNoOrderHalfPrinted() throws {
    var random = SeededGenerator(defaultSeed: 2_026_112_4)
    let seeds = (0..<3).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
    let note = random.seedNote
    let dirs = try OrderRoutingTests.directories(["counter", "kitchen", "bar"])
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    let printers = dirs.map { "\"\($0.key)\": \"dir:\($0.value.path)\"" }.joined(separator: ", ")
    try #"{"printers": {\#(printers)}, "routes": \#(OrderRoutingTests.restaurantRoutes), "maxCrashes": 1000}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--templates",
        OrderRoutingTests.templates,
      ],
      log: work.appendingPathComponent("serve.log"))
    try daemon.start()

    let clients = 3
    let perClient = 30
    let accepted = Accepted()
    let giveUp = Date().addingTimeInterval(180)
    let group = DispatchGroup()
    for client in 0..<clients {
      group.enter()
      let seed = seeds[client]
      Thread.detachNewThread {
        defer { group.leave() }
        var random = SeededGenerator(defaultSeed: seed)
        for n in 0..<perClient where Date() < giveUp {
          Thread.sleep(forTimeInterval: Double.random(in: 0.04...0.12, using: &random))  // a till's pace
          let number = "C\(client)-\(n)"
          let order = OrderRoutingTests.restaurantOrder.replacingOccurrences(of: "T-2031", with: number)
          let body = Data(#"{"data": \#(order)}"#.utf8)
          let key = "order-\(client)-\(n)"
          while Date() < giveUp {
            guard
              let response = try? daemon.request(
                "POST", "/v1/orders", body: body, headers: ["Idempotency-Key": key], timeout: 5),
              [200, 202].contains(response.status), let id = response.json["id"] as? String
            else {
              Thread.sleep(forTimeInterval: 0.05)
              continue
            }
            let tickets = (response.json["tickets"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            accepted.add(key: key, order: id, tickets: tickets)
            // Now and then the answer is "lost": the same key must give the same order.
            if Int.random(in: 0..<4, using: &random) == 0,
              let again = try? daemon.request(
                "POST", "/v1/orders", body: body, headers: ["Idempotency-Key": key], timeout: 5)
            {
              accepted.resent(key: key, status: again.status, order: again.json["id"] as? String)
            }
            break
          }
        }
      }
    }
    // Four kills, each when the clients have had a given share of their answers (random shares,
    // all before the last): every kill lands under load however fast the machine is.
    let total = clients * perClient
    let shares = (0..<4).map { k in 0.1 + 0.2 * Double(k) + Double.random(in: 0..<0.1, using: &random) }
    var kills = 0
    for share in shares {
      guard waitUntil(seconds: 120, poll: 0.01, { accepted.orders.count >= Int(share * Double(total)) }) else { break }
      daemon.kill9()
      kills += 1
      try daemon.start()
    }
    #expect(group.wait(timeout: .now() + 120) == .success, "the clients finished (\(note))")
    #expect(kills == shares.count, "killed under load \(kills) times")
    daemon.kill9()
    try daemon.start()
    defer { _ = daemon.terminate() }

    let orders = accepted.orders
    #expect(orders.count == clients * perClient, "every order was accepted once retried (\(note))")
    for (key, resend) in accepted.resends {
      #expect(resend.status == 200 && resend.order == orders[key]?.order, "\(key) (\(note))")
    }
    let drained = waitUntil(seconds: 120) {
      orders.values.allSatisfy { OrderRoutingTests.orderState(daemon, $0.order)["state"] as? String == "completed" }
    }
    #expect(drained, "every order printed (\(note))")
    var files: [String: [String]] = [:]
    for (name, dir) in dirs { files[name] = OrderRoutingTests.pdfs(dir).map(\.lastPathComponent) }
    for (name, list) in files {
      #expect(list.count == orders.count, "\(name): \(list.count) documents for \(orders.count) orders (\(note))")
    }
    for (key, order) in orders {
      #expect(order.tickets.count == 3, "\(key) has all its tickets")
      for (ticket, printer) in zip(order.tickets, ["counter", "kitchen", "bar"]) {
        #expect(files[printer]!.filter { $0.contains(ticket) }.count == 1, "\(key) at \(printer) (\(note))")
      }
    }
  }

  /// What the clients were told.
  final class Accepted: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String: (order: String, tickets: [String])] = [:]
    private var again: [(String, (status: Int, order: String?))] = []

    func add(key: String, order: String, tickets: [String]) { lock.withLock { list[key] = (order, tickets) } }
    func resent(key: String, status: Int, order: String?) { lock.withLock { again.append((key, (status, order))) } }
    var orders: [String: (order: String, tickets: [String])] { lock.withLock { list } }
    var resends: [(String, (status: Int, order: String?))] { lock.withLock { again } }
  }
}
