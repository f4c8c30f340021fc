// The holdouts' family of findings (docs/holdouts.md): a campaign whose logged split is not the
// one its assignments state. Its kind, its evidence and how it becomes a `Finding`.

extension FindingKind {
    /// A campaign's treated and held-out devices are not in the stated proportion: the
    /// randomisation or the logging is broken, and the campaign's estimates are withheld.
    public static let sampleRatioMismatch = FindingKind(rawValue: "sample_ratio_mismatch")
}

/// What a sample-ratio mismatch found: the campaign's devices per arm against the stated share,
/// with both p-values (Pearson's χ² for one look, Lindon & Malek's sequential one over the daily
/// looks, which decides).
public struct SampleRatioMismatch: FindingEvidence, Equatable {
    public var campaign: String
    public var treated: Int
    public var heldOut: Int
    public var expectedShare: Double
    public var observedShare: Double
    public var pValue: Double?
    public var sequentialPValue: Double
    /// The first UTC day of the campaign's assignments.
    public var firstDay: String

    public init(campaign: String, treated: Int, heldOut: Int, expectedShare: Double, observedShare: Double, pValue: Double?,
                sequentialPValue: Double, firstDay: String) {
        self.campaign = campaign
        self.treated = treated
        self.heldOut = heldOut
        self.expectedShare = expectedShare
        self.observedShare = observedShare
        self.pValue = pValue
        self.sequentialPValue = sequentialPValue
        self.firstDay = firstDay
    }

    /// One message per campaign (the subject's category is the campaign).
    public var keyDetail: String { "" }
}

extension Finding {
    /// A campaign's split broken. Severity `error`: every estimate of the campaign is withheld
    /// until the cause is found. Its subject names the campaign as the category, and no app
    /// version ('': a holdout spans versions).
    public init(_ mismatch: SampleRatioMismatch) {
        let message = "Campaign \"\(mismatch.campaign)\" held out a share of its devices that is not the one its assignments state: "
            + "the randomisation or the logging is broken, and its holdout estimates are withheld. Check how the sender assigns and posts arms."
        self.init(kind: .sampleRatioMismatch, severity: .error, subject: FindingSubject(appVersions: [""], category: mismatch.campaign),
                  evidence: mismatch, message: message, since: nil)
    }
}
