import Foundation

/// A loop device over the state file for one crash state: attached after the state is built,
/// detached after it was checked, so no block of one state can reach the next.
///
/// Reusing one device let a mount on a busy machine see the previous state's writes (the
/// checker's probe install, block bitmaps that disagreed with the inodes): `BLKFLSBUF` skips
/// pages in use, and nothing made the last state's writes finish before the next build.
/// Detaching (`LOOP_CLR_FD`) freezes the device's queue, so every write of a state has reached
/// the state file or been dropped before the next is built; a new device starts with an empty
/// page cache. `LO_FLAGS_AUTOCLEAR` detaches it by itself if the explorer dies with it open.
final class LoopDevice {
    let path: String
    private let number: Int32
    private var descriptor: Int32

    private static let getFree: UInt = 0x4C82  // LOOP_CTL_GET_FREE
    private static let setFD: UInt = 0x4C00  // LOOP_SET_FD
    private static let clearFD: UInt = 0x4C01  // LOOP_CLR_FD
    private static let setStatus64: UInt = 0x4C04  // LOOP_SET_STATUS64
    private static let autoclear: UInt32 = 4  // LO_FLAGS_AUTOCLEAR

    /// Attaches a free loop device to `file`, read-write.
    /// - Throws: ``ToolError`` naming the step that failed.
    init(attachingTo file: String) throws {
        let control = open("/dev/loop-control", O_RDWR | O_CLOEXEC)
        guard control >= 0 else { throw ToolError("cannot open /dev/loop-control: \(String(cString: strerror(errno)))") }
        defer { close(control) }
        let backing = open(file, O_RDWR | O_CLOEXEC)
        guard backing >= 0 else { throw ToolError("cannot open \(file): \(String(cString: strerror(errno)))") }
        defer { close(backing) }
        // Another process may take the free device first: ask again.
        for _ in 0..<20 {
            let free = ioctl(control, Self.getFree)
            guard free >= 0 else { throw ToolError("no free loop device: \(String(cString: strerror(errno)))") }
            let path = "/dev/loop\(free)"
            let device = open(path, O_RDWR | O_CLOEXEC)
            guard device >= 0 else { throw ToolError("cannot open \(path): \(String(cString: strerror(errno)))") }
            if ioctl(device, Self.setFD, backing) == 0 {
                self.path = path
                number = free
                descriptor = device
                try setAutoclear()
                return
            }
            let failure = errno
            close(device)
            guard failure == EBUSY else { throw ToolError("LOOP_SET_FD on \(path) failed: \(String(cString: strerror(failure)))") }
        }
        throw ToolError("every free loop device was taken by another process 20 times")
    }

    deinit {
        if descriptor >= 0 {
            _ = ioctl(descriptor, Self.clearFD, 0)
            close(descriptor)
        }
    }

    /// `LO_FLAGS_AUTOCLEAR` through `LOOP_SET_STATUS64` (a `struct loop_info64` of 232 bytes,
    /// `lo_flags` at offset 52).
    private func setAutoclear() throws {
        var info = [UInt8](repeating: 0, count: 232)
        withUnsafeBytes(of: Self.autoclear.littleEndian) { info.replaceSubrange(52..<56, with: $0) }
        guard info.withUnsafeMutableBytes({ ioctl(descriptor, Self.setStatus64, $0.baseAddress!) }) == 0 else {
            throw ToolError("LOOP_SET_STATUS64 on \(path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Detaches the device (its queue drains first) and waits, up to 10 s, until the kernel
    /// no longer lists its backing file.
    /// - Throws: ``ToolError`` when it stays attached: something else holds it open.
    func detach() throws {
        guard descriptor >= 0 else { return }
        let cleared = ioctl(descriptor, Self.clearFD, 0)
        let failure = errno
        close(descriptor)
        descriptor = -1
        guard cleared == 0 || failure == ENXIO else { throw ToolError("LOOP_CLR_FD on \(path) failed: \(String(cString: strerror(failure)))") }
        let backing = "/sys/block/loop\(number)/loop/backing_file"
        for _ in 0..<1_000 {
            if !FileManager.default.fileExists(atPath: backing) { return }
            usleep(10_000)
        }
        throw ToolError("\(path) is still attached 10 s after LOOP_CLR_FD")
    }
}
