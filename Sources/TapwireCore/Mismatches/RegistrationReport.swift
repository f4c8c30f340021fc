/// Tri-state of the device's own `categoryRegistered` flag.
public enum RegistrationReport: Int16, Sendable, Hashable {
    case unregistered = 0
    case registered = 1
    case notReported = -1

    public init(_ flag: Bool?) {
        switch flag {
        case true?: self = .registered
        case false?: self = .unregistered
        case nil: self = .notReported
        }
    }
}
