import Foundation
struct CorpusSummary: Sendable { var root: URL; var fileCount: Int; var totalBytes: Int; var bytesByKind: [String: Int] }
enum Corpus { static func generate(at root: URL, totalBytes: Int, seed: UInt64 = 42) throws -> CorpusSummary { fatalError() } }
