public enum Admission: Sendable {
    /// Read the body under this policy (nil: the route takes no body), then hand the request to
    /// the responder.
    case accept(BodyPolicy?, Responder)
    /// Answer now, without reading the body; `label` names the request in logs and metrics.
    case reject(HTTPResponse, label: String)
}
