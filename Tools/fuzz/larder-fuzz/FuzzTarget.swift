/// One libFuzzer target: a parser of Larder's fed arbitrary bytes, with the invariants it must
/// keep on every input (``require(_:_:)``); an input that breaks one, crashes, hangs or leaks
/// is a bug.
struct FuzzTarget: Sendable {
    /// The name `Tools/fuzz.sh` and `larder-fuzz` take; also the name of its dictionary
    /// (`Tools/fuzz/dictionaries/<name>.dict`) and corpus folder.
    let name: String
    /// What it feeds and what it checks, for `larder-fuzz --list`.
    let summary: String
    /// The longest input libFuzzer makes (`-max_len`): room for the format's structure (real
    /// pages and manifests, several gzip members), within what keeps a run in milliseconds.
    /// The parsers' own size limits (1 MiB documents, 16 MiB manifests) are unit-tested.
    let maximumLength: Int
    /// Runs one input.
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
    /// The seed corpus: inputs made from the samples, the real-world fixtures the tests pack
    /// and the hostile cases the tests know (``SeedSources``).
    let seeds: @Sendable () throws -> [[UInt8]]

    /// Every target, in the order `Tools/fuzz.sh all` runs them.
    static let all: [FuzzTarget] = [
        JSONTargets.json, JSONTargets.manifest, JSONTargets.journey, JSONTargets.bridge,
        ArchiveTargets.gzipMembers, ArchiveTargets.archive, InstallTarget.target,
        ScannerTargets.html, ScannerTargets.css,
        TextTargets.fontURL, TextTargets.glob, TextTargets.bundlePath, TextTargets.urlPath, TextTargets.digest,
        HeaderTargets.retryAfter, HeaderTargets.contentRange,
        EgressTargets.proxyRequest, S3AnswerTargets.answers,
        FontTargets.decode, FontTargets.encode, FontTargets.subset, PatchTargets.target,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Stops the process (libFuzzer saves the input as a crash) when an invariant does not hold.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
}

extension UnsafeRawBufferPointer {
    /// The input as text, the way a header or a URL arrives: invalid UTF-8 repaired.
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// What became of the inputs a replay ran (accepted, or refused and with what code), printed
/// after it so a corpus shows it reaches both; the fuzz build records nothing.
enum Outcomes {
    nonisolated(unsafe) private(set) static var counts: [String: Int] = [:]

    @inline(__always) static func record(_ outcome: @autoclosure () -> String) {
        #if !LARDER_FUZZING
        counts[outcome(), default: 0] += 1
        #endif
    }

    static var summary: String {
        counts.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
}
