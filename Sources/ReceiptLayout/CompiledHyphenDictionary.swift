internal import CHyphen
import Foundation

/// A libhyphen dictionary in compiled form: the pattern automaton `hnj_hyphen_load` builds from
/// a `.dic` file (its states, transitions and matches, and the second level of a two-level
/// dictionary such as German), written out once and read back in milliseconds. Debian's German
/// dictionary takes libhyphen ~2.5 s of CPU and ~40 MB to load; its compiled form ~10 MB and a
/// few milliseconds.
///
/// The automaton read back is libhyphen's own structure (`HyphenDict`), so libhyphen still does
/// every hyphenation; only its memory is ours: one block per level for the states, one for the
/// transitions and one for the strings, freed in `deinit` (not by `hnj_hyphen_free`, which
/// expects an allocation per state).
///
/// Reading checks everything libhyphen will follow — every offset and index in range, every
/// string terminated, every transition one state deeper and every fallback to a shallower
/// state, no match longer than its state allows — so a damaged file is refused (nil), never
/// followed out of bounds or round a cycle. (A checksum in ``HyphenDictionaryCache`` catches
/// damage first.)
final class CompiledHyphenDictionary: @unchecked Sendable {
  // @unchecked: immutable after init; libhyphen only reads it.
  /// The first level (its `nextlevel` is the second).
  let dictionary: UnsafeMutablePointer<HyphenDict>
  private let blocks: Blocks

  /// The format's version: part of every cache key, so a new layout never reads an old file.
  static let formatVersion: UInt32 = 2
  private static let stateBytes = 16
  private static let transitionBytes = 8

  // MARK: Writing

  /// The compiled form of the dictionary file at `path` (libhyphen loads it), nil when libhyphen
  /// cannot read it or this form cannot describe it.
  static func compile(path: String) -> [UInt8]? {
    guard let dictionary = hnj_hyphen_load(path) else { return nil }
    defer { hnj_hyphen_free(dictionary) }
    return encode(dictionary)
  }

  /// The compiled form of a dictionary libhyphen loaded, or nil for one this form does not
  /// describe (replacement rules — none of Debian's dictionaries has them —, or an automaton
  /// that is not a tree from state 0 whose matches fit their states): those are always loaded
  /// by libhyphen.
  static func encode(_ dictionary: UnsafePointer<HyphenDict>) -> [UInt8]? {
    var out: [UInt8] = []
    var levels: [UnsafePointer<HyphenDict>] = []
    var next: UnsafePointer<HyphenDict>? = dictionary
    while let level = next {
      guard levels.count < 8 else { return nil }
      levels.append(level)
      next = UnsafePointer(level.pointee.nextlevel)
    }
    out.append(int32: Int32(levels.count))
    for level in levels {
      guard encode(level: level.pointee, into: &out) else { return nil }
    }
    return out
  }

  /// Each state's depth (its string's length: transitions taken from state 0 to reach it), nil
  /// when a state is reached twice or not at all.
  private static func depths(_ states: UnsafeBufferPointer<HyphenState>) -> [Int32]? {
    var depth = [Int32](repeating: -1, count: states.count)
    depth[0] = 0
    var queue = [0]
    var head = 0
    while head < queue.count {
      let s = queue[head]
      head += 1
      for t in UnsafeBufferPointer(start: states[s].trans, count: Int(max(0, states[s].num_trans))) {
        let target = Int(t.new_state)
        guard states.indices.contains(target), depth[target] == -1 else { return nil }
        depth[target] = depth[s] + 1
        queue.append(target)
      }
    }
    return depth.contains(-1) ? nil : depth
  }

  private static func encode(level: HyphenDict, into out: inout [UInt8]) -> Bool {
    let states = UnsafeBufferPointer(start: level.states, count: Int(level.num_states))
    guard !states.isEmpty, let depth = depths(states) else { return false }
    out += [level.lhmin, level.rhmin, level.clhmin, level.crhmin].map { UInt8(bitPattern: $0) }
    out.append(int32: level.utf8)
    withUnsafeBytes(of: level.cset) { out += $0 }
    out.append(int32: level.nohyphenl)
    if let nohyphen = level.nohyphen {
      // `nohyphenl + 1` strings, each ended by NUL (libhyphen splits the list in place).
      var bytes: [UInt8] = []
      var p = nohyphen
      for _ in 0...max(0, Int(level.nohyphenl)) {
        let length = strlen(p)
        bytes += UnsafeRawBufferPointer(start: p, count: length + 1)
        p += length + 1
      }
      out.append(int32: Int32(bytes.count))
      out += bytes
    } else {
      out.append(int32: -1)
    }
    // The strings (a block starting with NUL), then the states, then their transitions in order.
    var strings: [UInt8] = [0]
    var records: [UInt8] = []
    records.reserveCapacity(states.count * stateBytes)
    var transitions: [UInt8] = []
    var transitionCount: Int32 = 0
    for (s, state) in states.enumerated() {
      guard state.repl == nil else { return false }
      var match: Int32 = -1
      if let p = state.match {
        guard strlen(p) <= Int(depth[s]) + 1 else { return false }
        match = Int32(strings.count)
        strings += UnsafeRawBufferPointer(start: p, count: strlen(p) + 1)
      }
      records.append(int32: match)
      records.append(int32: state.fallback_state)
      records.append(int32: state.num_trans)
      records.append(int32: depth[s])
      for t in UnsafeBufferPointer(start: state.trans, count: Int(max(0, state.num_trans))) {
        transitions += [UInt8(bitPattern: t.ch), 0, 0, 0]
        transitions.append(int32: t.new_state)
      }
      transitionCount += max(0, state.num_trans)
    }
    out.append(int32: Int32(states.count))
    out.append(int32: transitionCount)
    out.append(int32: Int32(strings.count))
    out += strings
    out += records
    out += transitions
    return true
  }

  // MARK: Reading

  /// The dictionary a compiled form describes, or nil when the bytes are not a whole, consistent
  /// compiled dictionary.
  init?(_ bytes: UnsafeRawBufferPointer) {
    // On a refusal the blocks read so far go with `blocks`.
    let blocks = Blocks()
    var reader = ByteReader(bytes)
    guard let count = reader.int32(), (1...8).contains(count) else { return nil }
    var levels: [UnsafeMutablePointer<HyphenDict>] = []
    for _ in 0..<count {
      guard let level = Self.readLevel(&reader, into: blocks) else { return nil }
      levels.append(level)
    }
    guard reader.atEnd else { return nil }
    for (upper, lower) in zip(levels, levels.dropFirst()) { upper.pointee.nextlevel = lower }
    dictionary = levels[0]
    self.blocks = blocks
  }

  /// The memory of a compiled dictionary, freed with it.
  private final class Blocks {
    private var blocks: [UnsafeMutableRawPointer] = []

    func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
      let block = malloc(max(1, bytes))!
      blocks.append(block)
      return block
    }

    deinit {
      for block in blocks { free(block) }
    }
  }

  /// One level. Besides bounds, the depths recorded make libhyphen's walk safe: a transition
  /// goes one deeper, a fallback to a shallower state (so following fallbacks ends), and a
  /// match has at most one digit more than its state has letters (libhyphen writes it ending at
  /// the letter just read, so it starts at most one place before the word's first letter, which
  /// ``Hyphenator/points(in:)`` leaves room for).
  private static func readLevel(_ reader: inout ByteReader, into blocks: Blocks) -> UnsafeMutablePointer<HyphenDict>? {
    guard let header = reader.bytes(4), let utf8 = reader.int32(), let cset = reader.bytes(20),
      cset.contains(0), let nohyphenl = reader.int32(), nohyphenl >= 0, nohyphenl < 10_000,
      let nohyphenBytes = reader.int32()
    else { return nil }
    let level = blocks.allocate(MemoryLayout<HyphenDict>.stride).bindMemory(to: HyphenDict.self, capacity: 1)
    level.initialize(to: HyphenDict())
    level.pointee.lhmin = CChar(bitPattern: header[0])
    level.pointee.rhmin = CChar(bitPattern: header[1])
    level.pointee.clhmin = CChar(bitPattern: header[2])
    level.pointee.crhmin = CChar(bitPattern: header[3])
    level.pointee.utf8 = utf8
    withUnsafeMutableBytes(of: &level.pointee.cset) { $0.copyBytes(from: cset) }
    level.pointee.nohyphenl = nohyphenl
    if nohyphenBytes >= 0 {
      // libhyphen walks `nohyphenl + 1` NUL-ended strings.
      guard let list = reader.bytes(Int(nohyphenBytes)), list.last == 0, list.filter({ $0 == 0 }).count > nohyphenl
      else { return nil }
      let copy = blocks.allocate(list.count)
      copy.copyMemory(from: list.baseAddress!, byteCount: list.count)
      level.pointee.nohyphen = copy.assumingMemoryBound(to: CChar.self)
    } else if nohyphenBytes != -1 {
      return nil
    }
    guard let stateCount = reader.int32(), stateCount > 0, let transitionCount = reader.int32(), transitionCount >= 0,
      let stringCount = reader.int32(), stringCount > 0, let strings = reader.bytes(Int(stringCount)),
      strings.last == 0, let records = reader.bytes(Int(stateCount) * Self.stateBytes),
      let links = reader.bytes(Int(transitionCount) * Self.transitionBytes)
    else { return nil }
    let text = blocks.allocate(strings.count)
    text.copyMemory(from: strings.baseAddress!, byteCount: strings.count)
    let transitions = blocks.allocate(Int(transitionCount) * MemoryLayout<HyphenTrans>.stride)
      .bindMemory(to: HyphenTrans.self, capacity: Int(transitionCount))
    let states = blocks.allocate(Int(stateCount) * MemoryLayout<HyphenState>.stride)
      .bindMemory(to: HyphenState.self, capacity: Int(stateCount))
    func int32(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> Int32 {
      Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }
    let depth = UnsafeMutableBufferPointer<Int32>.allocate(capacity: Int(stateCount))
    defer { depth.deallocate() }
    for i in 0..<Int(stateCount) { depth[i] = int32(records, i * Self.stateBytes + 12) }
    guard depth[0] == 0 else { return nil }
    var first = 0
    for i in 0..<Int(stateCount) {
      let base = i * Self.stateBytes
      let match = int32(records, base)
      let fallback = int32(records, base + 4)
      let count = Int(int32(records, base + 8))
      guard (-1..<stringCount).contains(match), count >= 0, first + count <= Int(transitionCount) else { return nil }
      if fallback >= 0 {
        guard fallback < stateCount, depth[Int(fallback)] < depth[i] else { return nil }
      } else if fallback != -1 {
        return nil
      }
      if match >= 0 {
        // The block ends with NUL, so the string ends inside it.
        guard strlen(text.advanced(by: Int(match)).assumingMemoryBound(to: CChar.self)) <= Int(depth[i]) + 1 else {
          return nil
        }
      }
      for k in first..<(first + count) {
        let target = int32(links, k * Self.transitionBytes + 4)
        guard target > 0, target < stateCount, depth[Int(target)] == depth[i] + 1 else { return nil }
        (transitions + k).initialize(
          to: HyphenTrans(ch: CChar(bitPattern: links[k * Self.transitionBytes]), new_state: target))
      }
      (states + i).initialize(
        to: HyphenState(
          match: match < 0 ? nil : text.advanced(by: Int(match)).assumingMemoryBound(to: CChar.self), repl: nil,
          replindex: 0, replcut: 0, fallback_state: fallback, num_trans: Int32(count),
          trans: count == 0 ? nil : transitions + first))
      first += count
    }
    guard first == Int(transitionCount) else { return nil }
    level.pointee.num_states = stateCount
    level.pointee.states = states
    return level
  }
}

extension [UInt8] {
  fileprivate mutating func append(int32 value: Int32) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }
}

/// Reads a byte buffer front to back; nil once a read would pass its end.
private struct ByteReader {
  let buffer: UnsafeRawBufferPointer
  var offset = 0

  init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

  var atEnd: Bool { offset == buffer.count }

  mutating func int32() -> Int32? {
    guard offset + 4 <= buffer.count else { return nil }
    defer { offset += 4 }
    return Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self))
  }

  mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, offset + count <= buffer.count else { return nil }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
  }
}
