import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// Requests straight to an application's responder, with no socket — what the daemon's
/// in-process suites need of an HTTP client (`app.test(.router) { client in … }`, the shape of
/// HummingbirdTesting's router mode). The HummingbirdTesting product is not used: it brings
/// AsyncHTTPClient, HTTP/2 and their relatives into every build for its other modes (a minute of
/// `make test`'s compile), which these tests never take. Live connections are made with
/// `RawHTTP` (Tests/Support).
enum TestingSetup {
  /// The application's responder, called in process.
  case router
}

/// An answer as the tests read it: status, headers and the whole body.
struct TestResponse: Sendable {
  var head: HTTPResponse
  var body: ByteBuffer
  var status: HTTPResponse.Status { head.status }
  var headers: HTTPFields { head.headerFields }
}

/// Sends requests to an application.
protocol TestClientProtocol: Sendable {
  func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?)
    async throws -> TestResponse
}

extension TestClientProtocol {
  /// Sends a request and hands its answer to `check`, returning what it returns.
  @discardableResult
  func execute<Value>(
    uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
    _ check: (TestResponse) async throws -> Value = { $0 }
  ) async throws -> Value {
    try await check(try await executeRequest(uri: uri, method: method, headers: headers, body: body))
  }
}

/// The router client: a request made as the server makes one from a connection (`Content-Length`
/// set for a body), answered by the responder, its body written out whole.
struct RouterClient<Responder: HTTPResponder>: TestClientProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
  let responder: Responder
  let logger: Logger

  func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?)
    async throws -> TestResponse
  {
    var headers = headers
    if let body { headers[.contentLength] = String(body.readableBytes) }
    let request = Request(
      head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
      body: RequestBody(buffer: body ?? ByteBuffer()))
    let context = Responder.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
    let response: Response
    do {
      response = try await responder.respond(to: request, context: context)
    } catch {
      response = Response(status: .internalServerError)
    }
    let writer = CollectingWriter()
    try await response.body.write(writer)
    return TestResponse(head: response.head, body: writer.collected.withLock { $0 })
  }

  /// Keeps what a response body writes.
  final class CollectingWriter: ResponseBodyWriter, Sendable {
    let collected = Mutex(ByteBuffer())
    func write(_ buffer: ByteBuffer) async throws { collected.withLock { $0.writeImmutableBuffer(buffer) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
  }
}

extension ApplicationProtocol {
  /// Runs `test` with a client of this application (see ``TestingSetup``).
  func test<Value>(_ setup: TestingSetup, _ test: (RouterClient<Responder>) async throws -> Value) async throws
    -> Value
  {
    for process in processesRunBeforeServerStart { try await process() }
    return try await test(RouterClient(responder: try await responder, logger: logger))
  }
}
