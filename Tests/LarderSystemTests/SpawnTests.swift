#if os(Linux)
import Foundation
import Glibc
import LarderSystem
import Testing

@Suite struct SpawnTests {
    /// Reads a pipe's read end to its end of file.
    private func readToEnd(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aShellPrintsToAPipe() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        // No child of another test keeps the write end (and the end of file) from this one.
        for end in ends { #expect(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        defer { close(ends[0]) }
        let spawn = Spawn(
            "/bin/sh", arguments: ["-c", "printf 'hello %s' \"$0\"", "pipe"], standardInput: .null, standardOutput: .descriptor(ends[1]))
        let pid = try spawn.start()
        close(ends[1])  // the child holds its copy: the end of file comes when it exits
        #expect(readToEnd(ends[0]) == "hello pipe")
        #expect(try ChildExit.wait(for: pid) == 0)
    }

    @Test func theExitCodeOrTheSignalIsReported() throws {
        #expect(try ChildExit.wait(for: Spawn(command: ["/bin/sh", "-c", "exit 3"]).start()) == 3)
        let killed = try Spawn(command: ["/bin/sh", "-c", "kill -TERM $$"], signals: .clean(defaulting: [SIGTERM])).start()
        #expect(try ChildExit.wait(for: killed) == 128 + SIGTERM)
    }

    @Test func aChildPastItsDeadlineIsKilled() throws {
        let quick = try Spawn(command: ["/bin/sh", "-c", "exit 5"]).start()
        #expect(try ChildExit.wait(for: quick, killingAfter: .now + .seconds(30)) == 5)
        let started = ContinuousClock.now
        let slow = try Spawn(command: ["/bin/sleep", "30"]).start()
        #expect(try ChildExit.wait(for: slow, killingAfter: .now + .milliseconds(200)) == 128 + SIGKILL)
        #expect(ContinuousClock.now - started < .seconds(20))
        let stopped = try Spawn(command: ["/bin/sleep", "30"]).start()
        ChildExit.kill(stopped)
        #expect(throws: Errno(rawValue: ECHILD)) { try ChildExit.wait(for: stopped) }
    }

    @Test func aMissingExecutableIsATypedError() throws {
        do {
            _ = try Spawn("/nonexistent/larder-no-such-program").start()
            Issue.record("a missing program started")
        } catch {
            #expect(error.errno == .notFound)
            #expect(error.executable == "/nonexistent/larder-no-such-program")
            #expect(error.description.hasPrefix("cannot start /nonexistent/larder-no-such-program: "))
        }
        // Not looked up on PATH unless asked.
        #expect(throws: SpawnError.self) { try Spawn("sh", arguments: ["-c", "true"]).start() }
        #expect(try ChildExit.wait(for: Spawn("sh", arguments: ["-c", "exit 4"], searchesPath: true).start()) == 4)
    }

    @Test func outputAndErrorsGoToAFile() throws {
        let scratch = try Scratch()
        try scratch.write("out", "old text, longer than the new")
        let script = "echo out; echo err >&2; cat"
        let pid = try Spawn(
            "/bin/sh", arguments: ["-c", script], standardInput: .null, standardOutput: .truncating(scratch.path + "/out"),
            standardError: .standardOutput
        ).start()
        #expect(try ChildExit.wait(for: pid) == 0)
        #expect(scratch.read("out") == "out\nerr\n")
        // Appending keeps what is there, and never creates the file.
        let appended = try Spawn(command: ["/bin/sh", "-c", "echo more"], standardOutput: .appending(scratch.path + "/out")).start()
        #expect(try ChildExit.wait(for: appended) == 0)
        #expect(scratch.read("out") == "out\nerr\nmore\n")
        #expect(throws: SpawnError(executable: "/bin/sh", errno: .notFound)) {
            try Spawn(command: ["/bin/sh", "-c", "true"], standardOutput: .appending(scratch.path + "/missing")).start()
        }
        #expect(scratch.read("missing") == nil)
    }

    @Test func theEnvironmentIsTheOneGiven() throws {
        let scratch = try Scratch()
        let pid = try Spawn(
            "/bin/sh", arguments: ["-c", "printf '%s|%s' \"$LARDER_SPAWN_TEST\" \"${HOME:-unset}\""], environment: ["LARDER_SPAWN_TEST": "given"],
            standardOutput: .truncating(scratch.path + "/env")
        ).start()
        #expect(try ChildExit.wait(for: pid) == 0)
        #expect(scratch.read("env") == "given|unset")
    }
}
#endif
