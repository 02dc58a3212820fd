import Foundation
@_spi(Internals) import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// A private PostgreSQL cluster from Debian's packages for the tests: `initdb` in a directory
/// under ``Scratch/root`` (swept once the process is gone) and `pg_ctl` on a loopback port, both
/// as the `postgres` user (PostgreSQL refuses root). One cluster per test process, started on first use and stopped by its watchdog when
/// the process is gone; each test takes a database of its own.
public final class PostgresCluster: Sendable {
  public let directory: URL
  public let port: UInt16
  /// PostgreSQL's programs (`initdb`, `pg_ctl`, `psql`).
  let bin: String

  private static let started = Locked<PostgresCluster?>(nil)

  /// The process's cluster, started on first use.
  public static func shared() throws -> PostgresCluster {
    try started.withLock { cluster in
      if let cluster { return cluster }
      let new = try PostgresCluster()
      cluster = new
      return new
    }
  }

  /// Settings of this cluster's own (`name=value`, each given to `postgres` as `-c`).
  let settings: [String]

  /// Creates and starts a cluster (use ``shared()`` in tests; a second cluster for tests that
  /// stop or kill theirs). `configure`, if given, runs after `initdb` and before the start with
  /// the cluster's directory (the data directory is `data` in it; files it writes there must be
  /// the `postgres` user's: ``giveToPostgres(_:)``), and returns settings of the cluster's own.
  public init(configure: ((URL) throws -> [String])? = nil) throws {
    guard
      let version = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted().last
    else { throw RigError("PostgreSQL is not installed (apt-get install postgresql; scripts/setup.sh --test)") }
    bin = "/usr/lib/postgresql/\(version)/bin"
    directory = try Scratch.directory("pg")
    try Self.asPostgres("chown", ["postgres:postgres", directory.path], root: true)
    // An ephemeral port, as the rig's other servers take: never one a printer simulator may take.
    port = try PrintRig.freePortForTests()
    try Self.asPostgres(bin + "/initdb", ["-D", directory.path + "/data", "-A", "trust", "-U", "postgres", "-N"])
    settings = try configure?(directory) ?? []
    try start()
  }

  /// Starts the server (again, after ``stop(mode:)``), waiting until it accepts connections.
  /// `postgres` runs in the foreground under a shell watchdog that stops it when this test
  /// process is gone (exit handlers do not always run), as the print rig's daemons do. (Through
  /// `pg_ctl start`, Foundation's `Process` never saw pg_ctl exit: see ``ChildProcess``.)
  public func start() throws {
    let watchdog = """
      "$0" "$@" & child=$!
      stop() { kill -INT $child 2>/dev/null; sleep 2; kill -9 $child 2>/dev/null; wait $child; }
      trap 'stop; exit 0' TERM INT
      while kill -0 \(getpid()) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.5; done
      kill -0 $child 2>/dev/null && stop
      """
    let arguments =
      [
        "/bin/sh", "-c", watchdog, "/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups",
        bin + "/postgres", "-D", directory.path + "/data", "-p", "\(port)", "-k", directory.path, "-c",
        "listen_addresses=127.0.0.1", "-c", "max_connections=300",
        // Dynamic shared memory as files of the data directory, gone with it: in /dev/shm a
        // cluster stopped with `kill -9` (a crash the tests make) left its segments behind.
        "-c", "dynamic_shared_memory_type=mmap",
      ] + settings.flatMap { ["-c", $0] }
    _ = try ChildProcess(
      "/usr/bin/setsid", arguments, stdout: .write(URL(fileURLWithPath: directory.path + "/log"), append: true),
      stderr: .standardOutput, ownGroup: false
    ).reapWhenEnded()
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      if (try? Tool.run(bin + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"]).status) == 0 { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    throw RigError("PostgreSQL did not start; see \(directory.path)/log")
  }

  /// Stops the server (`fast`: sessions are ended; `immediate`: as a crash would).
  public func stop(mode: String = "fast") {
    _ = try? Self.asPostgres(bin + "/pg_ctl", ["-D", directory.path + "/data", "-m", mode, "-w", "stop"])
  }

  /// Makes a file or directory the `postgres` user's (what the server reads must be; a key file
  /// also only readable by it).
  public static func giveToPostgres(_ path: String) throws {
    try asPostgres("chown", ["postgres:postgres", path], root: true)
  }

  /// A new empty database; its URL for `--db`.
  public func createDatabase() throws -> String {
    let name = "receipt_\(UUID().uuidString.prefix(8).lowercased())"
    try psql("CREATE DATABASE \(name)")
    return "postgres://postgres@127.0.0.1:\(port)/\(name)"
  }

  /// Runs SQL with psql; its output, unaligned, tuples only.
  @discardableResult
  public func psql(_ sql: String, database: String = "postgres") throws -> String {
    let result = try Tool.run(
      bin + "/psql",
      ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    guard result.status == 0 else { throw RigError("psql failed: \(result.stderr)") }
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The database name of a URL from ``createDatabase()``.
  public static func databaseName(_ url: String) -> String { String(url.split(separator: "/").last ?? "") }

  @discardableResult
  static func asPostgres(_ program: String, _ arguments: [String], root: Bool = false) throws -> Tool.Result {
    let result =
      root
      ? try Tool.run(program, arguments)
      : try Tool.run(
        "/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", program] + arguments)
    guard result.status == 0 else {
      throw RigError("\(program) \(arguments.joined(separator: " ")) failed: \(result.stderr)\(result.stdout)")
    }
    return result
  }
}
