import Foundation

/// An HTTP-date (RFC 9110 section 5.6.7) in the three forms a recipient must accept, read by
/// its grammar rather than by `DateFormatter` (one formatter per form made on each call cost
/// about 250 µs, and some non-ASCII text stopped the process inside it):
///
///     IMF-fixdate   Sun, 06 Nov 1994 08:49:37 GMT
///     rfc850-date   Sunday, 06-Nov-94 08:49:37 GMT
///     asctime-date  Sun Nov  6 08:49:37 1994
///
/// Names are case-sensitive, as the grammar says. Beyond it, a day of the month may have one
/// digit in every form (`Sun, 6 Nov 1994`, `Sun Nov 6 08:49:37 1994`). The day name is not
/// checked against the date. A date that does not exist (31 February, hour 24) is refused; a
/// leap second (`:60`) is the second after `:59`.
enum HTTPDate {
    /// The date `text` names, or nil when it is none of the forms.
    /// - Parameter now: what a two-digit rfc850 year is read against: one that would be more
    ///   than 50 years in the future is the most recent past year with those digits.
    static func parse(_ text: String, now: Date) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        if let date = imfFixdate(&scanner) { return date }
        scanner.offset = 0
        if let date = rfc850(&scanner, now: now) { return date }
        scanner.offset = 0
        return asctime(&scanner)
    }

    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func imfFixdate(_ scanner: inout Scanner) -> Date? {
        guard scanner.word(shortDays) != nil, scanner.literal(", "), let day = scanner.number(digits: 1...2),
            scanner.literal(" "), let month = scanner.word(months), scanner.literal(" "),
            let year = scanner.number(digits: 4...4), scanner.literal(" "), let time = scanner.timeOfDay(),
            scanner.literal(" GMT"), scanner.atEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time)
    }

    private static func rfc850(_ scanner: inout Scanner, now: Date) -> Date? {
        guard scanner.word(longDays) != nil, scanner.literal(", "), let day = scanner.number(digits: 1...2),
            scanner.literal("-"), let month = scanner.word(months), scanner.literal("-"),
            let twoDigits = scanner.number(digits: 2...2), scanner.literal(" "), let time = scanner.timeOfDay(),
            scanner.literal(" GMT"), scanner.atEnd
        else { return nil }
        let thisYear = year(of: now)
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month + 1, day: day, time)
    }

    private static func asctime(_ scanner: inout Scanner) -> Date? {
        guard scanner.word(shortDays) != nil, scanner.literal(" "), let month = scanner.word(months), scanner.literal(" ")
        else { return nil }
        _ = scanner.literal(" ")  // "Nov  6": a one-digit day is padded with a space
        guard let day = scanner.number(digits: 1...2), scanner.literal(" "), let time = scanner.timeOfDay(),
            scanner.literal(" "), let year = scanner.number(digits: 4...4), scanner.atEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time)
    }

    /// Seconds since 1970 of a proleptic Gregorian date in GMT, when the date exists.
    private static func date(year: Int, month: Int, day: Int, _ time: (hour: Int, minute: Int, second: Int)) -> Date? {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day), time.hour < 24, time.minute < 60, time.second <= 60 else { return nil }
        // Days from 1970-01-01 to the date (the days-from-civil algorithm: years begin in March).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The GMT year `date` falls in (the civil-from-days algorithm).
    private static func year(of date: Date) -> Int {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthFromMarch >= 10 ? 1 : 0)
    }

    /// A cursor over the header's bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { offset == bytes.count }

        /// Takes `text` when the bytes continue with it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - offset >= count else { return false }
            let matches = text.withUTF8Buffer { expected in bytes[offset..<offset + count].elementsEqual(expected) }
            if matches { offset += count }
            return matches
        }

        /// Takes the first of `words` the bytes continue with; its index.
        mutating func word(_ words: [String]) -> Int? {
            for (index, word) in words.enumerated() {
                let utf8 = word.utf8
                guard bytes.count - offset >= utf8.count, bytes[offset..<offset + utf8.count].elementsEqual(utf8) else { continue }
                offset += utf8.count
                return index
            }
            return nil
        }

        /// Takes a run of ASCII digits whose length is in `digits`, as a number.
        mutating func number(digits: ClosedRange<Int>) -> Int? {
            var value = 0
            var count = 0
            while offset + count < bytes.count, count < digits.upperBound, (0x30...0x39).contains(bytes[offset + count]) {
                value = value * 10 + Int(bytes[offset + count] - 0x30)
                count += 1
            }
            guard digits.contains(count) else { return nil }
            if offset + count < bytes.count, (0x30...0x39).contains(bytes[offset + count]) { return nil }  // too many digits
            offset += count
            return value
        }

        /// Takes `HH:MM:SS`, two digits each.
        mutating func timeOfDay() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = number(digits: 2...2), literal(":"), let minute = number(digits: 2...2), literal(":"),
                let second = number(digits: 2...2)
            else { return nil }
            return (hour, minute, second)
        }
    }
}

