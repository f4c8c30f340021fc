import Foundation

/// When an appended record reaches the disk.
public enum QueueDurability: String, Sendable {
    /// fsync after every append (and every head update): a recorded event survives a process
    /// kill, a crash, jetsam and power loss. The default; notification events are few per day.
    case fsyncEveryRecord
    /// write(2) only: survives a process kill or crash (the kernel has the bytes), not power loss.
    case osBuffered
}
