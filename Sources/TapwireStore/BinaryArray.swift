/// The elements of one binary array field, appended with the same value encodings as COPY fields.
struct BinaryArray: BinaryValueWriter {
    /// The element types the arrays Tapwire sends hold (OIDs from pg_type, fixed since 8.x).
    enum ElementType: UInt32 {
        case bool = 16, int8 = 20, int2 = 21, text = 25, timestamptz = 1184
    }

    let elementType: ElementType
    var bytes: [UInt8] = []
    private(set) var count = 0
    private(set) var hasNull = false

    init(_ elementType: ElementType, reservingCapacity capacity: Int = 0) {
        self.elementType = elementType
        bytes.reserveCapacity(capacity)
    }

    mutating func didAppendValue(isNull: Bool) {
        count += 1
        if isNull { hasNull = true }
    }
}
