import Foundation

extension PackBenchmark {
    /// The three contenders' timings on one input, and where each wrote its output.
    struct ContenderTimes {
        var larder: Timings
        var tar: Timings
        var pigz: Timings
        let larderOut: String
        let tarOut: String
        let pigzOut: String
    }

    /// Times `larder pack <sources> -o <stem>larder-out` against `tar -czf` and
    /// `tar -cf - | pigz -6` of `root`: one warm-up each (it fills the page cache), then `runs`
    /// interleaved rounds. Prints the three summaries. Outputs are in `work`, named from `stem`
    /// (`<stem>larder-out/`, `<stem>tar.tar.gz`, `<stem>pigz.tar.gz`, `<stem>larder.json`).
    /// - Parameter warnings: where `larder pack`'s standard error goes; nil leaves it on the
    ///   console.
    static func raceContenders(
        larder: String, name: String, sources: [String], root: String, stem: String, work: String, options: Options,
        warnings: String? = nil
    ) throws -> ContenderTimes {
        let larderOut = work + "/" + stem + "larder-out"
        let tarOut = work + "/" + stem + "tar.tar.gz"
        let pigzOut = work + "/" + stem + "pigz.tar.gz"
        var times = ContenderTimes(
            larder: Timings(name: name), tar: Timings(name: "tar -czf (gzip -6)"), pigz: Timings(name: "tar -cf - | pigz -6"),
            larderOut: larderOut, tarOut: tarOut, pigzOut: pigzOut)
        enum Contender { case larder, tar, pigz }
        func once(_ contender: Contender) throws -> ProcessResult {
            let result: ProcessResult
            switch contender {
            case .larder:
                if FileManager.default.fileExists(atPath: larderOut) {
                    try FileManager.default.removeItem(atPath: larderOut)  // a fresh output folder each run
                }
                result = try Subprocess.run(
                    [larder, "pack"] + sources + ["-o", larderOut, "--level", "\(options.level)", "--json"],
                    stdoutPath: work + "/" + stem + "larder.json", stderrPath: warnings)
            case .tar:
                result = try Subprocess.run(["tar", "-czf", tarOut, "-C", root, "."])
            case .pigz:
                result = try Subprocess.shell("tar -cf - -C '\(root)' . | pigz -6 > '\(pigzOut)'")
            }
            guard result.status == 0 else { throw BenchError("\(contender) exited with \(result.status) on \(root)") }
            return result
        }
        for contender in [Contender.larder, .tar, .pigz] { _ = try once(contender) }
        for _ in 0..<options.runs {
            times.larder.record(try once(.larder))
            times.tar.record(try once(.tar))
            times.pigz.record(try once(.pigz))
        }
        print(times.larder.summary)
        print(times.tar.summary)
        print(times.pigz.summary)
        return times
    }
}
