import CArchive
import Foundation
import LarderFormat
import LarderHost
import LarderToolSupport

/// Seeds for the JSON targets and the archive targets.
extension SeedSources {
    static let example = SHA256Hasher.hash(Array("example".utf8))
    static let previous = SHA256Hasher.hash(Array("previous".utf8))

    static func manifests() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (name, files) in try bundles(limit: 60, textLimit: 1 << 12, binaryLimit: 1 << 10) {
            seeds.append(try manifest(name: name, files: files).canonicalBytes)
        }
        let page = [("index.html", Array("<p>x</p>".utf8))]
        seeds.append(try manifest(name: "bare", files: page, capabilities: []).canonicalBytes)
        seeds.append(try manifest(name: "unicode é", files: page + [("fonts/Ünïcode.woff2", [1, 2, 3])]).canonicalBytes)
        var version2 = try manifest(name: "v", files: page).jsonValue
        if case .object(var members) = version2 { members["format"] = .int(2); version2 = .object(members) }
        seeds.append(version2.canonicalBytes)
        seeds.append(Array(#"{"entry":"index.html","files":[],"format":1,"name":"empty","renderer":{"capabilities":[],"protocol":1}}"#.utf8))
        return seeds
    }

    static func journeyDocuments() throws -> [[UInt8]] {
        let plain = JourneyDocument(journey: "onboarding", revision: 3, bundle: example, refresh: 900, published: "2025-05-01T12:00:00Z")
        var expiring = plain
        expiring.expires = "2025-06-01T12:00:00Z"
        var rollout = plain
        rollout.rollout = .init(percent: 25, previous: previous)
        var signed = expiring
        try signed.sign(with: try SigningKey.generate())
        return [plain, expiring, rollout, signed].map(\.canonicalBytes) + [
            #"{"journey":"x","revision":-1,"bundle":"sha256:00","refresh":0,"published":""}"#,
            #"{"journey":"paywall","revision":9223372036854775807,"bundle":"\#(example)","refresh":1800,"published":"2025-05-01T12:00:00Z","rollout":{"percent":100,"previous":"\#(previous)"}}"#,
            #"{"journey":"paywall","revision":1,"bundle":"\#(example)","refresh":600,"published":"x","signature":{"key":"k","ed25519":"AAAA"}}"#,
        ].map { Array($0.utf8) }
    }

    static func bridgeMessages() -> [[UInt8]] {
        [
            #"{"type":"dismiss"}"#, #"{"type":"navigate","screen":"screen-2"}"#,
            #"{"type":"open-link","url":"https://example.com/terms?x=1#top"}"#, #"{"type":"open-link","url":"mailto:help@example.com"}"#,
            #"{"type":"purchase","product":"pro_yearly"}"#, #"{"type":"restore"}"#,
            #"{"type":"custom","name":"survey","payload":{"answers":[1,2.5,"three",null,true],"nested":{"a":{"b":[]}}}}"#,
            #"{"type":"capture","event":"evt_1","body":"{\"q\":\"Which plan?\",\"a\":\"\u00e9\\n\"}"}"#,
            #"{"type":"open-link","url":"javascript:alert(1)"}"#, #"{"type":"navigate","screen":""}"#, #"{"type":"dismiss","extra":1}"#,
            #"[{"type":"dismiss"}]"#,
        ].map { Array($0.utf8) }
    }

    static func jsonDocuments() throws -> [[UInt8]] {
        var seeds = try manifests() + journeyDocuments() + bridgeMessages()
        for folder in try sampleFolders() where FileManager.default.fileExists(atPath: folder + "/larder.json") {
            seeds.append(try read(folder + "/larder.json"))
        }
        seeds += [
            "0", "-0", "1e400", "-1.5e-10", "123456789012345678901234567890", "9223372036854775807", "-9223372036854775808",
            #""\ud83d\ude00 \u00e9 e\u0301 \u0000 \/ \b\f\n\r\t""#, #""\ud800""#, "[" + String(repeating: "[", count: 70) + "]",
            #"{"a":1,"a":2}"#, #"{"é":1,"é":2}"#, " [ 1 , { \"k\" : [ true , false , null ] } ] ", "\u{FEFF}{}", "{\"x\":\"\u{1}\"}",
        ].map { Array($0.utf8) }
        return seeds
    }

    /// Tar streams in both header formats: the samples' files, the real-world packages', and
    /// every kind of hostile entry; some gzip-compressed, some in sized members.
    static func tarStreams() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (index, (_, files)) in try bundles(limit: 12, textLimit: 1 << 11, binaryLimit: 512).enumerated() {
            let entries = files.map { TestArchive.Entry.file($0.0, $0.1) }
            seeds.append(TestArchive.make(entries, format: index % 2 == 0 ? .pax : .ustar, gzip: false))
            if index < 3 { seeds.append(TestArchive.make(entries, gzip: true)) }
            if index == 0 {
                let withEntry = Dictionary(files + [("index.html", Array("<p>x</p>".utf8))], uniquingKeysWith: { first, _ in first })
                seeds.append(try makeBundleArchive(files: withEntry, name: "members").archive)
            }
        }
        seeds.append(TestArchive.make(hostileEntries, format: .pax, gzip: false))
        seeds.append(TestArchive.make(hostileEntries.filter { $0.type == larder_ae_ifreg() }, format: .ustar, gzip: false))
        return seeds
    }

    static var hostileEntries: [TestArchive.Entry] {
        let page = Array("<p>hostile</p>".utf8)
        return [
            .file("index.html", page), .file("../escape.html", page), .file("/etc/cron.d/evil", page),
            TestArchive.Entry(path: Array("css".utf8), type: larder_ae_ifdir()),
            TestArchive.Entry(path: Array("link.html".utf8), type: larder_ae_iflnk(), symlink: "/etc/passwd"),
            TestArchive.Entry(path: Array("copy.html".utf8), hardlink: "index.html"),
            TestArchive.Entry(path: Array("null".utf8), type: larder_ae_ifchr()), TestArchive.Entry(path: Array("pipe".utf8), type: larder_ae_ififo()),
            .file("index.html", page), .file(String(repeating: "x", count: 300) + ".html", page),
            TestArchive.Entry(path: [0x62, 0xFF, 0x2E, 0x68, 0x74, 0x6D, 0x6C], data: page), .file("e\u{301}.css", page),
        ]
    }

    static func gzipMemberStreams() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        var text: [UInt8] = []
        for folder in try sampleFolders() {
            for file in files(in: folder) where MediaType.classify(file).role == .style || MediaType.classify(file).role == .document {
                text += try read(folder + "/" + file)
            }
        }
        let inputs: [(bytes: [UInt8], precompressed: Bool)] = [
            ([], false), (Array("hello, members".utf8), false), (Array(text.prefix(150 << 10)), false),
            ((0..<(70 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }, true),
        ]
        for input in inputs {
            var out: [UInt8] = []
            let writer = GzipMemberWriter(level: 6, pieceSize: GzipMemberWriter.minimumPieceSize, concurrency: 1) { (bytes) throws(FormatError) in
                out += bytes
            }
            writer.inputIsPrecompressed = input.precompressed
            try input.bytes.withUnsafeBytes { try writer.write($0) }
            try writer.finish()
            seeds.append(out)
            // The same with an odd MTIME: the target makes its trailers right after mutations.
            out[4] |= 1
            seeds.append(out)
        }
        return seeds
    }

    /// Recipes (``InstallRecipe``) of the samples' and the real-world packages' files in each
    /// container, one per fault and per hostile kind, and raw archives.
    static func installRecipes() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        let bundles = try bundles(limit: 10, textLimit: 1 << 11, binaryLimit: 256)
        for (index, (_, files)) in bundles.enumerated() {
            var entries = files.map { InstallRecipe.Entry(kind: .file, listed: true, path: Array($0.0.utf8), data: $0.1) }
            if !files.contains(where: { MediaType.classify($0.0).role == .document }) {
                entries.append(.init(kind: .file, listed: true, path: Array("index.html".utf8), data: Array("<p>x</p>".utf8)))
            }
            let container = InstallRecipe.Container(rawValue: UInt8(index % 3))!
            seeds.append(InstallRecipe.encode(container: container, ustar: index % 2 == 1, entries: entries))
            if index == 0 {
                for fault in (8...19).compactMap({ InstallRecipe.Fault(rawValue: UInt8($0)) }) {
                    seeds.append(InstallRecipe.encode(container: .plainTar, fault: fault, entries: entries))
                }
                let withEntry = Dictionary(files + [("index.html", Array("<p>x</p>".utf8))], uniquingKeysWith: { first, _ in first })
                seeds.append(InstallRecipe.encodeRaw(try makeBundleArchive(files: withEntry, name: "raw").archive))
            }
        }
        let page = InstallRecipe.Entry(kind: .file, listed: true, path: Array("index.html".utf8), data: Array("<p>hi</p>".utf8))
        let hostile: [InstallRecipe.Entry] = [
            .init(kind: .file, listed: true, path: Array("../escape.html".utf8), data: [1]),
            .init(kind: .file, listed: true, path: Array("/tmp/larder-fuzz-escape".utf8), data: [1]),
            .init(kind: .symlink, listed: true, path: Array("link.css".utf8), data: Array("/etc/passwd".utf8)),
            .init(kind: .hardlink, listed: true, path: Array("copy.html".utf8), data: Array("index.html".utf8)),
            .init(kind: .device, listed: true, path: Array("null".utf8), data: []), .init(kind: .fifo, listed: true, path: Array("pipe".utf8), data: []),
            .init(kind: .file, listed: false, path: Array("unlisted.js".utf8), data: [1]), page,
            .init(kind: .folder, listed: true, path: Array("css".utf8), data: []),
            .init(kind: .file, listed: true, path: Array("css/app.css".utf8), data: Array("a{}".utf8)),
            .init(kind: .file, listed: true, path: [0x62, 0xFF, 0x2E, 0x6A, 0x73], data: [1]),
            .init(kind: .file, listed: true, path: Array("e\u{301}.css".utf8), data: [1]),
        ]
        for entry in hostile { seeds.append(InstallRecipe.encode(container: .members, entries: [page, entry])) }
        seeds.append(InstallRecipe.encodeRaw(TestArchive.make([page].map(\.tarEntry) + hostileEntries)))
        return seeds
    }
}
