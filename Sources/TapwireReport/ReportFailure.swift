import TapwireCore
import TapwireStatistics
import TapwireStore

/// Why a report could not be made: the request, which the caller must change, or the database.
public enum ReportFailure: Error, Sendable {
    case invalid(ReportError)
    case database(DatabaseError)
}
