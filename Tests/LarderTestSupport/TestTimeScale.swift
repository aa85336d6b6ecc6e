import Foundation

/// How many times longer than usual a test may wait for something before it calls it hung:
/// `LARDER_TEST_TIME_SCALE` (a number of at least 1; 1 when unset). The test command sets it for
/// the run under ThreadSanitizer, which makes code several times slower, so a watchdog meant to
/// catch a hang does not fire on a call that is merely slow. It never shortens a limit.
public let testTimeScale: Double = {
    guard let text = ProcessInfo.processInfo.environment["LARDER_TEST_TIME_SCALE"] else { return 1 }
    guard let scale = Double(text), scale.isFinite, scale >= 1 else {
        fatalError("LARDER_TEST_TIME_SCALE must be a number of at least 1, not \(text)")
    }
    return scale
}()

extension Duration {
    /// This limit times ``testTimeScale``.
    public var scaledForTests: Duration { self * testTimeScale }
}
