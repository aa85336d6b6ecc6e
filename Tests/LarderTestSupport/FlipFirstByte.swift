import Foundation

/// Flips the first byte of a file, as disk rot or tampering would (read-only files included).
public func flipFirstByte(at path: String) throws {
    chmod(path, 0o644)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: 0)
    var byte = try handle.read(upToCount: 1) ?? Data([0])
    byte[byte.startIndex] ^= 0x01
    try handle.seek(toOffset: 0)
    try handle.write(contentsOf: byte)
    try handle.close()
}
