#if canImport(CCurl)
import CCurl
import Foundation
import LarderSystem

/// One libcurl multi handle and the thread that drives it.
///
/// Callers hand transfers over through ``submit(_:)`` (a mutex-guarded inbox and
/// `curl_multi_wakeup`, both safe from any thread) and never call libcurl themselves. The loop
/// thread adds them, runs `curl_multi_perform`, finishes the transfers libcurl reports done or
/// their callers cancelled, and sleeps in `curl_multi_poll` (at most a second). It holds no
/// lock while a transfer resumes its caller, so a caller's cancellation can never wait on it.
final class CurlLoop: Sendable {
    static let shared = CurlLoop()

    private let multi: MultiHandle
    private let inbox = Locked<[CurlTransfer]>([])

    private init() {
        multi = MultiHandle()
        let thread = Thread { [self] in run() }
        thread.name = "larder-curl"
        thread.start()
    }

    /// Queues a transfer; the loop starts it on its next turn.
    func submit(_ transfer: CurlTransfer) {
        inbox.withLock { $0.append(transfer) }
        multi.wakeup()
    }

    /// Makes the loop take a turn now (to notice a cancellation).
    func wake() { multi.wakeup() }

    private func run() -> Never {
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        while true {
            let added = inbox.withLock { queue in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            for transfer in added {
                guard !transfer.isCancelled else { transfer.finishCancelled(); continue }
                do throws(TransportError) {
                    let easy = try transfer.prepare()
                    try multi.add(easy, url: transfer.request.url)
                    active[easy] = transfer
                } catch {
                    transfer.finish(.failure(error))
                }
            }
            for (easy, transfer) in active where transfer.isCancelled {
                multi.remove(easy)
                active[easy] = nil
                transfer.finishCancelled()
            }
            multi.perform()
            while let (easy, result) = multi.nextDone() {
                multi.remove(easy)
                active.removeValue(forKey: easy)?.complete(result)
            }
            multi.poll(milliseconds: 1000)
        }
    }
}

/// A `CURLM` handle. Only the loop thread calls it, except ``wakeup()``, which libcurl
/// documents as safe from any thread.
private final class MultiHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init() {
        guard curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK, let handle = curl_multi_init() else {
            fatalError("libcurl cannot initialise (curl_global_init, curl_multi_init)")
        }
        self.handle = handle
        // Connections are kept and reused; at most 8 at once to one host, like a browser.
        _ = larder_multi_set_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, 8)
        _ = larder_multi_set_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, 32)
    }

    /// `curl_multi_add_handle`.
    func add(_ easy: UnsafeMutableRawPointer, url: URL) throws(TransportError) {
        let code = curl_multi_add_handle(handle, easy)
        guard code == CURLM_OK else {
            throw TransportError(.connection, "libcurl refused the transfer: \(String(cString: curl_multi_strerror(code)))", url: url)
        }
    }

    /// `curl_multi_remove_handle` (the transfer cleans its handle up when it finishes).
    func remove(_ easy: UnsafeMutableRawPointer) { _ = curl_multi_remove_handle(handle, easy) }

    /// `curl_multi_perform`: moves every transfer on as far as it can without waiting.
    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(handle, &running)
    }

    /// `curl_multi_info_read`: the next finished transfer and its result.
    func nextDone() -> (UnsafeMutableRawPointer, CURLcode)? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, larder_message_result(message))
            }
        }
        return nil
    }

    /// `curl_multi_poll`: waits for socket activity, a timer of libcurl's, a wakeup, or the
    /// timeout.
    func poll(milliseconds: Int32) { _ = curl_multi_poll(handle, nil, 0, milliseconds, nil) }

    /// `curl_multi_wakeup`.
    func wakeup() { _ = curl_multi_wakeup(handle) }
}
#endif
