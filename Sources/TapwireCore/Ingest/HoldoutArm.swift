/// The two arms of a campaign's holdout (docs/holdouts.md): `treated` devices were sent the
/// campaign, `held_out` devices would have been and were not. The raw values are the wire's.
public enum HoldoutArm: String, Sendable, CaseIterable, Hashable {
    case treated
    case heldOut = "held_out"
}
