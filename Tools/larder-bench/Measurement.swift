import Foundation

/// Repeated timings of one contender.
struct Timings {
    var name: String
    var seconds: [Double] = []
    var peakRSS: [Int] = []

    var median: Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var maxRSS: Int { peakRSS.max() ?? 0 }

    mutating func record(_ result: ProcessResult) {
        seconds.append(result.seconds)
        peakRSS.append(result.peakRSS)
    }

    /// The median and every run, or for many runs the median with the 10th and 90th
    /// percentiles.
    var summary: String {
        let label = name.padding(toLength: max(28, name.count), withPad: " ", startingAt: 0)
        guard seconds.count > 15 else {
            let runs = seconds.map { String(format: "%.3f", $0) }.joined(separator: " ")
            return label + String(format: " median %.3f s  (runs: %@)", median, runs as NSString)
        }
        let p10 = percentile(seconds, 0.1)
        let p90 = percentile(seconds, 0.9)
        return label + String(format: " median %.2f ms  (%d runs, p10 %.2f ms, p90 %.2f ms)", median * 1000, seconds.count, p10 * 1000, p90 * 1000)
    }
}

/// The sample at `fraction` (0...1) of the sorted samples.
func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// Prints a ratio line with a verdict against its target.
func report(_ label: String, _ value: Double, atMost target: Double? = nil, atLeast floor: Double? = nil) -> Bool {
    var verdict = ""
    var passed = true
    // Two decimals, unless the target needs three (1.001).
    let places = { (bound: Double) in abs((bound * 100).rounded() - bound * 100) < 1e-9 ? "%.2f" : "%.3f" }
    if let target { passed = value <= target; verdict = String(format: " (target <= \(places(target)): %@)", target, passed ? "PASS" : "FAIL") }
    if let floor { passed = value >= floor; verdict = String(format: " (target >= %.2f: %@)", floor, passed ? "PASS" : "FAIL") }
    // "%-44@" does not pad on Linux: pad in Swift.
    print("  " + label.padding(toLength: max(44, label.count), withPad: " ", startingAt: 0) + String(format: " %.3f", value) + verdict)
    return passed
}

func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : -1
}

/// Times Larder against a standard tool that both write into a fresh folder: one warm-up pair,
/// then `runs` pairs. Before each contender, `sync`, so neither pays to write back what the
/// other left; which goes first alternates, so neither always meets a calmer disk. Each run's
/// folders (`<work>/cache-N`, `<work>/extract-N`, the latter created empty) stay until the
/// caller removes `work`: on ext4 without a journal, every file created within minutes of a
/// mass delete first skips each recently freed inode of its group (`recently_deleted()` in the
/// kernel's inode allocator, over half the system time in `perf` when runs were removed in
/// between), which timed the allocator instead of the contenders.
/// - Parameters:
///   - larder: runs Larder into the cache folder it is given.
///   - tool: runs the reference into the extract folder it is given.
func headToHead(
    work: String, runs: Int, larder larderName: String, tool toolName: String,
    larder: (String) throws -> ProcessResult, tool: (String) throws -> ProcessResult
) throws -> (larder: Timings, tool: Timings) {
    var larderTimes = Timings(name: larderName)
    var toolTimes = Timings(name: toolName)
    for run in 0...runs {
        let cache = work + "/cache-\(run)"
        let extract = work + "/extract-\(run)"
        try FileManager.default.createDirectory(atPath: extract, withIntermediateDirectories: true)
        var larderResult = ProcessResult(status: 0, seconds: 0, peakRSS: 0)
        var toolResult = larderResult
        for contender in run % 2 == 0 ? [0, 1] : [1, 0] {
            _ = try Subprocess.run(["sync"])
            if contender == 0 { larderResult = try larder(cache) } else { toolResult = try tool(extract) }
        }
        guard larderResult.status == 0, toolResult.status == 0 else { throw BenchError("\(larderName) or \(toolName) failed") }
        if run > 0 {  // the first pair is the warm-up
            larderTimes.record(larderResult)
            toolTimes.record(toolResult)
        }
    }
    print(larderTimes.summary)
    print(toolTimes.summary)
    return (larderTimes, toolTimes)
}
