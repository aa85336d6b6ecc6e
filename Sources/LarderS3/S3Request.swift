#if canImport(CCurl)
import CCurl
import Foundation
import LarderFormat

/// What an S3 request sends as its body: nothing, bytes in memory (a journey document), or a
/// local file read as it goes out (`CURLOPT_UPLOAD` with a read callback; memory stays at
/// libcurl's buffer whatever the file's size).
enum S3Body: Sendable {
    case none
    case bytes([UInt8])
    case file(path: String, size: Int64)
    /// `length` bytes of a file from `offset` (one part of a multipart upload).
    case fileRange(path: String, offset: Int64, length: Int64)
}

/// One answer: status, header fields (lowercased names) and up to a bounded body.
struct S3Answer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var etag: String? { headers["etag"] }
    /// The `<Code>` of an S3 error document, nil when the body is not one.
    var errorCode: String? { Self.element("Code", in: body) }
    var errorMessage: String? { Self.element("Message", in: body) }

    static func element(_ name: String, in body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(64 << 10), as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }
}

/// Why a request got no answer at all.
struct S3ConnectionFailure: Error, Sendable {
    var message: String
}

/// One signed HTTP request on a libcurl easy handle, performed on the calling thread
/// (`curl_easy_perform`). libcurl signs it (`CURLOPT_AWS_SIGV4` with `CURLOPT_USERPWD`), taking
/// the payload hash from the `x-amz-content-sha256` field the caller sets.
final class S3Request {
    /// The most body bytes kept from an answer (error documents, journey documents, histories).
    static let maximumBodyBytes = 8 << 20

    private let method: String
    private let url: String
    private let headers: [String]
    private let body: S3Body
    private let signing: String?
    private let userPassword: String?
    private let timeout: Duration
    private let stallTimeout: Duration

    private var status = 0
    private var answerHeaders: [String: String] = [:]
    private var answerBody: [UInt8] = []
    private var file: ReadableFile?
    private var bytesOffset = 0
    /// Bytes of a file range still to send.
    private var rangeLeft: Int64 = 0
    private var readFailure: String?
    private var answerFailure: String?

    /// - Parameters:
    ///   - signing: `aws:amz:<region>:s3`, nil for an anonymous request.
    ///   - userPassword: `<access key id>:<secret access key>`.
    init(method: String, url: String, headers: [String], body: S3Body, signing: String?, userPassword: String?, timeout: Duration, stallTimeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.signing = signing
        self.userPassword = userPassword
        self.timeout = timeout
        self.stallTimeout = stallTimeout
    }

    /// Sends the request and waits for the whole answer.
    /// - Throws: ``S3ConnectionFailure`` when there is no complete answer (refused, dropped,
    ///   timed out, the local file unreadable).
    /// - Parameter connections: where the handle comes from and goes back to, with the
    ///   connection it keeps open.
    func perform(on connections: S3Connections) throws(S3ConnectionFailure) -> S3Answer {
        guard let easy = connections.take() else { throw S3ConnectionFailure(message: "libcurl cannot make a handle") }
        var completed = false
        defer { connections.giveBack(easy, reusable: completed) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        // libcurl adds `Expect: 100-continue` to large uploads after signing; an empty
        // `Expect:` to suppress it would be signed, and S3 services do not see it.
        for line in headers {
            guard let appended = curl_slist_append(list, line) else { throw S3ConnectionFailure(message: "libcurl cannot hold the request headers") }
            list = appended
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        errorBuffer[0] = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        let seconds = Int(timeout.components.seconds)
        var codes: [CURLcode] = [
            larder_easy_set_string(easy, CURLOPT_URL, url),
            larder_easy_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            larder_easy_set_long(easy, CURLOPT_NOSIGNAL, 1),
            larder_easy_set_long(easy, CURLOPT_EXPECT_100_TIMEOUT_MS, 200),
            larder_easy_set_long(easy, CURLOPT_TIMEOUT, max(1, seconds)),
            larder_easy_set_long(easy, CURLOPT_CONNECTTIMEOUT, min(max(1, seconds), 10)),
            larder_easy_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1),
            larder_easy_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(stallTimeout.components.seconds))),
            larder_easy_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer),
            larder_easy_set_write_function(easy, CURLOPT_HEADERFUNCTION, s3HeaderCallback),
            larder_easy_set_pointer(easy, CURLOPT_HEADERDATA, context),
            larder_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, s3WriteCallback),
            larder_easy_set_pointer(easy, CURLOPT_WRITEDATA, context),
            larder_easy_set_list(easy, CURLOPT_HTTPHEADER, list),
        ]
        if let signing, let userPassword {
            codes.append(larder_easy_set_string(easy, CURLOPT_AWS_SIGV4, signing))
            codes.append(larder_easy_set_string(easy, CURLOPT_USERPWD, userPassword))
        }
        switch body {
        case .none:
            if method == "HEAD" { codes.append(larder_easy_set_long(easy, CURLOPT_NOBODY, 1)) }
            else if method != "GET" { codes.append(larder_easy_set_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        case .bytes(let bytes):
            codes += upload(easy, size: Int64(bytes.count), context: context)
        case .file(let path, let size):
            do throws(FormatError) { file = try ReadableFile(path: path) } catch {
                throw S3ConnectionFailure(message: "cannot read \(path) to send it: \(error.message)")
            }
            codes += upload(easy, size: size, context: context)
        case .fileRange(let path, let offset, let length):
            do throws(FormatError) { file = try ReadableFile(path: path) } catch {
                throw S3ConnectionFailure(message: "cannot read \(path) to send it: \(error.message)")
            }
            guard let file, lseek(file.descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                throw S3ConnectionFailure(message: "cannot seek to byte \(offset) of \(path)")
            }
            rangeLeft = length
            codes += upload(easy, size: length, context: context)
        }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw S3ConnectionFailure(message: "libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
        let code = curl_easy_perform(easy)
        file = nil
        if let readFailure { throw S3ConnectionFailure(message: readFailure) }
        if let answerFailure { throw S3ConnectionFailure(message: answerFailure) }
        guard code == CURLE_OK else {
            let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            throw S3ConnectionFailure(message: detail)
        }
        completed = true
        return S3Answer(status: status, headers: answerHeaders, body: answerBody)
    }

    /// A body as an upload (`PUT` through the read callback, or another method over it).
    private func upload(_ easy: UnsafeMutableRawPointer, size: Int64, context: UnsafeMutableRawPointer) -> [CURLcode] {
        var codes = [
            larder_easy_set_long(easy, CURLOPT_UPLOAD, 1),
            larder_easy_set_offset(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(size)),
            larder_easy_set_read_function(easy, s3ReadCallback),
            larder_easy_set_pointer(easy, CURLOPT_READDATA, context),
        ]
        if method != "PUT" { codes.append(larder_easy_set_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        return codes
    }

    // MARK: Callbacks

    fileprivate func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            let fields = text.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            answerHeaders = [:]
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            answerHeaders[name] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    fileprivate func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard answerBody.count + bytes.count <= Self.maximumBodyBytes else {
            answerFailure = "an answer longer than \(Self.maximumBodyBytes >> 20) MiB (no answer Larder asks for is that long); it was cut off"
            return false
        }
        answerBody.append(contentsOf: bytes)
        return true
    }

    /// Fills libcurl's buffer with the next body bytes; 0 at the end.
    fileprivate func send(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch body {
        case .none: return 0
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - bytesOffset)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[bytesOffset..<bytesOffset + count]))
            }
            bytesOffset += count
            return count
        case .file:
            do throws(FormatError) { return try file?.read(into: buffer) ?? 0 } catch {
                readFailure = "cannot read the file being sent: \(error.message)"
                return nil
            }
        case .fileRange:
            guard rangeLeft > 0 else { return 0 }
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), rangeLeft))])
            do throws(FormatError) {
                let count = try file?.read(into: slice) ?? 0
                guard count > 0 else {
                    readFailure = "the file being sent ended \(rangeLeft) bytes early"
                    return nil
                }
                rangeLeft -= Int64(count)
                return count
            } catch {
                readFailure = "cannot read the file being sent: \(error.message)"
                return nil
            }
        }
    }
}

private let s3HeaderCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let request = Unmanaged<S3Request>.fromOpaque(context).takeUnretainedValue()
    request.header(UnsafeRawBufferPointer(start: buffer, count: size * count))
    return size * count
}

private let s3WriteCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let request = Unmanaged<S3Request>.fromOpaque(context).takeUnretainedValue()
    return request.receive(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
}

private let s3ReadCallback: curl_read_callback = { buffer, size, count, context in
    guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
    let request = Unmanaged<S3Request>.fromOpaque(context).takeUnretainedValue()
    return request.send(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) ?? Int(CURL_READFUNC_ABORT)
}
#endif
