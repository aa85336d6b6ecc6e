import CWebKitGTK
import LarderFormat
import LarderHost
import LarderRendering

/// One wait for a GTK/WebKit callback, with a deadline: the waiting task suspends (nothing
/// blocks), and whichever comes first, the callback's ``finish(_:)`` or the deadline, resumes
/// it exactly once.
///
/// The deadline is a GLib timeout source on the main loop. A WebKit task does not complete on
/// cancellation by itself, so a late callback after the deadline finds the call finished and
/// does nothing.
@WebKitActor
final class AsyncCall: PageCompletion {
    /// What the callback delivers: bytes (JSON text, a PNG) or an error.
    typealias Outcome = Result<[UInt8], HostError>

    private var continuation: CheckedContinuation<Outcome, Never>?
    private var timer: guint = 0
    private var early: Outcome?
    /// What is awaited, for the timeout message.
    let what: String
    private let timeout: Duration

    private init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    /// Starts the work and waits for its outcome, at most `timeout`.
    /// - Parameters:
    ///   - what: what is awaited ("the load", "JavaScript evaluation"), for the timeout error.
    ///   - timeout: the deadline from now.
    ///   - start: starts the work; it gets the call (to keep, or to pass to C as
    ///     ``retainedPointer(_:)``) and must make something call ``finish(_:)``.
    static func run(_ what: String, timeout: Duration, start: (AsyncCall) -> Void) async -> Outcome {
        let call = AsyncCall(what: what, timeout: timeout)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            call.continuation = continuation
            call.arm(timeout)
            start(call)
            if let early = call.early { call.resume(early) }
        }
    }

    /// ``run(_:timeout:start:)`` for ``PageEngine/wait(for:timeout:start:)``: the same wait,
    /// its call handed over as a ``PageCompletion``.
    nonisolated(nonsending) static func wait(_ what: String, timeout: Duration, start: (any PageCompletion) -> Void) async -> Outcome {
        let call = WebKitActor.assumeIsolated { AsyncCall(what: what, timeout: timeout) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            WebKitActor.assumeIsolated {
                call.continuation = continuation
                call.arm(timeout)
            }
            start(call)
            WebKitActor.assumeIsolated { if let early = call.early { call.resume(early) } }
        }
    }

    /// Delivers the outcome; only the first outcome (or the deadline) counts.
    nonisolated func finish(_ outcome: Outcome) {
        WebKitActor.assumeIsolated { deliver(outcome) }
    }

    private func deliver(_ outcome: Outcome) {
        guard early == nil else { return }
        early = outcome
        resume(outcome)
    }

    /// A retained pointer to `call` for C `user_data`; ``fromRetained(_:)`` takes it back once.
    static func retainedPointer(_ call: AsyncCall) -> gpointer { Unmanaged.passRetained(call).toOpaque() }

    /// The call behind a pointer from ``retainedPointer(_:)``, releasing that reference.
    static func fromRetained(_ pointer: gpointer) -> AsyncCall { Unmanaged<AsyncCall>.fromOpaque(pointer).takeRetainedValue() }

    private func resume(_ outcome: Outcome) {
        guard let continuation else { return }
        self.continuation = nil
        if timer != 0 {
            g_source_remove(timer)
            timer = 0
        }
        continuation.resume(returning: outcome)
    }

    private func arm(_ timeout: Duration) {
        let milliseconds = max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        timer = g_timeout_add_full(
            G_PRIORITY_DEFAULT, guint(min(milliseconds, Int64(UInt32.max))),
            { data in
                WebKitActor.assumeIsolated {
                    let call = Unmanaged<AsyncCall>.fromOpaque(data!).takeUnretainedValue()
                    call.timer = 0
                    call.finish(.failure(HostError(.renderer, "\(call.what) did not finish within \(DurationText.describe(call.timeout))")))
                }
                return larder_source_remove()
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in Unmanaged<AsyncCall>.fromOpaque(data!).release() })
    }
}
