import TapwireCore

/// The rate the clients record at: `--rate`, or a fraction of the end-to-end peak that
/// `tapwire-bench ingest --json FILE` measured.
public enum SoakRate {
    /// `endToEndEventsPerSecond` of the bench's JSON (the UUIDv7 figure); nil if it is missing or not positive.
    public static func benchPeak(json bytes: [UInt8]) -> Double? {
        guard let json = try? JSONParser().parse(bytes),
              let peak = json["endToEndEventsPerSecond"]?.numberValue?.double, peak > 0 else { return nil }
        return peak
    }

    /// The total target rate: `--rate` when given, else `--fraction` of the bench's peak (which the
    /// soak reads, or fails, whenever `--rate` is not given).
    public static func target(_ options: SoakOptions, benchPeak: Double?) -> Double {
        if let rate = options.rate { return rate }
        guard let benchPeak else { preconditionFailure("no --rate and no bench peak") }
        return benchPeak * options.fraction
    }
}
