import Foundation
import LarderCLI

// larder-webkit: the larder commands with the web engine in process. `larder` hands it the
// command lines that need the engine (`render`, `journey --renderer webkit`); run directly,
// it answers every command as larder does.

// No "Can't connect to a11y bus" warning where there is no accessibility bus to connect to.
AccessibilityBus.quietWhereThereIsNone()
// A reader that goes away makes writes fail with EPIPE (exit 74) instead of a SIGPIPE kill.
signal(SIGPIPE, SIG_IGN)
exit(larderMain(Array(CommandLine.arguments.dropFirst()), engine: WebKitEngine()).rawValue)
