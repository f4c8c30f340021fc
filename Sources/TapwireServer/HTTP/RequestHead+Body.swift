import Foundation

extension RequestHead {
    /// The head announces a body: a Content-Length above zero, or chunked transfer coding.
    var announcesBody: Bool {
        (contentLength ?? 0) > 0 || header("transfer-encoding")?.lowercased().contains("chunked") == true
    }
}
