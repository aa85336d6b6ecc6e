import Foundation
import LarderFormat
import LarderTransport

/// The revisions an origin published for a journey, read from its history
/// (`journeys/<id>.history.json`, which `larder publish` appends to: an array of objects with
/// at least `revision` and `bundle`), asked for with the publishable key: the origin answers
/// only a key the journey is granted to, as for its document.
///
/// The host reads only what it needs of each entry (its revision and bundle) and leaves the
/// rest of the format to the publisher.
struct PublishedRevisions: Sendable, Equatable {
    /// A revision and the bundle it pointed the journey at.
    struct Entry: Sendable, Equatable {
        var revision: Int64
        var bundle: Digest
        var published: String?
    }

    /// Oldest first.
    var entries: [Entry]

    /// The largest history read (about 10,000 revisions).
    static let maximumBytes = 4 << 20

    /// The entry of `version`: the revision of that number, or the newest revision that
    /// pointed at that bundle; nil when none did.
    func entry(for version: JourneyVersion) -> Entry? {
        switch version {
        case .revision(let revision): entries.last { $0.revision == revision }
        case .bundle(let bundle): entries.last { $0.bundle == bundle }
        }
    }

    /// Parses a history: entries without a revision or bundle make it malformed; other fields
    /// are ignored.
    init(decoding bytes: [UInt8], url: URL) throws(HostError) {
        let malformed = { (why: String) in HostError(.malformedDocument, "\(url.absoluteString) is not a journey history: \(why)") }
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(bytes, maximumValues: 1 << 20) } catch { throw malformed(error.message) }
        guard case .array(let values) = parsed else { throw malformed("not a JSON array") }
        var entries: [Entry] = []
        for (index, value) in values.enumerated() {
            guard case .object(let members) = value, case .int(let revision)? = members["revision"], case .string(let text)? = members["bundle"],
                let bundle = try? Digest(parsing: text)
            else { throw malformed("entry \(index) has no revision or bundle digest") }
            var published: String?
            if case .string(let date)? = members["published"] { published = date }
            entries.append(Entry(revision: revision, bundle: bundle, published: published))
        }
        self.entries = entries
    }

    init(entries: [Entry]) { self.entries = entries }

    /// The journey's history at the origin, asked for with the configuration's key.
    /// - Returns: the history; empty when the origin has none (404: nothing published before
    ///   the current document).
    /// - Throws: ``HostError/Code/denied`` for a 401 or 403, ``HostError/Code/unavailable``
    ///   when the origin cannot be asked or answers otherwise, ``HostError/Code/malformedDocument``.
    static func fetch(_ configuration: JourneyConfiguration, transport: any HTTPTransport, timeout: Duration) async throws(HostError) -> PublishedRevisions {
        let url = configuration.requestOrigin.appendingPathComponent("journeys/\(configuration.journeyID).history.json")
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    url: url, headers: ["X-Larder-Key": configuration.publishableKey, "Accept": "application/json"], timeout: timeout,
                    maximumBodyBytes: Int64(maximumBytes)))
        } catch {
            throw HostError(.unavailable, "cannot reach the origin for the journey's history", transportError: error)
        }
        switch response.status {
        case 200: return try PublishedRevisions(decoding: [UInt8](response.body), url: url)
        case 404: return PublishedRevisions(entries: [])
        case 401, 403: throw HostError(.denied, "the origin denied the history of journey '\(configuration.journeyID)'", status: response.status)
        default: throw HostError(.unavailable, "the origin answered \(url.absoluteString) unexpectedly", status: response.status)
        }
    }
}
