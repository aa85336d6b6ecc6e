import Foundation
import LarderFormat

/// A typed message from journey content to the app, passed over the renderer bridge.
public enum BridgeMessage: Sendable, Equatable {
    /// The content asks to close the journey before its end (outcome: dismissed).
    case dismiss
    /// The content reached the end of the flow and asks to close it (outcome: completed).
    case complete
    /// The content moved to another screen.
    case navigate(screen: String)
    /// The content asks the app to open a link.
    case openLink(URL)
    /// The content asks the app to start a purchase.
    case purchase(product: String)
    /// The content asks the app to restore purchases.
    case restorePurchases
    /// An app-defined message with a JSON payload, passed through unchanged.
    case custom(name: String, payload: JSONValue)
    /// An answer or event to capture; `body` is kept byte for byte.
    case capture(event: String, body: [UInt8])
}
