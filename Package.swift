// swift-tools-version:6.0
import PackageDescription

// The locks tell ThreadSanitizer when they are taken and let go (LarderSystem's Locked): only in
// the build that Tools/test-thread-sanitizer.sh makes with `--sanitize=thread` and
// LARDER_THREAD_SANITIZER=1. Elsewhere the calls are left out, since they cost a lock more
// than the lock itself.
let threadSanitizerAnnotations: [SwiftSetting] =
    Context.environment["LARDER_THREAD_SANITIZER"] == "1" ? [.define("LARDER_THREAD_SANITIZER")] : []

let package = Package(
    name: "Larder",
    // Synchronization's Mutex needs these. Linux is where everything is built and tested; on
    // Apple platforms the cache takes its POSIX durability path (LarderCache's Durability),
    // which the test command also runs here, and LarderWebKit is Linux-only.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "LarderFormat", targets: ["LarderFormat"]),
        .library(name: "LarderPack", targets: ["LarderPack"]),
        .library(name: "LarderPublish", targets: ["LarderPublish"]),
        .library(name: "LarderCache", targets: ["LarderCache"]),
        .library(name: "LarderTransport", targets: ["LarderTransport"]),
        .library(name: "LarderFetch", targets: ["LarderFetch"]),
        .library(name: "LarderHost", targets: ["LarderHost"]),
        .library(name: "LarderS3", targets: ["LarderS3"]),
        .library(name: "LarderRendering", targets: ["LarderRendering"]),
        .library(name: "LarderWebKit", targets: ["LarderWebKit"]),
        .library(name: "LarderJourneyView", targets: ["LarderJourneyView"]),
        .executable(name: "larder", targets: ["larder"]),
        .executable(name: "larder-webkit", targets: ["larder-webkit"]),
        .executable(name: "larder-bench", targets: ["larder-bench"]),
        .executable(name: "larder-powerloss", targets: ["larder-powerloss"]),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Patches between revisions: zstd with the old object as reference prefix.
        .systemLibrary(
            name: "CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(
            name: "CLibdeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(
            name: "CArchive", pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),

        // webkit2gtk-4.1's pkg-config answer less -pthread and -Wl,--export-dynamic, which
        // SwiftPM refuses with a warning on every build; Tools/setup.sh writes it.
        .systemLibrary(
            name: "CWebKitGTK", pkgConfig: "larder-webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]),

        // GIO for its network monitor (LarderHost's connectivity signal on Linux): a small library
        // of its own, apart from WebKitGTK. gio-2.0's pkg-config answer has -pthread, which
        // SwiftPM refuses with a warning on every build; Tools/setup.sh writes this copy without it.
        .systemLibrary(
            name: "CGIO", pkgConfig: "larder-gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]),

        .target(name: "CLarderSystem"),
        // System calls: owned file descriptors, errno, file locks, folders, atomic files.
        .target(name: "LarderSystem", dependencies: ["CLarderSystem"], swiftSettings: threadSanitizerAnnotations),

        .target(name: "LarderFormat", dependencies: ["LarderSystem", "CZlib", "CLibdeflate", "CArchive", "CCrypto", "CZstd"]),
        // HarfBuzz's subsetter and Google's WOFF2 encoder (C++) behind a few C functions, so that
        // no Swift module needs C++ interoperability (which every module importing one built
        // with it would need too).
        .target(
            name: "CFontTools",
            linkerSettings: [
                .linkedLibrary("harfbuzz-subset"), .linkedLibrary("harfbuzz"), .linkedLibrary("woff2enc"), .linkedLibrary("woff2dec"),
                .linkedLibrary("brotlienc"), .linkedLibrary("brotlidec"), .linkedLibrary("z"), .linkedLibrary("stdc++"),
            ]),
        .target(name: "LarderPack", dependencies: ["LarderFormat", "LarderSystem", "CFontTools"]),
        // Publishing: the origin layout written to a folder or, through LarderS3, a bucket, behind
        // one protocol (PublishTarget). Reads archives through LarderFormat; needs no packer.
        .target(name: "LarderPublish", dependencies: ["LarderFormat", "LarderSystem"]),
        .target(name: "LarderSQLite", dependencies: ["CSQLite", "LarderSystem"]),
        .target(name: "LarderCache", dependencies: ["LarderFormat", "LarderSystem", "LarderSQLite"]),
        // An HTTP client only: requests, responses, redirects, libcurl and URLSession.
        .target(
            name: "LarderTransport",
            dependencies: ["LarderFormat", "LarderSystem", .target(name: "CCurl", condition: .when(platforms: [.linux]))]),
        // Fetching bundles from an origin into the cache, over LarderTransport's HTTP.
        .target(name: "LarderFetch", dependencies: ["LarderTransport", "LarderCache", "LarderFormat", "LarderSystem"]),
        // Publishing to an S3 bucket: requests signed by libcurl (AWS Signature V4), on
        // LarderTransport's libcurl setup and response-head parser.
        .target(
            name: "LarderS3",
            dependencies: ["LarderPublish", "LarderTransport", "LarderFormat", "LarderSystem", "CCrypto", .target(name: "CCurl", condition: .when(platforms: [.linux]))]),
        .target(
            name: "LarderHost",
            dependencies: [
                "LarderCache", "LarderSQLite", "LarderTransport", "LarderFetch", "LarderFormat", "LarderSystem", .target(name: "CGIO", condition: .when(platforms: [.linux])),
            ]),
        // The egress filter's rules (its request parser, which addresses it connects to, which
        // peers it serves), free of any engine so the fuzz targets can link them.
        .target(name: "LarderEgress"),
        // A renderer without its engine: scheme routing and answers with their
        // Content-Security-Policy, page scripts, readiness and its verdict, load reports, the
        // remote policy and the egress filter, and RendererCore, which drives any engine
        // through PageEngine. Links no web engine.
        .target(
            name: "LarderRendering", dependencies: ["LarderHost", "LarderCache", "LarderFormat", "LarderSystem", "LarderEgress", "CLarderSystem"]),
        // The web engine: only the CLI, the benchmarks and apps use it, never the other modules.
        // The GTK glue over LarderRendering.
        .target(
            name: "LarderWebKit",
            dependencies: ["LarderRendering", "LarderHost", "LarderCache", "LarderFormat", "LarderSystem", "LarderEgress", "CWebKitGTK"]),
        // The journey on screen for GTK apps: JourneyView (loading and error states, overlay or
        // inline, one at a time) over the host's public API and the WebKitGTK renderer.
        .target(name: "LarderJourneyView", dependencies: ["LarderWebKit", "LarderHost", "CWebKitGTK"]),

        // The CLI's commands. `larder` does not link the web engine, so every command starts
        // without loading WebKitGTK; it hands `render` and `journey --renderer webkit` to
        // `larder-webkit` (found next to it), the same commands with the engine.
        .target(
            name: "LarderCLI", dependencies: ["LarderFormat", "LarderPack", "LarderPublish", "LarderCache", "LarderTransport", "LarderFetch", "LarderHost", "LarderS3", "LarderSystem", "LarderRendering"],
            path: "Tools/LarderCLI"),
        .executableTarget(name: "larder", dependencies: ["LarderCLI"], path: "Tools/larder"),
        .executableTarget(
            name: "larder-webkit", dependencies: ["LarderCLI", "LarderCache", "LarderFormat", "LarderHost", "LarderWebKit", "LarderJourneyView", "CWebKitGTK"],
            path: "Tools/larder-webkit"),
        .executableTarget(
            name: "larder-bench",
            dependencies: [
                "LarderFormat", "LarderPack", "LarderPublish", "LarderCache", "LarderTransport", "LarderFetch", "LarderHost", "LarderWebKit", "LarderSystem",
                "LarderToolSupport",
            ],
            path: "Tools/larder-bench"),
        // The power-loss explorer's workload, checker and state builder (Tools/powerloss.sh).
        .executableTarget(
            name: "larder-powerloss", dependencies: ["LarderSQLite", "LarderCache", "LarderHost", "LarderTransport", "LarderFetch", "LarderFormat", "LarderSystem", "LarderToolSupport"],
            path: "Tools/powerloss/larder-powerloss"),

        // Small programs that use the libraries as an app does (Tools/examples.sh, which the test
        // command runs, builds and runs them): a bundle into a cache and back out; a journey hosted
        // against an origin, with a trusted key.
        .executableTarget(name: "cache-example", dependencies: ["LarderCache", "LarderFormat"], path: "Examples/cache-example"),
        .executableTarget(
            name: "journey-example", dependencies: ["LarderHost", "LarderCache", "LarderFormat"], path: "Examples/journey-example"),

        // libFuzzer targets, one program (Tools/fuzz.sh builds it with -sanitize=fuzzer,address
        // and -DLARDER_FUZZING into .build-fuzz; any other build replays saved inputs).
        .systemLibrary(name: "CLibFuzzer", path: "Tools/fuzz/CLibFuzzer"),
        .executableTarget(
            name: "larder-fuzz",
            dependencies: [
                "CLibFuzzer", "LarderFormat", "LarderPack", "LarderPublish", "LarderCache", "LarderTransport", "LarderHost", "LarderSystem",
                "LarderToolSupport", "CArchive", "CZlib", "LarderEgress", "LarderS3", "CFontTools",
            ],
            path: "Tools/fuzz/larder-fuzz"),

        // What the tools share with the tests, apart from the test library (no shipped tool links
        // that): a seeded generator, an archive builder that writes what Larder never would, and
        // the real-world web content Debian packages.
        .target(name: "LarderToolSupport", dependencies: ["LarderFormat", "CArchive", "CZlib"], path: "Tools/LarderToolSupport"),
        .target(
            name: "LarderTestSupport",
            dependencies: ["LarderToolSupport", "LarderFormat", "LarderCache", "LarderPack", "LarderHost", "LarderSystem", "CZlib"],
            path: "Tests/LarderTestSupport"),
        .testTarget(name: "LarderSystemTests", dependencies: ["LarderSystem"]),
        .testTarget(name: "LarderSQLiteTests", dependencies: ["LarderSQLite", "LarderSystem"]),
        .testTarget(name: "LarderFormatTests", dependencies: ["LarderFormat", "LarderTestSupport", "CArchive", "CZlib", "CCrypto"]),
        .testTarget(name: "LarderPackTests", dependencies: ["LarderPack", "LarderTestSupport"]),
        // The publisher against a folder; the bucket's tests are LarderS3Tests and the integration tests.
        .testTarget(name: "LarderPublishTests", dependencies: ["LarderPublish", "LarderPack", "LarderFormat", "LarderSystem", "LarderTestSupport"]),
        .testTarget(
            name: "LarderCLITests", dependencies: ["larder", "larder-webkit", "LarderFormat", "LarderCache", "LarderSystem", "LarderTestSupport", "LarderJourneyView"]),
        // The cache's error beneath a fetch's TransportError. The fetch's own tests need a real
        // origin (nginx) and stay with the integration tests.
        .testTarget(name: "LarderFetchTests", dependencies: ["LarderFetch", "LarderTransport", "LarderCache", "LarderFormat"]),
        .testTarget(name: "LarderCacheTests", dependencies: ["LarderCache", "LarderSQLite", "LarderSystem", "LarderTestSupport", "CArchive"]),
        .testTarget(
            name: "LarderHostTests",
            dependencies: ["LarderHost", "LarderCache", "LarderSQLite", "LarderTransport", "LarderFetch", "LarderFormat", "LarderPack", "LarderPublish", "LarderSystem", "LarderTestSupport"]),
        // With the journey view's tests: every test that drives the web engine runs one at a time.
        .testTarget(
            name: "LarderWebKitTests",
            dependencies: ["LarderWebKit", "LarderRendering", "LarderJourneyView", "CWebKitGTK", "LarderEgress", "LarderHost", "LarderCache", "LarderFormat", "LarderPack", "LarderPublish", "LarderTestSupport"]),
        // RendererCore with a fake engine, and the rules of the renderer without one.
        .testTarget(
            name: "LarderRenderingTests",
            dependencies: ["LarderRendering", "LarderHost", "LarderCache", "LarderFormat", "LarderPack", "LarderSystem", "LarderEgress", "LarderTestSupport"]),
        // LarderPack only to pack a bundle to publish (LarderS3 itself does not depend on it).
        .testTarget(name: "LarderS3Tests", dependencies: ["LarderS3", "LarderPublish", "LarderPack", "LarderFormat", "LarderTestSupport"]),
        .testTarget(
            name: "LarderIntegrationTests",
            dependencies: [
                "larder", "LarderTransport", "LarderFetch", "LarderCache", "LarderSQLite", "LarderPack", "LarderPublish", "LarderFormat", "LarderHost", "LarderS3", "LarderSystem", "LarderTestSupport",
            ]),
    ]
)
