// Hosts a journey as an app does. Starts the reference origin (nginx, Tools/origin) on a folder
// that `larder publish --journey … --key … --sign …` wrote, then prepares, presents and dismisses
// the journey with the headless renderer, trusting only the publisher's key, and prints the
// outcome and the host's timeline. Run it from the repository root (it runs
// Tools/origin/origin.sh).
//
//   journey-example <origin folder> <publisher .pub> <journey> <publishable key> <work folder>
import Foundation
import LarderCache
import LarderFormat
import LarderHost

struct ExampleError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `Tools/origin/origin.sh <arguments>` and returns what it printed. (`popen` and not
/// Foundation's `Process`, whose `waitUntilExit()` needs a run loop that async code does not
/// turn.)
func origin(_ arguments: [String]) throws -> String {
    let quoted = (["bash", "Tools/origin/origin.sh"] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    guard let pipe = popen(quoted.joined(separator: " "), "r") else {
        throw ExampleError(description: "cannot run origin.sh: \(String(cString: strerror(errno)))")
    }
    var printed: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, pipe)
        if count == 0 { break }
        printed += chunk[..<count]
    }
    let status = pclose(pipe)
    guard status == 0 else { throw ExampleError(description: "origin.sh \(arguments[0]) failed (wait status \(status))") }
    return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

func host(journey: String, key: String, trusting publicKeyFile: String, port: String, work: String) async throws {
    // The publisher's public key, one line `ed25519:<base64>`: documents it did not sign are refused.
    let trusted = try PublicKey(text: String(contentsOfFile: publicKeyFile, encoding: .utf8))
    let configuration = JourneyConfiguration(
        publishableKey: key, journeyID: journey, origin: URL(string: "http://127.0.0.1:\(port)/")!, trustedKeys: [trusted])
    let cache = try LarderCache(at: work + "/cache")
    let host = try JourneyHost(configuration: configuration, cache: cache, renderer: HeadlessRenderer(), storage: work + "/host")

    let prepared = try await host.prepare()
    print("prepared \(prepared.journey) revision \(prepared.revision) (\(prepared.source.rawValue)): \(prepared.bundle)")
    let session = try await host.present()
    print("presented session \(session.id)")
    await host.dismiss()
    if let result = await host.waitForCompletion() {
        print("outcome: \(result.outcome.rawValue), last screen: \(result.screen?.name ?? "-")")
    }
    print("timeline:")
    for entry in await host.timeline() {
        print("  \(entry.kind.rawValue): \(entry.detail)")
    }
    await host.dispose()
}

let arguments = CommandLine.arguments
guard arguments.count == 6 else {
    FileHandle.standardError.write(
        Data("usage: journey-example <origin folder> <publisher .pub> <journey> <publishable key> <work folder>\n".utf8))
    exit(64)
}
let work = URL(fileURLWithPath: arguments[5]).path
let run = work + "/origin-run"
var status: Int32 = 0
do {
    let port = try origin(["start", URL(fileURLWithPath: arguments[1]).path, run])
    print("origin: http://127.0.0.1:\(port)/")
    do {
        try await host(journey: arguments[3], key: arguments[4], trusting: arguments[2], port: port, work: work)
    } catch {
        FileHandle.standardError.write(Data("journey-example: \(error)\n".utf8))
        status = 1
    }
    _ = try origin(["stop", run])
} catch {
    FileHandle.standardError.write(Data("journey-example: \(error)\n".utf8))
    status = 1
}
exit(status)
