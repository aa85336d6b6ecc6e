import CWebKitGTK
import LarderSystem

/// The serial executor of ``WebKitActor``: it runs every job on the thread that owns GLib's
/// default main context (see ``MainLoopThread``), by adding each job as an idle source of that
/// context with `g_idle_add_full` (thread-safe; the loop wakes up and runs it in order).
///
/// GTK and WebKit call back into Swift from that same thread (signals, URI scheme requests,
/// asynchronous results), outside any job. ``checkIsolated()`` lets Swift 6 accept such
/// code as isolated to ``WebKitActor`` by asking GLib whether the current thread owns the
/// context (`g_main_context_is_owner`), instead of trapping with "Unexpected isolation
/// context".
final class GLibExecutor: SerialExecutor {
    /// The one executor; creating it starts the main-loop thread.
    static let shared = GLibExecutor()

    private init() {
        MainLoopThread.start()
    }

    /// Queues a job on the main context: `g_idle_add_full` at `G_PRIORITY_DEFAULT`, so jobs
    /// run in order and are not starved by idle work such as redraws. GLib is not built with
    /// ThreadSanitizer, so the hand-over of the job to the loop's thread is told to it.
    func enqueue(_ job: consuming ExecutorJob) {
        let box = Unmanaged.passRetained(JobBox(job: UnownedJob(job), executor: asUnownedSerialExecutor())).toOpaque()
        ThreadSanitizer.release(box)
        g_idle_add_full(
            G_PRIORITY_DEFAULT,
            { data in
                ThreadSanitizer.acquire(data!)
                let box = Unmanaged<JobBox>.fromOpaque(data!).takeRetainedValue()
                box.job.runSynchronously(on: box.executor)
                return larder_source_remove()
            }, box, nil)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the current thread owns GLib's default main context (`g_main_context_is_owner`).
    static var isOnMainLoop: Bool {
        g_main_context_is_owner(g_main_context_default()) != 0
    }

    /// Traps unless the current thread owns GLib's default main context.
    func checkIsolated() {
        precondition(Self.isOnMainLoop, "LarderWebKit: GTK/WebKit code ran off the GLib main-loop thread")
    }

    /// Whether the current thread owns GLib's default main context.
    func isIsolatingCurrentContext() -> Bool? {
        Self.isOnMainLoop
    }
}

/// One queued job and the executor it runs on, handed to the C callback.
private final class JobBox {
    let job: UnownedJob
    let executor: UnownedSerialExecutor

    init(job: UnownedJob, executor: UnownedSerialExecutor) {
        self.job = job
        self.executor = executor
    }
}
