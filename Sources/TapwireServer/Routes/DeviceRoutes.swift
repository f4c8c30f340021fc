import TapwireCore
import TapwireStore

/// `POST /v1/devices/forget` with the app's admin key and `{"deviceId": "…"}`: every stored row of
/// that install id of the key's app removed (docs/outcomes.md, "Forgetting a device"). The id is
/// in the body, never the path, so no access log records it; this log names only its digest.
public struct DeviceRoutes: Sendable {
    public var devices: any DeviceEraser
    public var logger: Logger
    public var limits: IngestLimits

    public init(devices: any DeviceEraser, logger: Logger, limits: IngestLimits) {
        self.devices = devices
        self.logger = logger
        self.limits = limits
    }

    public var all: [Route] {
        [Route("POST", "/v1/devices/forget", access: .admin, body: BodyPolicy(maxWireBytes: 4096, maxDecodedBytes: 4096), handle: forget)]
    }

    /// The install id of a forget request's body, validated: every mistake is a 400 saying the fix.
    public static func deviceId(in body: [UInt8], limits: IngestLimits) throws(APIError) -> String {
        let root: JSONValue
        do {
            root = try JSONParser().parse(body)
        } catch {
            throw APIError(error.kind == .invalidUTF8 ? .invalidUTF8 : .malformedJSON, "the body is not valid JSON (\(error))")
        }
        guard let object = root.objectValue else { throw APIError(.badRequest, #"the body must be a JSON object: {"deviceId": "…"}"#) }
        if let key = object.duplicateKey { throw APIError(.badRequest, "the key \(FieldRules.truncatedForEcho(key)) appears twice") }
        if let unknown = object.members.map(\.key).first(where: { $0 != "deviceId" }) {
            throw APIError(.badRequest, "unknown member \(FieldRules.truncatedForEcho(unknown)); the body takes deviceId only")
        }
        guard let deviceId = object["deviceId"]?.stringValue, !deviceId.isEmpty else {
            throw APIError(.badRequest, #"deviceId is required: the install id as the app's batches carried it, {"deviceId": "…"}"#)
        }
        if let problem = FieldRules.problem(with: deviceId, maxBytes: limits.maxTagBytes) { throw APIError(.badRequest, "deviceId \(problem)") }
        return deviceId
    }

    func forget(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.app()
        let deviceId = try Self.deviceId(in: call.request.body, limits: limits)
        let forgotten = try await devices.forget(deviceId: deviceId, appId: identity.appId)
        var fields: [(String, LogValue)] = [("app", .string(identity.appName)), ("key", .string(identity.keyId)), ("device", .string(forgotten.device))]
        for (table, rows) in forgotten.removed { fields.append((table, .int(rows))) }
        logger.log(.info, "device forgotten", fields)
        return .json(200, forgotten.json)
    }
}
