import LarderFormat
import LarderHost

/// The JSON documents: strict JSON and its canonical form, manifests, journey documents and
/// bridge messages. Each decoder runs on the input as it is and on the input's canonical form
/// (when it is JSON), so that mutations libFuzzer makes of key order and spacing still reach
/// every field rule, and every decoded value is encoded again and must read back the same.
enum JSONTargets {
    static let json = FuzzTarget(
        name: "json", summary: "JSONValue.parse; canonicalBytes reads back equal and is a fixed point",
        maximumLength: 1 << 14, run: { bytes in _ = canonicalForm(of: bytes, maximumValues: 4096) },
        seeds: { try SeedSources.jsonDocuments() })

    static let manifest = FuzzTarget(
        name: "manifest",
        summary: "Manifest(decoding:); a decoded manifest is its own canonical bytes, reads back by digest, sizes sum",
        maximumLength: 1 << 15,
        run: { bytes in
            let input = Array(bytes)
            checkManifest(input)
            if let canonical = canonicalForm(of: bytes, maximumValues: Manifest.maximumFiles * 7 + 1024), canonical != input {
                checkManifest(canonical)
            }
        },
        seeds: { try SeedSources.manifests() })

    static let journey = FuzzTarget(
        name: "journey",
        summary: "JourneyDocument(decoding:); a decoded document reads back from its canonical bytes, its rollout bucket is 0-99",
        maximumLength: 1 << 12,
        run: { bytes in
            checkJourney(Array(bytes))
            if let canonical = canonicalForm(of: bytes, maximumValues: 64) { checkJourney(canonical) }
        },
        seeds: { try SeedSources.journeyDocuments() })

    static let bridge = FuzzTarget(
        name: "bridge", summary: "BridgeMessage(json:); a message's json reads back to an equal message",
        maximumLength: 1 << 12,
        run: { bytes in
            checkBridge(Array(bytes))
            if let canonical = canonicalForm(of: bytes, maximumValues: .max) { checkBridge(canonical) }
        },
        seeds: { SeedSources.bridgeMessages() })

    /// Parses `bytes` as JSON and checks the canonical form: it parses to an equal value under
    /// the same limit, and encodes to itself.
    /// - Returns: the canonical bytes, nil when the input is not JSON.
    static func canonicalForm(of bytes: UnsafeRawBufferPointer, maximumValues: Int) -> [UInt8]? {
        let value: JSONValue
        do throws(FormatError) { value = try JSONValue.parse(bytes, maximumValues: maximumValues) } catch {
            require(error.code == .invalidJSON || error.code == .limitExceeded, "JSON refused with code \(error.code)")
            return nil
        }
        let canonical = value.canonicalBytes
        do {
            let again = try JSONValue.parse(canonical, maximumValues: maximumValues)
            require(again == value, "the canonical form reads back as another value")
            require(again.canonicalBytes == canonical, "the canonical form is not a fixed point")
        } catch {
            require(false, "the canonical form \(String(decoding: canonical.prefix(200), as: UTF8.self)) does not parse: \(error)")
        }
        return canonical
    }

    static func checkManifest(_ bytes: [UInt8]) {
        let manifest: Manifest
        do throws(FormatError) { manifest = try Manifest(decoding: bytes) } catch {
            let codes: Set<FormatError.Code> = [.invalidJSON, .invalidManifest, .limitExceeded, .unsupportedFormatVersion]
            require(codes.contains(error.code), "manifest refused with code \(error.code): \(error)")
            Outcomes.record("refused \(error.code)")
            return
        }
        require(manifest.canonicalBytes == bytes, "a decoded manifest is not its own canonical bytes")
        let digest = manifest.bundleDigest
        do {
            let again = try Manifest(decoding: bytes, naming: digest)
            require(again == manifest, "the manifest read by its digest differs")
        } catch {
            require(false, "the manifest does not read back by its digest: \(error)")
        }
        var total: Int64 = 0
        for (index, file) in manifest.files.enumerated() {
            require(manifest.file(at: file.path) == file, "file(at:) does not find '\(file.path)'")
            if index > 0 { require(BundlePath.precedes(manifest.files[index - 1].path, file.path), "files out of order") }
            total += file.size
        }
        require(manifest.totalSize == total, "totalSize is not the sum of the sizes")
        require(manifest.file(at: manifest.entry)?.role == .document, "the entry is not a listed document")
        Outcomes.record("accepted")
        let bound = manifest.archiveSizeBound(manifestBytes: bytes.count)
        require(bound > Int64(bytes.count), "the archive bound \(bound) is below the manifest's own size")
    }

    static func checkJourney(_ bytes: [UInt8]) {
        let document: JourneyDocument
        do throws(FormatError) { document = try JourneyDocument(decoding: bytes) } catch {
            let codes: Set<FormatError.Code> = [.invalidJSON, .invalidManifest, .limitExceeded, .invalidDigest]
            require(codes.contains(error.code), "journey document refused with code \(error.code): \(error)")
            Outcomes.record("refused \(error.code)")
            return
        }
        Outcomes.record("accepted")
        let canonical = document.canonicalBytes
        do {
            let again = try JourneyDocument(decoding: canonical)
            require(again == document, "the journey document read from its canonical bytes differs")
            require(again.canonicalBytes == canonical, "the journey document's canonical bytes are not a fixed point")
        } catch {
            require(false, "the canonical journey document does not read back: \(error)")
        }
        do {
            _ = try JSONValue.parse(document.signedBytes, maximumValues: 64)
        } catch {
            require(false, "the signed bytes are not JSON: \(error)")
        }
        // Signing any document this decoder takes gives a signature its key accepts, and the
        // signed document reads back with it.
        do {
            var signed = document
            try signed.sign(with: signingKey)
            let signature = signed.signature?.bytes ?? []
            require(signingKey.publicKey.isValidSignature(signature, of: signed.signedBytes), "a fresh signature does not verify")
            require(!signingKey.publicKey.isValidSignature(signature, of: signed.signedBytes + [0x20]), "a signature verifies other bytes")
            require(try JourneyDocument(decoding: signed.canonicalBytes) == signed, "the signed document does not read back")
            if let claimed = document.signature {
                require(!signingKey.publicKey.isValidSignature(claimed.bytes, of: document.signedBytes) || claimed.bytes == signature, "a signature made elsewhere verifies")
            }
        } catch {
            require(false, "cannot sign and read back a document: \(error)")
        }
        if let rollout = document.rollout {
            let bucket = JourneyDocument.Rollout.bucket(journey: document.journey, id: "visitor-1")
            require((0..<100).contains(bucket), "rollout bucket \(bucket)")
            let chosen = document.bundle(for: "visitor-1")
            require(chosen == document.bundle || chosen == rollout.previous, "bundle(for:) names a third bundle")
        }
    }

    /// The key the journey target signs with, made once per process.
    static let signingKey: SigningKey = {
        do { return try SigningKey.generate() } catch { fatalError("cannot make an Ed25519 key: \(error)") }
    }()

    static func checkBridge(_ bytes: [UInt8]) {
        let message: BridgeMessage
        do throws(HostError) { message = try BridgeMessage(json: bytes) } catch {
            require(error.code == .malformedDocument, "bridge message refused with code \(error.code)")
            Outcomes.record("refused")
            return
        }
        Outcomes.record("accepted")
        let json = message.json
        do {
            let again = try BridgeMessage(json: json)
            require(again == message, "the bridge message read back from its json differs")
            require(again.json == json, "the bridge message's json is not a fixed point")
        } catch {
            require(false, "the bridge message's json \(String(decoding: json.prefix(200), as: UTF8.self)) does not read back: \(error)")
        }
    }
}
