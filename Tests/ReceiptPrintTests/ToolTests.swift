import Foundation
import ReceiptTestSupport
import Testing

/// The oracles' runner (`Tool.run`) reads a short program's output when it exits, whatever runs
/// beside it: with pipes, a child spawned meanwhile by another thread inherited the short one's
/// descriptors, and its output ended only when that child did (a `psql` of milliseconds waited
/// for the 60 s `pg_sleep` beside it).
@Suite struct ToolTests {
  @Test func aShortProgramIsNotHeldByALongOneStartedBesideIt() throws {
    for _ in 0..<20 {
      let long = Thread { _ = try? Tool.run("/bin/sleep", ["20"]) }
      long.start()
      let started = Date()
      let echoed = try Tool.run("/bin/echo", ["receipt"])
      let took = Date().timeIntervalSince(started)
      #expect(echoed.stdout == "receipt\n")
      // Tens of milliseconds; with pipes it waited for a sleep to end (up to 20 s); a loaded machine took 4 s.
      #expect(took < 10, "echo took \(took) s beside a 20 s sleep")
    }
  }

  /// And its standard input ends where the data does, whatever runs beside it (a pipe's end
  /// inherited by another child kept `cat` reading).
  @Test func standardInputReachesTheProgramAndEnds() throws {
    for _ in 0..<10 {
      let long = Thread { _ = try? Tool.run("/bin/sleep", ["20"]) }
      long.start()
      let started = Date()
      let result = try Tool.run("/bin/cat", [], stdin: Data("Café 7,00 €\n".utf8))
      let took = Date().timeIntervalSince(started)
      #expect(result.stdout == "Café 7,00 €\n")
      #expect(result.status == 0)
      #expect(took < 10, "cat took \(took) s beside a 20 s sleep")
    }
  }

  /// A program gets its three streams and no other descriptor of the tests' process — not one
  /// opened without close-on-exec (a socket, a pipe or Foundation's own socket for a `Process`
  /// would keep a peer or a reader waiting for its end).
  @Test func aProgramGetsItsStreamsAndNothingElse() throws {
    let inherited = open("/dev/null", O_RDONLY)  // no O_CLOEXEC
    try #require(inherited >= 0)
    defer { close(inherited) }
    let result = try Tool.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
    #expect(result.stdout.split(separator: "\n") == ["0", "1", "2"], "descriptor \(inherited) stays here")
  }
}
