import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport

/// The built binary's outcome commands: `apps attribution` (the windows, with the fix for a bad
/// one), `devices forget` and admin keys (docs/outcomes.md).
@Suite struct OutcomesCommandTests {
    @Test func windowsForgettingAndAdminKeysFromTheCommandLine() throws {
        let database = try TestDatabase.create()
        let url = database.url
        func run(_ arguments: [String]) throws -> Subprocess.Result { try TapwireBinary.run(arguments + ["--database-url", url]) }
        #expect(try run(["apps", "create", "shop"]).status == 0)

        let shown = try run(["apps", "attribution", "--app", "shop"])
        #expect(shown.status == 0)
        #expect(shown.output.contains("direct window 3600s, influence window 86400s"), "\(shown.output)")
        for (flags, fix) in [(["--direct", "0"], "--direct must be longer than 0 and at most 30d"),
                             (["--influence", "31d"], "--influence must be longer than 0 and at most 30d"),
                             (["--direct", "soon"], "--direct takes a duration such as 30m, 1h or 7d")] {
            let refused = try run(["apps", "attribution", "--app", "shop"] + flags)
            #expect(refused.status == 2, "\(flags)")
            #expect(refused.output.contains(fix), "\(flags): \(refused.output)")
        }
        #expect(try run(["apps", "attribution", "--app", "nope", "--direct", "1h"]).output.contains("no app named nope"))
        let set = try run(["apps", "attribution", "--app", "shop", "--direct", "30m", "--influence", "12h", "--format", "json"])
        #expect(set.status == 0, "\(set.output)")
        let json = try JSONParser().parse(set.output)
        #expect(json["directWindowSeconds"]?.numberValue?.integer == 1800)
        #expect(json["influenceWindowSeconds"]?.numberValue?.integer == 43_200)
        #expect(json["conversionsRecomputed"]?.numberValue?.integer == 0)
        #expect(try database.query("SELECT direct_window::text, influence_window::text FROM apps WHERE name = 'shop'").rows == [["00:30:00", "12:00:00"]])

        let admin = try run(["keys", "rotate", "shop", "--kind", "admin", "--format", "json"])
        #expect(admin.status == 0)
        #expect(try JSONParser().parse(admin.output)["key"]?.stringValue?.hasPrefix("twa_") == true)
        #expect(try run(["keys", "rotate", "shop", "--kind", "root"]).output.contains("--kind must be write, read or admin"))

        let missing = try run(["devices", "forget", "--app", "shop"])
        #expect(missing.status == 2)
        #expect(missing.output.contains("give the install id"))
        try database.query("SELECT tapwire_ensure_event_partitions(current_date - 1, current_date + 1)")
        try database.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, device_id)
            SELECT app_id, now(), gen_random_uuid(), 'delivered', now(), now(), 'promo', 'install-42' FROM apps WHERE name = 'shop'
            """)
        let forgot = try run(["devices", "forget", "--app", "shop", "--device", "install-42"])
        #expect(forgot.status == 0, "\(forgot.output)")
        #expect(forgot.output.contains("forgot device \(ForgottenDevice.digest(of: "install-42"))"))
        #expect(forgot.output.contains("events: 1"))
        #expect(!forgot.output.contains("install-42"))
        #expect(try database.query("SELECT count(*) FROM events").scalar == "0")
    }
}
