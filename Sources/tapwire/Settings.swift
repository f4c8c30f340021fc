import Foundation
import TapwireCommandLine
import TapwireCore
import TapwireServer

enum Settings {
    static func number(_ text: String, _ setting: String) throws(CLIError) -> Int {
        guard let value = Int(text), value >= 0 else { throw CLIError("\(setting) must be a whole number ≥ 0, got \(text)") }
        return value
    }

    /// What `serve` runs with when nothing is set: the help prints these, so no default is written twice.
    static let defaults = CollectorConfiguration(databaseURL: "")

    static let all: [Setting] = [
        Setting(flag: "database-url", environment: "TAPWIRE_DATABASE_URL", defaultText: "(embedded cluster in .tapwire/)",
                help: "PostgreSQL connection URL, e.g. postgresql://user:pass@host:5432/db") { c, v throws(CLIError) in c.databaseURL = v },
        Setting(flag: "host", environment: "TAPWIRE_HOST", defaultText: defaults.http.host,
                help: "Address to listen on (0.0.0.0 or :: for all interfaces)") { c, v throws(CLIError) in c.http.host = v },
        Setting(flag: "port", environment: "TAPWIRE_PORT", defaultText: String(defaults.http.port), help: "TCP port to listen on (0: any free port)") { c, v throws(CLIError) in
            let port = try number(v, "--port")
            guard port <= 65535 else { throw CLIError("--port must be at most 65535") }
            c.http.port = port
        },
        Setting(flag: "rate-limit", environment: "TAPWIRE_RATE_LIMIT", defaultText: String(Int(defaults.rateLimitPerSecond)),
                help: "Events per second per key (burst: twice that); 0 turns the limit off") { c, v throws(CLIError) in
            c.rateLimitPerSecond = Double(try number(v, "--rate-limit"))
        },
        Setting(flag: "http-threads", environment: "TAPWIRE_HTTP_THREADS", defaultText: String(defaults.http.threads),
                help: "libmicrohttpd thread pool size") { c, v throws(CLIError) in c.http.threads = max(1, try number(v, "--http-threads")) },
        Setting(flag: "writers", environment: "TAPWIRE_WRITERS", defaultText: String(defaults.writers),
                help: "Group-commit writer threads (one database connection each)") { c, v throws(CLIError) in c.writers = max(1, try number(v, "--writers")) },
        Setting(flag: "max-queued-events", environment: "TAPWIRE_MAX_QUEUED_EVENTS", defaultText: String(defaults.groupCommit.maxQueuedEvents),
                help: "Events waiting for a writer before batches get 503 + Retry-After") { c, v throws(CLIError) in
            c.groupCommit.maxQueuedEvents = max(1, try number(v, "--max-queued-events"))
        },
        Setting(flag: "max-events-per-commit", environment: "TAPWIRE_MAX_EVENTS_PER_COMMIT", defaultText: String(defaults.groupCommit.maxEventsPerCommit),
                help: "Events in one group-commit transaction") { c, v throws(CLIError) in c.groupCommit.maxEventsPerCommit = max(1, try number(v, "--max-events-per-commit")) },
        Setting(flag: "commit-linger", environment: "TAPWIRE_COMMIT_LINGER_MS", defaultText: String(defaults.groupCommit.lingerNanoseconds / 1_000_000),
                help: "While a writer is busy, milliseconds another waits for its group to fill (0: never)") { c, v throws(CLIError) in
            c.groupCommit.lingerNanoseconds = UInt64(max(0, try number(v, "--commit-linger") as Int)) * 1_000_000
        },
        Setting(flag: "commit-fill", environment: "TAPWIRE_COMMIT_FILL_EVENTS", defaultText: String(defaults.groupCommit.minEventsWhenBusy),
                help: "While a writer is busy, the events another waits for (up to --commit-linger) before committing") { c, v throws(CLIError) in
            c.groupCommit.minEventsWhenBusy = max(1, try number(v, "--commit-fill"))
        },
        Setting(flag: "rollup-fold-interval", environment: "TAPWIRE_ROLLUP_FOLD_MS", defaultText: String(defaults.rollupFoldMilliseconds),
                help: "Milliseconds between folds of the pending rollup deltas into the rollups at most (what dashboards lag by)") { c, v throws(CLIError) in
            c.rollupFoldMilliseconds = max(10, try number(v, "--rollup-fold-interval"))
        },
        Setting(flag: "rollup-fold-events", environment: "TAPWIRE_ROLLUP_FOLD_EVENTS", defaultText: String(defaults.rollupFoldEvents),
                help: "Events stored since the last fold that start the next one before --rollup-fold-interval ends") { c, v throws(CLIError) in
            c.rollupFoldEvents = max(1, try number(v, "--rollup-fold-events"))
        },
        Setting(flag: "rollup-fold-connections", environment: "TAPWIRE_ROLLUP_FOLD_CONNECTIONS", defaultText: String(defaults.rollupFoldConnections),
                help: "Connections a fold runs on: 1, its shares in turn; 2, engagement beside attribution and holdouts; 3, attribution's two parts at once too") { c, v throws(CLIError) in
            let connections: Int = try number(v, "--rollup-fold-connections")
            guard (1...CollectorConfiguration.maxRollupFoldConnections).contains(connections) else {
                throw CLIError("--rollup-fold-connections must be 1 to \(CollectorConfiguration.maxRollupFoldConnections) (the engagement deltas' and one per part of attribution's queue), got \(v)")
            }
            c.rollupFoldConnections = connections
        },
        Setting(flag: "read-fold-wait", environment: "TAPWIRE_READ_FOLD_WAIT_MS", defaultText: String(defaults.readFoldWaitMilliseconds),
                help: "Milliseconds a report waits for the background fold before it folds on its own connection") { c, v throws(CLIError) in
            c.readFoldWaitMilliseconds = max(0, try number(v, "--read-fold-wait"))
        },
        Setting(flag: "read-fold-rest", environment: "TAPWIRE_READ_FOLD_REST_MS", defaultText: String(defaults.readFoldRestMilliseconds),
                help: "Milliseconds from a fold's end before a fold a report wakes starts (reports back to back share one fold per rest)") { c, v throws(CLIError) in
            c.readFoldRestMilliseconds = max(0, try number(v, "--read-fold-rest"))
        },
        Setting(flag: "reader-threads", environment: "TAPWIRE_READER_THREADS", defaultText: String(defaults.readerThreads),
                help: "Threads (and connections) for key lookups, manifests and reports") { c, v throws(CLIError) in
            c.readerThreads = max(1, try number(v, "--reader-threads"))
        },
        Setting(flag: "malloc-arenas", environment: "TAPWIRE_MALLOC_ARENAS", defaultText: String(defaults.allocator.arenas),
                help: "malloc arenas the collector's threads share (glibc M_ARENA_MAX); 0: glibc's default, 8 per core") { c, v throws(CLIError) in
            c.allocator.arenas = try number(v, "--malloc-arenas")
        },
        Setting(flag: "connection-limit", environment: "TAPWIRE_CONNECTION_LIMIT", defaultText: String(defaults.http.connectionLimit),
                help: "Open HTTP connections in all") { c, v throws(CLIError) in c.http.connectionLimit = max(1, try number(v, "--connection-limit")) },
        Setting(flag: "per-ip-connection-limit", environment: "TAPWIRE_PER_IP_CONNECTION_LIMIT", defaultText: String(defaults.http.perIPConnectionLimit),
                help: "Open HTTP connections from one IP address") { c, v throws(CLIError) in
            c.http.perIPConnectionLimit = max(1, try number(v, "--per-ip-connection-limit"))
        },
        Setting(flag: "idle-timeout", environment: "TAPWIRE_IDLE_TIMEOUT", defaultText: String(defaults.http.idleTimeoutSeconds),
                help: "Seconds before an idle connection is closed") { c, v throws(CLIError) in c.http.idleTimeoutSeconds = max(1, try number(v, "--idle-timeout")) },
        Setting(flag: "stalled-upload-timeout", environment: "TAPWIRE_STALLED_UPLOAD_TIMEOUT", defaultText: String(defaults.http.stalledUploadSeconds),
                help: "Seconds without body bytes before 408") { c, v throws(CLIError) in
            c.http.stalledUploadSeconds = max(1, try number(v, "--stalled-upload-timeout"))
        },
        Setting(flag: "upload-deadline", environment: "TAPWIRE_UPLOAD_DEADLINE", defaultText: String(defaults.http.uploadDeadlineSeconds),
                help: "Seconds for a whole body to arrive before 408") { c, v throws(CLIError) in c.http.uploadDeadlineSeconds = max(1, try number(v, "--upload-deadline")) },
        Setting(flag: "key-cache-seconds", environment: "TAPWIRE_KEY_CACHE_SECONDS", defaultText: String(defaults.keyCacheSeconds),
                help: "Seconds a resolved key is trusted before it is looked up again") { c, v throws(CLIError) in
            c.keyCacheSeconds = try number(v, "--key-cache-seconds")
        },
        Setting(flag: "log-level", environment: "TAPWIRE_LOG_LEVEL", defaultText: "info", help: "debug, info, warning or error") { c, v throws(CLIError) in
            guard let level = LogLevel(name: v) else { throw CLIError("--log-level must be debug, info, warning or error") }
            c.logLevel = level
        },
        Setting(flag: "alert-webhook-url", environment: "TAPWIRE_ALERT_WEBHOOK_URL", defaultText: "(none)",
                help: "Slack-compatible webhook for new findings (category mismatches, release regressions)") { c, v throws(CLIError) in c.alertWebhookURL = v.isEmpty ? nil : v },
        Setting(flag: "alert-min-severity", environment: "TAPWIRE_ALERT_MIN_SEVERITY", defaultText: "warning", help: "Least severity the webhook announces: info, warning or error") { c, v throws(CLIError) in guard let s = FindingSeverity(name: v) else { throw CLIError("--alert-min-severity must be info, warning or error") }; c.alertOptions.minimumSeverity = s },
        Setting(flag: "findings-monitor", environment: "TAPWIRE_FINDINGS_MONITOR", defaultText: "on",
                help: "Whether this collector scans for findings and delivers the webhook: on or off") { c, v throws(CLIError) in
            switch v {
            case "on": c.findingsMonitor = true
            case "off": c.findingsMonitor = false
            default: throw CLIError("--findings-monitor must be on or off")
            }
        },
        Setting(flag: "regression-min-drop", environment: "TAPWIRE_REGRESSION_MIN_DROP", defaultText: "10",
                help: "Smallest fall of a rate in a new app version worth a finding, in percent of the baseline's rate") { c, v throws(CLIError) in
            c.regression.minimumRelativeDrop = try RegressionSettings.minimumDrop(v, flag: "--regression-min-drop")
        },
        Setting(flag: "regression-horizon-days", environment: "TAPWIRE_REGRESSION_HORIZON_DAYS", defaultText: "28",
                help: "Days from its first delivery the release-regression check follows a new app version") { c, v throws(CLIError) in
            c.regression.horizonDays = try RegressionSettings.horizonDays(v, flag: "--regression-horizon-days")
        },
    ]

    /// Reads every setting: a flag wins over the environment, which wins over the default.
    /// Returns whether a database URL was given at all.
    static func load(_ arguments: inout Arguments, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(CLIError) -> (CollectorConfiguration, databaseGiven: Bool)
    {
        var configuration = CollectorConfiguration(databaseURL: "")
        var given = false
        for setting in all {
            let value = try arguments.option(setting.flag) ?? environment[setting.environment]
            guard let value else { continue }
            if setting.flag == "database-url" { given = !value.isEmpty }
            try setting.apply(&configuration, value)
        }
        return (configuration, given)
    }

    static var helpText: String {
        all.map { s in
            let flag = "--\(s.flag)".padding(toLength: 27, withPad: " ", startingAt: 0)
            return "  \(flag) \(s.environment) (default \(s.defaultText))\n      \(s.help)"
        }.joined(separator: "\n")
    }
}
