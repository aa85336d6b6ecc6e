import CWebKitGTK
import LarderHost

/// PNG encoding of a cairo image surface (`cairo_surface_write_to_png_stream`) into memory.
enum PNG {
    /// The PNG bytes of `surface`.
    @WebKitActor
    static func encode(_ surface: OpaquePointer) -> AsyncCall.Outcome {
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, data, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else {
            return .failure(HostError(.renderer, "cannot encode the snapshot as PNG: \(String(cString: cairo_status_to_string(status)))"))
        }
        return .success(sink.bytes)
    }

    private final class Sink {
        var bytes: [UInt8] = []
    }
}
