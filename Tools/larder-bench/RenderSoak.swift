import Foundation
import LarderCache
import LarderHost
import LarderPack
import LarderSystem
import LarderWebKit

/// `larder-bench render --soak`: the web engine for hours, in one process. A journey host with
/// a ``WebKitRenderer`` and the onboarding sample (offline, from the embedded archive) runs
/// `cycles` prepare / present / dismiss rounds (each dismissal resets the renderer: a hidden
/// load of the entry), then `unloads` memory-warning rounds (the hidden renderer unloaded, its
/// web process ended, then prepared again). The resident memory (`VmRSS`) of this process (the
/// UI process), of the renderer's web process and of the network process is sampled as it
/// goes. It passes when, after the warm-up, neither the UI nor the web process grows by more
/// than 10% from the first samples to the last, and each unload gives the web process's memory
/// back (it is gone until the next preparation) without the UI process growing.
enum RenderSoak {
    struct Options {
        var cycles = 1000
        var unloads = 100
        /// Cycles before the first sample that counts.
        var warmUp = 100
        var sampleEvery = 25
    }

    /// Resident bytes at one moment.
    struct Sample {
        var cycle: Int
        var ui: Int
        var web: Int
        var network: Int
    }

    static func run(_ options: Options, repository: String) throws -> Bool {
        let outcome = Locked<Result<Bool, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<Bool, any Error>
            do { result = .success(try await soak(options, repository: repository)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw BenchError("the soak did not finish") }
        return try result.get()
    }

    /// Resident memory now: this process, the web processes under it, the network process.
    static func sample(_ cycle: Int) -> Sample {
        let below = ProcessTable.descendants(of: getpid())
        func sum(_ prefix: String) -> Int { below.filter { $0.name.hasPrefix(prefix) }.map(\.residentBytes).reduce(0, +) }
        return Sample(
            cycle: cycle, ui: ProcessTable.process(getpid())?.residentBytes ?? 0, web: sum("WebKitWebProces"), network: sum("WebKitNetworkP"))
    }

    private static func soak(_ options: Options, repository: String) async throws -> Bool {
        if let display = try VirtualDisplay.startIfNeeded() { print("display: Xvfb \(display.name), started for this run") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-bench-soak-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: work) } catch { print("warning: could not remove \(work): \(error)") }
        }
        let archive = try Packer.pack(source: repository + "/SampleBundles/onboarding", into: work + "/packed").archivePath
        let cache = try LarderCache(at: work + "/cache")
        let renderer = WebKitRenderer()
        let host = try JourneyHost(
            configuration: JourneyConfiguration(
                publishableKey: "pk_soak", journeyID: "onboarding", origin: URL(string: "http://127.0.0.1:1/")!, embeddedDefault: archive),
            cache: cache, renderer: renderer, storage: work + "/host", transport: OfflineTransport(), captureSink: RefusingSink())
        print("render soak: \(options.cycles) prepare/present/dismiss cycles (each dismissal resets: a hidden load of the entry),")
        print("then \(options.unloads) memory-warning unload/prepare cycles, one process, one renderer; onboarding sample, offline")

        let clock = ContinuousClock()
        let started = clock.now
        var samples: [Sample] = []
        for cycle in 1...options.cycles {
            try await host.prepare()
            _ = try await host.present()
            await host.dismiss()
            if cycle % options.sampleEvery == 0 { samples.append(sample(cycle)) }
        }
        let cyclesTook = clock.now - started

        var unloads: [(before: Sample, after: Sample)] = []
        let unloadStart = clock.now
        for round in 1...options.unloads {
            try await host.prepare()
            let before = sample(round)
            await host.handleMemoryWarning()
            // The web process ends asynchronously: wait (at most 5 s) until it is gone.
            var after = sample(round)
            let deadline = clock.now + .seconds(5)
            while after.web > 0 && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                after = sample(round)
            }
            unloads.append((before, after))
        }
        try await host.prepare()
        let final = sample(options.cycles)
        let unloadsTook = clock.now - unloadStart
        let resets = await renderer.resets
        let loads = await renderer.loads
        let terminations = await renderer.terminations
        await host.dispose()
        return summarise(
            options, samples: samples, unloads: unloads, final: final, resets: resets, loads: loads, terminations: terminations,
            cyclesTook: cyclesTook, unloadsTook: unloadsTook)
    }

    private static func megabytes(_ bytes: Int) -> Double { Double(bytes) / 1e6 }

    private static func median(_ values: [Int]) -> Double { percentile(values.map(Double.init), 0.5) }

    private static func summarise(
        _ options: Options, samples: [Sample], unloads: [(before: Sample, after: Sample)], final: Sample, resets: Int, loads: Int,
        terminations: Int, cyclesTook: Duration, unloadsTook: Duration
    ) -> Bool {
        print("")
        print(String(format: "%d cycles in %.0f s (%d resets, %d loads, %d web processes ended by themselves); RSS, MB:",
                     options.cycles, Double(cyclesTook.components.seconds), resets, loads, terminations))
        print("cycle        UI      web   network")
        for sample in samples where sample.cycle % (options.sampleEvery * 4) == 0 || sample.cycle == options.sampleEvery {
            print(String(format: "%5d  %8.1f %8.1f %9.1f", sample.cycle, megabytes(sample.ui), megabytes(sample.web), megabytes(sample.network)))
        }
        let counted = samples.filter { $0.cycle > options.warmUp }
        let window = max(1, counted.count / 4)
        let first = Array(counted.prefix(window))
        let last = Array(counted.suffix(window))
        func growth(_ path: KeyPath<Sample, Int>) -> Double {
            median(last.map { $0[keyPath: path] }) / median(first.map { $0[keyPath: path] }) - 1
        }
        print(String(format: "after %d warm-up cycles: UI %.1f -> %.1f MB, web %.1f -> %.1f MB (medians of the first and last %d samples)",
                     options.warmUp, median(first.map(\.ui)) / 1e6, median(last.map(\.ui)) / 1e6, median(first.map(\.web)) / 1e6,
                     median(last.map(\.web)) / 1e6, window))
        print("")
        print(String(format: "%d memory-warning unloads in %.0f s:", unloads.count, Double(unloadsTook.components.seconds)))
        let webBefore = median(unloads.map(\.before.web))
        let webAfter = median(unloads.map(\.after.web))
        let uiBefore = median(unloads.map(\.before.ui))
        let uiAfter = median(unloads.map(\.after.ui))
        print(String(format: "  web process before an unload %.1f MB, after %.1f MB (medians): the process is ended, its memory freed", webBefore / 1e6, webAfter / 1e6))
        print(String(format: "  UI process before %.1f MB, after %.1f MB; after the last reload: UI %.1f MB, web %.1f MB",
                     uiBefore / 1e6, uiAfter / 1e6, megabytes(final.ui), megabytes(final.web)))
        let firstRound = unloads.first.map { megabytes($0.before.ui) } ?? 0
        let lastRound = unloads.last.map { megabytes($0.before.ui) } ?? 0
        print(String(format: "  UI process over the unload rounds: %.1f -> %.1f MB", firstRound, lastRound))
        print("")
        var passed = report("UI process growth after warm-up (ratio - 1)", growth(\.ui), atMost: 0.10)
        passed = report("web process growth after warm-up (ratio - 1)", growth(\.web), atMost: 0.10) && passed
        passed = report("web process memory left after an unload (MB)", webAfter / 1e6, atMost: 0) && passed
        passed = report("UI process growth over the unload rounds (ratio - 1)", lastRound / max(firstRound, 1) - 1, atMost: 0.10) && passed
        passed = report("web processes that ended by themselves", Double(terminations), atMost: 0) && passed
        return passed
    }
}
