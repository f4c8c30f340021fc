/// A command-line error: printed as "<program>: <message>" (e.g. "tapwire: …") with exit code 2.
package struct CLIError: Error, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
