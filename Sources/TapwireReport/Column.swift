import Foundation

/// A column of a text table: a header and a cell per row, aligned left or right.
struct Column: Sendable {
    var header: String
    var width: Int
    var right: Bool
    var cell: @Sendable (CategoryEngagement) -> String
}
