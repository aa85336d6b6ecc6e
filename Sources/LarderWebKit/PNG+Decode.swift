import CWebKitGTK

extension PNG {
    /// A decoded image: ARGB32 pixels (cairo's format), row after row.
    package struct Image: Sendable, Equatable {
        package var width: Int
        package var height: Int
        package var pixels: [UInt32]

        /// The pixels that differ from `other`'s (all of them when the sizes differ).
        package func differingPixels(from other: Image) -> Int {
            guard width == other.width, height == other.height else { return max(pixels.count, other.pixels.count) }
            return zip(pixels, other.pixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
        }
    }

    /// Decodes PNG bytes with cairo (`cairo_image_surface_create_from_png_stream`), for
    /// comparing screenshots pixel by pixel; nil when they are not a PNG.
    package static func decode(_ bytes: [UInt8]) -> Image? {
        final class Source {
            let bytes: [UInt8]
            var offset = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let source = Source(bytes)
        let surface = withExtendedLifetime(source) {
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    let source = Unmanaged<Source>.fromOpaque(closure!).takeUnretainedValue()
                    let count = Int(length)
                    guard let data, source.offset + count <= source.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                    source.bytes.withUnsafeBufferPointer { buffer in
                        data.update(from: buffer.baseAddress! + source.offset, count: count)
                    }
                    source.offset += count
                    return CAIRO_STATUS_SUCCESS
                }, Unmanaged.passUnretained(source).toOpaque())
        }
        guard let surface else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return nil }
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface), cairo_image_surface_get_format(surface) == CAIRO_FORMAT_ARGB32
            || cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24
        else { return nil }
        var pixels: [UInt32] = []
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            let line = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
            pixels.append(contentsOf: UnsafeBufferPointer(start: line, count: width))
        }
        return Image(width: width, height: height, pixels: pixels)
    }
}
