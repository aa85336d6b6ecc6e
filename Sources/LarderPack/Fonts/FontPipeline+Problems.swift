import LarderFormat

/// What the font pipeline reports about a rule it could not convert as asked: a font packed as
/// written (a warning, an error with `--strict`), a font past the limit on a decoded font (an
/// error), a character no subset holds.
extension FontPipeline {
    static func unconverted(
        _ rule: FontFaceRule, in file: String, problems: [(String, FontProblem)], _ input: Input, _ plan: inout FontPlan
    ) {
        let location = rule.location
        for (path, problem) in problems {
            if let decoded = problem.decodedBytes {
                let message = "\(path): the font of \(rule.name) decodes to \(decoded) bytes, over the \(conversionLimit >> 20) MiB limit on a "
                    + "decoded font (a WOFF's tables inflate, a WOFF2 declares its size), so it is neither converted nor packed: use its "
                    + "TrueType or OpenType file, or a subset of it, under the limit"
                plan.errors.append(PackError(.fontTooLarge, message, path: path, location: location))
                continue
            }
            let message = "the font of \(rule.name) is packed as it is: \(problem.message)"
            plan.warnings.append(PackWarning(.unconvertedFont, message, path: path, location: location))
            if input.strict {
                plan.errors.append(
                    PackError(.unconvertedFont, "\(path): \(message); fix or replace the font, or pack without --strict", path: path, location: location))
            }
        }
        plan.report.faces.append(
            PackedFontFace(
                location: location, family: rule.family, weight: rule.weight, style: rule.style, outcome: .unconverted,
                source: problems.first?.0 ?? rule.files[0], sourceBytes: input.files[rule.files[0]]!.size, dropped: [],
                subsets: rule.files.map {
                    .init(name: "all", ranges: nil, path: $0, digest: input.digests[$0]!, bytes: input.files[$0]!.size, essential: input.essential.contains($0))
                }, kept: []))
    }

    static func uncoveredCharacter(
        _ scalar: UInt32, at location: SourceLocation, rule: FontFaceRule, file: String, strict: Bool, _ plan: inout FontPlan
    ) {
        let shown = Unicode.Scalar(scalar).map { " '\(Character($0))'" } ?? ""
        let code = "U+" + String(scalar, radix: 16, uppercase: true).leftPadded(to: 4)
        let message = "\(code)\(shown) is in no subset of \(rule.name) (\(file)), so it shows in a fallback font; add its range to \"subsets\""
        plan.warnings.append(PackWarning(.uncoveredCharacter, message, path: location.file, location: location))
        if strict { plan.errors.append(PackError(.uncoveredCharacter, message + " (--strict)", path: location.file, location: location)) }
    }
}
