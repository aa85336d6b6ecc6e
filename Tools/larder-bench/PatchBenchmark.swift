import Foundation
import LarderFormat
import LarderPublish

/// `larder-bench patch`: realistic edits between two revisions of one file, and the bytes a
/// device holding the old one moves for the new one: today's per-object fetch (the gzip copy,
/// or the object), Larder's patch (`ZstdPatch`, with its index entry), `bsdiff` and
/// `zstd --patch-from --ultra -22`, all in the same run; then the time to apply a patch and
/// check the result's SHA-256 against reading and verifying the object.
enum PatchBenchmark {
    struct Options {
        var runs = 200
    }

    /// One edit: a file before and after.
    struct Edit {
        var name: String
        var path: String
        var old: [UInt8]
        var new: [UInt8]
    }

    static func edits(repository: String) throws -> [Edit] {
        func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        func replacingFirst(_ bytes: [UInt8], _ old: String, _ new: String) throws -> [UInt8] {
            let text = String(decoding: bytes, as: UTF8.self)
            guard let range = text.range(of: old) else { throw BenchError("no '\(old)' to edit") }
            return Array(text.replacingCharacters(in: range, with: new).utf8)
        }
        let mathJax = try read("/usr/share/javascript/mathjax/MathJax.js")
        var lines = String(decoding: mathJax, as: UTF8.self).components(separatedBy: "\n")
        lines.insert("// revision 2: one line more", at: lines.count / 2)
        let paywall = try read(repository + "/SampleBundles/paywall/index.html")
        let bootstrap = try read("/usr/share/javascript/bootstrap4/css/bootstrap.css")
        let jquery = try read("/usr/share/javascript/jquery/jquery.js")
        return [
            Edit(name: "one line in a 63 kB script", path: "MathJax.js", old: mathJax, new: Array(lines.joined(separator: "\n").utf8)),
            Edit(name: "price in HTML", path: "index.html", old: paywall, new: try replacingFirst(paywall, "$39.99", "$44.99")),
            Edit(name: "colour in CSS (bootstrap)", path: "bootstrap.css", old: bootstrap, new: try replacingFirst(bootstrap, "#007bff", "#0069d9")),
            Edit(
                name: "rebuilt minified bundle (jQuery)", path: "jquery.min.js", old: minify(jquery),
                new: minify(try replacingFirst(jquery, "function isArrayLike( obj ) {", "function isArrayLike( obj ) {\n\tif ( obj == null ) { return false; }"))),
            Edit(
                name: "image swap (PNG)", path: "app-icon.png", old: try read(repository + "/SampleBundles/onboarding/images/app-icon.png"),
                new: try read(repository + "/SampleBundles/onboarding/images/app-icon-2x.png")),
        ]
    }

    /// What a bundler's minifier does to the source, enough for the bench: comments and
    /// indentation gone, lines joined, so an edit shifts everything after it.
    static func minify(_ source: [UInt8]) -> [UInt8] {
        let lines = String(decoding: source, as: UTF8.self).components(separatedBy: "\n")
        let kept = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
        return Array(kept.joined(separator: ";").utf8)
    }

    static func run(_ options: Options, repository: String) throws -> Bool {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-patch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("could not remove \(work): \(error)") }
        }
        var passed = true
        print("patch: bytes a device holding the old file moves for the new one (\(options.runs) timing runs each)")
        let header = ["EDIT", "OBJECT", "PER-OBJECT", "LARDER", "+ENTRY", "SENT", "BSDIFF", "ZSTD -22", "VS ZSTD", "APPLY", "READ+VERIFY", "RATIO"]
        var rows = [header]
        for edit in try edits(repository: repository) {
            let perObject = try TravelSize.of(edit.new, path: edit.path)
            let patch = try ZstdPatch.make(from: edit.old, to: edit.new)
            let entry = PatchIndex.Entry(
                from: SHA256Hasher.hash(edit.old), fromSize: Int64(edit.old.count), to: SHA256Hasher.hash(edit.new), patch: SHA256Hasher.hash(patch),
                size: Int64(patch.count))
            let kept = PatchPolicy.keeps(patchSize: patch.count, entrySize: entry.encodedSize, objectTravel: perObject)
            // What the device moves for this object: the patch and its entry when publish keeps it.
            let sent = kept ? Int64(patch.count + entry.encodedSize) : perObject
            let (bsdiff, zstd) = try references(edit, in: work)

            let target = SHA256Hasher.hash(edit.new)
            let objectPath = work + "/object"
            try Data(edit.new).write(to: URL(fileURLWithPath: objectPath))
            var apply: [Double] = []
            var read: [Double] = []
            var keep = 0
            for _ in 0...options.runs {  // the first of each is a warm-up, dropped below
                let start = DispatchTime.now().uptimeNanoseconds
                let made = try ZstdPatch.apply(patch, to: edit.old, outputSize: Int64(edit.new.count))
                guard SHA256Hasher.hash(made) == target else { throw BenchError("\(edit.name): the patch made other bytes") }
                let applied = DispatchTime.now().uptimeNanoseconds
                let bytes = try ReadableFile(path: objectPath).readAll(limit: edit.new.count)
                guard SHA256Hasher.hash(bytes) == target else { throw BenchError("\(edit.name): the object reads back other bytes") }
                let readBack = DispatchTime.now().uptimeNanoseconds
                keep &+= made.count &+ bytes.count
                apply.append(Double(applied - start) / 1e6)
                read.append(Double(readBack - applied) / 1e6)
            }
            precondition(keep > 0)
            let applyMedian = percentile(Array(apply.dropFirst()), 0.5)
            let readMedian = percentile(Array(read.dropFirst()), 0.5)
            rows.append([
                edit.name, String(edit.new.count), String(perObject), String(patch.count), String(entry.encodedSize), String(sent), String(bsdiff),
                String(zstd), String(format: "%.2f", Double(patch.count) / Double(zstd)), String(format: "%.3f ms", applyMedian),
                String(format: "%.3f ms", readMedian), String(format: "%.2f", applyMedian / readMedian),
            ])
            passed = sent <= perObject && passed
            if kept { passed = Double(patch.count) <= 1.2 * Double(zstd) && applyMedian <= 2 * readMedian && passed }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print("  " + row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        print(
            """
              PER-OBJECT: today's fetch (gzip copy, or the object). LARDER: the zstd patch; +ENTRY: its
              patch-index entry; SENT: what Larder moves (patch + entry when publish keeps it, else the
              object). VS ZSTD: Larder's patch / zstd --patch-from --ultra -22 (target <= 1.20 where a
              patch is kept). APPLY: ZstdPatch.apply + SHA-256 of the result; READ+VERIFY: reading the
              object's file + SHA-256 (medians). Targets: SENT <= PER-OBJECT; where a patch is kept,
              VS ZSTD <= 1.20 and RATIO <= 2.00: \(passed ? "PASS" : "FAIL")
            """)
        return passed
    }

    /// The sizes `bsdiff` and `zstd --patch-from --ultra -22` make for the edit.
    static func references(_ edit: Edit, in work: String) throws -> (bsdiff: Int64, zstd: Int64) {
        let old = work + "/old"
        let new = work + "/new"
        try Data(edit.old).write(to: URL(fileURLWithPath: old))
        try Data(edit.new).write(to: URL(fileURLWithPath: new))
        let bsdiff = try Subprocess.run(["bsdiff", old, new, work + "/patch.bsdiff"])
        let zstd = try Subprocess.run(["zstd", "-q", "-f", "--ultra", "-22", "--patch-from=" + old, new, "-o", work + "/patch.zst"], stderrPath: "/dev/null")
        guard bsdiff.status == 0, zstd.status == 0 else { throw BenchError("bsdiff exited \(bsdiff.status), zstd \(zstd.status): install them (Tools/setup.sh)") }
        return (fileSize(work + "/patch.bsdiff"), fileSize(work + "/patch.zst"))
    }
}
