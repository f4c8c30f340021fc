import Testing
import TapwireCore
import TapwireReport
import TapwireServer
import TapwireStore

/// The one table from each layer's errors to a status (`APIError.swift`), decided by codes and
/// SQLSTATEs, never by a message.
@Suite struct APIErrorTableTests {
    @Test func databaseErrorsByWhatHappened() {
        let lost = DatabaseError(.connectionLost, "gone")
        let standby = DatabaseError(.queryFailed, sqlState: "40001", "canceling statement due to conflict with recovery")
        let refused = DatabaseError(.queryFailed, sqlState: "23514", "check violation on value 'secret'")
        #expect(APIError(lost, doing: "the report").code == .databaseUnavailable)
        #expect(APIError(lost, doing: "the report").retryAfterSeconds == 1)
        #expect(APIError(standby, doing: "the report").code == .databaseUnavailable)
        let internalError = APIError(refused, doing: "the report")
        #expect(internalError.code == .internalError && internalError.code.status == 500)
        // The message names the stable code, never the server's text, which can quote values.
        #expect(internalError.message.contains("db_query_failed") && !internalError.message.contains("secret"))
        // Cut by the operator's statement_timeout or lock_timeout: 503, retry (docs/deployment.md).
        for state in ["57014", "55P03"] {
            let cut = APIError(DatabaseError(.queryFailed, sqlState: state, "canceling statement due to statement timeout"), doing: "the report")
            #expect(cut.code == .databaseTimeout && cut.code.status == 503 && cut.retryAfterSeconds == 1)
            #expect(cut.message.hasPrefix("the report") && !cut.message.contains("canceling"))
        }
    }

    @Test func executorFailuresAreUnavailableOrTheWorks() {
        let unavailable = ExecutorError<ReportFailure>.unavailable(DatabaseError(.connectionFailed, "queue full"))
        #expect(APIError(unavailable, doing: "the report") { APIError($0, doing: "the report") }.code == .databaseUnavailable)
        let invalid = ExecutorError<ReportFailure>.failed(.invalid(ReportError(.unknownTimeZone, "unknown time zone")))
        #expect(APIError(invalid, doing: "the report") { APIError($0, doing: "the report") }.code.status == 400)
    }

    @Test func everyReportErrorCodeIsTheCallersToFix() {
        for code in [ReportError.Code.invalidParameter, .unknownTimeZone, .invalidRange] {
            #expect(APIError(ReportError(code, "x")).code.status == 400)
        }
    }

    @Test func commitFailures() {
        #expect(APIError(CommitFailure.overloaded(retryAfterSeconds: 3)).code.status == 503)
        #expect(APIError(CommitFailure.overloaded(retryAfterSeconds: 3)).retryAfterSeconds == 3)
        #expect(APIError(CommitFailure.unavailable(retryAfterSeconds: 1)).code == .databaseUnavailable)
        #expect(APIError(CommitFailure.rejected(code: "db_copy_failed", sqlState: "22P02")).code.status == 500)
        #expect(APIError(CommitFailure.rejected(code: "db_copy_failed", sqlState: "57014")).code == .databaseTimeout)
        #expect(APIError(CommitFailure.rejected(code: "db_query_failed", sqlState: "55P03")).code.status == 503)
    }

    @Test func batchAndManifestErrorsKeepTheirCodes() {
        #expect(APIError(BatchError(.tooManyEvents, "split it")).code == .tooManyEvents)
        #expect(APIError(BatchError(.tooDeep, "deep")).code == .jsonTooDeep)
        #expect(APIError(ManifestError(.invalidManifest, "no")).code == .invalidManifest)
        #expect(APIError(ManifestError(.invalidUTF8, "bytes")).code == .invalidUTF8)
    }
}
