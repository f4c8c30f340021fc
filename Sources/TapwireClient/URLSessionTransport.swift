import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport apps use: URLSession (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    public let session: URLSession
    public let timeout: TimeInterval
    private let challenges: ChallengeRecorder?

    /// The default session refuses HTTP authentication challenges and reports them as the 401
    /// they were: FoundationNetworking never completes a task whose 401 carries WWW-Authenticate
    /// when the challenge gets default handling (seen with swift-corelibs-foundation 6.3), and
    /// the SDK must see that 401 to keep its queue and back off.
    public init(timeout: TimeInterval = 30) {
        let recorder = ChallengeRecorder()
        self.session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
        self.challenges = recorder
        self.timeout = timeout
    }

    /// A session of your own (its delegate then decides about authentication challenges).
    public init(session: URLSession, timeout: TimeInterval = 30) {
        self.session = session
        self.challenges = nil
        self.timeout = timeout
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = Data(request.body)
        let task = UploadTask(session: session, request: urlRequest, challenges: challenges)
        return try await withTaskCancellationHandler {
            try await task.run()
        } onCancel: {
            task.cancel()
        }
    }
}

/// A data task bridged to async. The completion handler runs once; the lock guards the task
/// handle so cancellation from another task is safe.
private final class UploadTask: Sendable {
    let session: URLSession
    let request: URLRequest
    let challenges: ChallengeRecorder?
    private let task = Locked<URLSessionDataTask?>(nil)

    init(session: URLSession, request: URLRequest, challenges: ChallengeRecorder?) {
        self.session = session
        self.request = request
        self.challenges = challenges
    }

    func run() async throws -> TransportResponse {
        let challenges = self.challenges
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
            let box = Locked<Int?>(nil)
            let dataTask = session.dataTask(with: request) { data, response, error in
                if let error {
                    // A refused authentication challenge ends the task as cancelled: it was a 401.
                    if let id = box.withLock({ $0 }), let refused = challenges?.take(id) {
                        continuation.resume(returning: refused)
                    } else {
                        continuation.resume(throwing: error)
                    }
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                    return
                }
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                }
                continuation.resume(returning: TransportResponse(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data())))
            }
            box.withLock { $0 = dataTask.taskIdentifier }
            task.withLock { $0 = dataTask }
            dataTask.resume()
        }
    }

    func cancel() { task.withLock { $0?.cancel() } }
}

/// Refuses every authentication challenge (the key is already in the Authorization header;
/// there is no other credential to offer) and remembers the 401 that raised it, by task.
private final class ChallengeRecorder: NSObject, URLSessionTaskDelegate, Sendable {
    private let refused = Locked<[Int: TransportResponse]>([:])

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        var headers: [String: String] = [:]
        let status = (challenge.failureResponse as? HTTPURLResponse).map { http in
            for (key, value) in http.allHeaderFields {
                if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
            }
            return http.statusCode
        } ?? 401
        let id = task.taskIdentifier
        refused.withLock { $0[id] = TransportResponse(status: status, headers: headers, body: []) }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func take(_ id: Int) -> TransportResponse? { refused.withLock { $0.removeValue(forKey: id) } }
}
