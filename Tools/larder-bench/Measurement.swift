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

    var summary: String {
        let runs = seconds.map { String(format: "%.3f", $0) }.joined(separator: " ")
        return String(format: "%-28@ median %.3f s  (runs: %@)", name as NSString, median, runs as NSString)
    }
}

/// Prints a ratio line with a verdict against its target.
func report(_ label: String, _ value: Double, atMost target: Double? = nil, atLeast floor: Double? = nil) -> Bool {
    var verdict = ""
    var passed = true
    if let target { passed = value <= target; verdict = String(format: " (target <= %.2f: %@)", target, passed ? "PASS" : "FAIL") }
    if let floor { passed = value >= floor; verdict = String(format: " (target >= %.2f: %@)", floor, passed ? "PASS" : "FAIL") }
    print(String(format: "  %-44@ %.3f", label as NSString, value) + verdict)
    return passed
}

func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : -1
}
