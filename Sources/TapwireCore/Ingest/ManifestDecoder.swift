/// Validates the JSON of `POST /v1/categories`. Option names outside Apple's known set are kept
/// (Apple adds options over time) but never interpreted.
public struct ManifestDecoder: Sendable {
    public var limits: IngestLimits
    public init(limits: IngestLimits = IngestLimits()) { self.limits = limits }

    public func decode(_ body: [UInt8]) throws(ManifestError) -> Manifest {
        let root: JSONValue
        do {
            root = try JSONParser().parse(body)
        } catch {
            throw ManifestError(error.kind == .invalidUTF8 ? .invalidUTF8 : .malformedJSON, "the body is not valid JSON (\(error))")
        }
        return try decode(root)
    }

    public func decode(_ root: JSONValue) throws(ManifestError) -> Manifest {
        func fail(_ message: String) -> ManifestError { ManifestError(.invalidManifest, message) }
        guard let object = root.objectValue else { throw fail("the body must be a JSON object with \"appVersion\" and \"categories\"") }
        guard let appVersion = object["appVersion"]?.stringValue, !appVersion.isEmpty else {
            throw fail("\"appVersion\" is required and must be a non-empty string")
        }
        if let problem = FieldRules.problem(with: appVersion, maxBytes: limits.maxVersionBytes) { throw fail("appVersion \(problem)") }
        guard let list = object["categories"]?.arrayValue else { throw fail("\"categories\" must be an array") }
        guard list.count <= limits.maxCategories else { throw fail("at most \(limits.maxCategories) categories are allowed") }

        // A field's path is spelled only for an error: a report decodes every version's manifest.
        func text(_ value: JSONValue?, _ path: @autoclosure () -> String, required: Bool) throws(ManifestError) -> String? {
            guard let value, !value.isNull else {
                if required { throw fail("\(path()) is required") }
                return nil
            }
            guard let s = value.stringValue else { throw fail("\(path()) must be a string, got \(value.typeName)") }
            if required, s.isEmpty { throw fail("\(path()) must not be empty") }
            if let problem = FieldRules.problem(with: s, maxBytes: limits.maxIdentifierBytes) { throw fail("\(path()) \(problem)") }
            return s
        }
        func options(_ value: JSONValue?, _ path: @autoclosure () -> String) throws(ManifestError) -> [String] {
            guard let value, !value.isNull else { return [] }
            guard let array = value.arrayValue, array.count <= limits.maxOptions else {
                throw fail("\(path()) must be an array of at most \(limits.maxOptions) option names")
            }
            var out: [String] = []
            for (i, element) in array.enumerated() {
                guard let name = try text(element, "\(path())[\(i)]", required: true) else { continue }
                out.append(name)
            }
            return out
        }

        var categories: [ManifestCategory] = []
        var seen = Set<String>()
        for (i, element) in list.enumerated() {
            func path() -> String { "categories[\(i)]" }
            guard let entry = element.objectValue else { throw fail("\(path()) must be an object") }
            guard let identifier = try text(entry["identifier"], "\(path()).identifier", required: true) else { continue }
            guard seen.insert(identifier).inserted else { throw fail("category \"\(FieldRules.truncatedForEcho(identifier))\" is listed twice") }
            var category = ManifestCategory(identifier: identifier, title: try text(entry["title"], "\(path()).title", required: false),
                                            options: try options(entry["options"], "\(path()).options"))
            let actions = entry["actions"]
            if let actions, !actions.isNull {
                guard let array = actions.arrayValue else { throw fail("\(path()).actions must be an array") }
                guard array.count <= limits.maxActionsPerCategory else {
                    throw fail("\(path()).actions holds at most \(limits.maxActionsPerCategory) actions")
                }
                var actionIds = Set<String>()
                for (j, actionValue) in array.enumerated() {
                    func actionPath() -> String { "\(path()).actions[\(j)]" }
                    guard let actionObject = actionValue.objectValue else { throw fail("\(actionPath()) must be an object") }
                    guard let actionId = try text(actionObject["identifier"], "\(actionPath()).identifier", required: true) else { continue }
                    guard actionIds.insert(actionId).inserted else {
                        throw fail("action \"\(FieldRules.truncatedForEcho(actionId))\" is listed twice in category \"\(FieldRules.truncatedForEcho(identifier))\"")
                    }
                    var textInput = false
                    if let flag = actionObject["textInput"], !flag.isNull {
                        guard let b = flag.boolValue else { throw fail("\(actionPath()).textInput must be true or false") }
                        textInput = b
                    }
                    category.actions.append(ManifestAction(identifier: actionId,
                                                           title: try text(actionObject["title"], "\(actionPath()).title", required: false),
                                                           options: try options(actionObject["options"], "\(actionPath()).options"),
                                                           textInput: textInput))
                }
            }
            categories.append(category)
        }
        return Manifest(appVersion: appVersion, categories: categories)
    }
}
