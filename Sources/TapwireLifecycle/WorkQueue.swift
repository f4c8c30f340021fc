import Synchronization

/// Jobs for the threads of a `BackgroundLoop`, first in first out: the database readers' work and
/// the handlers' tasks. Whether the loop runs is read under the queue's lock, by `add` and by
/// `next`, so a job added before the loop stops is taken, and none is added after.
public final class WorkQueue<Job: Sendable>: Sendable {
    private let jobs = Mutex<[Job]>([])
    private let loop: BackgroundLoop
    private let limit: Int

    /// At most `limit` jobs wait; past it `add` refuses (a stuck consumer cannot grow memory).
    public init(loop: BackgroundLoop, limit: Int = .max) {
        self.loop = loop
        self.limit = limit
    }

    /// Queues `job` and wakes a thread; false when the loop is not running or the queue is full.
    public func add(_ job: Job) -> Bool {
        let added = jobs.withLock { queue -> Bool in
            guard queue.count < limit, loop.isRunning else { return false }
            queue.append(job)
            return true
        }
        if added { loop.wake() }
        return added
    }

    /// The next job, waiting for one; nil once the loop has stopped and none is left.
    public func next() -> Job? {
        while true {
            let taken = jobs.withLock { queue -> Job?? in
                if !queue.isEmpty { return queue.removeFirst() }
                return loop.isRunning ? .some(nil) : nil
            }
            guard let waiting = taken else { return nil }
            if let job = waiting { return job }
            loop.pause(seconds: 0.5)
        }
    }
}
