import Foundation
import LarderPack

/// `larder init <folder>`: a new flow's source folder, with the page runtime switched on.
enum InitCommand {
    static let spec = CommandSpec(
        name: "init",
        overview: "Create a new flow's source folder: entry, stylesheet, script, a font with its licence, the page runtime's types, larder.json.",
        usage: "larder init <folder> [--font <ttf> --licence <txt>]",
        arguments: [("<folder>", "The flow's folder: created; an empty folder is filled; anything else is refused.")],
        options: [
            Options.font.spec,
            Options.licence.spec,
        ],
        discussion: """
            The flow's larder.json turns on the page runtime ("runtime": true: the packer adds
            larder.js) and the 'ready' capability (the renderer waits for larder.ready()), asks for
            'latin' font subsets and packs the licence with the font. 'larder pack <folder>' packs
            it without a warning; 'larder preview <folder>' shows it in a browser.

            EXIT STATUS: 0 created, 64 usage error, 66 the font or licence cannot be read,
            73 the folder exists and is not empty, or cannot be written.
            """)

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do { parsed = try ParsedArguments(arguments, spec: spec, positionalCount: 1...1) } catch {
            return Console.usageError(error)
        }
        if parsed.wantsHelp { Console.out(spec.helpText); return .success }
        var font = FlowScaffold.Font.dejaVuSans
        do throws(UsageError) {
            switch (try parsed[Options.font], try parsed[Options.licence]) {
            case (nil, nil): break
            case (let file?, let licence?): font = FlowScaffold.Font(file: file, licence: licence)
            default: throw UsageError(message: "--font and --licence go together", command: spec)
            }
        } catch {
            return Console.usageError(error)
        }
        let folder = parsed.positionals[0]
        do throws(PackError) { try FlowScaffold.create(at: folder, font: font) } catch {
            Console.failure("\(shown(error.description))")
            return error.code == .unreadableFile ? .noInput : .cannotCreate
        }
        Console.out("Created \(shown(folder)): \(FlowScaffold.paths.joined(separator: ", "))")
        Console.out("Next: larder preview \(shown(folder))   (or: larder pack \(shown(folder)) -o out)")
        return .success
    }
}
