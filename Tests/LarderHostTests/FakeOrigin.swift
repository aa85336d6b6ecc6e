import Foundation
import LarderFormat
import LarderTransport
import LarderSystem

/// An origin in memory over a folder written by `larder publish`: serves journeys with ETags
/// and 304s, objects, manifests and archives (with `Range`), and lets a test script failures.
final class FakeOrigin: HTTPTransport {
    /// How journey requests are answered.
    enum Behaviour: Sendable {
        case serve
        /// This status with these headers.
        case status(Int, [String: String])
        /// This status and body.
        case body(Int, String)
        /// A connection failure (offline).
        case offline
        /// Never answers until ``FakeOrigin/release()`` or cancellation.
        case hang
    }

    struct State {
        var behaviour: Behaviour = .serve
        var journeyRequests: [HTTPRequest] = []
        /// Requests for anything else: manifests, objects, archives.
        var fileRequests: [HTTPRequest] = []
        var hanging: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    let root: String
    let state = Locked(State())

    init(root: String) { self.root = root }

    var behaviour: Behaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Journey document requests seen so far (with the history and the triggers document,
    /// which are answered the same way).
    var journeyRequests: [HTTPRequest] { state.withLock { $0.journeyRequests } }
    /// Requests for the triggers document seen so far.
    var triggerRequests: [HTTPRequest] { journeyRequests.filter { $0.url.path.hasSuffix("/triggers.json") } }
    var journeyRequestCount: Int { state.withLock { $0.journeyRequests.count } }
    /// Manifest, object and archive requests seen so far.
    var fileRequests: [HTTPRequest] { state.withLock { $0.fileRequests } }
    var hangingCount: Int { state.withLock { $0.hanging.count } }

    /// Lets every hanging request go on (with the behaviour then in force).
    func release() {
        let waiting = state.withLock { state in
            defer { state.hanging = [:] }
            return Array(state.hanging.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let path = request.url.path
        guard path.contains("/journeys/") || path.hasSuffix("/triggers.json") else {
            state.withLock { $0.fileRequests.append(request) }
            if case .offline = behaviour { throw TransportError(.connection, "offline", url: request.url) }
            return serveFile(path, request: request)
        }
        state.withLock { $0.journeyRequests.append(request) }
        while case .hang = behaviour {
            let id = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        state.hanging[id] = continuation
                        return false
                    }
                    if cancelled { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.hanging.removeValue(forKey: id) }?.resume()
            }
            if Task.isCancelled { throw TransportError(.cancelled, "cancelled", url: request.url) }
        }
        switch behaviour {
        case .offline, .hang: throw TransportError(.connection, "offline", url: request.url)
        case .status(let status, let headers): return HTTPResponse(status: status, headers: headers, body: Data())
        case .body(let status, let text): return HTTPResponse(status: status, headers: ["etag": "\"x\""], body: Data(text.utf8))
        case .serve: return serveJourney(path, request: request)
        }
    }

    private func serveJourney(_ path: String, request: HTTPRequest) -> HTTPResponse {
        guard let bytes = FileManager.default.contents(atPath: root + path) else {
            return HTTPResponse(status: 404, headers: [:], body: Data())
        }
        let etag = "\"" + SHA256Hasher.hash([UInt8](bytes)).hex.prefix(16) + "\""
        if request.headers["If-None-Match"] == etag { return HTTPResponse(status: 304, headers: ["etag": etag], body: Data()) }
        return HTTPResponse(status: 200, headers: ["etag": etag, "content-type": "application/json"], body: bytes)
    }

    private func serveFile(_ path: String, request: HTTPRequest) -> HTTPResponse {
        guard let bytes = FileManager.default.contents(atPath: root + path) else {
            return HTTPResponse(status: 404, headers: [:], body: Data())
        }
        let etag = "\"\(bytes.count)\""
        guard let range = request.headers["Range"], range.hasPrefix("bytes=") else {
            return HTTPResponse(status: 200, headers: ["etag": etag], body: bytes)
        }
        let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let start = bounds.first.flatMap { $0 } ?? 0
        let end = min((bounds.count > 1 ? bounds[1] : nil) ?? bytes.count - 1, bytes.count - 1)
        guard start <= end else { return HTTPResponse(status: 416, headers: [:], body: Data()) }
        return HTTPResponse(
            status: 206, headers: ["etag": etag, "content-range": "bytes \(start)-\(end)/\(bytes.count)"],
            body: bytes.subdata(in: start..<(end + 1)))
    }
}
