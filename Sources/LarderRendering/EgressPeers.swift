import Foundation
import Glibc
import LarderSystem

/// Whose connections an ``EgressFilter`` serves, and which process is at the other end of one.
///
/// A TCP connection on 127.0.0.1 does not say who made it (`SO_PEERCRED` is for local-domain
/// sockets only), but the kernel does: `/proc/net/tcp` gives the inode of the socket at the
/// connection's other end, and only the process holding that socket has it among its
/// descriptors (`/proc/<pid>/fd`). Nobody can forge either.
package enum EgressPeers: Sendable {
    /// The web engine's network process: a child of this process (WebKit starts it directly,
    /// outside the sandbox, since it is the one process with a network) running
    /// `WebKitNetworkProcess`. Web processes cannot reach the filter at all (the sandbox gives
    /// them no network), and any other local process, of this user or another, is refused.
    case networkProcess
    /// One process: the filter's own tests drive it from theirs.
    case process(pid_t)

    /// The executable of WebKit's network process.
    package static let networkProcessName = "WebKitNetworkProcess"

    /// The process the filter serves that made the connection `fd` accepted, nil when another
    /// made it (or it closed already).
    /// - Parameter remembered: the network process found last, tried first; updated.
    package func peer(of fd: Int32, remembered: inout pid_t?) -> pid_t? {
        guard let inode = LoopbackPeer.socketInode(atOtherEndOf: fd) else { return nil }
        switch self {
        case .process(let only):
            return LoopbackPeer.process(only, holds: inode) ? only : nil
        case .networkProcess:
            if let known = remembered, Self.isNetworkProcess(known), LoopbackPeer.process(known, holds: inode) { return known }
            let found = LoopbackPeer.children(of: getpid()).first { Self.isNetworkProcess($0) && LoopbackPeer.process($0, holds: inode) }
            if let found { remembered = found }
            return found
        }
    }

    /// Whether `pid` is a child of this process running WebKit's network process. (A child's
    /// id cannot pass to another process while this one has not reaped it.)
    package static func isNetworkProcess(_ pid: pid_t) -> Bool {
        guard ProcessTable.process(pid)?.parent == getpid(), let executable = LoopbackPeer.executable(of: pid) else { return false }
        return (executable as NSString).lastPathComponent == networkProcessName
    }
}

/// What `/proc` says about the local end of a loopback TCP connection.
package enum LoopbackPeer {
    /// The inode of the socket at the other end of `fd`, a TCP connection over IPv4 between
    /// two sockets of this machine: the `/proc/net/tcp` entry whose local address is `fd`'s
    /// peer address and whose remote address is `fd`'s own; nil when there is none (the peer
    /// closed it already, another network namespace).
    package static func socketInode(atOtherEndOf fd: Int32) -> UInt64? {
        guard let mine = address(of: fd, peer: false), let theirs = address(of: fd, peer: true), let table = readTable("/proc/net/tcp")
        else { return nil }
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[1] == theirs, fields[2] == mine, let inode = UInt64(fields[9]), inode != 0 else { continue }
            return inode
        }
        return nil
    }

    /// A `/proc` table read to its end (its size reads 0, and it comes a page per read).
    private static func readTable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < 64 << 20 {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `fd`'s own (or its peer's) IPv4 address as `/proc/net/tcp` writes it: the address as a
    /// 32-bit number in hex (the kernel prints the network-order value), a colon, the port in
    /// hex.
    private static func address(of fd: Int32, peer: Bool) -> Substring? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return Substring(String(format: "%08X:%04X", address.sin_addr.s_addr, UInt16(bigEndian: address.sin_port)))
    }

    /// Whether process `pid` has the socket `inode` among its descriptors.
    package static func process(_ pid: pid_t, holds inode: UInt64) -> Bool {
        let folder = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
        let wanted = "socket:[\(inode)]"
        var buffer = [CChar](repeating: 0, count: 64)
        for name in descriptors {
            let count = readlink(folder + "/" + name, &buffer, buffer.count)
            guard count > 0 else { continue }
            if String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == wanted { return true }
        }
        return false
    }

    /// The processes whose parent is `parent` (`/proc/<pid>/stat`).
    package static func children(of parent: pid_t) -> [pid_t] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return all.filter { ProcessTable.process($0)?.parent == parent }
    }

    /// The path `/proc/<pid>/exe` links to, nil when it cannot be read.
    package static func executable(of pid: pid_t) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
