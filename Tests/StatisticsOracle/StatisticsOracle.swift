import Foundation

/// The Python recomputations in Tests/Statistics/ (mantel_haenszel.py, confidence_sequence.py,
/// report_uplift.py, skewed_mean.py, sample_ratio.py): the figures written again from the sources' own formulas, in exact or
/// 50-digit arithmetic, a second route to every number. CI has python3; the scripts need only its
/// standard library. A library of its own so that pure and database tests alike can use it.
public enum StatisticsOracle {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `script` with `input` on standard input and returns its standard output, parsed as JSON.
    public static func run(_ script: String, input: Data) throws -> Any {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Statistics").appendingPathComponent(script).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The scripts read all of their input before they write: write, close, then read.
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(script) exited with \(process.terminationStatus)") }
        return try JSONSerialization.jsonObject(with: output, options: [.fragmentsAllowed])
    }

    /// confidence_sequence.py with one request object.
    public static func run(_ request: [String: Any]) throws -> [String: Any] {
        try run("confidence_sequence.py", request: request)
    }

    /// `script` with one request object, answered by one object.
    public static func run(_ script: String, request: [String: Any]) throws -> [String: Any] {
        let answer = try run(script, input: JSONSerialization.data(withJSONObject: request))
        guard let object = answer as? [String: Any] else { throw Failure(description: "no result from \(script)") }
        return object
    }

    /// `a` equals the oracle's number `b` within a relative tolerance (absolute below 1).
    public static func close(_ a: Double, _ b: Any?, relative tolerance: Double = 1e-9) -> Bool {
        guard let b = (b as? NSNumber)?.doubleValue else { return false }
        return abs(a - b) <= tolerance * max(1, abs(b))
    }
}
