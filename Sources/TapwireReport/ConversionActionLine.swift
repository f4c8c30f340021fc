import TapwireCore

/// Direct conversions of one name after one action, in one category (or all of them): which
/// button converted, or the open.
struct ConversionActionLine: Sendable {
    var categoryName: String
    var isTotal: Bool
    var action: String
    var name: String
    var direct: Int

    static func lines(_ categories: [CategoryEngagement], _ overall: CategoryEngagement) -> [ConversionActionLine] {
        (categories + [overall]).flatMap { c in
            c.directConversionsByAction.keys.sorted().flatMap { action in
                c.directConversionsByAction[action]!.keys.sorted().map { name in
                    ConversionActionLine(categoryName: c.displayName, isTotal: c.category == nil, action: action.wrappedValue, name: name.wrappedValue,
                                         direct: c.directConversionsByAction[action]![name]!)
                }
            }
        }
    }
}
