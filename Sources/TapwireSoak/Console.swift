import Foundation
import Synchronization

/// Unbuffered, so the progress shows when the output is a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data(("soak: " + text + "\n").utf8)) }
