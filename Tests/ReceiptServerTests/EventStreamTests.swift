import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// `GET /v1/events` on a live daemon over a plain socket: every state change of a job arrives,
/// in order, once; a reconnecting client resumes where it left off; a client whose place is
/// gone is told to reload; the stream ends when the daemon stops.
/// Waits are generous (they end as soon as what they wait for arrives): under the whole suite on
/// two cores a response can take many seconds.
@Suite(.timeLimit(.minutes(3))) struct EventStreamTests {
  /// The job's states as the events report them, in arrival order.
  static func states(of id: String, in events: [EventStreamClient.Event]) -> [String] {
    events.filter { $0.type == "job" && $0.json["id"] as? String == id }.compactMap { event in
      (event.json["state"] as? String).map { state in (event.json["stage"] as? String).map { "\(state)/\($0)" } ?? state
      }
    }
  }

  static func submit(_ fixture: ServerFixture, port: Int, template: String = "receipt") throws -> String {
    let answer = try RawConnection.request(
      port: port,
      "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + "Content-Length: \(ServerFixture.body(template: template).utf8.count)\r\n\r\n"
        + ServerFixture.body(template: template), timeout: 60)
    guard answer.hasPrefix("HTTP/1.1 202"), let start = answer.range(of: "\"id\":\"") else {
      throw RigError("submit failed: \(answer)")
    }
    return String(answer[start.upperBound...].prefix { $0 != "\"" })
  }

  @Test(arguments: StoreKind.allCases)
  func eachStateChangeOfAJobArrivesInOrderAndResumesAfterReconnecting(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.live { port in
      // The socket reads block: each runs off the concurrency pool (the daemon's tasks need it).
      let stream = try await offPool { try EventStreamClient(port: port) }
      _ = try await offPool { stream.read(timeout: 60) { _ in stream.head.contains("text/event-stream") } }
      #expect(stream.head.hasPrefix("HTTP/1.1 200"), "\(stream.head)")
      // Generous timeouts: in the full suite every test's daemon shares the two pool threads.
      let metrics = try await offPool {
        try RawConnection.request(
          port: port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 60)
      }
      #expect(metrics.contains("\nreceipt_event_listeners 1\n"), "one listener is counted")
      // Two jobs queued before the printer starts, a third canceled: the feed shows all of it.
      let first = try await offPool { try Self.submit(fixture, port: port) }
      let second = try await offPool { try Self.submit(fixture, port: port, template: "kitchen") }
      let third = try await offPool { try Self.submit(fixture, port: port) }
      _ = try await fixture.server.store.cancel(third)
      try await fixture.running {
        let arrived = try await offPool {
          stream.read(timeout: 60) { events in
            Self.states(of: first, in: events).last == "completed"
              && Self.states(of: second, in: events).last == "completed"
          }
        }
        #expect(arrived, "events: \(stream.events.map { "\($0.type) \($0.data.prefix(120))" })")
        for id in [first, second] {
          // Printing is two changes: claimed (its own work: rendering), then handed to its printer.
          let states = Self.states(of: id, in: stream.events)
          #expect(states == ["queued", "printing/rendering", "printing/printer", "completed"], "job \(id): \(states)")
        }
        #expect(Self.states(of: third, in: stream.events) == ["queued", "canceled"])
        // Commit order: the first job printed before the second (FIFO), and the ids increase.
        let jobEvents = stream.events.filter { $0.type == "job" }
        let completions = jobEvents.enumerated().filter { $0.element.json["state"] as? String == "completed" }
          .map { $0.element.json["id"] as? String }
        #expect(completions == [first, second])
        let numbers = stream.events.compactMap { $0.id?.split(separator: "-").last.flatMap { Int($0) } }
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        // The last event of a job is the job as GET /v1/jobs/{id} shows it.
        let last = jobEvents.last { $0.json["id"] as? String == second }
        let shown = try await offPool {
          try RawConnection.request(
            port: port, "GET /v1/jobs/\(second) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        }
        #expect(shown.hasSuffix(last?.data ?? "-"), "\(shown)")
        // Printers are reported to listeners too.
        #expect(stream.events.contains { $0.type == "printer" && $0.json["name"] as? String == "archive" })

        // Reconnecting after the first event: everything after it, nothing before.
        let firstID = try #require(jobEvents.first?.id)
        let expected = stream.events.filter { $0.id != nil }.drop { $0.id != firstID }.dropFirst()
        let resumed = try await offPool {
          let resumed = try EventStreamClient(port: port, lastEventID: firstID)
          resumed.read(timeout: 30) { $0.count >= expected.count }
          return resumed
        }
        #expect(resumed.events.prefix(expected.count).map(\.id) == expected.map(\.id))
        #expect(!resumed.events.contains { $0.id == firstID })

        // A place the daemon no longer has (another run's id): reset, reload.
        let lost = try await offPool {
          let lost = try EventStreamClient(port: port, lastEventID: "0-5")
          lost.read(timeout: 30) { !$0.isEmpty }
          return lost
        }
        #expect(lost.events.first?.type == "reset")
      }
    }
  }

  @Test func aStopEndsTheStream() async throws {
    let fixture = try ServerFixture()
    let stream = try await fixture.live { port in
      try await offPool {
        let stream = try EventStreamClient(port: port)
        stream.read(timeout: 60) { _ in stream.head.contains("text/event-stream") }
        return stream
      }
    }
    // `live` returned: the server shut down gracefully although a client was listening.
    #expect(stream.head.hasPrefix("HTTP/1.1 200"))
    let closed = try await offPool { () -> Bool in
      stream.read(timeout: 30) { _ in stream.closed }
      return stream.closed
    }
    #expect(closed, "the daemon closed the event stream when it stopped")
  }

  @Test func changesNobodyHeardMakeAResumingClientReload() {
    let hub = EventHub(boot: "t")
    let feed = JobEventFeed(hub: hub)
    #expect(!feed.wantsChanges, "nobody listens: the store does not read changes back")
    let first = hub.subscribe(lastEventID: nil)
    #expect(feed.wantsChanges)
    hub.publish(type: "job", data: "{}")
    hub.unsubscribe(first.id)
    feed.changesMissed()
    hub.publish(type: "job", data: "{}")
    #expect(hub.subscribe(lastEventID: "t-1").missed == nil, "across the gap: reset")
    #expect(hub.subscribe(lastEventID: "t-3").missed?.count == 0, "after it: nothing missed")
  }

  @Test func heartbeatsAreCommentsNeverKeptForReplay() async {
    let hub = EventHub(boot: "t")
    let subscription = hub.subscribe(lastEventID: nil)
    hub.heartbeat()
    hub.publish(type: "job", data: "{}")
    var frames: [String] = []
    for await event in subscription.events {
      frames.append(HTTPAPI.frame(event, hub: hub))
      if frames.count == 2 { break }
    }
    #expect(frames == [": keep-alive\n\n", "id: t-1\nevent: job\ndata: {}\n\n"])
    #expect(hub.subscribe(lastEventID: "t-0").missed?.map(\.number) == [1], "the ring holds events only")
  }

  @Test func aSlowListenerIsDroppedNotAllowedToGrowWithoutBound() {
    let hub = EventHub(boot: "t")
    let subscription = hub.subscribe(lastEventID: nil)
    for n in 0...EventHub.subscriberBuffer { hub.publish(type: "job", data: "{\"n\":\(n)}") }
    #expect(hub.subscriberCount == 0, "the listener that fell behind was dropped")
    // What it missed is still there for its reconnection.
    let again = hub.subscribe(lastEventID: "t-\(EventHub.subscriberBuffer - 10)")
    #expect(again.missed?.count == 11)
    hub.unsubscribe(subscription.id)
    hub.unsubscribe(again.id)
  }
}
