import Foundation
import TapwireCommandLine

/// The release-regression settings as `tapwire serve` and `tapwire alerts` read them, checked once.
enum RegressionSettings {
    /// A percentage of the baseline's rate, from 0 up to (not including) 100.
    static func minimumDrop(_ text: String, flag: String) throws(CLIError) -> Double {
        guard let percent = Double(text), percent >= 0, percent < 100 else {
            throw CLIError("\(flag) must be a percentage of the baseline's rate from 0 to below 100 (default 10), got \(text)")
        }
        return percent / 100
    }

    static func horizonDays(_ text: String, flag: String) throws(CLIError) -> Int {
        guard let days = Int(text), (1...400).contains(days) else { throw CLIError("\(flag) must be a number of days from 1 to 400 (default 28), got \(text)") }
        return days
    }
}
