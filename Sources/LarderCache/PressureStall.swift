import LarderSystem

/// Reads Linux pressure-stall information (/proc/pressure/memory) and turns it into a MemoryPressure level.
///
/// The kernel reports, over the last 10, 60 and 300 seconds, the share of time in which `some`
/// task was stalled waiting for memory, and in which `full`y all non-idle tasks were stalled at
/// once. Only the 10-second averages are used: they react fastest.
public enum PressureStall {
    /// The 10-second averages from one read of the pressure file, in percent of wall time.
    public struct Reading: Sendable, Equatable {
        /// The share of time at least one task was stalled on memory, 0 to 100.
        public var someAvg10: Double
        /// The share of time all non-idle tasks were stalled on memory at once, 0 to 100.
        public var fullAvg10: Double

        /// Creates a reading.
        public init(someAvg10: Double, fullAvg10: Double) {
            self.someAvg10 = someAvg10
            self.fullAvg10 = fullAvg10
        }
    }

    /// `full avg10` at or above this many percent is critical.
    private static let criticalFull = 10.0
    /// `full avg10` at or above this many percent is a warning.
    private static let warningFull = 2.0
    /// `some avg10` at or above this many percent is a warning.
    private static let warningSome = 10.0
    /// More than any pressure file holds; a longer one is not read to the end.
    private static let maximumFileSize = 4096

    /// Parses the pressure file's text:
    ///
    ///     some avg10=0.12 avg60=0.05 avg300=0.01 total=123456
    ///     full avg10=0.00 avg60=0.00 avg300=0.00 total=7890
    ///
    /// Lines other than `some` and `full` are ignored, as are fields other than `avg10`.
    /// - Parameter text: The file's contents.
    /// - Returns: The two 10-second averages, or nil when the `some` or `full` line is missing
    ///   or repeated, or its `avg10` is missing, repeated, or not a finite number from 0 to 100.
    public static func parse(_ text: String) -> Reading? {
        var some: Double?
        var full: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard let kind = fields.first, kind == "some" || kind == "full" else { continue }
            let averages = fields.dropFirst().filter { $0.hasPrefix("avg10=") }
            guard averages.count == 1, let field = averages.first,
                let value = Double(field.dropFirst("avg10=".count)), value.isFinite, (0...100).contains(value)
            else { return nil }
            if kind == "some" {
                guard some == nil else { return nil }
                some = value
            } else {
                guard full == nil else { return nil }
                full = value
            }
        }
        guard let some, let full else { return nil }
        return Reading(someAvg10: some, fullAvg10: full)
    }

    /// Maps a reading to a pressure level:
    ///
    /// | Condition                                  | Level                          |
    /// | ------------------------------------------ | ------------------------------ |
    /// | `full avg10` ≥ 10 %                         | ``MemoryPressure/critical``    |
    /// | `some avg10` ≥ 10 % or `full avg10` ≥ 2 %  | ``MemoryPressure/warning``     |
    /// | otherwise                                  | nil                            |
    ///
    /// - Parameter reading: The 10-second averages.
    /// - Returns: The level, or nil when there is no pressure worth acting on.
    public static func level(for reading: Reading) -> MemoryPressure? {
        if reading.fullAvg10 >= criticalFull { return .critical }
        if reading.someAvg10 >= warningSome || reading.fullAvg10 >= warningFull { return .warning }
        return nil
    }

    /// Reads the pressure file and maps it to a level with ``level(for:)``.
    /// - Parameter path: The file to read; `/proc/pressure/memory` unless a test says otherwise.
    /// - Returns: The level, or nil when there is no pressure worth acting on, or when the file
    ///   cannot be read or parsed (kernels without PSI, or with it turned off, have no usable file).
    public static func current(path: String = "/proc/pressure/memory") -> MemoryPressure? {
        guard let text = readSmallFile(path), let reading = parse(text) else { return nil }
        return level(for: reading)
    }

    /// Reads a small file to its end with plain reads, as /proc files report no size.
    /// - Returns: Its text, or nil when it cannot be opened or read, or is longer than
    ///   `maximumFileSize`.
    private static func readSmallFile(_ path: String) -> String? {
        guard let file = try? FileDescriptor(opening: path, .readOnly) else { return nil }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumFileSize + 1, alignment: 1)
        defer { bytes.deallocate() }
        var count = 0
        while count < bytes.count {
            guard let got = try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[count...])) else { return nil }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumFileSize else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
