import TapwireCore

/// Length-prefixed binary values (an int32 byte count, -1 for NULL, then the value in
/// PostgreSQL's binary send format). A field of a binary COPY row and an element of a binary
/// array share this layout, so both writers get the value encodings from here, once.
protocol BinaryValueWriter {
    var bytes: [UInt8] { get set }
    /// Called after each value is appended (arrays count their elements and note NULLs).
    mutating func didAppendValue(isNull: Bool)
}

extension BinaryValueWriter {
    mutating func null() {
        append32(0xFFFF_FFFF)
        didAppendValue(isNull: true)
    }

    mutating func int16(_ value: Int16) {
        append32(2)
        append16(UInt16(bitPattern: value))
        didAppendValue(isNull: false)
    }

    mutating func int32(_ value: Int32) {
        append32(4)
        append32(UInt32(bitPattern: value))
        didAppendValue(isNull: false)
    }

    mutating func int64(_ value: Int64) {
        append32(8)
        append64(UInt64(bitPattern: value))
        didAppendValue(isNull: false)
    }

    /// A float8: its IEEE 754 bits, big-endian.
    mutating func float64(_ value: Double) {
        append32(8)
        append64(value.bitPattern)
        didAppendValue(isNull: false)
    }

    mutating func bool(_ value: Bool) {
        append32(1)
        bytes.append(value ? 1 : 0)
        didAppendValue(isNull: false)
    }

    mutating func timestamp(_ value: Timestamp) {
        append32(8)
        append64(UInt64(bitPattern: value.microseconds &- PostgresEpoch.offsetMicroseconds))
        didAppendValue(isNull: false)
    }

    mutating func uuid(_ value: EventID) {
        append32(16)
        append64(value.high)
        append64(value.low)
        didAppendValue(isNull: false)
    }

    /// text, varchar and enum labels all travel as their UTF-8 bytes.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            append32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        didAppendValue(isNull: false)
    }

    mutating func value(_ value: RollupDeltaRows.Value) {
        switch value {
        case .null: null()
        case .int16(let v): int16(v)
        case .int64(let v): int64(v)
        case .bool(let v): bool(v)
        case .timestamp(let v): timestamp(v)
        case .text(let v): text(v)
        case .utf8(let v):
            append32(UInt32(v.count))
            bytes.append(contentsOf: v)
            didAppendValue(isNull: false)
        case .int64Array(let values):
            var elements = BinaryArray(.int8, reservingCapacity: values.count * 12)
            for v in values { elements.int64(v) }
            array(elements)
        case .int16Array(let values):
            var elements = BinaryArray(.int2, reservingCapacity: values.count * 6)
            for v in values { elements.int16(v) }
            array(elements)
        }
    }

    /// A one-dimensional array field (array_send's layout: ndim, has-nulls flag, element type,
    /// then length and lower bound 1, then the elements).
    mutating func array(_ column: BinaryArray) {
        if column.count == 0 {
            append32(12)
            append32(0) // ndim 0: the empty array
            append32(0)
            append32(column.elementType.rawValue)
            didAppendValue(isNull: false)
            return
        }
        append32(UInt32(20 + column.bytes.count))
        append32(1)
        append32(column.hasNull ? 1 : 0)
        append32(column.elementType.rawValue)
        append32(UInt32(column.count))
        append32(1)
        bytes.append(contentsOf: column.bytes)
        didAppendValue(isNull: false)
    }

    mutating func optionalText(_ value: String?) { if let value { text(value) } else { null() } }
    mutating func optionalBool(_ value: Bool?) { if let value { bool(value) } else { null() } }
    mutating func optionalTimestamp(_ value: Timestamp?) { if let value { timestamp(value) } else { null() } }
    mutating func optionalInt32(_ value: Int32?) { if let value { int32(value) } else { null() } }
    mutating func optionalFloat64(_ value: Double?) { if let value { float64(value) } else { null() } }
    mutating func optionalInt16(_ value: Int16?) { if let value { int16(value) } else { null() } }

    // Byte by byte, most significant first: `append(contentsOf:)` of a word's raw bytes was a
    // generic copy and a memcpy call for every length and value, about 8 % of the collector's
    // instructions (docs/benchmarks.md, "The collector's instructions per event (branch ingest8)").
    mutating func append16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func append32(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func append64(_ v: UInt64) {
        append32(UInt32(truncatingIfNeeded: v >> 32))
        append32(UInt32(truncatingIfNeeded: v))
    }
}
