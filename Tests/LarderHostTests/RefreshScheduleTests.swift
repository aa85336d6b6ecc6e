import Foundation
import Testing
@testable import LarderHost

/// ``RefreshSchedule`` as tables on the manual clock (DESIGN.md Host: one refresh scheduled
/// when due while in the foreground; a resume refreshes when due): each row feeds the machine
/// events and asserts the actions it returns, no host, no polling.
@Suite("Refresh schedule")
struct RefreshScheduleTests {
    /// An event, with times in minutes from the start of the manual clock.
    enum Event: Sendable, CustomStringConvertible {
        case scheduled(minutes: Int)
        case foregrounded(minutes: Int, contentDue: Int?)
        case backgrounded
        case refreshRequested
        case fired
        case cancelled

        var description: String {
            switch self {
            case .scheduled(let at): "scheduled at \(at)"
            case .foregrounded(let at, let due): "foregrounded at \(at), content due \(due.map(String.init) ?? "never")"
            case .backgrounded: "backgrounded"
            case .refreshRequested: "refresh requested"
            case .fired: "fired"
            case .cancelled: "cancelled"
            }
        }
    }

    /// The expected action, with times in minutes.
    enum Expected: Sendable, Equatable {
        case none, startTimer(Int), startRefresh, refresh, cancelTimer, releaseTimer
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var events: [Event]
        /// The action of each event, in order.
        var actions: [Expected]
        /// When the next refresh is due once the events are in, in minutes.
        var due: Int?
        var foreground = true
        var testDescription: String { name }
    }

    static let start = ManualClock().now

    static func date(_ minutes: Int) -> Date { start.addingTimeInterval(Double(minutes) * 60) }

    static func apply(_ event: Event, to schedule: inout RefreshSchedule) -> Expected {
        let action: RefreshSchedule.Action =
            switch event {
            case .scheduled(let at): schedule.scheduled(at: date(at))
            case .foregrounded(let at, let due): schedule.foregrounded(at: date(at), contentDue: due.map(date))
            case .backgrounded: schedule.backgrounded()
            case .refreshRequested: schedule.refreshRequested()
            case .fired: schedule.fired()
            case .cancelled: schedule.cancelled()
            }
        return switch action {
        case .none: .none
        case .startTimer(let at): .startTimer(Int(at.timeIntervalSince(start) / 60))
        case .startRefresh: .startRefresh
        case .refresh: .refresh
        case .cancelTimer: .cancelTimer
        case .releaseTimer: .releaseTimer
        }
    }

    @Test("Events and the actions they return", arguments: [
        Row(name: "a preparation schedules one timer", events: [.scheduled(minutes: 10)], actions: [.startTimer(10)], due: 10),
        Row(
            name: "a later date keeps the timer: one refresh, the earliest", events: [.scheduled(minutes: 10), .scheduled(minutes: 20)],
            actions: [.startTimer(10), .none], due: 10),
        Row(
            name: "an earlier date replaces the timer", events: [.scheduled(minutes: 20), .scheduled(minutes: 10)],
            actions: [.startTimer(20), .startTimer(10)], due: 10),
        Row(
            name: "the timer fired: the next renewal schedules again", events: [.scheduled(minutes: 10), .fired, .scheduled(minutes: 20)],
            actions: [.startTimer(10), .releaseTimer, .startTimer(20)], due: 20),
        Row(
            name: "in the background: no timer, the earliest date kept for the resume",
            events: [.backgrounded, .scheduled(minutes: 20), .scheduled(minutes: 10)], actions: [.cancelTimer, .none, .none], due: 10,
            foreground: false),
        Row(
            name: "going to the background stops the timer and keeps when it was due", events: [.scheduled(minutes: 10), .backgrounded],
            actions: [.startTimer(10), .cancelTimer], due: 10, foreground: false),
        Row(
            name: "a resume after the refresh was due refreshes at once",
            events: [.scheduled(minutes: 10), .backgrounded, .foregrounded(minutes: 60, contentDue: 30)],
            actions: [.startTimer(10), .cancelTimer, .refresh], due: nil),
        Row(
            name: "a resume before it is due starts its timer again",
            events: [.scheduled(minutes: 10), .backgrounded, .foregrounded(minutes: 5, contentDue: 30)],
            actions: [.startTimer(10), .cancelTimer, .startTimer(10)], due: 10),
        Row(
            name: "a resume with nothing left due asks when the content is due",
            events: [.backgrounded, .foregrounded(minutes: 5, contentDue: 30)], actions: [.cancelTimer, .startTimer(30)], due: 30),
        Row(
            name: "a resume with nothing due and nothing prepared does nothing",
            events: [.backgrounded, .foregrounded(minutes: 5, contentDue: nil)], actions: [.cancelTimer, .none], due: nil),
        Row(
            name: "already in the foreground: nothing", events: [.foregrounded(minutes: 60, contentDue: 30), .backgrounded, .backgrounded],
            actions: [.none, .cancelTimer, .none], due: nil, foreground: false),
        Row(
            name: "content in its window's second half refreshes now instead of the timer",
            events: [.scheduled(minutes: 10), .refreshRequested], actions: [.startTimer(10), .startRefresh], due: nil),
        Row(
            name: "a renewal while a background refresh runs replaces it with a timer",
            events: [.refreshRequested, .scheduled(minutes: 10)], actions: [.startRefresh, .startTimer(10)], due: 10),
        Row(
            name: "cancelled: nothing stays due", events: [.scheduled(minutes: 10), .cancelled, .scheduled(minutes: 20)],
            actions: [.startTimer(10), .cancelTimer, .startTimer(20)], due: 20),
    ])
    func events(_ row: Row) {
        var schedule = RefreshSchedule()
        #expect(row.events.map { Self.apply($0, to: &schedule) } == row.actions)
        #expect(schedule.due == row.due.map(Self.date))
        #expect(schedule.foreground == row.foreground)
    }

    @Test("The resume's time is kept for the foreground grace; going to the background leaves it")
    func returnedToForeground() {
        var schedule = RefreshSchedule()
        #expect(schedule.returnedToForeground == nil)
        _ = schedule.backgrounded()
        _ = schedule.foregrounded(at: Self.date(3), contentDue: nil)
        #expect(schedule.returnedToForeground == Self.date(3))
        _ = schedule.backgrounded()
        #expect(schedule.returnedToForeground == Self.date(3))
    }
}
