import Foundation
import LarderToolSupport

/// Builds crash-state images in a file (on tmpfs, under a loop device), in increasing order of
/// crash point: it keeps, in memory, the image as of the last flush reached so far (base.img
/// plus every record before it), so each state costs one copy of the image plus the writes
/// since that flush.
final class StateBuilder {
    private let log: WriteLog
    private let size: Int
    /// The image with every record before ``durableUpTo`` applied.
    private let durable: UnsafeMutableRawPointer
    private var durableUpTo = 0
    private let target: UnsafeMutableRawPointer
    private let targetFile: Int32

    /// - Parameter statePath: the file the loop device reads; made the image's size.
    init(log: WriteLog, statePath: String) throws {
        self.log = log
        size = log.imageSize
        let durable = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        self.durable = durable
        let base = try Data(contentsOf: URL(fileURLWithPath: log.folder + "/base.img"), options: .alwaysMapped)
        guard base.count == size else { throw ToolError("base.img changed size") }
        base.withUnsafeBytes { [size] in durable.copyMemory(from: $0.baseAddress!, byteCount: size) }
        targetFile = open(statePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard targetFile >= 0, ftruncate(targetFile, off_t(size)) == 0 else {
            throw ToolError("cannot make the state file \(statePath): \(String(cString: strerror(errno)))")
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, targetFile, 0), mapped != MAP_FAILED else {
            throw ToolError("cannot map the state file: \(String(cString: strerror(errno)))")
        }
        target = mapped
    }

    /// The image of the state last built, as the state file holds it.
    var image: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: target, count: size) }

    deinit {
        munmap(target, size)
        close(targetFile)
        durable.deallocate()
    }

    /// Writes the image of `state` to the state file. States must come in increasing order of
    /// their last flush (``WriteLog/plan(count:subsets:seed:)`` sorts them by point); a state
    /// before the kept image starts again from base.img.
    func build(_ state: CrashState) throws {
        let flush = log.lastFlush(before: state.point) ?? -1
        let durableEnd = max(flush, 0)
        if durableEnd < durableUpTo { try rewind() }
        for index in durableUpTo..<durableEnd { apply(log.records[index], to: durable) }
        durableUpTo = durableEnd
        target.copyMemory(from: durable, byteCount: size)
        let window = log.records[(flush + 1)..<min(state.point, log.records.count)]
        switch state.mode {
        case .lost:
            break
        case .logged:
            for record in window { apply(record, to: target) }
        case .subset(let seed):
            applySubset(window, seed: seed)
        }
    }

    private func rewind() throws {
        let base = try Data(contentsOf: URL(fileURLWithPath: log.folder + "/base.img"), options: .alwaysMapped)
        base.withUnsafeBytes { durable.copyMemory(from: $0.baseAddress!, byteCount: size) }
        durableUpTo = 0
    }

    private func apply(_ record: WriteLog.Record, to image: UnsafeMutableRawPointer) {
        apply(record, from: record.offset, to: record.offset + record.length, image)
    }

    /// Applies the part of `record` that covers image bytes `start..<end`.
    private func apply(_ record: WriteLog.Record, from start: Int, to end: Int, _ image: UnsafeMutableRawPointer) {
        switch record.kind {
        case .write:
            log.data.withUnsafeBytes { bytes in
                (image + start).copyMemory(from: bytes.baseAddress! + record.data + (start - record.offset), byteCount: end - start)
            }
        case .zero:
            (image + start).initializeMemory(as: UInt8.self, repeating: 0, count: end - start)
        case .flush, .mark:
            break
        }
    }

    /// For each 4 KiB sector the window wrote, keeps its first `k` versions (in log order) for
    /// a `k` drawn from 0…versions: none, some or all of the writes since the flush, sector by
    /// sector.
    private func applySubset(_ window: ArraySlice<WriteLog.Record>, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var versions: [Int: [(record: Int, start: Int, end: Int)]] = [:]
        for index in window.indices where window[index].kind == .write || window[index].kind == .zero {
            let record = window[index]
            var start = record.offset
            let end = record.offset + record.length
            while start < end {
                let sectorEnd = min((start / 4096 + 1) * 4096, end)
                versions[start / 4096, default: []].append((index, start, sectorEnd))
                start = sectorEnd
            }
        }
        for sector in versions.keys.sorted() {
            let list = versions[sector]!
            let kept = Int(random.next() % UInt64(list.count + 1))
            for version in list.prefix(kept) { apply(log.records[version.record], from: version.start, to: version.end, target) }
        }
    }
}
