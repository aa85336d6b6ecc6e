import Foundation
import LarderCache
import LarderFormat
import LarderHost

/// `larder`'s ``WebEngineRunner``: the engine is not in this process, so ``takeOver()`` runs
/// the same command line in the program that has it, `larder-webkit` in the folder of the
/// running executable (`/proc/self/exe`, links resolved), in place of this process (`execv`):
/// same process id, descriptors, environment and exit status, so callers see one `larder`.
package struct WebEngineProgram: WebEngineRunner {
    /// The program's file name, looked up next to the running executable.
    package static let name = "larder-webkit"

    package init() {}

    /// Where the program is expected: next to the running executable.
    package static var location: String {
        URL(fileURLWithPath: runningExecutable()).deletingLastPathComponent().appendingPathComponent(name).path
    }

    package func takeOver() throws(HostError) {
        let program = Self.location
        guard access(program, X_OK) == 0 else {
            throw HostError(
                .renderer,
                "the web engine runs in \(program), which is missing or not executable: build it next to larder "
                    + "(swift build -c release --product \(Self.name))")
        }
        let arguments = [program] + CommandLine.arguments.dropFirst()
        let pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        execv(program, pointers)
        throw HostError(.renderer, "cannot start the web engine program \(program): \(String(cString: strerror(errno)))")
    }

    // Never reached: takeOver() replaced the process or threw, and no command goes on after
    // that. Each answers as if the engine were unusable rather than trapping.

    package func display() throws(HostError) -> String? {
        throw HostError(.renderer, "the web engine is not in this process (\(Self.name) runs it)")
    }

    package func makeRenderer(viewport: Viewport) throws(HostError) -> any JourneyRenderer {
        throw HostError(.renderer, "the web engine is not in this process (\(Self.name) runs it)")
    }

    package func render(_ bundle: Digest, cache: LarderCache, viewport: Viewport) async -> Result<RenderedScreen, HostError> {
        .failure(HostError(.renderer, "the web engine is not in this process (\(Self.name) runs it)"))
    }

    package func screenshot(_ renderer: any JourneyRenderer) async throws(HostError) -> [UInt8] {
        throw HostError(.renderer, "the web engine is not in this process (\(Self.name) runs it)")
    }

    package func lastLoad(_ renderer: any JourneyRenderer) async -> LoadSummary? { nil }

    package func presentInWindow(_ host: JourneyHost, context: [String: String], screenshot: Bool) async -> WindowRun {
        WindowRun(error: HostError(.renderer, "the web engine is not in this process (\(Self.name) runs it)"))
    }

    /// The path of the running executable, links resolved.
    private static func runningExecutable() -> String {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 { return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
