import Foundation
import TapwireCore
import TapwireStatistics

/// Devices that receive notifications (the demo's categories, rich or text-only, some with a
/// notificationId), respond to them or not, and convert at known rates: after an engaged response
/// within the direct window, after a delivery without one within the influence window, and
/// without any notification (organic). It knows what caused each conversion (`ConversionTruth`)
/// and, when no two notifications' windows overlap, each category's true conversion rate and
/// value per delivered. Pure and seeded: the same configuration gives the same simulation.
public struct OutcomeSimulator: Sendable {
    public var configuration: OutcomeConfiguration

    public init(_ configuration: OutcomeConfiguration) { self.configuration = configuration }

    static let day: Int64 = 86_400_000_000

    /// A time rounded down to the configured resolution.
    func rounded(_ microseconds: Int64) -> Int64 {
        let step = max(1, configuration.timeResolution)
        return microseconds - microseconds % step
    }

    public func simulate() -> OutcomeSimulation {
        let c = configuration
        var rng = SeededGenerator(seed: c.seed)
        let from = c.end.adding(microseconds: -Int64(c.days) * Self.day)
        // Organic conversions run past the end by the longest window a notification near the end
        // converts in, so every notification sees the same organic rate over its windows.
        let organicSpan = Int64(c.days) * Self.day + c.minimumGapForExactRates
        var devices: [OutcomeDevice] = []
        var truths: [ConversionTruth] = []
        for i in 0..<max(1, c.devices) {
            let version = DemoSimulator.pick(DemoSimulator.versions, &rng)
            let platform = DemoSimulator.pick(DemoSimulator.platforms, &rng)
            let id = "outcome-\(c.seed)-\(i)"
            var device = OutcomeDevice(context: WireContext(appVersion: version, build: version.replacingOccurrences(of: ".", with: ""),
                                                            platform: platform, osVersion: platform == "iOS" ? "18.1" : "11.1",
                                                            sdk: "tapwire-demo/1.0", deviceId: id),
                                       currency: c.currencies.isEmpty ? "EUR" : c.currencies[Int(Sampling.unit(&rng) * Double(c.currencies.count))])
            var deviceTruths: [ConversionTruth] = []
            let meanGap = Double(Self.day) / max(c.notificationsPerDeviceDay, 1e-9)
            let extraGap = max(0, meanGap - Double(c.minimumGap))
            var t = from.microseconds + Int64(Sampling.unit(&rng) * meanGap)
            var n = 0
            while t < c.end.microseconds {
                notify(n, at: Timestamp(microseconds: rounded(t)), device: &device, truths: &deviceTruths, rng: &rng)
                n += 1
                t += c.minimumGap + Int64(-extraGap * log(Sampling.unit(&rng)))
            }
            let organic = Sampling.poisson(c.organicPerDeviceDay * Double(organicSpan) / Double(Self.day), &rng)
            for _ in 0..<organic {
                let time = from.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(organicSpan))))
                let event = convert(at: time, naming: nil, device: &device, rng: &rng)
                deviceTruths.append(ConversionTruth(event: event, device: device.id, cause: .organic, notificationKey: nil))
            }
            device.events.sort { ($0.timestamp.microseconds, $0.eventId) < ($1.timestamp.microseconds, $1.eventId) }
            device.markUnambiguous(&deviceTruths, directWindow: c.directWindow, influenceWindow: c.influenceWindow)
            truths += deviceTruths
            devices.append(device)
        }
        return OutcomeSimulation(configuration: c, from: from, devices: devices, truths: truths)
    }

    /// Notification `n` of a device at `time`: its delivery, the response if any, and the
    /// conversion it leads to if any.
    func notify(_ n: Int, at time: Timestamp, device: inout OutcomeDevice, truths: inout [ConversionTruth], rng: inout SeededGenerator) {
        let c = configuration
        let category = DemoSimulator.pick(DemoSimulator.categories.map { ($0, $0.weight) }, &rng)
        let notificationId = Sampling.unit(&rng) < c.notificationIdShare ? "\(device.id)-n\(n)" : nil
        let requested = Sampling.unit(&rng) < category.mediaShare
        let shown = requested && Sampling.unit(&rng) >= c.mediaFailureRate
        var campaign: String?, variant: String?
        if let (name, variants) = category.campaign {
            campaign = name
            variant = variants[Int(Sampling.unit(&rng) * Double(variants.count))]
        }
        func event(_ type: WireEventType, _ at: Timestamp) -> WireEvent {
            WireEvent(eventId: EventID.v7(at: at, using: &rng), type: type, timestamp: at, notificationId: notificationId,
                      category: category.identifier, hasMedia: shown, mediaTypes: shown ? ["image"] : [],
                      categoryRegistered: type == .sent ? nil : true, campaign: campaign, variant: variant)
        }
        if category.sentOnly {
            device.events.append(event(.sent, time.adding(microseconds: -2_000_000)))
            return
        }
        var delivered = event(.delivered, time)
        delivered.mediaRequested = requested
        device.events.append(delivered)
        device.delivered[category.identifier, default: 0] += 1
        let rate = OutcomeSimulation.engagementRate(category, rich: shown, c)
        var response = event(.response, time.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.latencyMax)))))
        response.deliveredAt = time
        var engaged: WireEvent?
        if DemoSimulator.respond(&response, category: category, rate: rate, version: device.context.appVersion, rng: &rng) {
            device.events.append(response)
            if response.actionIdentifier != SystemAction.dismiss { engaged = response }
        }
        let boost = shown ? c.richConversionUpliftPoints / 100 : 0
        if let engaged {
            guard Sampling.unit(&rng) < min(1, c.directRate + boost) else { return }
            let named = notificationId != nil && Sampling.unit(&rng) < c.namedShare
            let at = engaged.timestamp.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.directWindow))))
            let conversion = convert(at: at, naming: named ? notificationId : nil, device: &device, rng: &rng)
            truths.append(ConversionTruth(event: conversion, device: device.id, cause: .engagedResponse(engaged.eventId),
                                          notificationKey: notificationId ?? "event:\(engaged.eventId)"))
        } else if Sampling.unit(&rng) < min(1, c.influencedRate + boost) {
            let at = time.adding(microseconds: rounded(Int64(Sampling.unit(&rng) * Double(c.influenceWindow))))
            let conversion = convert(at: at, naming: nil, device: &device, rng: &rng)
            truths.append(ConversionTruth(event: conversion, device: device.id, cause: .delivery(delivered.eventId),
                                          notificationKey: notificationId ?? "event:\(delivered.eventId)"))
        }
    }

    /// A conversion of the device at `time`: a name by its weight, a value in the device's
    /// currency, posted by the device itself or by the app's backend (then with its deviceId).
    func convert(at time: Timestamp, naming notificationId: String?, device: inout OutcomeDevice, rng: inout SeededGenerator) -> WireEvent {
        let c = configuration
        let outcome = DemoSimulator.pick(c.outcomes.map { ($0, $0.weight) }, &rng)
        var value: Double?
        if let model = outcome.value {
            var v = Sampling.unit(&rng) < model.zeroShare ? 0 : exp(model.mu + model.sigma * Sampling.normal(&rng))
            if c.roundValuesToCents { v = (v * 100).rounded() / 100 }
            value = min(v, IngestLimits.maxConversionValue)
        }
        let byBackend = Sampling.unit(&rng) < c.backendShare
        let event = WireEvent.conversion(eventId: EventID.v7(at: time, using: &rng), timestamp: time, name: outcome.name, value: value,
                                         currency: value == nil ? nil : device.currency, notificationId: notificationId,
                                         deviceId: byBackend ? device.id : nil)
        device.events.append(event)
        return event
    }
}
