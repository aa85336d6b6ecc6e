import Testing
@testable import LarderFormat

@Suite struct DurationTextTests {
    static let cases: [(Duration, String)] = [
        (.seconds(9.999982081999999), "10 s"),  // what a deadline left printed as "9.999982081999999 seconds"
        (.milliseconds(9990), "9.99 s"),
        (.seconds(10), "10 s"),
        (.seconds(30), "30 s"),
        (.milliseconds(2500), "2.5 s"),
        (.milliseconds(250), "250 ms"),
        (.microseconds(12_500), "12.5 ms"),
        (.microseconds(400), "0.4 ms"),
        (.zero, "0 ms"),
        (.milliseconds(999_999) / 1000, "1 s"),  // 999.999 ms rounds into seconds
        (.seconds(119.96), "2 min"),
        (.seconds(150), "2.5 min"),
        (.seconds(15 * 60), "15 min"),
        (.seconds(5000), "83.3 min"),
        (.seconds(7200), "2 h"),
        (.seconds(36 * 3600), "36 h"),
        (.seconds(7 * 86_400), "7 d"),
        (.seconds(-3), "0 ms"),
    ]

    @Test(arguments: cases)
    func durationsForPeople(_ duration: Duration, _ text: String) {
        #expect(DurationText.describe(duration) == text)
    }

    @Test func timeIntervalsTheSameWay() {
        #expect(DurationText.describe(seconds: 9.999982081999999) == "10 s")
        #expect(DurationText.describe(seconds: 0.0425) == "42.5 ms")
        #expect(DurationText.describe(seconds: .infinity) == "0 ms")
    }
}
