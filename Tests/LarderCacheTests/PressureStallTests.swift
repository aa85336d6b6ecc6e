import Foundation
import Testing
@testable import LarderCache

@Suite struct PressureStallTests {
    static let sample = """
        some avg10=12.34 avg60=5.10 avg300=1.02 total=123456789
        full avg10=0.56 avg60=0.20 avg300=0.05 total=2345678

        """

    @Test func parsesTheKernelsText() {
        #expect(PressureStall.parse(Self.sample) == PressureStall.Reading(someAvg10: 12.34, fullAvg10: 0.56))
        let idle = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        #expect(PressureStall.parse(idle) == PressureStall.Reading(someAvg10: 0, fullAvg10: 0))
        // Field order and unknown lines do not matter.
        let shuffled = "full total=1 avg10=3.5\nsome avg60=1 avg10=100.00\nextra avg10=nonsense"
        #expect(PressureStall.parse(shuffled) == PressureStall.Reading(someAvg10: 100, fullAvg10: 3.5))
    }

    @Test(arguments: [
        "",
        "\n",
        "some avg10=0.12 avg60=0.00 avg300=0.00 total=0",
        "full avg10=0.12 avg60=0.00 avg300=0.00 total=0",
        "some avg10=abc avg60=0.00 total=0\nfull avg10=0.00 avg60=0.00 total=0",
        "some avg10= avg60=0.00 total=0\nfull avg10=0.00 avg60=0.00 total=0",
        "some avg60=0.00 total=0\nfull avg10=0.00 total=0",
        "some avg10=-1.0 total=0\nfull avg10=0.00 total=0",
        "some avg10=100.5 total=0\nfull avg10=0.00 total=0",
        "some avg10=nan total=0\nfull avg10=0.00 total=0",
        "some avg10=inf total=0\nfull avg10=0.00 total=0",
        "some avg10=1 avg10=2 total=0\nfull avg10=0.00 total=0",
        "some avg10=1 total=0\nsome avg10=2 total=0\nfull avg10=0.00 total=0",
        "SOME avg10=1 total=0\nFULL avg10=0.00 total=0",
        "someavg10=1\nfullavg10=0",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(PressureStall.parse(text) == nil)
    }

    @Test(arguments: [
        (0.0, 0.0, nil),
        (9.99, 0.0, nil),
        (9.99, 1.99, nil),
        (10.0, 0.0, .warning),
        (50.0, 1.0, .warning),
        (0.0, 2.0, .warning),
        (30.0, 9.99, .warning),
        (10.0, 10.0, .critical),
        (100.0, 100.0, .critical),
    ] as [(Double, Double, MemoryPressure?)])
    func mapsReadingsToLevels(some: Double, full: Double, level: MemoryPressure?) {
        #expect(PressureStall.level(for: .init(someAvg10: some, fullAvg10: full)) == level)
    }

    @Test func readsAFile() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("psi-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: directory) } catch { Issue.record(error) }
        }

        let file = directory.appendingPathComponent("memory")
        try Data(Self.sample.utf8).write(to: file)
        #expect(PressureStall.current(path: file.path) == .warning)

        try Data("some avg10=1.00 total=0\nfull avg10=25.00 total=0\n".utf8).write(to: file)
        #expect(PressureStall.current(path: file.path) == .critical)

        try Data("some avg10=0.00 total=0\nfull avg10=0.00 total=0\n".utf8).write(to: file)
        #expect(PressureStall.current(path: file.path) == nil)

        try Data("garbage".utf8).write(to: file)
        #expect(PressureStall.current(path: file.path) == nil)
    }

    @Test func missingFileIsNoPressure() {
        #expect(PressureStall.current(path: "/nonexistent/pressure/\(UUID().uuidString)") == nil)
        #expect(PressureStall.current(path: NSTemporaryDirectory()) == nil, "a directory cannot be read")
    }

    @Test func readsTheRealFileWhereThereIsOne() {
        // Whatever the machine's pressure, reading must not crash; parse must accept the kernel's text.
        if let text = try? String(contentsOfFile: "/proc/pressure/memory", encoding: .utf8), !text.isEmpty {
            #expect(PressureStall.parse(text) != nil)
        }
        _ = PressureStall.current()
    }
}
