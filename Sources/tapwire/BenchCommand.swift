enum BenchCommand {
    static let usage = "tapwire bench"
    static func run(_ args: inout Arguments) throws -> Int32 { throw CLIError("bench is being written") }
}
