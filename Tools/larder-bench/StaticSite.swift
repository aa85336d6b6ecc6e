import Foundation

/// nginx on 127.0.0.1 serving a plain folder as a web site (MIME types from
/// /etc/nginx/mime.types), the contender of `larder-bench render`. The reference origin
/// (Tools/origin) serves only the Larder layout, so this one has its own small configuration.
final class StaticSite {
    let port: Int
    private let run: String

    /// Starts nginx serving `root`; its files live in `run`.
    /// - Parameter gzip: compress text types (HTML, CSS, JavaScript, SVG, JSON) as a CDN does.
    init(root: String, run: String, gzip: Bool = false) throws {
        self.run = run
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        port = try Self.freePort()
        let user = geteuid() == 0 ? "user root;\n" : ""
        let configuration = """
            \(user)worker_processes 1;
            pid \(run)/nginx.pid;
            error_log \(run)/error.log;
            daemon on;
            events { worker_connections 256; }
            http {
                include /etc/nginx/mime.types;
                types { font/ttf ttf; }
                default_type application/octet-stream;
                charset utf-8;
                charset_types text/css application/javascript image/svg+xml;
                access_log off;
                client_body_temp_path \(run)/client_body_temp;
                proxy_temp_path \(run)/proxy_temp;
                fastcgi_temp_path \(run)/fastcgi_temp;
                uwsgi_temp_path \(run)/uwsgi_temp;
                scgi_temp_path \(run)/scgi_temp;
                \(gzip ? "gzip on; gzip_types text/css application/javascript image/svg+xml application/json; gzip_min_length 256;" : "")
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                server { listen 127.0.0.1:\(port); root \(root); }
            }
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: run + "/nginx.conf"))
        let started = try Subprocess.run(["/usr/sbin/nginx", "-p", run, "-c", run + "/nginx.conf"], stdoutPath: run + "/start.log")
        guard started.status == 0 else {
            throw BenchError("nginx did not start: \((try? String(contentsOfFile: run + "/error.log", encoding: .utf8)) ?? "")")
        }
        // Wait (at most 5 s) until the port accepts connections.
        let deadline = Date().addingTimeInterval(5)
        while !Self.accepts(port) {
            guard Date() < deadline else { throw BenchError("nginx did not listen on 127.0.0.1:\(port) within 5 s") }
            usleep(10_000)
        }
    }

    /// Stops nginx (SIGTERM to its master).
    func stop() {
        guard let text = try? String(contentsOfFile: run + "/nginx.pid", encoding: .utf8),  // best effort: nothing to stop without it
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return }
        kill(pid, SIGTERM)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
