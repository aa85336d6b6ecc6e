import CFontTools

/// CFontTools' entry points, which hand third-party fonts to HarfBuzz and woff2 in every build
/// pipeline that packs them: decoding (the sfnt check, WOFF 1.0 inflating, WOFF2 decoding and
/// the decoded-size limit), WOFF2 encoding with the font cache's check of an encoding, and
/// HarfBuzz's subsetter with the legacy kern remapping.
enum FontTargets {
    static let decode = FuzzTarget(
        name: "font-decode",
        summary: "larder_font_decoded_size, larder_font_sfnt (sfnt check, WOFF inflate, WOFF2 decode); nothing decodes past the "
            + "16 MiB limit or its headers, what decodes passes the check, an sfnt decodes to itself, decoding is idempotent",
        maximumLength: 128 << 10,
        run: { bytes in
            let declared = FontCalls.decodedSize(bytes)
            let outcome = FontCalls.sfnt(bytes)
            if let declared, declared > UInt64(FontCalls.limit) {
                require(outcome.status == LARDER_FONT_TOO_LARGE, "declares \(declared) bytes, yet status \(outcome.status.rawValue)")
            }
            guard outcome.ok else {
                Outcomes.record("refused \(outcome.status.rawValue)")
                return
            }
            let sfnt = outcome.bytes
            guard let declared else {
                require(false, "a font whose headers do not read decoded")
                return
            }
            require(sfnt.count <= FontCalls.limit, "decoded to \(sfnt.count) bytes")
            require(FontCalls.check(sfnt) == LARDER_FONT_OK, "what larder_font_sfnt returned fails larder_font_check")
            let magic = Array(bytes.prefix(4))
            if magic == Array("wOFF".utf8) {
                require(UInt64(sfnt.count) <= declared, "a WOFF declaring \(declared) bytes inflated to \(sfnt.count)")
                Outcomes.record("decoded WOFF")
            } else if magic == Array("wOF2".utf8) {
                Outcomes.record("decoded WOFF2")
            } else {
                require(sfnt.elementsEqual(bytes), "an sfnt did not decode to itself")
                Outcomes.record("decoded sfnt")
            }
            let again = sfnt.withUnsafeBytes { FontCalls.sfnt($0) }
            require(again.ok && again.bytes == sfnt, "decoding the decoded font changed it")
            guard let characters = FontCalls.characters(sfnt), let first = characters.first else {
                require(false, "a checked font maps no character")
                return
            }
            require(first.lowerBound <= first.upperBound, "a range ends before it starts")
            for (left, right) in zip(characters, characters.dropFirst()) {
                require(left.lowerBound <= left.upperBound && left.upperBound + 1 < right.lowerBound, "ranges out of order: \(left) \(right)")
            }
        },
        seeds: { try SeedSources.fontsToDecode() })

    static let encode = FuzzTarget(
        name: "font-encode",
        summary: "larder_font_woff2_encode of what larder_font_check accepts; the WOFF2 decodes and passes the check, maps the same "
            + "characters, round-trips every table but glyf/loca/head/DSIG, and larder_font_woff2_matches accepts it",
        maximumLength: 64 << 10,
        run: { bytes in
            let sfnt = Array(bytes)
            guard sfnt.count >= 12, FontCalls.check(sfnt) == LARDER_FONT_OK else {
                Outcomes.record("not a font")
                return
            }
            // Brotli 0 to 9: every quality but the two that take seconds; the encoding must
            // match the check's quality-0 one whatever the quality.
            let encoded = FontCalls.woff2(sfnt, quality: Int32(sfnt.count % 10))
            guard encoded.ok else {
                Outcomes.record("encoder refused")
                return
            }
            let mismatch = FontCalls.woff2Mismatch(encoded.bytes, sfnt)
            require(mismatch == nil, "larder_font_woff2_matches refuses the encoder's own output (quality \(sfnt.count % 10)): \(mismatch ?? "")")
            let decoded = encoded.bytes.withUnsafeBytes { FontCalls.sfnt($0) }
            require(decoded.ok, "the encoder's WOFF2 does not decode: \(decoded.message)")
            require(FontCalls.characters(decoded.bytes) == FontCalls.characters(sfnt), "the round trip changed the character map")
            guard let before = FontCalls.tables(sfnt), let after = FontCalls.tables(decoded.bytes) else {
                Outcomes.record("encoded, a tag repeated")
                return
            }
            let rebuilt: Set<UInt32> = [FontCalls.tag("glyf"), FontCalls.tag("loca"), FontCalls.tag("head"), FontCalls.tag("DSIG")]
            for (tag, table) in before where !rebuilt.contains(tag) {
                require(after[tag].map { $0.elementsEqual(table) } == true, "table \(tag) did not round-trip")
            }
            require(Set(after.keys).isSubset(of: Set(before.keys)), "the round trip added tables")
            Outcomes.record("encoded and decoded")
        },
        seeds: { try SeedSources.fontsToEncode() })

    static let subset = FuzzTarget(
        name: "font-subset",
        summary: "larder_font_subset of what larder_font_check accepts, to some of its characters; the subset maps only characters "
            + "asked and passes the check",
        maximumLength: 64 << 10,
        run: { bytes in
            let sfnt = Array(bytes)
            guard sfnt.count >= 12, FontCalls.check(sfnt) == LARDER_FONT_OK, let characters = FontCalls.characters(sfnt) else {
                Outcomes.record("not a font")
                return
            }
            // Every step-th of the font's first characters, and a range at the end of Unicode.
            let step = 1 + sfnt.count % 5
            let singles = characters.lazy.flatMap { $0 }.prefix(512).enumerated().filter { $0.offset % step == 0 }.map(\.element)
            let tail: ClosedRange<UInt32> = 0x10_FFF0...0x10_FFFD
            let asked = singles.map { $0...$0 } + [tail]
            let subset = FontCalls.subset(sfnt, to: asked, allFeatures: sfnt.count % 2 == 0)
            guard subset.ok else {
                Outcomes.record("subsetter refused")
                return
            }
            // Only characters asked: a sound font keeps them all; a damaged one (maxp counting
            // glyphs its CFF lacks) loses those of the glyphs HarfBuzz cannot keep, which its
            // unicode-range still claims (an engine falls back, as with the font as written).
            let askedCharacters = Set(singles).union(characters.filter { $0.overlaps(tail) }.flatMap { $0.clamped(to: tail) })
            let held = FontCalls.characters(subset.bytes) ?? []
            let count = held.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 }
            require(count <= askedCharacters.count && held.allSatisfy { $0.allSatisfy(askedCharacters.contains) }, "the subset maps \(count) characters, \(askedCharacters.count) were asked")
            let checked = FontCalls.checked(subset.bytes)
            require(checked.status == LARDER_FONT_OK, "the subset fails larder_font_check: \(checked.message)")
            Outcomes.record("subset")
        },
        seeds: { try SeedSources.fontsToEncode() })
}
