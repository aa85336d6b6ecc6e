import Foundation
import LarderSystem

/// Keeps one presentation on screen at a time among the hosts that share it [seed 001]:
/// presenting a flow while another host's flow is shown dismisses that one first (its outcome:
/// ``PresentationOutcome/replaced``).
///
/// Every host uses ``shared`` (the process's) unless given another, so the hosts of one
/// process present one at a time; a separate coordinator makes a separate group (tests, or an
/// app with two independent surfaces). Safe from any thread: its one piece of state is behind
/// a `Locked`.
public final class PresentationCoordinator: Sendable {
    /// The process's coordinator.
    public static let shared = PresentationCoordinator()

    /// The host presenting now, and how to end its presentation as replaced.
    struct Holder: Sendable {
        let id: UUID
        let replace: @Sendable () async -> Void
    }

    private let holder = Locked<Holder?>(nil)

    public init() {}

    /// The host presenting now, unless it is `id`.
    func current(excluding id: UUID) -> Holder? {
        holder.withLock { $0?.id == id ? nil : $0 }
    }

    /// Makes `id` the host presenting now; returns the holder it displaced (not `id` itself),
    /// whose presentation the caller ends.
    func claim(_ id: UUID, replace: @escaping @Sendable () async -> Void) -> Holder? {
        holder.withLock { current in
            defer { current = Holder(id: id, replace: replace) }
            return current?.id == id ? nil : current
        }
    }

    /// `id`'s presentation ended; nothing changes when another host holds the screen.
    func release(_ id: UUID) {
        holder.withLock { current in
            if current?.id == id { current = nil }
        }
    }

    /// Whether a host of this coordinator is presenting (for tests and diagnostics).
    var isHeld: Bool { holder.withLock { $0 != nil } }

    /// One host's place among the hosts of a coordinator.
    struct Seat: Sendable {
        let coordinator: PresentationCoordinator
        /// The host in the coordinator.
        let id = UUID()

        /// The host presenting now, unless it is this one.
        func otherPresenter() -> Holder? { coordinator.current(excluding: id) }

        /// Takes the screen; returns the holder displaced, whose presentation the caller ends.
        func claim(replace: @escaping @Sendable () async -> Void) -> Holder? { coordinator.claim(id, replace: replace) }

        /// This host's presentation ended.
        func release() { coordinator.release(id) }
    }
}
