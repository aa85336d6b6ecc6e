import Foundation
import LarderTestSupport
import Testing

/// `larder pack` on a terminal shows a person how far it is: bytes of bytes, the rate and the
/// time left, on stderr; with stderr a pipe or a file nothing is added.
@Suite struct PackProgressCLITests {
    /// Runs a program with stderr on a pseudo-terminal and stdout where ``CLI/run`` captures it;
    /// what the terminal received is written to the file named first. When the first bytes
    /// arrive (the bar's first line) the program is stopped for a second and continued, so the
    /// lines after show a rate (the bar shows none in its first half second) however fast this
    /// machine packs or copies.
    static let stderrOnATerminal = """
        import os, pty, signal, sys, time
        screen, program = sys.argv[1], sys.argv[2:]
        master, slave = pty.openpty()
        pid = os.fork()
        if pid == 0:
            os.dup2(slave, 2)
            os.close(master)
            os.close(slave)
            os.execv(program[0], program)
        os.close(slave)
        received = bytearray()
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            if not received:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(1)
                os.kill(pid, signal.SIGCONT)
            received += chunk
        with open(screen, "wb") as file:
            file.write(received)
        sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """

    /// A source folder whose packing at level 9 takes a second or more: text of random words
    /// (compressible, so slow to compress at level 9, but far from a gzip bomb).
    static func slowSource(in scratch: Scratch) throws -> String {
        let source = scratch.path + "/src"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data(#"<p><a href="words.txt">words</a>"#.utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try CLI.shell("base64 -w 76 /dev/urandom | head -c \(bytes) > '\(source)/words.txt'")
        return source
    }

    static let bytes = 48_000_000

    @Test func aTerminalSeesBytesRateAndTimeLeftAndAPipeSeesNothingMore() throws {
        let scratch = try Scratch()
        let source = try Self.slowSource(in: scratch)
        let screen = scratch.path + "/screen"
        let terminal = try CLI.run(
            program: "/usr/bin/python3", ["-c", Self.stderrOnATerminal, screen, CLI.executable, "pack", source, "--level", "9", "-o", scratch.path + "/a"])
        #expect(terminal.status == 0, "\(terminal)")
        let shown = String(decoding: try Data(contentsOf: URL(fileURLWithPath: screen)), as: UTF8.self)
        let progress = try Regex(#"packing \[[#-]{30}\] [0-9]{1,3}% [0-9.]+ (B|kB|MB) of 48 MB, [0-9.]+ (B|kB|MB|GB)/s, [0-9]+ (s|min [0-9]+ s) left"#)
        #expect(shown.contains(progress), "\(shown.prefix(2000))")
        // The bar is cleared before the report: stdout has the report alone.
        #expect(shown.hasSuffix("\r\u{1B}[K"), "\(shown.suffix(300))")
        #expect(terminal.stdout.hasPrefix("Packed src\n"), "\(terminal.stdout)")

        let piped = try CLI.run(["pack", source, "--level", "9", "-o", scratch.path + "/b"])
        #expect(piped.status == 0, "\(piped)")
        #expect(!piped.stderr.contains("packing") && !piped.stderr.contains("\r") && !piped.stderr.contains("\u{1B}"), "\(piped.stderr)")
        #expect(piped.stdout == terminal.stdout.replacingOccurrences(of: scratch.path + "/a/", with: scratch.path + "/b/"))
    }
}
