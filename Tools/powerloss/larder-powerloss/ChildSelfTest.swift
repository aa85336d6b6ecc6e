import Foundation

/// `larder-powerloss self-test-children`: the explorer's waits on its children end by
/// themselves. A checker or file-system checker that hangs, dies, closes its output and
/// stays, or answers nonsense is a verdict on the state within the timeout, never a stalled run.
/// - Returns: the failures (empty when every case behaves).
func childSelfTest() throws -> [String] {
    var failures: [String] = []
    func expect(_ name: String, _ verdict: String?, contains text: String?, within limit: Double, since started: Date) {
        let seconds = Date().timeIntervalSince(started)
        if seconds > limit { failures.append("\(name): took \(String(format: "%.1f", seconds)) s, more than \(limit) s") }
        switch (text, verdict) {
        case (nil, nil): break
        case (nil, let verdict?): failures.append("\(name): expected no complaint, got '\(verdict)'")
        case (let text?, nil): failures.append("\(name): expected a complaint with '\(text)', got none")
        case (let text?, let verdict?) where !verdict.contains(text): failures.append("\(name): expected '\(text)' in '\(verdict)'")
        default: break
        }
        emit("self-test: \(name): \(verdict ?? "no complaint") (\(String(format: "%.1f", seconds)) s)")
    }
    let fsckCases: [(String, [String], String?)] = [
        ("an fsck that finds nothing", ["/bin/sh", "-c", "echo clean"], nil),
        ("an fsck that finds damage", ["/bin/sh", "-c", "echo 'inode 12 is broken'; exit 4"], "exited 4: inode 12 is broken"),
        ("an fsck that hangs", ["/bin/sleep", "60"], "hung: still running after 1 s, killed"),
        ("an fsck that closes its output and stays", ["/bin/sh", "-c", "exec >&- 2>&-; sleep 60"], "hung"),
        ("an fsck killed by a signal", ["/bin/sh", "-c", "kill -9 $$"], "exited 137"),
        ("an fsck that prints for ever", ["/usr/bin/yes", "inode 12 is broken"], "hung"),
    ]
    for (name, command, text) in fsckCases {
        let started = Date()
        expect(name, try StateMount.runCheck(command, timeout: 1), contains: text, within: 5, since: started)
    }
    let checkerCases: [(String, String, String?)] = [
        ("a checker that answers ok", "while read line; do echo ok; done", nil),
        ("a checker that finds a problem", "while read line; do echo 'bad object 3 is missing'; done", "object 3 is missing"),
        ("a checker that hangs", "read line; sleep 60", "hung for 1 s"),
        ("a checker that dies", "read line; exit 3", "died (status 3)"),
        ("a checker that ends without answering", "exit 0", "died"),
        ("a checker that answers nonsense", "read line; echo 'maybe'; sleep 60", "answered 'maybe'"),
        ("a checker that never ends its answer", "read line; yes x | tr -d '\\n'", "answered"),
    ]
    for (name, script, text) in checkerCases {
        let checker = CheckerProcess(arguments: [], timeout: 1, command: ["/bin/sh", "-c", script])
        let started = Date()
        let problems = try checker.check(root: "/nonexistent", point: 0)
        expect(name, problems.isEmpty ? nil : problems.joined(separator: " | "), contains: text, within: 8, since: started)
        // A hang, and only a hang, says what the checker was doing: its threads and their stacks.
        let report = checker.lastHangReport
        if name == "a checker that hangs" {
            let stacks = report?.contains("Thread 1") == true || report?.contains("(gdb could not") == true
                || report?.contains("(no gdb on this machine") == true
            if report?.contains("do_wait sh") != true || !stacks {
                failures.append("\(name): the hang report does not list the hung process's threads: \(report ?? "none")")
            }
        } else if report != nil {
            failures.append("\(name): a hang report for a checker that did not hang")
        }
        checker.stop()
    }
    return failures
}
