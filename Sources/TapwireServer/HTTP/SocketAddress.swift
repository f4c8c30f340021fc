#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address built from text (the listening address). A plain value: the
/// driver (HTTPServer.swift) takes its pointer when it hands it to libmicrohttpd.
enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// nil unless `host` is an IPv4 or IPv6 address (or `localhost`) and `port` fits in 16 bits.
    init?(host: String, port: Int) {
        let name = host == "localhost" ? "127.0.0.1" : host
        guard (0...65535).contains(port) else { return nil }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            self = .v4(v4)
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            self = .v6(v6)
        } else {
            return nil
        }
    }

    var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }
}
