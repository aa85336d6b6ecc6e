#if canImport(CCurl)
import CCurl
import Foundation
import LarderFormat
import LarderTransport

/// What an S3 request sends as its body: nothing, bytes in memory (a journey document), or a
/// local file read as it goes out (`CURLOPT_UPLOAD` with a read callback; memory stays at
/// libcurl's buffer whatever the file's size).
///
/// A file is opened without following a symbolic link (`O_NOFOLLOW`), must be a regular file
/// of the size given, and its bytes must hash to the payload hash the request is signed
/// with: the last piece is held back until they do, so a file that is not what was checked
/// (swapped, grown, cut) never arrives whole, and the service stores nothing.
enum S3Body: Sendable {
    case none
    case bytes([UInt8])
    case file(path: String, size: Int64)
    /// `length` bytes of a file from `offset` (one part of a multipart upload).
    case fileRange(path: String, offset: Int64, length: Int64)
}

/// Why a request got no answer at all.
struct S3ConnectionFailure: Error, Sendable {
    enum Kind: Sendable {
        /// Refused, dropped, timed out: sending it again may go better.
        case connection
        /// An answer no S3 service gives (headers past the bound): it would come again.
        case answer
        /// The file to send is not what was checked (a link, another size, other bytes), or
        /// cannot be read: nothing was stored, and sending it again would not help.
        case source
    }

    var message: String
    var kind = Kind.connection

    /// The message for an answer whose headers were refused past the bound, or that libcurl
    /// refused for a line past its own (100 KiB: its "Out of memory").
    static var headersTooLarge: String {
        "the answer's headers were larger than \(ResponseHead.maximumBytes >> 10) KiB (an S3 service sends a few hundred bytes); the endpoint is not answering as an S3 service does"
    }
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
    /// The SHA-256 (hex) the body is signed with, which a file's bytes must have.
    private let payloadHash: String
    private let signing: String?
    private let userPassword: String?
    private let timeout: Duration
    private let stallTimeout: Duration

    private var head = ResponseHead()
    private let errorBuffer = CurlErrorBuffer()
    private var headerList: CurlHeaderList?
    private var answerBody: [UInt8] = []
    private var file: ReadableFile?
    private var bytesOffset = 0
    /// Bytes of a file (or file range) still to send.
    private var fileLeft: Int64 = 0
    private let sentSHA256 = SHA256Hasher()
    private let sentMD5 = MD5Hasher()
    private var readFailure: String?
    private var answerFailure: String?

    /// - Parameters:
    ///   - payloadHash: the body's SHA-256 in hex, as signed.
    ///   - signing: `aws:amz:<region>:s3`, nil for an anonymous request.
    ///   - userPassword: `<access key id>:<secret access key>`.
    init(
        method: String, url: String, headers: [String], body: S3Body, payloadHash: String, signing: String?, userPassword: String?,
        timeout: Duration, stallTimeout: Duration
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.payloadHash = payloadHash
        self.signing = signing
        self.userPassword = userPassword
        self.timeout = timeout
        self.stallTimeout = stallTimeout
    }

    /// Sends the request and waits for the whole answer.
    /// - Throws: ``S3ConnectionFailure`` when there is no complete answer (refused, dropped,
    ///   timed out, headers past the bound, the local file unreadable or not what was checked).
    /// - Parameter connections: where the handle comes from and goes back to, with the
    ///   connection it keeps open.
    func perform(on connections: S3Connections) throws(S3ConnectionFailure) -> S3Answer {
        guard let easy = connections.take() else { throw S3ConnectionFailure(message: "libcurl cannot make a handle") }
        var completed = false
        defer { connections.giveBack(easy, reusable: completed) }
        // libcurl adds `Expect: 100-continue` to large uploads after signing; an empty
        // `Expect:` to suppress it would be signed, and S3 services do not see it.
        guard let headerList = CurlHeaderList(headers) else { throw S3ConnectionFailure(message: "libcurl cannot hold the request headers") }
        self.headerList = headerList
        let context = Unmanaged.passUnretained(self).toOpaque()
        // A stall: not one byte a second for the stall timeout.
        let setup = CurlEasySetup(
            url: url, timeout: timeout, minimumSpeed: HTTPRequest.MinimumSpeed(bytesPerSecond: 1, window: stallTimeout), errorBuffer: errorBuffer,
            headers: headerList, context: context, headerFunction: s3HeaderCallback, writeFunction: s3WriteCallback)
        var codes = setup.apply(to: easy) + [larder_easy_set_long(easy, CURLOPT_EXPECT_100_TIMEOUT_MS, 200)]
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
            try open(path, offset: 0, length: size, wholeFile: true)
            codes += upload(easy, size: size, context: context)
        case .fileRange(let path, let offset, let length):
            try open(path, offset: offset, length: length, wholeFile: false)
            codes += upload(easy, size: length, context: context)
        }
        if let refusal = CurlEasySetup.refusal(codes) { throw S3ConnectionFailure(message: refusal) }
        let code = curl_easy_perform(easy)
        file = nil
        if let readFailure { throw S3ConnectionFailure(message: readFailure, kind: .source) }
        if let answerFailure { throw S3ConnectionFailure(message: answerFailure) }
        // libcurl refuses a header line past 100 KiB itself, as "Out of memory" (7.88) or
        // CURLE_TOO_LARGE (100, from 8.6).
        if head.isOverflowed || (!head.isComplete && (code == CURLE_OUT_OF_MEMORY || code.rawValue == 100)) {
            throw S3ConnectionFailure(message: S3ConnectionFailure.headersTooLarge, kind: .answer)
        }
        guard code == CURLE_OK else { throw S3ConnectionFailure(message: errorBuffer.detail(for: code)) }
        completed = true
        var sent: [UInt8]?
        switch body {
        case .none: sent = nil
        case .bytes(let bytes): sent = bytesOffset == bytes.count ? sentMD5.finalize() : nil
        case .file, .fileRange: sent = fileLeft == 0 ? sentMD5.finalize() : nil
        }
        return S3Answer(status: head.status, headers: head.fields, body: answerBody, sentMD5: sent)
    }

    /// Opens the file to send where it is (no symbolic link followed), a regular file, of
    /// `length` bytes when it is sent whole, positioned at `offset`.
    private func open(_ path: String, offset: Int64, length: Int64, wholeFile: Bool) throws(S3ConnectionFailure) {
        let opened: ReadableFile
        do throws(FormatError) { opened = try ReadableFile(path: path, followingLinks: false) } catch {
            throw S3ConnectionFailure(message: "cannot read \(path) to send it: \(error.message)", kind: .source)
        }
        var status = stat()
        guard fstat(opened.descriptor, &status) == 0 else {
            throw S3ConnectionFailure(message: "cannot stat \(path) to send it", kind: .source)
        }
        let size = Int64(status.st_size)
        guard wholeFile ? size == length : size >= offset + length else {
            throw S3ConnectionFailure(message: "\(path) changed after it was checked: it has \(size) bytes, not \(wholeFile ? length : offset + length); nothing was sent", kind: .source)
        }
        guard lseek(opened.descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw S3ConnectionFailure(message: "cannot seek to byte \(offset) of \(path)", kind: .source)
        }
        if length == 0, sentSHA256.finalize().hex != payloadHash {
            throw S3ConnectionFailure(message: "\(path) is empty, which is not what was checked; nothing was sent", kind: .source)
        }
        file = opened
        fileLeft = length
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

    /// One header line; false past the bound (libcurl then ends the transfer).
    fileprivate func header(_ line: UnsafeRawBufferPointer) -> Bool { head.add(line) != nil }

    fileprivate func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard answerBody.count + bytes.count <= Self.maximumBodyBytes else {
            answerFailure = "an answer longer than \(Self.maximumBodyBytes >> 20) MiB (no answer Larder asks for is that long); it was cut off"
            return false
        }
        answerBody.append(contentsOf: bytes)
        return true
    }

    /// Fills libcurl's buffer with the next body bytes; 0 at the end, nil to abort.
    fileprivate func send(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch body {
        case .none: return 0
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - bytesOffset)
            bytes.withUnsafeBytes { source in
                let piece = UnsafeRawBufferPointer(rebasing: source[bytesOffset..<bytesOffset + count])
                buffer.copyMemory(from: piece)
                sentMD5.update(piece)
            }
            bytesOffset += count
            return count
        case .file(let path, _), .fileRange(let path, _, _):
            guard fileLeft > 0 else { return 0 }
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), fileLeft))])
            do throws(FormatError) {
                let count = try file?.read(into: slice) ?? 0
                guard count > 0 else {
                    readFailure = "\(path) ended \(fileLeft) bytes early: it changed after it was checked; nothing was stored"
                    return nil
                }
                let piece = UnsafeRawBufferPointer(rebasing: slice[0..<count])
                sentSHA256.update(piece)
                sentMD5.update(piece)
                fileLeft -= Int64(count)
                // The last piece goes only if the whole has the hash it is signed with.
                if fileLeft == 0, case let hash = sentSHA256.finalize().hex, hash != payloadHash {
                    readFailure = "\(path) changed after it was checked: its bytes hash to \(hash), not \(payloadHash); nothing was stored"
                    return nil
                }
                return count
            } catch {
                readFailure = "cannot read \(path) as it is sent: \(error.message)"
                return nil
            }
        }
    }
}

private let s3HeaderCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let request = Unmanaged<S3Request>.fromOpaque(context).takeUnretainedValue()
    return request.header(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
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
