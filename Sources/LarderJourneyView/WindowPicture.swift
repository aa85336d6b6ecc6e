import CWebKitGTK
import LarderHost
import LarderWebKit

/// What a window shows on the screen, as a person sees it: its pixels read back from the
/// display (`gdk_pixbuf_get_from_window`), whatever made them (GTK's widgets, the web view's
/// content), and as PNG bytes (`gdk_pixbuf_save_to_bufferv`). For the CLI's `--screenshot` of a
/// window and for tests.
package struct WindowPicture: Sendable, Equatable, CustomStringConvertible {
    package var width: Int
    package var height: Int
    /// RGB(A) rows, `rowStride` bytes apart, `channels` bytes a pixel.
    package var bytes: [UInt8]
    package var rowStride: Int
    package var channels: Int

    /// The picture of `widget`'s window (a toplevel's: the whole window), nil while it is not
    /// on screen.
    @WebKitActor
    package static func of(_ widget: UnsafeMutablePointer<GtkWidget>) -> WindowPicture? {
        guard gtk_widget_get_mapped(widget) != 0, let window = gtk_widget_get_window(widget) else { return nil }
        return of(gdkWindow: window, x: 0, y: 0, width: Int(gdk_window_get_width(window)), height: Int(gdk_window_get_height(window)))
    }

    /// The picture of a part of the screen (the root window): what is on top there.
    @WebKitActor
    package static func ofScreen(x: Int, y: Int, width: Int, height: Int) -> WindowPicture? {
        guard let root = gdk_get_default_root_window() else { return nil }
        return of(gdkWindow: root, x: x, y: y, width: width, height: height)
    }

    /// A picture once it is drawn and stops changing: taken every 50 ms until two in a row are
    /// the same and not of one colour (GTK has drawn the window and its last change, the web
    /// process has painted), or the last one after `timeout` (an animation never settles).
    @WebKitActor
    package static func settled(_ widget: UnsafeMutablePointer<GtkWidget>, timeout: Duration = .seconds(3)) async -> WindowPicture? {
        let deadline = ContinuousClock.now + timeout
        var last = of(widget)
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            let next = of(widget)
            if let next, next == last, !next.isUniform { return next }
            last = next
        }
        return last
    }

    /// Whether every pixel has the same colour (a window not drawn yet, a blank one).
    package var isUniform: Bool {
        guard width > 0, height > 0 else { return true }
        let first = colour(x: 0, y: 0)
        for y in 0..<height { for x in 0..<width where colour(x: x, y: y) != first { return false } }
        return true
    }

    /// A picture from PNG bytes (`GdkPixbufLoader`), to compare a window with a renderer's
    /// screenshot; nil when they are not an image. GdkPixbuf alone: any thread, no display.
    package static func decode(png: [UInt8]) -> WindowPicture? {
        guard let loader = gdk_pixbuf_loader_new() else { return nil }
        defer { g_object_unref(loader) }
        let written = png.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) != 0 }
        guard gdk_pixbuf_loader_close(loader, nil) != 0, written, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else { return nil }
        return picture(of: pixbuf)
    }

    @WebKitActor
    private static func of(gdkWindow: OpaquePointer, x: Int, y: Int, width: Int, height: Int) -> WindowPicture? {
        guard width > 0, height > 0, let pixbuf = gdk_pixbuf_get_from_window(gdkWindow, gint(x), gint(y), gint(width), gint(height)) else {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        return picture(of: pixbuf)
    }

    /// The pixbuf's pixels, copied.
    private static func picture(of pixbuf: OpaquePointer) -> WindowPicture? {
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        var length: guint = 0
        guard let pixels = gdk_pixbuf_get_pixels_with_length(pixbuf, &length) else { return nil }
        return WindowPicture(
            width: Int(gdk_pixbuf_get_width(pixbuf)), height: Int(gdk_pixbuf_get_height(pixbuf)),
            bytes: Array(UnsafeBufferPointer(start: pixels, count: Int(length))), rowStride: stride, channels: channels)
    }

    /// Its size, for messages (its bytes are too many to print).
    package var description: String { "a \(width)x\(height) picture" }

    /// The colour at (`x`, `y`) as 0xRRGGBB.
    package func colour(x: Int, y: Int) -> UInt32 {
        let offset = y * rowStride + x * channels
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    /// How many different colours the picture has (1 for a blank window).
    package var colours: Int {
        var seen = Set<UInt32>()
        for y in 0..<height { for x in 0..<width { seen.insert(colour(x: x, y: y)) } }
        return seen.count
    }

    /// The pixels that differ from `other`'s (all of them when the sizes differ), in `rows`
    /// and `columns` (all by default).
    package func differingPixels(from other: WindowPicture, rows: Range<Int>? = nil, columns: Range<Int>? = nil) -> Int {
        guard width == other.width, height == other.height else { return max(width * height, other.width * other.height) }
        var count = 0
        for y in (rows ?? 0..<height).clamped(to: 0..<height) {
            for x in (columns ?? 0..<width).clamped(to: 0..<width) where colour(x: x, y: y) != other.colour(x: x, y: y) { count += 1 }
        }
        return count
    }

    /// The picture as PNG bytes (GdkPixbuf alone: any thread).
    /// - Throws: ``HostError/Code/renderer`` when GdkPixbuf cannot encode it.
    package func png() throws(HostError) -> [UInt8] {
        let hasAlpha: gboolean = channels == 4 ? 1 : 0
        let copy = bytes
        let encoded: Result<[UInt8], HostError> = copy.withUnsafeBufferPointer { buffer in
            // The pixbuf borrows the bytes for the encoding only.
            guard
                let pixbuf = gdk_pixbuf_new_from_data(
                    buffer.baseAddress, GDK_COLORSPACE_RGB, hasAlpha, 8, gint(width), gint(height), gint(rowStride), nil, nil)
            else { return .failure(HostError(.renderer, "cannot make a pixbuf of the \(width)x\(height) picture")) }
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            var data: UnsafeMutablePointer<gchar>?
            var size: gsize = 0
            var error: UnsafeMutablePointer<GError>?
            guard gdk_pixbuf_save_to_bufferv(pixbuf, &data, &size, "png", nil, nil, &error) != 0, let data else {
                let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                if let error { g_error_free(error) }
                return .failure(HostError(.renderer, "cannot encode the window's picture as PNG: \(message)"))
            }
            defer { g_free(data) }
            return .success(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
        }
        return try encoded.get()
    }
}
