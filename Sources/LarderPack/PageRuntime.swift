/// The page runtime, `larder.js`: a dependency-free ES module that speaks the page's half of
/// the renderer protocol (the bridge's messages, `ready()`, visibility, reset and context
/// events, analytics held while hidden), with its TypeScript types (`larder.d.ts`).
///
/// The packer adds it to a bundle at ``path`` when `larder.json` says `"runtime": true`
/// (``BundleConfiguration/runtime``); bundles packed without the switch are unchanged.
public enum PageRuntime {
    /// Where the packer puts the script in a bundle.
    public static let path = "larder.js"
    /// Where `larder init` puts the types in a flow's folder.
    public static let typesPath = "larder.d.ts"

    /// The script's bytes.
    public static var scriptBytes: [UInt8] { Array((script + "\n").utf8) }
    /// The types' bytes.
    public static var typesBytes: [UInt8] { Array((types + "\n").utf8) }
}
