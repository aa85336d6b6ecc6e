/// Which addresses the egress filter may connect a host *name* to: public ones only.
///
/// An allowed origin names a host; what the name resolves to is up to whoever answers for it,
/// who can point it at this machine (127.0.0.1), the local network (10.0.0.0/8, a router's
/// admin page), a cloud's metadata service (169.254.169.254) or anything else not on the
/// public internet, at any moment (DNS rebinding). So the filter resolves the name once, checks
/// every address against this rule, and connects to the checked addresses, never to the name
/// again. An origin written as an address literal is the app's own explicit choice and is not
/// checked.
package enum AddressRule {
    /// Whether an IPv4 address is public: not in any special-purpose block of RFC 6890 and its
    /// successors (this network, private, shared, loopback, link-local, IETF, documentation,
    /// benchmarking, 6to4 relay, multicast, reserved, broadcast).
    /// - Parameter address: the 4 bytes, in network order.
    package static func isPublic(ipv4 address: [UInt8]) -> Bool {
        guard address.count == 4 else { return false }
        let (a, b, c) = (address[0], address[1], address[2])
        switch a {
        case 0, 10, 127: return false  // this network, private, loopback
        case 100 where b & 0xC0 == 64: return false  // shared (carrier-grade NAT) 100.64/10
        case 169 where b == 254: return false  // link-local (and cloud metadata)
        case 172 where b & 0xF0 == 16: return false  // private 172.16/12
        case 192 where b == 168: return false  // private
        case 192 where b == 0 && (c == 0 || c == 2): return false  // IETF protocol assignments, TEST-NET-1
        case 192 where b == 88 && c == 99: return false  // 6to4 relay anycast
        case 198 where b & 0xFE == 18: return false  // benchmarking 198.18/15
        case 198 where b == 51 && c == 100, 203 where b == 0 && c == 113: return false  // TEST-NET-2, -3
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Whether an IPv6 address is public: global unicast (2000::/3) outside the special blocks
    /// (IETF protocol assignments 2001::/23 with Teredo, documentation 2001:db8::/32 and
    /// 3fff::/20), or an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address whose
    /// IPv4 address is public. Loopback, unspecified, unique-local, link-local, site-local,
    /// multicast and the rest are not.
    /// - Parameter address: the 16 bytes, in network order.
    package static func isPublic(ipv6 address: [UInt8]) -> Bool {
        guard address.count == 16 else { return false }
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
            return isPublic(ipv4: Array(address[12..<16]))  // ::ffff:a.b.c.d
        }
        if address[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isPublic(ipv4: Array(address[12..<16]))  // 64:ff9b::a.b.c.d
        }
        if address[0] == 0x20 && address[1] == 0x02 { return isPublic(ipv4: Array(address[2..<6])) }  // 2002:abcd::
        guard address[0] & 0xE0 == 0x20 else { return false }  // not global unicast
        if address[0] == 0x20 && address[1] == 0x01 && address[2] & 0xFE == 0 { return false }  // 2001::/23
        if address[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return false }  // 2001:db8::/32
        if address[0] == 0x3F && address[1] & 0xF0 == 0xF0 { return false }  // 3fff::/20
        return true
    }
}
