import Foundation

// larder-fuzz: Larder's libFuzzer targets, one program for all of them (Tools/fuzz.sh builds
// it with -sanitize=fuzzer,address into .build-fuzz and runs it).
//
//   larder-fuzz --list                          the targets, one a line: name, max length, summary
//   larder-fuzz seeds <target> <folder>         writes the target's seed corpus into <folder>
//   larder-fuzz <target> [libFuzzer arguments]  fuzzes (the fuzz build), or replays the files and
//                                               folders named (a build without the fuzzer)
//
// The target is the first argument, taken off before libFuzzer reads the rest, and kept in
// LARDER_FUZZ_TARGET for the processes libFuzzer starts itself (-fork, -jobs, -merge).

var arguments = CommandLine.arguments
let usage = "usage: larder-fuzz --list | seeds <target> <folder> | <target> [libFuzzer arguments]"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(64)
}

func target(named name: String) -> FuzzTarget {
    guard let target = FuzzTarget.named(name) else {
        fail("larder-fuzz: no target '\(name)'; targets: \(FuzzTarget.all.map(\.name).joined(separator: " "))")
    }
    return target
}

switch arguments.dropFirst().first {
case "--list":
    for target in FuzzTarget.all { print("\(target.name) \(target.maximumLength) \(target.summary)") }
    exit(0)
case "seeds":
    guard arguments.count == 4 else { fail(usage) }
    do {
        let written = try SeedWriter.write(target(named: arguments[2]), into: arguments[3])
        print("larder-fuzz: \(written) seeds for \(arguments[2]) in \(arguments[3])")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("larder-fuzz: cannot write seeds: \(error)\n".utf8))
        exit(1)
    }
case let name?:
    if FuzzTarget.named(name) != nil {
        setenv("LARDER_FUZZ_TARGET", name, 1)
        arguments.remove(at: 1)
    }
case nil:
    break
}
guard let name = ProcessInfo.processInfo.environment["LARDER_FUZZ_TARGET"] else { fail(usage) }
FuzzDriver.selected = target(named: name)
exit(FuzzDriver.run(arguments))
