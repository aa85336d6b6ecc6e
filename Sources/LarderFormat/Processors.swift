import Foundation

/// The processors this process may use, read once. Foundation reads them afresh on every call
/// (the affinity mask and the cgroup's CPU quota files: 8 system calls, about 17 µs), and
/// every archive reader and gzip writer would ask. (`@usableFromInline`: public initializers
/// take it as a default argument.)
@usableFromInline
package enum Processors {
    @usableFromInline
    package static let active = ProcessInfo.processInfo.activeProcessorCount
}
