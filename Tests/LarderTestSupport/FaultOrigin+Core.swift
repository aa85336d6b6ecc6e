import Foundation
import Glibc
import LarderSystem

extension FaultOrigin {
    /// The listening socket, the accepting thread, the connection threads and everything they
    /// share. Threads hold the core, not the ``FaultOrigin``, so dropping the origin still runs its
    /// `deinit` (and ``stop()``).
    final class Core: Sendable {
        struct State {
            var stopping = false
            var requests: [Request] = []
            var bodyBytesSent: Int64 = 0
            var accepted = 0
            /// Open connections: their id and socket. A socket leaves this table (under the lock)
            /// before it is closed, so ``stop()`` never shuts down a number reused by someone else.
            var connections: [Int: Int32] = [:]
            /// Threads serving a connection, by connection id.
            var threads: [Int: pthread_t] = [:]
            /// Threads whose work is over, waiting to be joined.
            var finished: [pthread_t] = []
            var acceptThread: pthread_t?
        }

        let state = Locked(State())
        let listener: Int32
        let maxConnections: Int
        let sendBufferSize: Int?
        let route: @Sendable (Request) -> Answer

        /// Every wait (`poll`) lasts at most this long before the stop flag is checked again.
        static let tick: Int32 = 50
        /// How long ``stop()`` waits for connection threads.
        static let stopBudget: Duration = .milliseconds(1800)

        init(listener: Int32, maxConnections: Int, sendBufferSize: Int?, route: @escaping @Sendable (Request) -> Answer) {
            self.listener = listener
            self.maxConnections = maxConnections
            self.sendBufferSize = sendBufferSize
            self.route = route
        }

        var stopping: Bool { state.withLock { $0.stopping } }

        /// Starts the accepting thread; closes the listener if it cannot.
        func start() throws(FaultOriginError) {
            do {
                let thread = try spawnThread { self.acceptLoop() }
                state.withLock { $0.acceptThread = thread }
            } catch {
                close(listener)
                throw error
            }
        }

        func record(_ request: Request) { state.withLock { $0.requests.append(request) } }
        func countBody(_ count: Int) { state.withLock { $0.bodyBytesSent += Int64(count) } }

        // MARK: Accepting

        private func acceptLoop() {
            defer { close(listener) }
            while true {
                reapFinishedThreads()
                if stopping { return }
                var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, Self.tick) > 0 else { continue }
                let fd = acceptConnection()
                guard fd >= 0 else {
                    // EMFILE and the like leave the listener readable: do not spin on it.
                    if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED { usleep(10_000) }
                    continue
                }
                configure(fd)
                let admitted = state.withLock { state -> Bool in
                    state.accepted += 1
                    guard !state.stopping, state.connections.count < maxConnections else { return false }
                    let id = state.accepted
                    // Created under the lock: the thread cannot finish (which takes the lock)
                    // before it is in the table.
                    do {
                        state.threads[id] = try spawnThread { self.serve(connection: id, fd: fd) }
                    } catch {
                        printError("connection \(id) refused: \(error)")
                        return false
                    }
                    state.connections[id] = fd
                    return true
                }
                if !admitted { close(fd) }
            }
        }

        /// `accept4` with `SOCK_CLOEXEC | SOCK_NONBLOCK`, so processes the tests spawn never
        /// inherit a connection. Glibc's Swift module hides `accept4` (it needs `_GNU_SOURCE`), so it
        /// is looked up at run time, with `accept` and `fcntl` as the fallback.
        private func acceptConnection() -> Int32 {
            if let accept4 = accept4Function {
                return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            }
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            return fd
        }

        /// No Nagle delay (a drip's single bytes go out at once) and the requested send buffer.
        /// Both are tuning: a failure changes timing, not behaviour, so it is only reported.
        private func configure(_ fd: Int32) {
            var one: Int32 = 1
            if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                printError("setsockopt(TCP_NODELAY) failed: errno \(errno)")
            }
            if var size = sendBufferSize.map(Int32.init) {
                if setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                    printError("setsockopt(SO_SNDBUF) failed: errno \(errno)")
                }
            }
        }

        // MARK: Connection threads

        private func serve(connection id: Int, fd: Int32) {
            Connection(core: self, id: id, fd: fd).run()
            state.withLock { _ = $0.connections.removeValue(forKey: id) }
            close(fd)
            state.withLock { state in
                // A thread that stop() gave up on was detached and taken out of the table: it
                // must not be joined.
                if let me = state.threads.removeValue(forKey: id) { state.finished.append(me) }
            }
        }

        private func reapFinishedThreads() {
            let finished = state.withLock { state -> [pthread_t] in
                defer { state.finished = [] }
                return state.finished
            }
            for thread in finished { pthread_join(thread, nil) }
        }

        // MARK: Stopping

        func stop() {
            let (first, accepting) = state.withLock { state -> (Bool, pthread_t?) in
                guard !state.stopping else { return (false, nil) }
                state.stopping = true
                for fd in state.connections.values { shutdown(fd, Int32(SHUT_RDWR)) }
                defer { state.acceptThread = nil }
                return (true, state.acceptThread)
            }
            guard first else { return }
            let me = pthread_self()
            // The accepting thread never runs a test's code: it ends within one tick.
            if let accepting, pthread_equal(accepting, me) == 0 { pthread_join(accepting, nil) }

            let clock = ContinuousClock()
            let deadline = clock.now + Self.stopBudget
            while clock.now < deadline {
                let waiting = state.withLock { state in state.threads.values.contains { pthread_equal($0, me) == 0 } }
                if !waiting { break }
                usleep(5_000)
            }
            let (finished, stuck) = state.withLock { state -> ([pthread_t], [Int: pthread_t]) in
                defer { state.finished = []; state.threads = [:] }
                return (state.finished, state.threads)
            }
            for thread in finished { pthread_join(thread, nil) }
            for (id, thread) in stuck {
                if pthread_equal(thread, me) == 0 {
                    printError("stop(): connection \(id) is still inside a route or stream closure; left to finish on its own")
                }
                pthread_detach(thread)
            }
        }
    }
}

// MARK: Helpers

private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
private let accept4Function: Accept4? = dlsym(nil, "accept4").map { unsafeBitCast($0, to: Accept4.self) }

/// Runs `body` on a new joinable thread.
private func spawnThread(_ body: @escaping @Sendable () -> Void) throws(FaultOriginError) -> pthread_t {
    final class Start {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let start = Unmanaged.passRetained(Start(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { raw in
        Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, start)
    guard status == 0 else {
        Unmanaged<Start>.fromOpaque(start).release()
        throw FaultOriginError("pthread_create", errno: status)
    }
    return thread
}

/// A diagnostic on standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("FaultOrigin: \(message)\n".utf8))
}
