import Foundation

/// A column of a text table: a header and a cell per row, aligned left or right.
struct Column<Row>: Sendable {
    var header: String
    var width: Int
    var right: Bool
    var cell: @Sendable (Row) -> String
}
