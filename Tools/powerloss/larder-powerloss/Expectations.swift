import LarderFormat

/// What a cache must show after a crash at one point of the log, derived from the workload's
/// marks the way a linearizability check does: an operation's effect is possible unless an
/// operation on the same thing began after it was acknowledged and was itself acknowledged
/// before the crash; the cache at `base` held nothing.
struct Expectations {
    /// Bundles that must be there (acknowledged installs nothing later may have removed).
    var present: Set<Digest> = []
    /// Bundles that may be there (an install began before the crash).
    var mayBePresent: Set<Digest> = []
    /// Objects the workload may have damaged on purpose and not healed since: reading them may
    /// fail (then they must be quarantined), and their bundles may be incomplete.
    var mayBeCorrupt: Set<Digest> = []
    /// Captured events that must be queued, and those that may be.
    var captures: Set<String> = []
    var mayBeCaptured: Set<String> = []
    /// Journeys whose host state must name their bundle.
    var journeys: [String: Digest] = [:]
    /// Whether a journey run began before the crash: the host then queues events of its own
    /// (`<session>/presented`), whose ids the marks cannot name.
    var hostMayCapture = false

    /// - Parameters:
    ///   - operations: every operation of the workload, from the whole log (an operation in
    ///     flight at the crash is judged by what its ack, later, says it did).
    ///   - point: the crash point: records before it reached the disk (or may have).
    ///   - objects: the objects of each bundle, to know which bundles a corrupt object touches.
    init(_ operations: [Operation], at point: Int, objects: [Digest: Set<Digest>]) {
        var bundles = Set<Digest>()
        for operation in operations { if let bundle = operation.installed { bundles.insert(bundle) } }
        for bundle in bundles {
            let relevant = operations.filter { operation in
                guard operation.began(before: point) else { return false }
                if operation.installed == bundle { return true }
                if case .removal = operation.kind { return operation.removed?.contains(bundle) ?? true }
                return false
            }
            var outcomes = Set<Bool>()
            if !relevant.contains(where: { $0.acknowledged(before: point) }) { outcomes.insert(false) }  // as at base
            for operation in relevant where !Self.superseded(operation, among: relevant, at: point) {
                outcomes.insert(operation.installed == bundle)
            }
            if outcomes == [true] { present.insert(bundle) }
            if outcomes.contains(true) { mayBePresent.insert(bundle) }
        }
        for operation in operations where operation.began(before: point) {
            switch operation.kind {
            case .corrupt(let object) where operation.result["missing"] == nil:
                if !Self.healed(object, after: operation, operations, at: point, objects: objects) { mayBeCorrupt.insert(object) }
            case .capture(let id):
                mayBeCaptured.insert(id)
                if operation.acknowledged(before: point) { captures.insert(id) }
            case .journey(let bundle, let journey):
                hostMayCapture = true
                if operation.acknowledged(before: point) { journeys[journey] = bundle }
            default:
                continue
            }
        }
    }

    /// Whether an operation acknowledged after `operation`'s ack began and was acknowledged
    /// before the crash: then `operation`'s effect was replaced.
    private static func superseded(_ operation: Operation, among others: [Operation], at point: Int) -> Bool {
        guard let ack = operation.ack else { return false }
        return others.contains { $0.begin > ack && $0.acknowledged(before: point) }
    }

    /// Whether a damaged object was repaired: a `repair` began after the damage was
    /// acknowledged, then an install of a bundle holding the object began after that repair's
    /// ack and was acknowledged before the crash.
    private static func healed(
        _ object: Digest, after damage: Operation, _ operations: [Operation], at point: Int, objects: [Digest: Set<Digest>]
    ) -> Bool {
        guard let damaged = damage.ack, damaged < point else { return false }
        for repair in operations where repair.kind == .repair && repair.begin > damaged && repair.acknowledged(before: point) {
            let repaired = repair.ack!
            if operations.contains(where: { install in
                guard let bundle = install.installed, objects[bundle]?.contains(object) == true else { return false }
                return install.begin > repaired && install.acknowledged(before: point)
            }) {
                return true
            }
        }
        return false
    }
}
