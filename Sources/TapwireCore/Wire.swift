/// The wire format (event ids, timestamps, JSON values and their writer, the manifest's canonical
/// form and hash, SHA-256) is its own module, shared with the SDK. Re-exported, so every module
/// built on the core keeps seeing those types as part of it.
@_exported import TapwireWire
