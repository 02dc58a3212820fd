// LeakSanitizer cannot see references Swift keeps in the spare bits of an enum's payload: a
// global dictionary of indirect enums is reported as leaked although the global reaches every
// entry. Run: swiftc -sanitize=address scripts/lsan-enum-repro.swift -o /tmp/repro && /tmp/repro
// ("SUMMARY: AddressSanitizer: 9600 byte(s) leaked in 250 allocation(s)", exit 1). The same
// dictionary of class instances is not reported. Tests/Support/lsan.supp names the caches this
// affects.
indirect enum Expression {
  case number(Int), name(String), negate(Expression), add(Expression, Expression)
}

nonisolated(unsafe) var parsed: [String: Expression] = [:]
for i in 0..<50 {
  let name = Expression.name("a name long enough for the heap \(i)")
  parsed["key \(i), long enough for the heap"] = .add(.number(i), .negate(name))
}
print(parsed.count)
