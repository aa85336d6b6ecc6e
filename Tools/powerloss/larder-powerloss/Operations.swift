import LarderFormat

/// One operation of the workload, from its `begin` mark to its `ack` (written after the API call
/// returned), with positions in the write log.
///
/// Marks (one line each): `begin <id> <kind> [arguments]`, `ack <id> [key=value ...]`.
/// Kinds and arguments:
/// - `install <bundle>`: the bundle is installed when acknowledged;
/// - `journey <bundle> <journey>`: `larder journey prepare|present` brought the journey's
///   bundle into the cache and stored the host's state;
/// - `retain <scope>`, `evict`: removals; the ack lists what went (`removed=<d>,<d>`);
/// - `gc`: a sweep (nothing visible changes);
/// - `corrupt <object>`: the workload overwrote the object's bytes on purpose (ack `missing`
///   when the file was not there, so nothing was written);
/// - `repair`: `verify(repair: true)`;
/// - `capture <event id>`: an event enqueued in the host's capture queue.
struct Operation {
    enum Kind: Equatable {
        case install(Digest)
        case journey(Digest, journey: String)
        case removal
        case sweep
        case corrupt(Digest)
        case repair
        case capture(String)
    }

    let id: String
    let kind: Kind
    let begin: Int
    var ack: Int?
    /// The ack's `key=value` words.
    var result: [String: String] = [:]

    /// Bundles a removal took away, as its ack said; nil when it was never acknowledged (then
    /// it may have removed anything).
    var removed: Set<Digest>? {
        guard kind == .removal, ack != nil else { return nil }
        let list = result["removed"] ?? ""
        return Set(list.split(separator: ",").compactMap { try? Digest(parsing: String($0)) })
    }

    /// The bundle an install or a journey run brings.
    var installed: Digest? {
        switch kind {
        case .install(let bundle), .journey(let bundle, _): bundle
        default: nil
        }
    }

    func began(before point: Int) -> Bool { begin < point }
    func acknowledged(before point: Int) -> Bool { ack.map { $0 < point } ?? false }
}

extension WriteLog {
    /// The workload's operations, in the order they began.
    /// - Throws: ``ToolError`` for a mark that does not parse.
    func operations() throws -> [Operation] {
        var operations: [Operation] = []
        var byID: [String: Int] = [:]
        for (position, record) in records.enumerated() where record.kind == .mark {
            let words = text(of: record).split(separator: " ").map(String.init)
            guard let verb = words.first else { continue }
            switch verb {
            case "begin":
                guard words.count >= 3 else { throw ToolError("mark at \(position) is malformed: \(words)") }
                let kind = try Self.kind(words[2], Array(words.dropFirst(3)), position: position)
                byID[words[1]] = operations.count
                operations.append(Operation(id: words[1], kind: kind, begin: position))
            case "ack":
                guard words.count >= 2, let index = byID[words[1]] else { throw ToolError("ack at \(position) of no begun operation") }
                operations[index].ack = position
                for word in words.dropFirst(2) {
                    let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
                    operations[index].result[pair[0]] = pair.count > 1 ? pair[1] : ""
                }
            default:
                continue  // base, end, notes
            }
        }
        return operations
    }

    private static func kind(_ name: String, _ arguments: [String], position: Int) throws -> Operation.Kind {
        func digest(_ index: Int) throws -> Digest {
            guard index < arguments.count, let digest = try? Digest(parsing: arguments[index]) else {
                throw ToolError("mark at \(position): '\(name)' needs a digest")
            }
            return digest
        }
        switch name {
        case "install": return .install(try digest(0))
        case "journey": return .journey(try digest(0), journey: arguments.count > 1 ? arguments[1] : "")
        case "retain", "evict": return .removal
        case "gc": return .sweep
        case "corrupt": return .corrupt(try digest(0))
        case "repair": return .repair
        case "capture":
            guard let id = arguments.first else { throw ToolError("mark at \(position): capture needs an id") }
            return .capture(id)
        default: throw ToolError("mark at \(position): unknown operation '\(name)'")
        }
    }
}
