import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the daemon sets for its process before it serves: how glibc hands large blocks back, and
/// the open-file limit.
enum ProcessTuning {
  /// Blocks of 4 MiB or more (documents, their pages) come from and go back to the kernel
  /// (`mmap`): glibc otherwise raises this threshold to the size of each large block freed (up
  /// to 32 MiB) and keeps later ones in its heap, so twenty 30 MiB documents once left the daemon
  /// holding 1.5 GB after they were gone. Receipt pages (about 1.5 MB) stay in the heap.
  static func returnLargeBlocksToTheSystem() {
    // glibc's mallopt(M_MMAP_THRESHOLD = -3, bytes); <malloc.h> is not part of Swift's Glibc.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 4 << 20)
  }

  /// Raises the soft open-file limit to the hard one (the usual soft limit is 1024) and returns
  /// it, so `maxConnections` connections plus files and CUPS sockets fit.
  static func raiseFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
      limit.rlim_cur = limit.rlim_max
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(clamping: limit.rlim_cur)
  }
}
