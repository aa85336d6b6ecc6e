import Foundation
import Glibc
import LarderEgress

/// The connections an ``EgressFilter`` refuses because their peer already holds as many as it
/// may (``EgressAdmission/Decision/full``), served on the accepting thread without blocking it:
/// each one's request head is read (at most ``headTimeout``) so the refusal can be reported
/// with what it asked for, then it is answered 503 and closed. At most ``capacity`` wait; a
/// connection past them is reported without its request.
package struct EgressOverflow {
    /// How long a refused connection's head may take.
    package static let headTimeout = Duration.seconds(2)
    /// Refused connections read at once.
    package static let capacity = 64

    private struct Waiting {
        let fd: Int32
        var bytes: [UInt8]
        let deadline: ContinuousClock.Instant
    }

    private var waiting: [Waiting] = []

    /// Takes a refused connection; when ``capacity`` are already waiting, refuses it at once
    /// and reports it without a request.
    package mutating func add(_ fd: Int32, report: (BlockedRequest) -> Void) {
        guard waiting.count < Self.capacity else {
            Self.refuse(fd, request: nil, report: report)
            return
        }
        waiting.append(Waiting(fd: fd, bytes: [], deadline: .now + Self.headTimeout))
    }

    /// What to poll: each waiting connection, readable.
    package var pollers: [pollfd] { waiting.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) } }

    /// Reads what arrived (`polled` is ``pollers`` after `poll`, in its order), and refuses
    /// each connection whose head is complete, malformed, over its size, closed or late.
    package mutating func advance(_ polled: ArraySlice<pollfd>, report: (BlockedRequest) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var index = 0
        for poller in polled where index < waiting.count {
            defer { index += 1 }
            guard poller.revents != 0 else { continue }
            let count = recv(waiting[index].fd, &chunk, chunk.count, 0)
            if count > 0 { waiting[index].bytes += chunk[..<count] }
        }
        let now = ContinuousClock.now
        waiting.removeAll { entry in
            let head = Self.head(in: entry.bytes)
            guard head != nil || now >= entry.deadline || entry.bytes.count > ProxyRequest.maximumHeadSize else { return false }
            Self.refuse(entry.fd, request: head.flatMap { try? ProxyRequest.parse($0) }, report: report)
            return true
        }
    }

    /// Refuses every waiting connection (the filter stops): nothing is reported.
    package mutating func closeAll() {
        for entry in waiting { close(entry.fd) }
        waiting.removeAll()
    }

    /// Reports the refusal, answers 503 as far as the socket takes it now, and closes.
    private static func refuse(_ fd: Int32, request: ProxyRequest?, report: (BlockedRequest) -> Void) {
        report(BlockedRequest(url: request?.url ?? "(a connection whose request did not arrive)", reason: "too-many-connections"))
        EgressConnection.answerAtOnce(
            fd, status: 503, "too many connections at once: the engine already holds \(EgressFilter.maximumConnectionsPerPeer)")
        close(fd)
    }

    /// The head (through its blank line) when `bytes` hold all of it.
    private static func head(in bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return Array(bytes[..<(index + 4)])
        }
        return nil
    }
}
