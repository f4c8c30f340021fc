import Foundation
import Synchronization
import TapwireCore
import TapwireStore

/// A real Prometheus server (Debian's `prometheus`, which scripts/test-prometheus-rules.sh installs)
/// started by a test on a free loopback port: its own config and TSDB in a temporary directory,
/// scraping the given collectors as job `tapwire` and evaluating the given rule files. Stopped by
/// its pid, and its directory removed.
public final class PrometheusServer: Sendable {
    public let port: Int
    public let directory: String
    private let child: Subprocess.Child
    private let stopped = Mutex(false)

    /// One alert of `/api/v1/alerts`.
    public struct Alert: Sendable, Equatable {
        public var labels: [String: String]
        public var state: String
        public var activeAt: String
        public var value: Double
    }

    public static func binary() throws -> String {
        guard let path = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw TestClientError(message: "prometheus is not installed: run scripts/test-prometheus-rules.sh (installs Debian's prometheus)") }
        return path
    }

    /// Starts Prometheus and waits until it answers /-/ready. Intervals in whole seconds.
    public init(scrapeSeconds: Int, evaluationSeconds: Int, targets: [Int], ruleFiles: [String]) throws {
        let binary = try Self.binary()
        port = EmbeddedPostgres.freePort()
        directory = NSTemporaryDirectory() + "tapwire-prometheus-\(getpid())-\(port)"
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        let config = """
            global:
              scrape_interval: \(scrapeSeconds)s
              scrape_timeout: \(scrapeSeconds)s
              evaluation_interval: \(evaluationSeconds)s
            rule_files:
            \(ruleFiles.map { "  - \"\($0)\"" }.joined(separator: "\n"))
            scrape_configs:
              - job_name: tapwire
                static_configs:
                  - targets: [\(targets.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", "))]

            """
        try config.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        child = try Subprocess.spawn(binary, ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                                              "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"],
                                     logPath: directory + "/prometheus.log")
        let ready = eventually(timeout: 60, poll: 0.1) { (try? HTTPTestClient(port: port).get("/-/ready").status) == 200 }
        guard ready else {
            let log = self.log
            stop()
            throw TestClientError(message: "prometheus did not become ready: \(log)")
        }
    }

    public var log: String { (try? String(contentsOfFile: directory + "/prometheus.log", encoding: .utf8)) ?? "" }

    /// SIGTERM (SIGKILL if it has not exited in 20 s), then removes its directory.
    public func stop() {
        // Once: a second signal could reach another process that reused the pid.
        guard !stopped.withLock({ was in defer { was = true }; return was }) else { return }
        child.signal(SIGTERM)
        if child.wait(timeout: 20) == nil {
            child.signal(SIGKILL)
            _ = child.wait(timeout: 5)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `data` of a successful API answer.
    public func api(_ path: String, _ parameters: [(String, String)] = []) throws -> JSONValue {
        var query = ""
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        for (name, value) in parameters {
            query += (query.isEmpty ? "?" : "&") + name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }
        let response = try HTTPTestClient(port: port).get(path + query)
        guard response.status == 200, let body = response.json, body["status"]?.stringValue == "success", let data = body["data"] else {
            throw TestClientError(message: "prometheus \(path)\(query): \(response.status) \(response.text.prefix(500))")
        }
        return data
    }

    /// An instant query's vector: each element's labels and value.
    public func query(_ promql: String) throws -> [(labels: [String: String], value: Double)] {
        let data = try api("/api/v1/query", [("query", promql)])
        return (data["result"]?.arrayValue ?? []).map { element in
            (Self.labels(element["metric"]), Double(element["value"]?.arrayValue?.last?.stringValue ?? "") ?? .nan)
        }
    }

    /// Every pending or firing alert.
    public func alerts() throws -> [Alert] {
        try (api("/api/v1/alerts")["alerts"]?.arrayValue ?? []).map { alert in
            Alert(labels: Self.labels(alert["labels"]), state: alert["state"]?.stringValue ?? "",
                  activeAt: alert["activeAt"]?.stringValue ?? "", value: Double(alert["value"]?.stringValue ?? "") ?? .nan)
        }
    }

    static func labels(_ object: JSONValue?) -> [String: String] {
        var labels: [String: String] = [:]
        for (name, value) in object?.objectValue?.members ?? [] { labels[name] = value.stringValue ?? "" }
        return labels
    }

    deinit { stop() }
}
