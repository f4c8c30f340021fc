import Dispatch
import Synchronization
import TapwireCore
import TapwireLifecycle

/// A thread of the collector's background fold with a connection of its own, kept across folds,
/// that runs one share of each fold beside the folder's (`RollupFolder`; docs/ingestion.md,
/// "The fold's shares"): `begin` hands it the share, `finish` waits for its outcome. A
/// connection that broke is opened again by the next share.
final class FoldShareWorker: Sendable {
    /// One share: its own transaction on the worker's connection.
    typealias Share = @Sendable (PostgresConnection) throws(DatabaseError) -> Void

    private struct State {
        var share: Share?
        /// The outcome of the share begun last, until `finish` takes it.
        var outcome: Result<Void, DatabaseError>?
    }

    private let databaseURL: String
    private let applicationName: String
    private let loop: BackgroundLoop
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)
    private let watch: IdleConnectionWatch

    init(databaseURL: String, applicationName: String, watch: IdleConnectionWatch) {
        self.databaseURL = databaseURL
        self.applicationName = applicationName
        self.watch = watch
        loop = BackgroundLoop(name: applicationName)
    }

    func start() { loop.start { [self] in work() } }

    /// Returns once the thread has run the share begun last (if any) and closed its connection.
    func stop() { loop.stop() }

    /// Runs `share` on the worker's thread; one at a time, each followed by `finish`.
    func begin(_ share: @escaping Share) {
        state.withLock { $0.share = share }
        loop.wake()
    }

    /// Waits for the share begun last and returns how it ended.
    func finish() -> Result<Void, DatabaseError> {
        finished.wait()
        return state.withLock { s in
            defer { s.outcome = nil }
            return s.outcome ?? .success(())
        }
    }

    private func work() {
        // Closed by the server while idle since the last share (idle_session_timeout, a
        // pooler's, a restart): replaced before the share would fail on it.
        var connection = LoopConnection(name: applicationName, watch: watch) { [databaseURL, applicationName] () throws(DatabaseError) in
            try PostgresConnection(url: databaseURL, applicationName: applicationName, serverTimeouts: .off)
        }
        while true {
            guard let share = state.withLock({ s -> Share? in defer { s.share = nil }; return s.share }) else {
                if !loop.isRunning { break }
                loop.pause(seconds: 60)
                continue
            }
            let outcome: Result<Void, DatabaseError>
            do throws(DatabaseError) {
                try share(try connection.ready())
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            state.withLock { $0.outcome = outcome }
            finished.signal()
        }
        connection.close()
    }
}
