import TapwireCore

/// How an exact reader (the report, the findings' stores) brings the rollups up to every batch
/// acknowledged before it was asked, before it reads them. Outside the collector it folds on its
/// own connection (`OwnFold`); inside it, it waits for the collector's background fold
/// (`SharedFolds.readFold`), so a report adds no fold of its own beside ingestion's
/// (docs/reports.md, "A report in the collector shares the fold"). One value per unit of work
/// (a request, a monitor scan): the readers of that unit share what it waited for.
public protocol ReadFold: Sendable {
    func foldBeforeReading(on connection: PostgresConnection) throws(DatabaseError)
}
