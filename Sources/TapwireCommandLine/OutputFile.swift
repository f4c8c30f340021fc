import Foundation

/// Where a command writes a file it was asked for (`report --out`, `demo --html`, `tapwire-bench
/// --json-out`). A regular file (or a new one) is replaced whole, through a temporary file and a
/// rename, so a reader never sees half a report. Anything else (`/dev/null`, a FIFO, `/dev/stdout`)
/// is written in place: a rename would put a regular file where the device or pipe was, which as
/// root replaces /dev/null for the whole machine. A symbolic link is followed, so the file it
/// points to is what gets replaced and the link stays.
package enum OutputFile {
    package static func write(_ text: String, to path: String) throws(CLIError) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let type = (try? FileManager.default.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
        do {
            switch type {
            case nil, .typeRegular?:
                try text.write(toFile: target, atomically: true, encoding: .utf8)
            case .typeDirectory?:
                throw CLIError("cannot write \(path): it is a directory; name a file in it instead")
            default:
                guard let handle = FileHandle(forWritingAtPath: target) else {
                    throw CLIError("cannot write \(path): it cannot be opened for writing")
                }
                defer { try? handle.close() }
                try handle.write(contentsOf: Data(text.utf8))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
