import TapwireCore

/// The body path of the ingestion routes without the sockets: Content-Encoding, bounded
/// inflate, JSON, validation. The server and the fuzz target run these same functions, so what
/// the fuzzer proves about them holds for what the collector does with a hostile body.
public enum IngestBodyPipeline {
    /// What became of a body.
    public enum Outcome: Sendable, Equatable {
        case batch(DecodedBatch)
        case manifest(Manifest)
        case refused(APIError)

        public var error: APIError? { if case .refused(let e) = self { return e } else { return nil } }
    }

    /// Decompresses `wire` as the server does, feeding it in pieces of `chunkSizes` (cycled; empty
    /// means one piece), as bytes arriving from a socket would. Returns the decoded body, or the
    /// error the server would answer with.
    public static func inflate(_ wire: [UInt8], contentEncoding: String?, chunkSizes: [Int] = [],
                               limits: IngestLimits = IngestLimits()) -> Result<[UInt8], APIError> {
        guard let encoding = BodyReader.encoding(for: contentEncoding) else {
            return .failure(APIError(.unsupportedEncoding, "Content-Encoding is not supported; use gzip, deflate or identity"))
        }
        let reader = BodyReader(policy: BodyPolicy(maxWireBytes: limits.maxBodyBytes, maxDecodedBytes: limits.maxDecompressedBytes),
                                encoding: encoding)
        do throws(APIError) {
            var offset = 0
            var turn = 0
            while offset < wire.count {
                let size = chunkSizes.isEmpty ? wire.count : max(1, chunkSizes[turn % chunkSizes.count])
                let end = min(wire.count, offset + size)
                try reader.feed(Array(wire[offset..<end]))
                offset = end
                turn += 1
            }
            return .success(try reader.finish())
        } catch {
            return .failure(error)
        }
    }

    /// `POST /v1/batch` from the wire bytes to the validated events (no storage).
    public static func batch(_ wire: [UInt8], contentEncoding: String?, chunkSizes: [Int] = [],
                             limits: IngestLimits = IngestLimits(), receivedAt: Timestamp) -> Outcome {
        switch inflate(wire, contentEncoding: contentEncoding, chunkSizes: chunkSizes, limits: limits) {
        case .failure(let error): return .refused(error)
        case .success(let body):
            switch decodeBatch(body, limits: limits, receivedAt: receivedAt) {
            case .success(let batch): return .batch(batch)
            case .failure(let error): return .refused(error)
            }
        }
    }

    /// `POST /v1/categories` from the wire bytes to the validated manifest (no storage).
    public static func manifest(_ wire: [UInt8], contentEncoding: String?, chunkSizes: [Int] = [],
                                limits: IngestLimits = IngestLimits()) -> Outcome {
        switch inflate(wire, contentEncoding: contentEncoding, chunkSizes: chunkSizes, limits: limits) {
        case .failure(let error): return .refused(error)
        case .success(let body):
            switch decodeManifest(body, limits: limits) {
            case .success(let manifest): return .manifest(manifest)
            case .failure(let error): return .refused(error)
            }
        }
    }

    /// The decoded body of `POST /v1/batch` to events, with the API error for a whole-batch problem.
    public static func decodeBatch(_ body: [UInt8], limits: IngestLimits, receivedAt: Timestamp) -> Result<DecodedBatch, APIError> {
        do {
            return .success(try BatchDecoder(limits: limits).decode(body, receivedAt: receivedAt))
        } catch {
            return .failure(APIError(error))
        }
    }

    /// The decoded body of `POST /v1/categories` to a manifest, with the API error when it is refused.
    public static func decodeManifest(_ body: [UInt8], limits: IngestLimits) -> Result<Manifest, APIError> {
        do {
            return .success(try ManifestDecoder(limits: limits).decode(body))
        } catch {
            return .failure(APIError(error))
        }
    }
}
