import Foundation
import Glibc
import LarderEgress

/// Where ``EgressConnection`` connects: a host resolved once, a name only to public addresses.
extension EgressConnection {
    /// One address to connect to.
    package struct Endpoint {
        var address: sockaddr_storage
        var length: socklen_t
        var family: Int32
    }

    /// What a host resolves to.
    package enum Resolution {
        /// Where to connect, in the resolver's order.
        case addresses([Endpoint])
        /// A name that resolves (among others) to this address, which is not public.
        case nonPublic(String)
        /// Nothing (no such name, no answer).
        case unresolved
    }

    /// Resolves `host` (as ``ProxyRequest`` gives it: an IPv6 address in brackets) once. An
    /// address literal is taken as written (the policy names it explicitly); every address a
    /// name resolves to must be public (``AddressRule``), or none is used.
    package static func resolve(_ host: String, port: Int) -> Resolution {
        let name = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let literal = isAddressLiteral(name)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (literal ? AI_NUMERICHOST : 0)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &found) == 0, let first = found else { return .unresolved }
        defer { freeaddrinfo(first) }
        var endpoints: [Endpoint] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr, Int(entry.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var endpoint = Endpoint(address: sockaddr_storage(), length: entry.pointee.ai_addrlen, family: entry.pointee.ai_family)
            withUnsafeMutableBytes(of: &endpoint.address) { storage in
                storage.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
            }
            if !literal, let (bytes, text) = Self.bytes(of: endpoint) {
                let isPublic = bytes.count == 4 ? AddressRule.isPublic(ipv4: bytes) : AddressRule.isPublic(ipv6: bytes)
                guard isPublic else { return .nonPublic(text) }
            }
            endpoints.append(endpoint)
        }
        return endpoints.isEmpty ? .unresolved : .addresses(endpoints)
    }

    /// Whether `name` is an IPv4 address in dotted-quad form or an IPv6 address (`inet_pton`),
    /// not a name to resolve.
    package static func isAddressLiteral(_ name: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, name, &buffer) == 1 || inet_pton(AF_INET6, name, &buffer) == 1
    }

    /// The address's bytes in network order and its text (`inet_ntop`); nil for a family
    /// other than IPv4 and IPv6.
    private static func bytes(of endpoint: Endpoint) -> ([UInt8], String)? {
        var storage = endpoint.address
        return withUnsafeBytes(of: &storage) { raw -> ([UInt8], String)? in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch endpoint.family {
            case AF_INET:
                let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
                let bytes = Array(raw[offset..<(offset + 4)])
                inet_ntop(AF_INET, raw.baseAddress! + offset, &text, socklen_t(text.count))
                return (bytes, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            case AF_INET6:
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                let bytes = Array(raw[offset..<(offset + 16)])
                inet_ntop(AF_INET6, raw.baseAddress! + offset, &text, socklen_t(text.count))
                return (bytes, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            default:
                return nil
            }
        }
    }
}
