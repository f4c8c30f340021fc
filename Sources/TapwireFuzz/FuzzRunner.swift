import Foundation
import Synchronization
import TapwireCore

/// The seeded mutator loop: bounded by time, reproducible from its seed, and writing each input
/// that breaks an invariant to `findingsDirectory` so it can become a regression test.
public struct FuzzRunner {
    public struct Summary: Sendable {
        public var executions = 0
        public var seconds = 0.0
        public var findings: [(file: String, finding: FuzzFinding)] = []
        public var largestInput = 0
    }

    public var seed: UInt64
    public var seconds: Double
    public var findingsDirectory: String?
    /// Extra starting inputs (a libFuzzer corpus directory, say).
    public var corpus: [[UInt8]] = []
    public var maxFindings = 20
    /// An input still undecided after this long is a hang: it is saved and the process exits 1
    /// (the loop cannot time itself out of a single call).
    public var hangSeconds = 30.0

    public init(seed: UInt64, seconds: Double, findingsDirectory: String? = nil) {
        self.seed = seed
        self.seconds = seconds
        self.findingsDirectory = findingsDirectory
    }

    public func run(progress: (String) -> Void = { _ in }) -> Summary {
        var mutator = Mutator(seed: seed)
        var pool = FuzzSeeds.inputs + corpus
        var summary = Summary()
        var perInvariant: [String: Int] = [:]
        let start = monotonicNanoseconds()
        var nextReport = 10.0
        func elapsed() -> Double { secondsSince(start) }

        let current = Mutex<(input: [UInt8], since: UInt64)?>(nil)
        let watching = Atomic<Bool>(true)
        let hangNanoseconds = UInt64(hangSeconds * 1e9)
        let findingsDirectory = self.findingsDirectory, seed = self.seed
        let watchdog = Thread {
            while watching.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 0.5)
                guard let (input, since) = current.withLock({ $0 }), monotonicNanoseconds() - since > hangNanoseconds else { continue }
                var file = ""
                if let dir = findingsDirectory {
                    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                    file = dir + "/hang-\(seed)-\(input.count).bin"
                    _ = FileManager.default.createFile(atPath: file, contents: Data(input))
                }
                FileHandle.standardError.write(Data("tapwire-fuzz: finding: hang: one \(input.count)-byte input ran over \(Int(hangNanoseconds / 1_000_000_000)) s → \(file)\n".utf8))
                exit(1)
            }
        }
        watchdog.start()
        defer { watching.store(false, ordering: .relaxed) }

        func consider(_ input: [UInt8]) {
            current.withLock { $0 = (input, monotonicNanoseconds()) }
            defer { current.withLock { $0 = nil } }
            summary.executions += 1
            summary.largestInput = max(summary.largestInput, input.count)
            guard let finding = BodyFuzzTarget.check(input) else {
                // Keep some survivors so mutations compound (a cheap stand-in for coverage).
                if input.count < 256 << 10, pool.count < 4096, mutator.below(8) == 0 { pool.append(input) }
                return
            }
            // Three inputs per broken invariant are plenty to debug it; keep looking for others.
            perInvariant[finding.invariant, default: 0] += 1
            guard perInvariant[finding.invariant]! <= 3 else { return }
            var file = ""
            if let dir = findingsDirectory {
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                file = dir + "/finding-\(seed)-\(summary.executions).bin"
                _ = FileManager.default.createFile(atPath: file, contents: Data(input))
            }
            summary.findings.append((file, finding))
            progress("finding: \(finding) \(file.isEmpty ? "" : "→ \(file)")")
        }

        for input in pool { consider(input) }
        while elapsed() < seconds, summary.findings.count < maxFindings {
            let base = pool[mutator.below(pool.count)]
            let other = pool[mutator.below(pool.count)]
            consider(mutator.mutate(base, other: other))
            if elapsed() > nextReport {
                progress(String(format: "%.0f s: %d inputs", elapsed(), summary.executions))
                nextReport += 10
            }
        }
        summary.seconds = elapsed()
        return summary
    }
}
