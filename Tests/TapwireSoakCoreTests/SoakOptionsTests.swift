import Testing
@testable import TapwireSoakCore

@Suite struct SoakOptionsTests {
    @Test func defaultsAreWhatMakeSoakReliesOn() throws {
        let o = try SoakOptions.parse([])
        #expect(o.seconds == 300 && o.clients == 4 && o.rate == nil && o.benchJSON == nil && o.fraction == 0.7)
        #expect(o.binDirectory == "" && o.work == "" && o.maxRSSMiB == 512 && o.clientKills == 3)
    }

    @Test func readsTheShortSoakOfMakeTest() throws {
        let o = try SoakOptions.parse(["--seconds", "60", "--clients", "2", "--rate", "1500", "--client-kills", "2"])
        var expected = SoakOptions()
        expected.seconds = 60
        expected.clients = 2
        expected.rate = 1500
        expected.clientKills = 2
        #expect(o == expected)
    }

    @Test func readsEveryFlag() throws {
        let o = try SoakOptions.parse(["--bench-json", "/tmp/b.json", "--fraction", "0.5", "--bin", "/opt/bin", "--work", "/tmp/w",
                                       "--max-rss-mib", "256.9", "--clients", "0.5"])
        #expect(o.benchJSON == "/tmp/b.json" && o.fraction == 0.5 && o.binDirectory == "/opt/bin" && o.work == "/tmp/w")
        #expect(o.maxRSSMiB == 256)
        #expect(o.clients == 1, "at least one client")
    }

    @Test func clientKillsMustBeACount() throws {
        #expect(throws: SoakOptions.ParseError.notACount(option: "--client-kills")) { try SoakOptions.parse(["--client-kills", "many"]) }
        #expect(throws: SoakOptions.ParseError.notACount(option: "--client-kills")) { try SoakOptions.parse(["--client-kills", "-1"]) }
        #expect(try SoakOptions.parse(["--client-kills", "0"]).clientKills == 0)
    }

    @Test func badArgumentsGetTheirMessages() {
        #expect(throws: SoakOptions.ParseError.missingValue(option: "--seconds")) { try SoakOptions.parse(["--seconds"]) }
        #expect(throws: SoakOptions.ParseError.notPositive(option: "--rate")) { try SoakOptions.parse(["--rate", "0"]) }
        #expect(throws: SoakOptions.ParseError.notPositive(option: "--clients")) { try SoakOptions.parse(["--clients", "two"]) }
        #expect(throws: SoakOptions.ParseError.unknownOption("--speed")) { try SoakOptions.parse(["--seconds", "5", "--speed", "9"]) }
        #expect(throws: SoakOptions.ParseError.helpRequested) { try SoakOptions.parse(["-h"]) }
        #expect(throws: SoakOptions.ParseError.helpRequested) { try SoakOptions.parse(["--help"]) }

        #expect(SoakOptions.ParseError.missingValue(option: "--work").description == "--work needs a value\n" + SoakOptions.usage)
        #expect(SoakOptions.ParseError.notPositive(option: "--rate").description == "--rate needs a positive number")
        #expect(SoakOptions.ParseError.unknownOption("--speed").description == "unknown option --speed\n" + SoakOptions.usage)
        #expect(SoakOptions.usage.hasPrefix("usage: tapwire-soak [--seconds 300]"))
    }
}

@Suite struct SoakRateTests {
    @Test func readsTheEndToEndPeakOfTheBenchJSON() {
        #expect(SoakRate.benchPeak(json: Array(#"{"endToEndEventsPerSecond": 42000.5, "other": 1}"#.utf8)) == 42000.5)
        #expect(SoakRate.benchPeak(json: Array(#"{"endToEndEventsPerSecond": 0}"#.utf8)) == nil)
        #expect(SoakRate.benchPeak(json: Array(#"{"copyEventsPerSecond": 9}"#.utf8)) == nil)
        #expect(SoakRate.benchPeak(json: Array("not json".utf8)) == nil)
    }

    @Test func targetIsTheRateOrAFractionOfThePeak() throws {
        #expect(SoakRate.target(try SoakOptions.parse(["--rate", "1500"]), benchPeak: 10_000) == 1500)
        #expect(SoakRate.target(try SoakOptions.parse(["--fraction", "0.5"]), benchPeak: 10_000) == 5000)
        #expect(SoakRate.target(SoakOptions(), benchPeak: 10_000) == 7000)
    }
}

@Suite struct HarnessReportTests {
    @Test func readsTheLastJSONLineOfTheOutput() throws {
        let output = """
        recording 500
        {"recorded": 1, "accepted": 1}
        flushed
        {"recorded": 500, "accepted": 480, "duplicates": 3, "rejected": 2, "remaining": 10, "dropped": 5}

        """
        let report = try #require(HarnessReport(output: output))
        #expect(report.recorded == 500 && report.accepted == 480 && report.duplicates == 3)
        #expect(report.rejected == 2 && report.remaining == 10 && report.dropped == 5)
    }

    @Test func missingCountsAreZeroAndNoJSONIsNil() throws {
        let report = try #require(HarnessReport(output: #"{"dropped": 7}"#))
        #expect(report.dropped == 7 && report.recorded == 0 && report.rejected == 0)
        #expect(HarnessReport(output: "killed before the summary\n") == nil)
        #expect(HarnessReport(output: "{truncated") == nil)
    }
}
