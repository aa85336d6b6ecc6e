import Foundation

/// The loop device of one crash state (``LoopDevice``), and where its file system is mounted.
struct StateMount {
    enum FileSystem: String {
        case ext4, btrfs

        /// The mount options of a crash state: `commit=600`, as the workload's mount (and
        /// `MS_NOATIME`, so the checker's reads write nothing).
        var options: String { "commit=600" }
    }

    let device: String
    let point: String
    let fileSystem: FileSystem

    /// Mounts the device (the file system replays its journal or log tree); call
    /// ``dropCachedBlocks()`` first.
    /// - Returns: nil, or why the state does not mount.
    func mount() -> String? {
        guard Glibc.mount(device, point, fileSystem.rawValue, UInt(MS_NOATIME), fileSystem.options) == 0 else {
            return "the file system does not mount: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Writes back and drops the loop device's cached blocks (`BLKFLSBUF`): before a state is
    /// built (so nothing the last mount or fsck left cached is written over it) and again
    /// before it is mounted (so nothing of an earlier state is read).
    /// - Returns: nil, or what failed.
    func dropCachedBlocks() -> String? {
        let descriptor = open(device, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "cannot open \(device): \(String(cString: strerror(errno)))" }
        let flushed = ioctl(descriptor, 0x1261)  // BLKFLSBUF
        close(descriptor)
        return flushed == 0 ? nil : "BLKFLSBUF on \(device) failed: \(String(cString: strerror(errno)))"
    }

    /// How many of the device's 4 KiB blocks its page cache holds with bytes other than
    /// `image`'s: blocks ``dropCachedBlocks()`` could not drop (it skips pages in use) that a
    /// mount would read instead of the state. Only the blocks `mincore(2)` reports cached are
    /// read, so nothing new is read from the device.
    /// - Returns: the count, or what failed.
    func staleCachedBlocks(comparedWith image: UnsafeRawBufferPointer) -> Result<Int, ToolError> {
        let descriptor = open(device, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(ToolError("cannot open \(device): \(String(cString: strerror(errno)))")) }
        defer { close(descriptor) }
        guard let mapped = mmap(nil, image.count, PROT_READ, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED else {
            return .failure(ToolError("cannot map \(device): \(String(cString: strerror(errno)))"))
        }
        defer { munmap(mapped, image.count) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = [UInt8](repeating: 0, count: (image.count + pageSize - 1) / pageSize)
        guard mincore(mapped, image.count, &resident) == 0 else {
            return .failure(ToolError("mincore on \(device) failed: \(String(cString: strerror(errno)))"))
        }
        var stale = 0
        for page in resident.indices where resident[page] & 1 != 0 {
            let offset = page * pageSize
            if memcmp(mapped + offset, image.baseAddress! + offset, min(pageSize, image.count - offset)) != 0 { stale += 1 }
        }
        return .success(stale)
    }

    /// Unmounts, waiting up to 5 s while it is busy.
    /// - Throws: ``ToolError`` when it stays mounted: something (the checker) kept a file open.
    func unmount() throws {
        for _ in 0..<500 {
            if umount2(point, 0) == 0 { return }
            guard errno == EBUSY else { break }
            usleep(10_000)
        }
        throw ToolError("cannot unmount \(point): \(String(cString: strerror(errno)))")
    }

    /// The file system's own checker, read-only (`e2fsck -fn`, `btrfs check --readonly`), on the
    /// unmounted device; one that runs past `timeout` seconds is killed and reported.
    /// - Returns: nil when it finds nothing wrong, else what it printed.
    func fsck(timeout: Double) throws -> String? {
        let command =
            switch fileSystem {
            case .ext4: ["/usr/sbin/e2fsck", "-fn", device]
            case .btrfs: ["/usr/bin/btrfs", "check", "--readonly", device]
            }
        return try Self.runCheck(command, timeout: timeout)
    }

    /// Runs a file-system checker, its standard error merged into its output.
    /// - Returns: nil when it exits 0 within `timeout` seconds, else why not and its last lines.
    static func runCheck(_ command: [String], timeout: Double) throws -> String? {
        let child = try ChildProcess(command, mergeErrors: true)
        child.closeInput()
        let deadline = Date().addingTimeInterval(timeout)
        let output = child.readToEnd(until: deadline)
        // Its output can end before it exits: give the exit until the deadline too.
        guard let output, let status = child.wait(until: max(deadline, Date().addingTimeInterval(1))) else {
            let gone = child.kill()
            return "\(child.name) hung: still running after \(Int(timeout)) s" + (gone ? ", killed" : ", and SIGKILL did not end it within 10 s")
        }
        guard status != 0 else { return nil }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").suffix(6).joined(separator: " / ")
        guard !lines.isEmpty else { return "\(child.name) exited \(status) and printed nothing" }
        return "\(child.name) exited \(status): \(lines)"
    }
}
