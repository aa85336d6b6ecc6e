import Foundation
import LarderTestSupport
import Testing

@Suite struct CLIConventionTests {
    @Test func printsTheBareVersion() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "0.1.0\n")
    }

    @Test(arguments: ["pack", "inspect", "verify"])
    func helpIsTheSameEveryWay(_ command: String) throws {
        let flag = try CLI.run([command, "--help"])
        let short = try CLI.run([command, "-h"])
        let help = try CLI.run(["help", command])
        #expect(flag.status == 0)
        #expect(flag.stdout.hasPrefix("OVERVIEW: "))
        #expect(flag.stdout.contains("\nUSAGE: larder \(command) "))
        #expect(flag.stdout.contains("\nOPTIONS:\n"))
        #expect(short.stdout == flag.stdout)
        #expect(help.stdout == flag.stdout)
    }

    @Test func topLevelHelpListsSubcommands() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("SUBCOMMANDS:"))
        for name in ["pack", "inspect", "verify"] { #expect(result.stdout.contains("  \(name) ")) }
    }

    @Test(arguments: [
        (["pack"], "Error: Missing expected argument '<source-folder>'"),
        (["pack", "x", "--frobnicate"], "Error: Unknown option '--frobnicate'"),
        (["pack", "x", "--level", "12"], "Error: --level must be 1 to 9, not '12'"),
        (["pack", "x", "--level"], "Error: Missing value for '--level <1-9>'"),
        (["verify", "a", "b"], "Error: Unexpected argument 'b'"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: larder \(arguments[0]) ") == true)
        #expect(lines.last == "  See 'larder \(arguments[0]) --help' for more information.")
    }

    @Test func unknownSubcommandExits64() throws {
        let result = try CLI.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown subcommand 'frobnicate'"))
    }
}

@Suite struct CLIPackTests {
    @Test func packsInspectsAndVerifiesEverySample() throws {
        let scratch = try Scratch()
        for name in ["onboarding", "paywall", "legacy-prompt"] {
            let pack = try CLI.run(["pack", sampleBundles + "/" + name, "-o", scratch.path, "--json"])
            #expect(pack.status == 0, "\(pack.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
            #expect(report["name"] as? String == name)
            let digest = try #require(report["bundleDigest"] as? String)
            let archive = scratch.path + "/" + digest.dropFirst(7) + ".tar.gz"
            #expect(report["archivePath"] as? String == archive)

            let inspect = try CLI.run(["inspect", archive])
            #expect(inspect.status == 0)
            #expect(inspect.stdout.contains("Digest   \(digest)"))
            #expect(inspect.stdout.contains("index.html"))
            let inspectJSON = try CLI.run(["inspect", archive, "--json"])
            let inspected = try #require(try JSONSerialization.jsonObject(with: Data(inspectJSON.stdout.utf8)) as? [String: Any])
            #expect(inspected["bundleDigest"] as? String == digest)

            let verify = try CLI.run(["verify", archive])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("OK "))
            // Stock tar reads it.
            let listing = String(decoding: try CLI.shell("tar -tzf '\(archive)'"), as: UTF8.self)
            #expect(listing.hasPrefix("manifest.json\n"))
        }
    }

    /// Byte-identical output from copies made in different orders, under different locales,
    /// umasks, mtimes and SOURCE_DATE_EPOCH unset.
    @Test func isDeterministicAcrossLocalesUmasksAndMtimes() throws {
        let scratch = try Scratch()
        let a = scratch.path + "/a/onboarding"
        let b = scratch.path + "/b/onboarding"
        try CLI.shell("mkdir -p '\(scratch.path)/a' && cp -r '\(sampleBundles)/onboarding' '\(a)' && cp '\(a)/images/plan.svg' '\(a)/images/écran.svg'")
        // The second copy: files created in reverse order, every mtime different.
        try CLI.shell("""
            mkdir -p '\(b)' && cd '\(a)' && find . -type d | sort | while read d; do mkdir -p "\(b)/$d"; done && \
            find . -type f | sort -r | while read f; do cat "$f" > "\(b)/$f"; touch -d "@$(( $(printf '%s' "$f" | cksum | cut -d' ' -f1) % 1000000000 ))" "\(b)/$f"; done
            """)
        let first = try CLI.run(["pack", a, "-o", scratch.path + "/out-a", "--json"], environment: ["LC_ALL": "C", "LANG": "C"], umask: "022")
        let second = try CLI.run(["pack", b, "-o", scratch.path + "/out-b", "--json"], environment: ["LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"], umask: "077")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 0, "\(second.stderr)")
        let outA = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out-a")
        let outB = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out-b")
        #expect(outA == outB)
        #expect(outA.count == 1)
        let bytesA = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out-a/" + outA[0]))
        let bytesB = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out-b/" + outB[0]))
        #expect(bytesA == bytesB)
        // The non-ASCII name survives as UTF-8 for stock tar.
        let listing = String(decoding: try CLI.shell("tar -tzf '\(scratch.path)/out-a/\(outA[0])'"), as: UTF8.self)
        #expect(listing.contains("images/écran.svg\n"))
    }

    @Test func sourceDateEpochSetsEntryTimes() throws {
        let scratch = try Scratch()
        let result = try CLI.run(["pack", sampleBundles + "/legacy-prompt", "-o", scratch.path], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(result.status == 0)
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.path).first)
        let listing = String(decoding: try CLI.shell("TZ=UTC tar -tvzf '\(scratch.path)/\(archive)'"), as: UTF8.self)
        #expect(listing.contains("2023-11-14 22:13"))
    }

    @Test func badSourceExits65WithLocation() throws {
        let scratch = try Scratch()
        try CLI.shell("mkdir -p '\(scratch.path)/src' && printf '<p>\\n<img src=\"gone.png\">' > '\(scratch.path)/src/index.html'")
        let result = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("Error: index.html:2:11: 'gone.png' refers to 'gone.png', which is not in the bundle"))
        // Nothing was written: the output folder was never needed.
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out"))
    }

    @Test func missingSourceExits66() throws {
        let result = try CLI.run(["pack", "/nonexistent/larder-source"])
        #expect(result.status == 66)
    }
}

@Suite struct CLIVerifyTests {
    /// A byte flipped in any entry makes verify fail and name that entry.
    @Test(arguments: ["onboarding", "paywall", "legacy-prompt"])
    func flippedByteInAnyEntryIsNamed(_ sample: String) throws {
        let scratch = try Scratch()
        let archive = try packSample(sample, into: scratch.path)
        let tar = [UInt8](try CLI.shell("gzip -dc '\(archive)'"))
        let files = tarFileRanges(tar).filter { $0.path != "manifest.json" && !$0.range.isEmpty }
        #expect(files.count >= 4)
        for (path, range) in files {
            var damaged = tar
            damaged[range.lowerBound + range.count / 2] ^= 0x20
            let tarPath = scratch.path + "/damaged.tar"
            try Data(damaged).write(to: URL(fileURLWithPath: tarPath))
            let damagedArchive = scratch.path + "/damaged/" + URL(fileURLWithPath: archive).lastPathComponent
            try CLI.shell("mkdir -p '\(scratch.path)/damaged' && gzip -nc '\(tarPath)' > '\(damagedArchive)'")
            let result = try CLI.run(["verify", damagedArchive])
            #expect(result.status == 65, "\(path)")
            #expect(result.stderr.contains("entry '\(path)': hashes to"), "\(result.stderr)")
        }
    }

    @Test func truncatedArchiveFails() throws {
        let scratch = try Scratch()
        let archive = try packSample("paywall", into: scratch.path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: archive))
        let result = try CLI.run(["verify", archive])
        #expect(result.status == 65)
        // The message says where the archive ends: inside a gzip member (sized members are
        // read whole before they are inflated, so this one-member archive fails before its
        // first entry), or inside an entry (one gzip stream, inflated as it is read).
        #expect(result.stderr.contains("ends inside gzip member 0 ("), "\(result.stderr)")
        #expect(result.stderr.contains("truncated") || result.stderr.contains("ends inside"))
    }

    @Test func editedManifestFails() throws {
        let scratch = try Scratch()
        let archive = try packSample("legacy-prompt", into: scratch.path)
        try CLI.shell("""
            cd '\(scratch.path)' && mkdir x && tar -xzf '\(archive)' -C x && \
            sed -i 's/"name":"legacy-prompt"/"name":"legacy-prompt2"/' x/manifest.json && \
            (cd x && tar --owner=0 --group=0 --numeric-owner -cf - manifest.json $(tar -tzf '\(archive)' | grep -v '^manifest.json$' | grep -v '/$')) | gzip -n > '\(archive)'
            """)
        let result = try CLI.run(["verify", archive])
        #expect(result.status == 65)
        #expect(result.stderr.contains("entry 'manifest.json': manifest hashes to"))
        let json = try CLI.run(["verify", archive, "--json"])
        #expect(json.status == 65)
        #expect(json.stdout.contains(#""intact":false"#))
    }

    @Test func missingArchiveExits66() throws {
        #expect(try CLI.run(["verify", "/nonexistent.tar.gz"]).status == 66)
        #expect(try CLI.run(["inspect", "/nonexistent.tar.gz"]).status == 66)
    }
}
