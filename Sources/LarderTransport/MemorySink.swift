import Foundation

/// Collects a body in memory; the transport bounds it before it gets here.
package final class MemorySink: ResponseSink, @unchecked Sendable {
    // Confined: the transport calls it from one thread at a time and never after the send
    // returned, which is when `take` reads it.
    private var data = Data()

    package init() {}

    package func begin(status: Int, headers: [String: String]) throws(TransportError) {
        // Each try starts the body over (a retry after a dropped connection sends it again).
        data.removeAll(keepingCapacity: true)
        if let length = headers["content-length"].flatMap(Int.init), length > 0 { data.reserveCapacity(min(length, 1 << 20)) }
    }

    package func receive(_ bytes: UnsafeRawBufferPointer) throws(TransportError) { data.append(contentsOf: bytes) }

    package func take() -> Data { data }
}

extension HTTPTransport {
    /// ``HTTPTransport/send(_:)`` for a transport that streams: the body gathered in memory.
    func collect(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let sink = MemorySink()
        var response = try await send(request, into: sink)
        response.body = sink.take()
        return response
    }
}
