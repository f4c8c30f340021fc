import TapwireCore
import TapwireStatistics
import TapwireStore

/// What the engagement rate is a share of: delivered notifications, or, when an app posts no
/// delivered events for a category, the backend's sent count (and the report says so).
public enum EngagementBase: String, Sendable {
    case delivered
    case sent
}
