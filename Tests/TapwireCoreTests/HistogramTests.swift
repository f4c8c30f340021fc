import TapwireStatistics
import Testing
@testable import TapwireCore

@Suite("Percentile histograms")
struct HistogramTests {
    @Test func replyLengthsAreExactUpToTheBound() {
        // Lengths 1…100 once each: nearest-rank p50 is 50, p90 is 90 (⌈0.9·100⌉ = 90).
        var h = BinnedHistogram()
        for length in 1...100 { h.add(bin: ReplyLengthBins.bin(forLength: length), count: 1) }
        #expect(h.percentileBin(0.5) == 50)
        #expect(h.percentileBin(0.9) == 90)
        #expect(ReplyLengthBins.bin(forLength: 10_000) == ReplyLengthBins.overflowBin)
        #expect(ReplyLengthBins.value(ofBin: ReplyLengthBins.overflowBin) == Double(ReplyLengthBins.bound + 1))
        #expect(BinnedHistogram().percentileBin(0.5) == nil)
    }

    @Test func latencyBinsAreLogSpacedWithStatedError() {
        #expect(LatencyBins.bin(forSeconds: 0.2) == 0)
        #expect(LatencyBins.bin(forSeconds: -5) == 0)
        #expect(LatencyBins.bin(forSeconds: 1.0) == 1)
        #expect(LatencyBins.bin(forSeconds: 2.5) == 6) // 4·log2(2.5) = 5.29 → 1 + 5
        #expect(LatencyBins.bin(forSeconds: 1e12) == LatencyBins.lastBin)
        // Every value is within the stated relative error of its bin's midpoint.
        var seconds = 1.01
        while seconds < 3_000_000 {
            let bin = LatencyBins.bin(forSeconds: seconds)
            #expect(LatencyBins.lowerBound(ofBin: bin) <= seconds && seconds < LatencyBins.upperBound(ofBin: bin))
            let error = abs(LatencyBins.value(ofBin: bin) - seconds) / seconds
            #expect(error <= LatencyBins.maxRelativeError + 1e-12, "\(seconds) s")
            seconds *= 1.37
        }
        #expect(abs(LatencyBins.maxRelativeError - 0.0905) < 0.0001)
    }

    @Test func mergeAddsCounts() {
        var a = BinnedHistogram([(bin: 1, count: 3), (bin: 5, count: 1)])
        a.merge(BinnedHistogram([(bin: 5, count: 6)]))
        #expect(a.total == 10)
        #expect(a.percentileBin(0.3) == 1)
        #expect(a.percentileBin(0.31) == 5)
    }
}
