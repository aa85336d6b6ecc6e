import Foundation
import LarderSystem

/// Keeps one presentation on screen at a time among the hosts that share it:
/// presenting a flow while another host's flow is shown dismisses that one first (its outcome:
/// ``PresentationOutcome/replaced``).
///
/// Every host uses ``shared`` (the process's) unless given another, so the hosts of one
/// process present one at a time; a separate coordinator makes a separate group (tests, or an
/// app with two independent surfaces). It also reaches every host of the group at once, for
/// what concerns the whole app rather than one surface: a logout (``logout(_:)``), the app's
/// move to the background and back (``setForeground(_:)``) and a memory warning
/// (``handleMemoryWarning()``). Safe from any thread: its state is behind `Locked`s.
public final class PresentationCoordinator: Sendable {
    /// The process's coordinator.
    public static let shared = PresentationCoordinator()

    /// The host presenting now, and how to end its presentation as replaced.
    struct Holder: Sendable {
        let id: UUID
        let replace: @Sendable () async -> Void
    }

    private let holder = Locked<Holder?>(nil)

    /// What the coordinator can ask of one member of the group (a ``JourneyHost``, a
    /// ``JourneyTriggers``); each closure holds its member weakly.
    struct Member: Sendable {
        /// Signs the member out: its presentation ends, its content and what it remembers of
        /// the person go (``LogoutExtent``).
        let logout: @Sendable (LogoutExtent) async throws(HostError) -> Void
        let setForeground: @Sendable (Bool) async -> Void
        let memoryWarning: @Sendable () async -> Void
    }

    /// The group's members, in the order they joined.
    private let members = Locked<[(id: UUID, member: Member)]>([])

    public init() {}

    /// `member` joins the group under `id` (a host's seat, a trigger router).
    func join(_ id: UUID, _ member: Member) {
        members.withLock { $0.append((id, member)) }
    }

    /// `id` leaves the group (disposal, deinit).
    func leave(_ id: UUID) {
        members.withLock { $0.removeAll { $0.id == id } }
    }

    /// How many members the group has (for tests and diagnostics).
    var memberCount: Int { members.withLock { $0.count } }

    /// Signs every member of the group out (when the user logs out, every journey's
    /// cache is cleared), one after another: each ends its presentation, releases
    /// what it prepared and staged, forgets the documents it verified and the authorisation it
    /// got in this launch, and forgets the scope's stored record (with ``LogoutExtent/everything``,
    /// every scope's, and every bundle of its cache but the embedded default); trigger routers
    /// forget which journeys they showed to whom. A host that then presents offline falls back
    /// to its embedded default or throws. ``JourneyHost/logout(_:)`` with
    /// ``LogoutExtent/everything`` calls this.
    /// - Parameter extent: ``LogoutExtent/journey``: each host's own scope;
    ///   ``LogoutExtent/everything``: every scope.
    /// - Throws: the first member's failure (``HostError/Code/storage`` or
    ///   ``HostError/Code/cache``), after every member was asked; what was cleared stays
    ///   cleared, and calling again finishes it.
    public func logout(_ extent: LogoutExtent = .everything) async throws(HostError) {
        var failure: HostError?
        for member in snapshot() {
            do { try await member.logout(extent) } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// Tells every host of the group whether the app is in the foreground
    /// (``JourneyHost/setForeground(_:)``): each runs its refreshes only in the foreground,
    /// and on the way back waits out the foreground grace before it appears and delivers its
    /// queued captures.
    public func setForeground(_ isForeground: Bool) async {
        for member in snapshot() { await member.setForeground(isForeground) }
    }

    /// A memory warning for every host of the group (``JourneyHost/handleMemoryWarning()``):
    /// hidden renderers unload, open presentations stay.
    public func handleMemoryWarning() async {
        for member in snapshot() { await member.memoryWarning() }
    }

    private func snapshot() -> [Member] { members.withLock { $0.map(\.member) } }

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

    /// Whether a host of this coordinator is presenting.
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

        /// The host joins the coordinator's group (``PresentationCoordinator/logout(_:)``).
        func join(_ member: Member) { coordinator.join(id, member) }

        /// The host leaves the group.
        func leave() { coordinator.leave(id) }
    }
}
