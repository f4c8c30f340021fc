import TapwireStatistics
import Testing
@testable import TapwireCore

private let t0 = Timestamp(iso8601: "2026-12-01T10:00:00Z")!
private func at(_ minutes: Int) -> Timestamp { t0.adding(seconds: Double(minutes * 60)) }

private let open = SystemAction.open
private let dismiss = SystemAction.dismiss

/// The manifest of the issue's scenario: message (reply text input, delete destructive,
/// customDismissAction) and social_post (like, no customDismissAction).
private func scenarioManifest(_ version: String = "3.2.1", carPlay: Bool = false) -> Manifest {
    Manifest(appVersion: version, categories: [
        ManifestCategory(identifier: "message", options: ["customDismissAction"] + (carPlay ? ["allowInCarPlay"] : []), actions: [
            ManifestAction(identifier: "reply", options: ["foreground"], textInput: true),
            ManifestAction(identifier: "delete", options: ["destructive"]),
        ]),
        ManifestCategory(identifier: "social_post", actions: [ManifestAction(identifier: "like")]),
    ])
}

private func use(_ type: EventType, _ category: String, _ action: String? = nil, version: String = "3.2.1",
                 platform: String = "iOS", registered: RegistrationReport = .registered, count: Int64,
                 first: Int = 0, last: Int = 0) -> CategoryUsage {
    CategoryUsage(appVersion: version, platform: platform, type: type, category: category, action: action,
                  registration: registered, count: count, firstSeen: at(first), lastSeen: at(last))
}

private func only(_ findings: [MismatchFinding], _ kind: MismatchKind) -> [MismatchFinding] { findings.filter { $0.kind == kind } }

@Suite struct IdentifierDistanceTests {
    @Test func editDistances() {
        #expect(IdentifierDistance.distance("socialpost", "social_post") == 1)
        #expect(IdentifierDistance.distance("kitten", "sitting") == 3)
        #expect(IdentifierDistance.distance("", "abc") == 3)
        #expect(IdentifierDistance.distance("same", "same") == 0)
        // A transposition is one edit (optimal string alignment).
        #expect(IdentifierDistance.distance("mesasge", "message") == 1)
        // The early exit reports "more than the limit", never a smaller number.
        #expect(IdentifierDistance.distance("promotion", "message", limit: 2) == 3)
        #expect(IdentifierDistance.distance("abcdef", "a", limit: 2) == 3)
    }

    @Test func closestPrefersCaseThenDistanceThenByteOrder() {
        let rules = MismatchRules()
        #expect(IdentifierDistance.closest(to: "Message", among: ["message", "messages"], rules: rules) == .caseOnly("message"))
        #expect(IdentifierDistance.closest(to: "socialpost", among: ["message", "social_post"], rules: rules) == .near("social_post", distance: 1))
        #expect(IdentifierDistance.closest(to: "promo", among: ["message", "social_post"], rules: rules) == nil)
        // Two at distance 1: the first in byte order wins, whatever the input order.
        #expect(IdentifierDistance.closest(to: "cat", among: ["cut", "cab"], rules: rules) == .near("cab", distance: 1))
        #expect(IdentifierDistance.closest(to: "cat", among: ["cab", "cut"], rules: rules) == .near("cab", distance: 1))
        // Short identifiers get little slack: "ab" is not a near miss of "xy" nor of "ac".
        #expect(IdentifierDistance.closest(to: "ab", among: ["ac", "xy"], rules: rules) == nil)
        // Case folding happens before the distance: "Socialpost" is one edit from "social_post".
        #expect(IdentifierDistance.closest(to: "Socialpost", among: ["social_post"], rules: rules) == .near("social_post", distance: 1))
    }
}

@Suite struct MismatchDetectorTests {
    let detector = MismatchDetector()

    @Test func theIssueScenarioFindsEachKindOnceAndNothingElse() {
        let manifests = ["3.2.1": scenarioManifest()]
        let usage = [
            // Healthy traffic: must not be flagged.
            use(.delivered, "message", count: 100, first: 0, last: 50),
            use(.response, "message", "reply", count: 20, first: 1, last: 40),
            use(.response, "message", dismiss, count: 5, first: 2, last: 41),
            use(.response, "message", open, count: 30, first: 3, last: 42),
            use(.delivered, "social_post", count: 60, first: 0, last: 55),
            use(.response, "social_post", "like", count: 9, first: 4, last: 44),
            // The problems.
            use(.delivered, "Message", count: 12, first: 5, last: 45),
            use(.response, "Message", open, count: 3, first: 6, last: 46),
            use(.delivered, "socialpost", count: 7, first: 7, last: 47),
            use(.delivered, "promo", count: 4, first: 8, last: 48),
            use(.delivered, "promo", platform: "iPadOS", count: 1, first: 9, last: 49),
            use(.response, "social_post", "share", count: 2, first: 10, last: 50),
            use(.response, "social_post", dismiss, count: 3, first: 11, last: 51),
            use(.delivered, "message", version: "3.3.0", count: 8, first: 12, last: 52),
            use(.response, "message", "reply", version: "3.3.0", count: 1, first: 13, last: 53),
        ]
        let findings = detector.findings(usage: usage, manifests: manifests)
        #expect(findings.map(\.kind).sorted() == [.unknownCategory, .caseMismatch, .nearMiss, .unregisteredAction,
                                                   .impossibleDismiss, .noManifest])

        let caseMismatch = only(findings, .caseMismatch)[0]
        #expect(caseMismatch.category == "Message")
        #expect(caseMismatch.suggestion == "message")
        #expect(caseMismatch.count == 12)  // deliveries, not deliveries + responses
        #expect(caseMismatch.tally == MismatchTally(delivered: 12, responses: 3))
        #expect(caseMismatch.appVersions == ["3.2.1"])
        #expect(caseMismatch.severity == .error)
        #expect(caseMismatch.firstSeen == at(5) && caseMismatch.lastSeen == at(46))

        let near = only(findings, .nearMiss)[0]
        #expect(near.category == "socialpost" && near.suggestion == "social_post" && near.count == 7)

        let unknown = only(findings, .unknownCategory)[0]
        #expect(unknown.category == "promo" && unknown.suggestion == nil && unknown.count == 5)
        #expect(unknown.platforms == ["iOS", "iPadOS"])

        let action = only(findings, .unregisteredAction)[0]
        #expect(action.category == "social_post" && action.action == "share" && action.count == 2 && action.severity == .warning)

        let dismissal = only(findings, .impossibleDismiss)[0]
        #expect(dismissal.category == "social_post" && dismissal.action == dismiss && dismissal.count == 3)

        let noManifest = only(findings, .noManifest)[0]
        #expect(noManifest.category == "message" && noManifest.appVersions == ["3.3.0"] && noManifest.count == 8)
        #expect(noManifest.message.contains("cannot be verified"))
        // Errors first.
        #expect(findings.prefix(3).allSatisfy { $0.severity == .error })
    }

    @Test func deviceReportedUnregisteredIsUnknownEvenWhenTheManifestRegistersIt() {
        let usage = [
            use(.delivered, "message", registered: .unregistered, count: 6),
            use(.delivered, "message", registered: .registered, count: 10),
            use(.delivered, "social_post", count: 1),
        ]
        let findings = detector.findings(usage: usage, manifests: ["3.2.1": scenarioManifest()])
        #expect(findings.count == 1)
        #expect(findings[0].kind == .unknownCategory && findings[0].count == 6 && findings[0].wipedOnDevice)
        #expect(findings[0].message.contains("setNotificationCategories"))
    }

    @Test func aVersionWithoutManifestIsUnverifiableNotUnknown() {
        let usage = [
            use(.delivered, "message", version: "9.0", count: 3),
            use(.delivered, "promo", version: "9.0", count: 2),
            use(.response, "message", "whatever", version: "9.0", count: 1),
            // The device's own flag is still evidence, checked against every manifest's categories.
            use(.delivered, "Message", version: "9.0", registered: .unregistered, count: 4),
        ]
        let findings = detector.findings(usage: usage, manifests: ["3.2.1": scenarioManifest()])
        #expect(Set(only(findings, .noManifest).map(\.category)) == ["message", "promo"])
        #expect(only(findings, .noManifest).first { $0.category == "message" }?.count == 3)
        #expect(only(findings, .caseMismatch).map(\.category) == ["Message"])
        #expect(only(findings, .unregisteredAction).isEmpty && only(findings, .unknownCategory).isEmpty)
        // 3.2.1 had no events in the window, so its categories are not reported dead.
        #expect(only(findings, .deadCategory).isEmpty)
    }

    @Test func anAppWithNoManifestAtAllFlagsNothingAsUnknown() {
        let usage = [use(.delivered, "anything", count: 3), use(.sent, "other", version: "", count: 9)]
        let findings = detector.findings(usage: usage, manifests: [:])
        #expect(findings.map(\.kind) == [.noManifest, .noManifest])
        #expect(Set(findings.flatMap(\.appVersions)) == ["3.2.1", ""])
    }

    @Test func sentEventsWithoutVersionAreCheckedAgainstEveryVersionsCategories() {
        // 3.2.1 registers message; 4.0 also registers promo. A backend `sent` for promo is fine
        // (some version registers it); one for Promo is a case mismatch; one for xyz unknown.
        var v4 = scenarioManifest("4.0")
        v4.categories.append(ManifestCategory(identifier: "promo"))
        let usage = [
            use(.sent, "promo", version: "", registered: .notReported, count: 50),
            use(.sent, "Promo", version: "", registered: .notReported, count: 5),
            use(.sent, "xyz", version: "", registered: .notReported, count: 2),
            use(.delivered, "xyz", version: "3.2.1", count: 1),
            use(.delivered, "message", version: "3.2.1", count: 1),
            use(.delivered, "social_post", version: "3.2.1", count: 1),
        ]
        let findings = detector.findings(usage: usage, manifests: ["3.2.1": scenarioManifest(), "4.0": v4])
        #expect(only(findings, .caseMismatch).map { [$0.category, $0.suggestion ?? ""] } == [["Promo", "promo"]])
        let unknown = only(findings, .unknownCategory)
        #expect(unknown.count == 1)
        // One finding for xyz across the sent ('' version) and the 3.2.1 delivery; the count is
        // the deliveries (the denominator), never deliveries + sent.
        #expect(unknown[0].category == "xyz" && unknown[0].appVersions == ["", "3.2.1"] && unknown[0].count == 1)
        #expect(unknown[0].tally == MismatchTally(delivered: 1, sent: 2))
    }

    @Test func deadCategoriesAreInformational() {
        let usage = [use(.delivered, "message", count: 10)]
        let findings = detector.findings(usage: usage, manifests: ["3.2.1": scenarioManifest()])
        #expect(findings.count == 1)
        #expect(findings[0].kind == .deadCategory && findings[0].category == "social_post")
        #expect(findings[0].severity == .info && findings[0].count == 0 && findings[0].firstSeen == nil)
    }

    @Test func platformCaveatsAreDataByPlatform() {
        let manifests = ["3.2.1": scenarioManifest(carPlay: true)]
        let usage = [
            use(.delivered, "message", count: 10),
            use(.response, "message", "reply", count: 2),
            use(.delivered, "social_post", count: 4),
            use(.delivered, "social_post", platform: "watchOS", count: 3),
        ]
        let caveats = only(detector.findings(usage: usage, manifests: manifests), .platformCaveat)
        #expect(caveats.count == 2)
        let carPlay = caveats.first { $0.platforms == ["CarPlay"] }
        #expect(carPlay?.category == "message" && carPlay?.action == "reply" && carPlay?.count == 10 && carPlay?.severity == .info)
        let watch = caveats.first { $0.platforms == ["watchOS"] }
        #expect(watch?.category == "social_post" && watch?.action == nil && watch?.count == 3)
        // Without allowInCarPlay there is no CarPlay caveat; without watchOS events no watch one.
        var rules = MismatchRules()
        rules.platformCaveats = []
        #expect(only(MismatchDetector(rules: rules).findings(usage: usage, manifests: manifests), .platformCaveat).isEmpty)
        let plain = only(detector.findings(usage: Array(usage.prefix(3)), manifests: ["3.2.1": scenarioManifest()]), .platformCaveat)
        #expect(plain.isEmpty)
    }

    @Test func unregisteredActionSuggestsANearRegisteredAction() {
        let usage = [
            use(.delivered, "message", count: 1), use(.delivered, "social_post", count: 1),
            use(.response, "message", "Reply", count: 2), use(.response, "message", "archive", count: 1),
            use(.response, "message", "", count: 1),
        ]
        let actions = only(detector.findings(usage: usage, manifests: ["3.2.1": scenarioManifest()]), .unregisteredAction)
        #expect(actions.map { $0.action ?? "" } == ["Reply", "archive"])
        #expect(actions.map(\.suggestion) == ["reply", nil])
    }

    @Test func versionFindingsSplitPerVersionAndMergeBack() {
        let manifests = ["1.0": scenarioManifest("1.0"), "1.1": scenarioManifest("1.1")]
        let usage = [
            use(.delivered, "promo", version: "1.0", count: 2, first: 1, last: 5),
            use(.delivered, "promo", version: "1.1", platform: "iPadOS", count: 3, first: 0, last: 9),
            use(.delivered, "message", version: "1.0", count: 1), use(.delivered, "social_post", version: "1.1", count: 1),
            use(.delivered, "message", version: "1.1", count: 1), use(.delivered, "social_post", version: "1.0", count: 1),
        ]
        let perVersion = detector.versionFindings(usage: usage, manifests: manifests)
        #expect(perVersion.map(\.appVersions) == [["1.1"], ["1.0"]])
        let merged = detector.findings(usage: usage, manifests: manifests)
        #expect(merged.count == 1)
        #expect(merged[0].appVersions == ["1.0", "1.1"] && merged[0].count == 5 && merged[0].platforms == ["iOS", "iPadOS"])
        #expect(merged[0].firstSeen == at(0) && merged[0].lastSeen == at(9))
        #expect(merged[0].message.contains("1.0, 1.1"))
    }

    /// iOS finds a category and an action by their identifiers' bytes (NSString compares UTF-16
    /// code units literally), so one registered in another normal form ("café" composed in the
    /// manifest, decomposed in the payload) is not registered, though the two are equal
    /// `String`s; nor is it the registered one "but for case".
    @Test func anIdentifierInAnotherNormalFormIsNotRegistered() {
        let manifest = Manifest(appVersion: "3.2.1", categories: [
            ManifestCategory(identifier: "caf\u{E9}", actions: [ManifestAction(identifier: "r\u{E9}ply")]),
            ManifestCategory(identifier: "pr\u{E9}sent"),
        ])
        let usage = [use(.delivered, "cafe\u{301}", count: 2), use(.delivered, "caf\u{E9}", count: 3),
                     use(.response, "caf\u{E9}", "re\u{301}ply", count: 1), use(.delivered, "pre\u{301}sent", count: 4)]
        let findings = detector.findings(usage: usage, manifests: ["3.2.1": manifest])
        let unknown = only(findings, .unknownCategory)
        #expect(unknown.map { Array($0.category.utf8) } == [Array("cafe\u{301}".utf8)] && unknown.first?.count == 2)
        // Long enough for two edits (a letter replaced, a mark removed): a near miss of the registered form.
        let near = only(findings, .nearMiss)
        #expect(near.map { Array($0.category.utf8) } == [Array("pre\u{301}sent".utf8)] && near.first?.count == 4)
        #expect(near.first?.suggestion.map { Array($0.utf8) } == Array("pr\u{E9}sent".utf8))
        let action = only(findings, .unregisteredAction)
        #expect(action.map { $0.action.map { Array($0.utf8) } } == [Array("re\u{301}ply".utf8)])
        let dead = only(findings, .deadCategory)
        #expect(dead.map { Array($0.category.utf8) } == [Array("pr\u{E9}sent".utf8)])
        #expect(findings.count == 4)
    }

    @Test func categorylessNotificationsAreLegitimate() {
        let findings = detector.findings(usage: [use(.delivered, "", count: 100), use(.delivered, "", version: "7.0", count: 1)],
                                         manifests: ["3.2.1": scenarioManifest()])
        // Only the registered categories nobody sent are worth a line (version 7.0 has no
        // manifest, yet its category-less notification is not "unverifiable").
        #expect(findings.map(\.kind) == [.deadCategory, .deadCategory])
        #expect(findings.allSatisfy { $0.appVersions == ["3.2.1"] })
    }

    @Test func severityNamesAndOrder() {
        #expect(FindingSeverity(name: "WARNING") == .warning)
        #expect(FindingSeverity(name: "critical") == .error)
        #expect(FindingSeverity(name: "loud") == nil)
        #expect(FindingSeverity.info < FindingSeverity.warning && FindingSeverity.warning < FindingSeverity.error)
        #expect(MismatchDetector.versionOrder("3.9", "3.10") && !MismatchDetector.versionOrder("3.10", "3.9"))
    }

    /// The version order is total: irreflexive, no two distinct versions tie, transitive, over
    /// versions that mix numbers, text, leading zeros and canonically equivalent spellings (the
    /// order used to tie "1.01" with "1.1" and to cycle 9 < 10 < 10a < 9).
    @Test func versionOrderIsATotalOrder() {
        let versions = ["", "1", "1.0", "1.01", "1.1", "1.1.0", "9", "10", "10a", "9a", "2b", "3.10", "3.9",
                        "caf\u{E9}", "cafe\u{301}", "99999999999999999999", "1..2", ".1"]
        let lt = MismatchDetector.versionOrder
        for a in versions {
            #expect(!lt(a, a), "\(a) before itself")
            for b in versions where !a.utf8.elementsEqual(b.utf8) {
                #expect(lt(a, b) != lt(b, a), "\(a) and \(b) tie or precede each other")
                for c in versions where lt(a, b) && lt(b, c) {
                    #expect(lt(a, c), "\(a) < \(b) < \(c) but not \(a) < \(c)")
                }
            }
        }
    }

    /// Merged findings list each version once, in version order, whatever the order the
    /// per-version findings came in: what the one sort per finding must keep of the sort per merge.
    @Test func mergedFindingsListTheirVersionsOnceInOrder() {
        let detector = MismatchDetector()
        var rng = SeededGenerator(seed: 7)
        let versions = (0..<40).map { "3.\($0 % 13).\($0)" }
        let usage = versions.flatMap { v in
            ["iOS", "watchOS"].map { use(.delivered, "UNKNOWN_CAT", version: v, platform: $0, registered: .notReported, count: 3) }
        }
        let manifests = Dictionary(uniqueKeysWithValues: versions.map { ($0, scenarioManifest($0)) })
        let expected = versions.sorted(by: MismatchDetector.versionOrder)
        for _ in 0..<3 {
            let findings = detector.findings(usage: usage.shuffled(using: &rng), manifests: manifests)
            let unknown = findings.filter { $0.kind == .unknownCategory }
            #expect(unknown.count == 1)
            #expect(unknown.first?.appVersions == expected)
            #expect(unknown.first?.platforms == ["iOS", "watchOS"])
            #expect(unknown.first?.count == 240)
        }
    }
}

@Suite struct WebhookPolicyTests {
    @Test func backoffGrowsIsCappedAndNeverGivesUpOnTransientFailures() {
        let policy = WebhookRetryPolicy(baseSeconds: 1, maxSeconds: 60, maxAttemptsWhenRejected: 3)
        var rng = SeededGenerator(seed: 42)
        let down = WebhookOutcome.transientFailure(status: nil, retryAfterSeconds: nil, reason: "refused")
        var delays: [Double] = []
        for attempt in 1...40 {
            guard case .retry(let d) = policy.decide(attempts: attempt, outcome: down, using: &rng) else {
                Issue.record("attempt \(attempt) gave up on a transient failure")
                return
            }
            delays.append(d)
        }
        #expect(delays[0] >= 0.5 && delays[0] <= 1)
        #expect(delays[3] >= 4 && delays[3] <= 8)
        #expect(delays.allSatisfy { $0 <= 60 })
        #expect(delays.last! >= 30)
        #expect(policy.decide(attempts: 9, outcome: .delivered(status: 200), using: &rng) == .markSent)
    }

    @Test func retryAfterIsHonouredWithinTheCap() {
        let policy = WebhookRetryPolicy(baseSeconds: 1, maxSeconds: 60)
        var rng = SeededGenerator(seed: 1)
        #expect(policy.decide(attempts: 1, outcome: .transientFailure(status: 429, retryAfterSeconds: 30, reason: ""), using: &rng)
                == .retry(afterSeconds: 30))
        #expect(policy.decide(attempts: 1, outcome: .transientFailure(status: 429, retryAfterSeconds: 9999, reason: ""), using: &rng)
                == .retry(afterSeconds: 60))
    }

    @Test func rejectionsGiveUpAfterTheirAllowance() {
        let policy = WebhookRetryPolicy(maxAttemptsWhenRejected: 3)
        var rng = SeededGenerator(seed: 3)
        let no = WebhookOutcome.rejected(status: 404, reason: "HTTP 404")
        if case .retry = policy.decide(attempts: 2, outcome: no, using: &rng) {} else { Issue.record("attempt 2 should retry") }
        #expect(policy.decide(attempts: 3, outcome: no, using: &rng) == .giveUp)
    }

    /// A key without a detail (every mismatch key) hashes as the keys of 0021 did, so the ids
    /// receivers dedupe on did not change when regressions joined the outbox; a detail makes a
    /// different key.
    @Test func findingKeysAreStable() {
        let key = FindingKey(appId: 1, appVersion: "1.0", kind: .mismatch(.unknownCategory), category: "x")
        #expect(key.description == SHA256.hex(Array("1\u{0}1.0\u{0}unknown_category\u{0}x".utf8)))
        #expect(key.description != FindingKey(appId: 1, appVersion: "1.0", kind: .mismatch(.nearMiss), category: "x").description)
        let opens = FindingKey(appId: 1, appVersion: "1.1", kind: .engagementRegression, category: "x", detail: "opens")
        #expect(opens.description != FindingKey(appId: 1, appVersion: "1.1", kind: .engagementRegression, category: "x",
                                                detail: "action:accept").description)
        for kind in MismatchKind.allCases.map(FindingKind.mismatch) + [.engagementRegression, .manifestChange] {
            #expect(FindingKind(rawValue: kind.rawValue) == kind)
        }
        for outcome in [RegressionOutcome.opens, .action("accept"), .textReplies, .dismissals] {
            #expect(RegressionOutcome(stableName: outcome.stableName) == outcome)
        }
        // Look-alike categories (composed and decomposed) are two keys, as their ids are: the
        // messages grouped by key do not merge them.
        let composed = FindingKey(appId: 1, appVersion: "1.0", kind: .mismatch(.unknownCategory), category: "caf\u{E9}")
        let decomposed = FindingKey(appId: 1, appVersion: "1.0", kind: .mismatch(.unknownCategory), category: "cafe\u{301}")
        #expect(composed.description != decomposed.description)
        #expect(composed != decomposed && Set([composed, decomposed]).count == 2)
    }
}
