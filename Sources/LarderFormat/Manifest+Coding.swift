extension Manifest {
    /// The canonical JSON bytes (see ``JSONValue/canonicalBytes``).
    public var canonicalBytes: [UInt8] { jsonValue.canonicalBytes }

    /// The bundle's identity: the SHA-256 of ``canonicalBytes``.
    public var bundleDigest: Digest { SHA256Hasher.hash(canonicalBytes) }

    /// The manifest as a JSON value (what ``canonicalBytes`` encodes).
    public var jsonValue: JSONValue {
        .object([
            "format": .int(Int64(Self.formatVersion)),
            "name": .string(name),
            "entry": .string(entry),
            "renderer": .object([
                "protocol": .int(Int64(renderer.protocolVersion)),
                "capabilities": .array(renderer.capabilities.sorted().map { .string($0.rawValue) }),
            ]),
            "files": .array(
                files.map { file -> JSONValue in
                    .object([
                        "path": .string(file.path),
                        "digest": .string(file.digest.description),
                        "size": .int(file.size),
                        "mediaType": .string(file.mediaType),
                        "role": .string(file.role.rawValue),
                        "essential": .bool(file.essential),
                    ])
                }),
        ])
    }

    /// Decodes a manifest strictly: only the canonical encoding of a valid version-1 manifest is
    /// accepted.
    ///
    /// Rejected, each with the field named: an unknown format version, unknown or missing fields,
    /// wrong types, bad digests, unsafe or non-NFC paths, duplicate or unsorted paths, an entry
    /// that is not a listed document, and bytes that are valid but not canonical.
    /// - Throws: ``FormatError``.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        try self.init(decoding: bytes, checkingCanonicalForm: true)
    }

    /// Decodes the manifest of the bundle `digest` names, such as one a cache stored after
    /// checking it: the bytes must hash to `digest`. Bytes that do are the canonical bytes the
    /// digest was made of, so they are not encoded again to compare (which costs more than
    /// decoding); every other rule of ``init(decoding:)`` is checked.
    /// - Throws: ``FormatError`` with ``FormatError/Code/digestMismatch`` when the bytes are
    ///   not the manifest of `digest`, or what ``init(decoding:)`` throws.
    public init(decoding bytes: [UInt8], naming digest: Digest) throws(FormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FormatError(.limitExceeded, "the manifest has \(bytes.count) bytes; at most \(Self.maximumBytes) are accepted")
        }
        guard SHA256Hasher.hash(bytes) == digest else {
            throw FormatError(.digestMismatch, "the manifest's bytes do not hash to the bundle digest \(digest)")
        }
        try self.init(decoding: bytes, checkingCanonicalForm: false)
    }

    private init(decoding bytes: [UInt8], checkingCanonicalForm: Bool) throws(FormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FormatError(.limitExceeded, "the manifest has \(bytes.count) bytes; at most \(Self.maximumBytes) are accepted")
        }
        // Each file is an object of six values; the rest of a manifest is a few dozen.
        let value = try JSONValue.parse(bytes, maximumValues: Self.maximumFiles * 7 + 1024)
        var reader = try FieldReader(value: value, path: "")
        let version = try reader.int("format")
        guard version == Int64(Self.formatVersion) else {
            throw FormatError(
                .unsupportedFormatVersion,
                "manifest format \(version) is not supported; this Larder reads format \(Self.formatVersion)",
                field: "format")
        }
        let name = try reader.string("name")
        let entry = try reader.string("entry")
        var rendererReader = try reader.object("renderer")
        let protocolVersion = try rendererReader.int("protocol")
        guard protocolVersion >= 1 && protocolVersion <= 1_000 else {
            throw FormatError(.invalidManifest, "renderer protocol must be 1 to 1000", field: "renderer.protocol")
        }
        var capabilities = Set<Capability>()
        for (index, item) in try rendererReader.array("capabilities").enumerated() {
            let field = "renderer.capabilities[\(index)]"
            guard case .string(let text) = item, let capability = Capability(rawValue: text) else {
                throw FormatError(.invalidManifest, "unknown renderer capability \(item)", field: field)
            }
            guard capabilities.insert(capability).inserted else {
                throw FormatError(.invalidManifest, "capability '\(text)' is listed twice", field: field)
            }
        }
        try rendererReader.rejectUnknownFields()

        let items = try reader.array("files")
        guard items.count <= Self.maximumFiles else {
            throw FormatError(
                .limitExceeded, "the manifest lists \(items.count) files; at most \(Self.maximumFiles) are accepted", field: "files")
        }
        var files: [File] = []
        files.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            var fileReader = try FieldReader(value: item, path: "files[\(index)]")
            let path = try fileReader.string("path")
            let digestText = try fileReader.string("digest")
            let digest: Digest
            do { digest = try Digest(parsing: digestText) } catch {
                throw FormatError(.invalidManifest, error.message, entry: path, field: "files[\(index)].digest")
            }
            let roleText = try fileReader.string("role")
            guard let role = FileRole(rawValue: roleText) else {
                throw FormatError(.invalidManifest, "unknown role '\(roleText)'", entry: path, field: "files[\(index)].role")
            }
            files.append(
                File(
                    path: path, digest: digest, size: try fileReader.int("size"),
                    mediaType: try fileReader.string("mediaType"), role: role,
                    essential: try fileReader.bool("essential")))
            try fileReader.rejectUnknownFields()
            if index > 0 && !BundlePath.precedes(files[index - 1].path, path) && files[index - 1].path != path {
                throw FormatError(
                    .invalidManifest, "files are not sorted by path", entry: path, field: "files[\(index)].path")
            }
        }
        try reader.rejectUnknownFields()
        try self.init(
            name: name, entry: entry,
            renderer: Renderer(protocolVersion: Int(protocolVersion), capabilities: capabilities), files: files)
        guard !checkingCanonicalForm || canonicalBytes == bytes else {
            throw FormatError(
                .invalidManifest, "manifest is valid but not in canonical form (key order, spacing or escapes differ)")
        }
    }
}

/// Reads named fields out of a JSON object, naming the field in every error, and remembers
/// which fields were read so unknown ones can be rejected.
private struct FieldReader {
    let members: [String: JSONValue]
    let path: String
    var seen: Set<String> = []

    init(value: JSONValue, path: String) throws(FormatError) {
        guard case .object(let members) = value else {
            throw FormatError(
                .invalidManifest, "expected an object, found \(value.kindName)", field: path.isEmpty ? nil : path)
        }
        self.members = members
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func value(_ key: String) throws(FormatError) -> JSONValue {
        seen.insert(key)
        guard let value = members[key] else {
            throw FormatError(.invalidManifest, "required field is missing", field: name(key))
        }
        return value
    }

    func mismatch(_ key: String, _ expected: String, _ found: JSONValue) -> FormatError {
        FormatError(.invalidManifest, "expected \(expected), found \(found.kindName)", field: name(key))
    }

    mutating func string(_ key: String) throws(FormatError) -> String {
        let found = try value(key)
        guard case .string(let text) = found else { throw mismatch(key, "a string", found) }
        return text
    }

    mutating func int(_ key: String) throws(FormatError) -> Int64 {
        let found = try value(key)
        guard case .int(let number) = found else { throw mismatch(key, "an integer", found) }
        return number
    }

    mutating func bool(_ key: String) throws(FormatError) -> Bool {
        let found = try value(key)
        guard case .bool(let flag) = found else { throw mismatch(key, "true or false", found) }
        return flag
    }

    mutating func array(_ key: String) throws(FormatError) -> [JSONValue] {
        let found = try value(key)
        guard case .array(let items) = found else { throw mismatch(key, "an array", found) }
        return items
    }

    mutating func object(_ key: String) throws(FormatError) -> FieldReader {
        try FieldReader(value: try value(key), path: name(key))
    }

    func rejectUnknownFields() throws(FormatError) {
        if let unknown = members.keys.filter({ !seen.contains($0) }).sorted().first {
            throw FormatError(.invalidManifest, "unknown field", field: name(unknown))
        }
    }
}
