/// Which connections the egress filter serves: those of the processes it is for (the web
/// engine's network process), at most ``perPeer`` at once from each.
///
/// A pure state machine: the filter tells it each connection it accepted (with whether its
/// peer is one the filter serves) and each that ended, and does what the decision says. A
/// connection from any other local process is refused at once, holds nothing and reports
/// nothing; one past the limit is refused and, since its peer is the engine, reported.
package struct EgressAdmission: Sendable, Equatable {
    /// What to do with an accepted connection.
    package enum Decision: Equatable, Sendable {
        /// Serve it; ``release(_:)`` when it ends.
        case serve
        /// Another local process: close it, holding and reporting nothing.
        case foreign
        /// Its peer already holds ``perPeer`` connections: refuse it, reporting what it asked.
        case full
    }

    /// Connections one peer may hold at once.
    package let perPeer: Int
    /// Connections served now, by peer process id.
    package private(set) var open: [Int32: Int] = [:]

    package init(perPeer: Int) {
        precondition(perPeer > 0, "a peer must be allowed a connection")
        self.perPeer = perPeer
    }

    /// Decides an accepted connection.
    /// - Parameters:
    ///   - peer: the process id of its peer, nil when it could not be told.
    ///   - served: whether that process is one the filter serves.
    /// - Complexity: O(1).
    package mutating func admit(peer: Int32?, served: Bool) -> Decision {
        guard let peer, served else { return .foreign }
        let count = open[peer, default: 0]
        guard count < perPeer else { return .full }
        open[peer] = count + 1
        return .serve
    }

    /// A served connection of `peer` ended.
    /// - Complexity: O(1).
    package mutating func release(_ peer: Int32) {
        guard let count = open[peer] else { return }
        open[peer] = count > 1 ? count - 1 : nil
    }

    /// Connections served now, over every peer.
    package var total: Int { open.values.reduce(0, +) }
}
