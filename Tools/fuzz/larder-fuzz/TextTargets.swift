import LarderCache
import LarderFormat
import LarderPack

/// The small strict grammars: font URLs, `larder.json` globs, bundle paths and digests.
enum TextTargets {
    static let fontURL = FuzzTarget(
        name: "font-url", summary: "FontURL(parsing:); a URL that parses is exactly its own description",
        maximumLength: 512,
        run: { bytes in
            let text = bytes.text
            do throws(FormatError) {
                let url = try FontURL(parsing: text)
                require(url.description == text, "'\(text)' parses as \(url)")
                require(try FontURL(parsing: url.description) == url, "\(url) does not read back")
            } catch {
                require(error.code == .malformedFontURL, "font URL refused with code \(error.code)")
            }
        },
        seeds: { SeedSources.fontURLs() })

    /// Input: the pattern, a NUL byte, then bundle paths one a line.
    static let glob = FuzzTarget(
        name: "glob",
        summary: "GlobPattern(_:).matches/covers (public API); literal names match themselves, a match covers, no hang",
        maximumLength: 4096,
        run: { bytes in
            let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
            let text = String(decoding: parts[0], as: UTF8.self)
            let pattern: GlobPattern
            do throws(PackError) { pattern = try GlobPattern(text) } catch {
                require(error.code == .invalidConfiguration, "pattern refused with code \(error.code)")
                return
            }
            require(pattern.text == text, "the pattern's text is not what it was made of")
            let names = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self).split(separator: "\n").map(String.init) : []
            var body = Substring(text)
            let foldersOnly = body.hasSuffix("/")
            if foldersOnly { body = body.dropLast() }
            if body.hasPrefix("/") { body = body.dropFirst() }
            let isLiteral = !body.unicodeScalars.contains { $0 == "*" || $0 == "?" || $0 == "[" }
            for name in names.prefix(16) {
                for isFolder in [false, true] {
                    let matched = pattern.matches(name, isFolder: isFolder)
                    require(matched == pattern.matches(name, isFolder: isFolder), "matching is not repeatable")
                    if matched && !isFolder { require(pattern.covers(file: name), "'\(text)' matches '\(name)' but does not cover it") }
                    if foldersOnly && !isFolder { require(!matched, "'\(text)' matches the file '\(name)'") }
                    guard isLiteral, !foldersOnly || isFolder, !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/"), !name.contains("//") else { continue }
                    // By scalars, as the pattern compares: Swift's == would equate other normalisations.
                    let subject = body.contains("/") || text.hasPrefix("/") ? Substring(name) : name.split(separator: "/").last ?? ""
                    let expected = subject.unicodeScalars.elementsEqual(body.unicodeScalars)
                    require(matched == expected, "the literal pattern '\(text)' \(matched ? "matches" : "does not match") '\(name)'")
                }
            }
        },
        seeds: { SeedSources.globs() })

    static let bundlePath = FuzzTarget(
        name: "bundle-path",
        summary: "BundlePath.validate(bytes:); a path that passes keeps every rule, checked here on its own",
        maximumLength: 2048,
        run: { bytes in
            let raw = Array(bytes)
            let path: String
            do throws(FormatError) { path = try BundlePath.validate(bytes: raw) } catch {
                require(error.code == .invalidPath, "path refused with code \(error.code)")
                return
            }
            require(Array(path.utf8) == raw, "the path is not its bytes")
            require(!raw.isEmpty && raw.count <= BundlePath.maximumBytes, "a path of \(raw.count) bytes")
            require(raw.first != UInt8(ascii: "/"), "an absolute path")
            require(!raw.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }, "a control character or backslash")
            let segments = raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            require(segments.count <= BundlePath.maximumDepth, "\(segments.count) segments")
            for segment in segments {
                require(!segment.isEmpty && segment.count <= BundlePath.maximumSegmentBytes, "a segment of \(segment.count) bytes")
                require(!segment.elementsEqual(".".utf8) && !segment.elementsEqual("..".utf8), "a '.' or '..' segment")
            }
            require(path.precomposedStringWithCanonicalMapping.utf8.elementsEqual(raw), "a path not in NFC")
            do throws(FormatError) { try BundlePath.validate(path) } catch { require(false, "the string form is refused: \(error)") }
        },
        seeds: { try SeedSources.bundlePaths() })

    /// Input: a URL path. The packer and the renderers decode with this one rule.
    static let urlPath = FuzzTarget(
        name: "url-path",
        summary: "URLPath.percentDecoded and bundlePath(decoding:); a decoded path re-encoded decodes back, a bundle path keeps BundlePath's rules",
        maximumLength: 2048,
        run: { bytes in
            let text = bytes.text
            let decoded: String
            do throws(FormatError) { decoded = try URLPath.percentDecoded(text[...]) } catch {
                require(error.code == .malformedURLPath, "path refused with code \(error.code)")
                Outcomes.record("refused \(error.code)")
                return
            }
            let encoded = decoded.utf8.map { byte in
                byte == UInt8(ascii: "%") || byte >= 0x80 ? "%" + String(byte, radix: 16, uppercase: true).leftPadded : String(UnicodeScalar(byte))
            }.joined()
            do throws(FormatError) {
                require(try URLPath.percentDecoded(encoded[...]) == decoded, "'\(encoded)' does not decode back to '\(decoded)'")
            } catch { require(false, "its own encoding '\(encoded)' is refused: \(error)") }
            do throws(FormatError) {
                let path = try URLPath.bundlePath(decoding: text[...])
                do throws(FormatError) { try BundlePath.validate(path) } catch { require(false, "'\(path)' breaks BundlePath: \(error)") }
                Outcomes.record("bundle path")
            } catch {
                require(error.code == .invalidPath, "bundle path refused with code \(error.code)")
                Outcomes.record("decoded, not a bundle path")
            }
        },
        seeds: { SeedSources.urlPaths() })

    static let digest = FuzzTarget(
        name: "digest",
        summary: "Digest(parsing:) and Digest(hex:); a parsed digest prints back to its input, bytes round-trip, order is the bytes'",
        maximumLength: 256,
        run: { bytes in
            let text = bytes.text
            do throws(FormatError) {
                let digest = try Digest(parsing: text)
                require(digest.description == text, "'\(text)' parses as \(digest)")
                require(Digest(bytes: digest.bytes) == digest, "the bytes do not round-trip")
                require(digest.subresourceIntegrity.utf8.count == 51, "integrity form \(digest.subresourceIntegrity)")
            } catch {
                require(error.code == .invalidDigest, "digest refused with code \(error.code)")
            }
            do throws(FormatError) {
                let digest = try Digest(hex: text)
                require(digest.hex == text, "hex '\(text)' parses as \(digest.hex)")
            } catch {
                require(error.code == .invalidDigest, "hex refused with code \(error.code)")
            }
            if bytes.count >= 64 {
                let first = Digest(bytes: bytes[0..<32])
                let second = Digest(bytes: bytes[32..<64])
                require((first < second) == bytes[0..<32].lexicographicallyPrecedes(bytes[32..<64]), "digest order is not the bytes' order")
                require((first == second) == bytes[0..<32].elementsEqual(bytes[32..<64]), "digest equality is not the bytes'")
                do { require(try Digest(parsing: first.description) == first, "\(first) does not read back") } catch {
                    require(false, "\(first) does not parse: \(error)")
                }
            }
        },
        seeds: { SeedSources.digests() })
}

extension String {
    /// Two hex digits: a single one gets a leading zero.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
