#if LARDER_FUZZING
import CLibFuzzer
#endif
import Foundation
import LarderFormat

/// Hands inputs to the selected target: libFuzzer's driver in the fuzz build
/// (`-DLARDER_FUZZING`, linked with `-sanitize=fuzzer`), or a replay of the files named on the
/// command line in any other build, so a saved crash can be run under a debugger or in a plain
/// debug build.
enum FuzzDriver {
    /// The target every input goes to: set once by `main` before the first input, then only
    /// read (libFuzzer calls the target on the thread that started it).
    nonisolated(unsafe) static var selected: FuzzTarget?

    /// Runs the driver with libFuzzer's arguments (the program name first).
    /// - Returns: the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        #if LARDER_FUZZING
        var argc = Int32(arguments.count)
        var strings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        strings.append(nil)
        defer { for string in strings { free(string) } }
        return strings.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv, larderFuzzTestOneInput)
        }
        #else
        return replay(arguments.dropFirst().filter { !$0.hasPrefix("-") })
        #endif
    }

    /// Runs every file named, and every file in each folder named, through the target.
    static func replay(_ paths: [String]) -> Int32 {
        guard let target = selected else { return 64 }
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("larder-fuzz: \(path) does not exist\n".utf8))
                return 66
            }
            if isFolder.boolValue {
                do {
                    files += try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
                } catch {
                    FileHandle.standardError.write(Data("larder-fuzz: cannot list \(path): \(error)\n".utf8))
                    return 66
                }
            } else {
                files.append(path)
            }
        }
        for file in files {
            let bytes: [UInt8]
            do { bytes = try ReadableFile(path: file).readAll() } catch {
                FileHandle.standardError.write(Data("larder-fuzz: \(error)\n".utf8))
                return 66
            }
            bytes.withUnsafeBytes { target.run($0) }
        }
        print("larder-fuzz: \(target.name): \(files.count) inputs replayed, no invariant broken" + (Outcomes.counts.isEmpty ? "" : " (\(Outcomes.summary))"))
        return 0
    }
}

#if LARDER_FUZZING
/// libFuzzer's entry point. libFuzzer's own `main` (linked whole by `-sanitize=fuzzer`) needs
/// the symbol; the program's `main` starts the driver with this function itself.
@_cdecl("LLVMFuzzerTestOneInput")
func larderFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.selected?.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#endif
