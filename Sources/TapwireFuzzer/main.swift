// tapwire-fuzz: the body decoder's fuzz target.
//  - Built with `swift build --sanitize=fuzzer -Xswiftc -DLIBFUZZER` (make fuzz), it is a libFuzzer
//    binary: libFuzzer supplies main() and calls LLVMFuzzerTestOneInput.
//  - Built normally, it is a seeded mutator bounded in time: `tapwire-fuzz --seconds N --seed S`.
// Both check the same invariants (BodyFuzzTarget) on the same functions the collector runs.
import Foundation
import TapwireFuzz

#if LIBFUZZER
/// libFuzzer's entry point for programs that have their own main (SwiftPM gives every executable
/// one, so libFuzzer's main is never linked in).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let finding = BodyFuzzTarget.check(bytes) {
        // A trap makes libFuzzer save the input as crash-…; the message says which invariant broke.
        fatalError("tapwire-fuzz finding: \(finding)")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
#else
let usage = """
usage: tapwire-fuzz [--seconds N] [--seed S] [--findings DIR] [--corpus DIR] [--replay FILE…] [--write-seeds DIR]
  --seconds N        run the seeded mutator for N seconds (default 30)
  --seed S           the mutator's seed (default 1); the same seed makes the same inputs
  --findings DIR     write each input that breaks an invariant there (default .build/fuzz-findings)
  --corpus DIR       add the files in DIR to the starting inputs
  --replay FILE…     check these inputs only (a libFuzzer crash file, a saved finding)
  --write-seeds DIR  write the seed inputs (for a libFuzzer corpus) and exit
Exits 1 when an input breaks an invariant, 0 when none did.
"""

func readFiles(in dir: String) -> [[UInt8]] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.sorted() ?? []
    return names.compactMap { FileManager.default.contents(atPath: dir + "/" + $0).map { [UInt8]($0) } }
}

/// Unbuffered, so progress shows when the output is a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

var seconds = 30.0
var seed: UInt64 = 1
var findings = ".build/fuzz-findings"
var corpus: [[UInt8]] = []
var replay: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("tapwire-fuzz: \(name) needs a value\n\(usage)\n".utf8))
            exit(2)
        }
        return arguments.removeFirst()
    }
    switch name {
    case "--seconds":
        guard let n = Double(value()), n >= 0 else { FileHandle.standardError.write(Data("tapwire-fuzz: --seconds needs a number\n".utf8)); exit(2) }
        seconds = n
    case "--seed":
        guard let n = UInt64(value()) else { FileHandle.standardError.write(Data("tapwire-fuzz: --seed needs a whole number\n".utf8)); exit(2) }
        seed = n
    case "--findings": findings = value()
    case "--corpus": corpus += readFiles(in: value())
    case "--replay":
        replay.append(value())
        while let next = arguments.first, !next.hasPrefix("--") { replay.append(arguments.removeFirst()) }
    case "--write-seeds":
        let dir = value()
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, input) in FuzzSeeds.inputs.enumerated() {
            _ = FileManager.default.createFile(atPath: dir + String(format: "/seed-%03d", i), contents: Data(input))
        }
        say("tapwire-fuzz: wrote \(FuzzSeeds.inputs.count) seeds to \(dir)")
        exit(0)
    case "-h", "--help":
        say(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("tapwire-fuzz: unknown option \(name)\n\(usage)\n".utf8))
        exit(2)
    }
}

if !replay.isEmpty {
    var failed = 0
    for path in replay {
        guard let data = FileManager.default.contents(atPath: path) else {
            say("tapwire-fuzz: cannot read \(path)")
            failed += 1
            continue
        }
        if let finding = BodyFuzzTarget.check([UInt8](data)) {
            say("tapwire-fuzz: \(path): \(finding)")
            failed += 1
        } else {
            say("tapwire-fuzz: \(path): ok")
        }
    }
    exit(failed == 0 ? 0 : 1)
}

var runner = FuzzRunner(seed: seed, seconds: seconds, findingsDirectory: findings)
runner.corpus = corpus
say("tapwire-fuzz: seed \(seed), \(Int(seconds)) s")
let summary = runner.run { say("tapwire-fuzz: \($0)") }
say(String(format: "tapwire-fuzz: %d inputs in %.1f s (largest %d bytes), %d findings", summary.executions, summary.seconds,
             summary.largestInput, summary.findings.count))
exit(summary.findings.isEmpty ? 0 : 1)
#endif
