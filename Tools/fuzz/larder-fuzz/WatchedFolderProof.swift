import Foundation

/// Shows, once per process before the install target's first input, that ``WatchedFolder``
/// sees each kind of change an install could leave in a cache folder: after each one, its
/// listing must differ from the one before and equal a full listing read afresh. A change it
/// missed would let a refused install that wrote into the cache pass.
enum WatchedFolderProof {
    static func run(in folder: String) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/objects/ab", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/staging", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/objects/ab/cd"))
        let watch = try WatchedFolder(root: folder, ignoring: InstallSandbox.isScratch)
        let changes: [(String, () throws -> Void)] = [
            ("a file made in a shard", { try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/objects/ab/ef")) }),
            ("a file's bytes rewritten in place, same size", {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/objects/ab/cd"))
                try handle.write(contentsOf: Data("new".utf8))
                try handle.close()
            }),
            ("a file removed", { try manager.removeItem(atPath: folder + "/objects/ab/ef") }),
            ("a folder made with a file in it", {
                try manager.createDirectory(atPath: folder + "/staging/tx/deep", withIntermediateDirectories: true)
                try Data("y".utf8).write(to: URL(fileURLWithPath: folder + "/staging/tx/deep/file"))
            }),
            ("a file written in the new folder", { try Data("z".utf8).write(to: URL(fileURLWithPath: folder + "/staging/tx/deep/file")) }),
            ("a folder renamed into another", { try manager.moveItem(atPath: folder + "/staging/tx", toPath: folder + "/objects/tx") }),
            ("a file in the moved folder written", { try Data("w".utf8).write(to: URL(fileURLWithPath: folder + "/objects/tx/deep/file")) }),
            ("a symbolic link made", { try manager.createSymbolicLink(atPath: folder + "/objects/link", withDestinationPath: "/etc/passwd") }),
            ("a folder tree removed", { try manager.removeItem(atPath: folder + "/objects/tx") }),
            ("a file replaced by a folder", {
                try manager.removeItem(atPath: folder + "/objects/ab/cd")
                try manager.createDirectory(atPath: folder + "/objects/ab/cd", withIntermediateDirectories: false)
            }),
            ("a FIFO made", { guard mkfifo(folder + "/objects/fifo", 0o600) == 0 else { throw FolderListing.Failure("mkfifo: errno \(errno)") } }),
        ]
        for (name, change) in changes {
            let before = watch.folders
            try change()
            watch.refresh()
            let full = FolderListing.tree(folder).filter { $0.value == FolderListing.folder || !InstallSandbox.isScratch($0.key) }
            guard watch.folders != before, WatchedFolder.flattened(watch.folders) == full else {
                throw FolderListing.Failure("the watched listing missed \(name): \(FolderListing.difference(full, WatchedFolder.flattened(watch.folders)))")
            }
        }
        // What the comparison leaves out changes nothing.
        let before = watch.folders
        try Data("journal".utf8).write(to: URL(fileURLWithPath: folder + "/index.sqlite-wal"))
        watch.refresh()
        guard watch.folders == before else { throw FolderListing.Failure("the watched listing holds a WAL file") }
        try manager.removeItem(atPath: folder)
    }
}
