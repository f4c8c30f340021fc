import Foundation
import Testing
import TapwireCore
import TapwireDemo

@Suite("Outcome simulator")
struct OutcomeSimulatorTests {
    static func configuration(seed: UInt64 = 42) -> OutcomeConfiguration {
        var c = OutcomeConfiguration(end: Timestamp(iso8601: "2026-11-16T00:00:00Z")!)
        c.seed = seed
        c.devices = 60
        return c
    }

    @Test func deterministicForASeed() {
        let sentAt = Timestamp(microseconds: 0)
        func bodies(_ seed: UInt64) -> [[UInt8]] {
            OutcomeSimulator(Self.configuration(seed: seed)).simulate().plan().batches.map { $0.body(sentAt: sentAt) }
        }
        #expect(bodies(42) == bodies(42))
        #expect(bodies(42) != bodies(43))
    }

    /// Every event is posted (retries aside, once), every conversion has a truth whose cause is
    /// an event of its device before it and within the window, and the three causes all occur.
    @Test func thePlanCarriesEveryEventAndTheTruthNamesRealCauses() throws {
        let simulation = OutcomeSimulator(Self.configuration()).simulate()
        let plan = simulation.plan()
        var posted: [EventID: Int] = [:]
        for batch in plan.batches { for event in batch.events { posted[event.eventId, default: 0] += 1 } }
        #expect(posted.count == plan.uniqueEvents)
        #expect(posted.values.contains { $0 > 1 }, "some batches are retried")
        #expect(plan.batches.contains { $0.context.deviceId == nil && $0.events.allSatisfy { $0.deviceId != nil } },
                "the backend posts conversions for many devices")
        let events = Dictionary(uniqueKeysWithValues: simulation.devices.flatMap { d in d.events.map { ($0.eventId, (d.id, $0)) } })
        let c = simulation.configuration
        var kinds = [0, 0, 0]
        for truth in simulation.truths {
            let (device, conversion) = try #require(events[truth.eventId])
            #expect(device == truth.device && conversion.type == .conversion)
            kinds[truth.kind - 1] += 1
            switch truth.cause {
            case .engagedResponse(let id), .delivery(let id):
                let (causeDevice, cause) = try #require(events[id])
                let window = truth.kind == 1 ? c.directWindow : c.influenceWindow
                #expect(causeDevice == device && cause.timestamp <= conversion.timestamp
                        && conversion.timestamp.microseconds - cause.timestamp.microseconds < window)
                #expect(truth.notificationKey == (cause.notificationId ?? "event:\(cause.eventId)"))
            case .organic:
                #expect(truth.notificationKey == nil)
            }
        }
        #expect(kinds.allSatisfy { $0 > 0 }, "\(kinds)")
        #expect(simulation.truths.count == events.values.filter { $0.1.type == .conversion }.count)
    }

    /// With notifications further apart than their windows, the true rates exist; they are
    /// probabilities, and a large simulation's share of notifications with an intended
    /// conversion stays below them (organic conversions in the windows add the rest).
    @Test func trueRatesExistOnlyWhenWindowsDoNotOverlap() throws {
        var c = Self.configuration()
        #expect(OutcomeSimulator(c).simulate().trueConversionRate(category: "message", name: "purchase") == nil)
        c.minimumGap = c.minimumGapForExactRates + 1
        c.notificationsPerDeviceDay = 0.9
        let simulation = OutcomeSimulator(c).simulate()
        let rate = try #require(simulation.trueConversionRate(category: "message", name: "purchase"))
        #expect(rate > 0 && rate < 1)
        #expect(simulation.trueConversionRate(category: "digest", name: "purchase") == nil, "sent-only: never delivered")
        let value = try #require(simulation.trueValuePerDelivered(category: "message", name: "purchase"))
        #expect(value > 0)
        #expect(simulation.trueValuePerDelivered(category: "message", name: "signup") == nil, "signups carry no value")
    }
}
