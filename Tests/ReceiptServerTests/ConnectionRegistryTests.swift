import NIOCore
import NIOEmbedded
import Testing

@testable import ReceiptServer

/// Which connection the daemon closes when more than `maxConnections` are open.
@Suite struct ConnectionRegistryTests {
  /// A connection in a request (its head came, the daemon answers) the registry knows.
  func answering(_ registry: ConnectionRegistry) -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    registry.opened(channel)
    registry.busy(channel)
    registry.answering(channel)
    return channel
  }

  /// Two event streams fill `maxConnections` 2; a till connects (a third) and, before its
  /// request arrives, a stream ends (its answer written, the connection idle): the till's
  /// connection, opened a moment ago and not yet asked, is not the one closed — the ended
  /// stream's own is left for a later arrival to make room.
  @Test func aConnectionAboutToAskIsNotClosedWhenAnotherAnswerEnds() {
    let registry = ConnectionRegistry(maxConnections: 2)
    let streams = [answering(registry), answering(registry)]
    let till = EmbeddedChannel()
    registry.opened(till)  // 3 open: every other one is answering, nothing to close
    #expect(registry.count == 3)
    registry.idle(streams[0])
    #expect(registry.count == 3, "the till's connection was closed before it could ask")
    // Its request arrives and is answered; the next ended answer closes an idle connection
    // that has asked before (the first stream's), not the one ending.
    registry.busy(till)
    registry.answering(till)
    registry.idle(till)
    #expect(registry.count == 2, "an idle connection that had its answer is closed to make room")
    registry.idle(streams[1])
    #expect(registry.count == 2)
  }

  /// Two event streams fill `maxConnections` 2; a till connects, then a stream ends (its
  /// connection idle, nothing closed: the till's is new), and another stream's connection opens
  /// (accepted before the till's, its opening handled after it on another event loop): the
  /// connection closed to make room is the ended stream's, not the till's — which had been
  /// "idle" longer only because it had just opened.
  @Test func aConnectionAboutToAskIsNotClosedForALaterArrival() {
    let registry = ConnectionRegistry(maxConnections: 2)
    let streams = [answering(registry), answering(registry)]
    let till = EmbeddedChannel()
    registry.opened(till)
    registry.idle(streams[0])
    #expect(registry.count == 3)
    let late = EmbeddedChannel()
    registry.opened(late)
    #expect(registry.count == 3)
    registry.closed(streams[0])
    #expect(registry.count == 3, "the ended stream's connection was still open: the till's was closed")
    registry.closed(till)
    #expect(registry.count == 2)
  }

  /// A new connection beyond `maxConnections` still closes the connection that has waited
  /// longest without a request, however new (a flood of idle connections never locks a till out).
  @Test func aNewConnectionMakesRoomByClosingTheIdlestOne() {
    let registry = ConnectionRegistry(maxConnections: 2)
    let (first, second) = (EmbeddedChannel(), EmbeddedChannel())
    registry.opened(first)
    registry.opened(second)
    registry.opened(EmbeddedChannel())
    #expect(registry.count == 2)
    registry.closed(second)
    #expect(registry.count == 1, "the second connection was still open: the first was closed")
    registry.closed(first)  // already gone: nothing happens
    #expect(registry.count == 1)
  }
}
