/// A renderer's page size in CSS pixels (the web engine's view; `larder` parses `--viewport`
/// without loading the engine).
public struct Viewport: Sendable, Equatable, CustomStringConvertible {
    /// Width in CSS pixels.
    public var width: Int
    /// Height in CSS pixels.
    public var height: Int

    /// A phone in portrait (430 × 932), the default.
    public static let phone = Viewport(width: 430, height: 932)

    /// Creates a viewport.
    /// - Parameters:
    ///   - width: 1 to 8192.
    ///   - height: 1 to 8192.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `WIDTHxHEIGHT` (such as `430x932`), each 1 to 8192; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 4 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let width = Int(parts[0]), let height = Int(parts[1]), (1...8192).contains(width), (1...8192).contains(height)
        else { return nil }
        self.init(width: width, height: height)
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}
