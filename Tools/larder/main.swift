import Foundation
import LarderCLI

// larder: the CLI without the web engine, so that pack, cache and the other commands start
// without loading WebKitGTK; the commands that need the engine continue in larder-webkit
// (WebEngineProgram).

// A reader that goes away (`larder cache ls | head -1`) makes writes fail with EPIPE, which
// Console turns into exit 74, instead of killing the process with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
exit(larderMain(Array(CommandLine.arguments.dropFirst()), engine: WebEngineProgram()).rawValue)
