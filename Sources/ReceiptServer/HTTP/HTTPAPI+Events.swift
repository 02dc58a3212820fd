import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension HTTPAPI {
  /// GET /v1/events: Server-Sent Events. `job` events carry a job (as `GET /v1/jobs/{id}`) at
  /// every committed change, in commit order; `printer` events a printer (as in
  /// `GET /v1/printers`) when its state or reasons change; `reset` tells a client that
  /// reconnected too late (or to a restarted daemon) to reload, because changes were missed.
  /// `Last-Event-ID` resumes after the last event a client saw.
  func events(_ request: Request) -> Response {
    let lastEventID = request.headers[.lastEventID]
    let subscription = hub.subscribe(lastEventID: lastEventID)
    let hub = self.hub
    let body = ResponseBody { writer in
      defer { hub.unsubscribe(subscription.id) }
      // The browser's EventSource reconnects after `retry` ms; the first line also flushes the
      // headers so the client knows it is subscribed.
      var head = "retry: 2000\n\n"
      if let missed = subscription.missed {
        for event in missed { head += Self.frame(event, hub: hub) }
      } else {
        head += "event: reset\ndata: {\"reason\":\"events were missed; reload the state\"}\n\n"
      }
      try await writer.write(ByteBuffer(string: head))
      try await withGracefulShutdownHandler {
        for await event in subscription.events {
          try await writer.write(ByteBuffer(string: Self.frame(event, hub: hub)))
        }
      } onGracefulShutdown: {
        hub.unsubscribe(subscription.id)
      }
      try await writer.finish(nil)
    }
    return Response(
      status: .ok,
      headers: [
        .contentType: "text/event-stream", .cacheControl: "no-store", .xAccelBuffering: "no",
      ],
      body: body)
  }

  /// One event in the SSE wire format (the JSON has no newlines: one `data:` line); a
  /// heartbeat is a comment.
  static func frame(_ event: EventHub.Event, hub: EventHub) -> String {
    if event.number == 0 { return ": keep-alive\n\n" }
    return "id: \(hub.id(of: event))\nevent: \(event.type)\ndata: \(event.data)\n\n"
  }
}
