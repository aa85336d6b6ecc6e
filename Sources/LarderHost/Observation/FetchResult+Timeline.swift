import LarderFetch
import LarderTransport

extension FetchResult {
    /// How a fetch reads in the journey timeline: its bytes and requests, then, when it
    /// received anything, its bytes by kind, and the patches applied and fallen back from
    /// when there were any (`bundleFetched` entries).
    var timelineDetail: String {
        var detail = "\(bytesDownloaded) bytes in \(requests) requests"
        guard bytesDownloaded > 0 else { return detail }
        let kinds = bytesByKind
        var parts = ["manifest \(kinds.manifest)"]
        if kinds.archive > 0 { parts.append("archive \(kinds.archive)") }
        if source == .objects { parts.append("objects \(kinds.objects)") }
        if kinds.patches > 0 || patchesApplied + patchFallbacks > 0 { parts.append("patches \(kinds.patches)") }
        detail += " (" + parts.joined(separator: ", ") + ")"
        if patchesApplied + patchFallbacks > 0 {
            detail += "; \(patchesApplied) patch\(patchesApplied == 1 ? "" : "es") applied, \(patchFallbacks) fallback\(patchFallbacks == 1 ? "" : "s")"
        }
        return detail
    }
}
