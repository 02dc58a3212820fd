// ThreadSanitizer does not see `Synchronization.Mutex` on Linux (it waits in a futex inside the
// uninstrumented standard library): four threads writing one dictionary under one `Mutex` are
// reported as racing. Run: swiftc -sanitize=thread -O scripts/tsan-mutex-repro.swift -o /tmp/m
// && /tmp/m ("WARNING: ThreadSanitizer: Swift access race"). ReceiptModel's `Locked` (a pthread
// mutex, which ThreadSanitizer intercepts) is what the modules use instead.
import Foundation
import Synchronization

final class Box: Sendable { let table = Mutex<[Int: String]>([:]) }
let box = Box()
DispatchQueue.concurrentPerform(iterations: 4) { thread in
  for i in 0..<20_000 { box.table.withLock { $0[i % 512] = "written by \(thread)" } }
}
print(box.table.withLock { $0.count })
