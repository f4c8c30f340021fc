/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's public-domain "days from civil" algorithms.
public enum CivilCalendar {
    public static func days(fromYear year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    public static func daysInMonth(year: Int64, month: Int) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `2026-12-01` for a day number.
    public static func isoDate(_ days: Int64) -> String {
        let (y, m, d) = civil(fromDays: days)
        return String(format4: y) + "-" + (m < 10 ? "0" : "") + String(m) + "-" + (d < 10 ? "0" : "") + String(d)
    }
}
