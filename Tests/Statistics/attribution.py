#!/usr/bin/env python3
"""Attribution recomputed from docs/outcomes.md alone: each conversion's credit and the tables
the fold keeps (conversion_credits, notification_conversions, rollup_conversions,
rollup_conversion_strata, rollup_conversion_actions, rollup_conversion_totals), from the raw
events, in one pass and exact decimal arithmetic. Written from the document's rule, not from
migration 0161's SQL; where the document leaves a choice open, the choice is named below.
Standard library only.

stdin:  {"directWindow": microseconds, "influenceWindow": microseconds,
         "events": [{"id", "type", "time" (microseconds), "device", "notification", "category",
                     "action", "hasMedia", "campaign", "platform", "name", "value", "currency"}]}
        (delivered, response and conversion events; other types are ignored)
stdout: {"credits": [...], "notifications": [...], "conversions": [...], "strata": [...],
         "actions": [...], "totals": [...]}: each a sorted list of rows, each value a string
         (or null), in the columns of its table without app_id: timestamps as microseconds since
         1970, numbers as plain decimals without trailing zeros, booleans as true/false.
         Rows whose counts are all zero are not rows.
"""
import json
import sys
from collections import defaultdict
from decimal import Decimal, getcontext

getcontext().prec = 120
DISMISS = "com.apple.UNNotificationDismissActionIdentifier"
DAY = 86_400_000_000
DIRECT, INFLUENCED, UNATTRIBUTED = 1, 2, 3


def numeric(value):
    """A value as PostgreSQL numeric holds the float8 (the document: its 15 significant digits);
    0 without a value."""
    if value is None:
        return Decimal(0)
    return Decimal("%.15g" % value)


def plain(d):
    s = format(d.normalize(), "f")
    return "0" if s in ("-0", "0") else s


def day(us):
    return (us // DAY) * DAY


def text(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return plain(v)
    return str(v)


def latest(events):
    """The latest event; ties at one microsecond go to the greater event id (the document says
    "ties broken by event id" without a direction: the greater one, as the later of two UUIDv7s)."""
    return max(events, key=lambda e: (e["time"], e["id"]))


def key_of(event):
    """A notification: its notificationId, else the event id of the tap or delivery."""
    return event["notification"] if event["notification"] is not None else "event:" + event["id"]


def credit(conversion, engaged, delivered, wd, wi):
    """The rule of docs/outcomes.md for one conversion: (kind, credited tap or delivery or None)."""
    device, t = conversion["device"], conversion["time"]
    if device is None:
        return UNATTRIBUTED, None  # "a conversion without one is stored and counted as unattributed"
    # 1. Direct: the engaged responses in [t - Wd, t]; the one to the named notification if there
    #    is one (several: the latest of them, the document's "that one" read as the latest), else
    #    the latest.
    window = [r for r in engaged[device] if t - wd <= r["time"] <= t]
    if window:
        named = [r for r in window
                 if conversion["notification"] is not None and r["notification"] == conversion["notification"]]
        return DIRECT, latest(named or window)
    # 2. Influenced: the latest delivery in [t - Wi, t], when no engaged response lies after it
    #    (strictly) and at or before t.
    candidates = [d for d in delivered[device] if t - wi <= d["time"] <= t]
    if candidates:
        d = latest(candidates)
        if not any(d["time"] < r["time"] <= t for r in engaged[device]):
            return INFLUENCED, d
    return UNATTRIBUTED, None


def main():
    request = json.load(sys.stdin)
    wd, wi = request["directWindow"], request["influenceWindow"]
    engaged, delivered, conversions = defaultdict(list), defaultdict(list), []
    for e in request["events"]:
        if e["type"] == "response" and e["action"] != DISMISS and e["device"] is not None:
            engaged[e["device"]].append(e)
        elif e["type"] == "delivered" and e["device"] is not None:
            delivered[e["device"]].append(e)
        elif e["type"] == "conversion":
            conversions.append(e)

    credits = []
    for c in conversions:
        kind, touch = credit(c, engaged, delivered, wd, wi)
        credits.append({
            "id": c["id"], "time": c["time"], "device": c["device"], "name": c["name"],
            "currency": c["currency"] or "", "value": numeric(c["value"]), "kind": kind,
            "key": key_of(touch) if touch else None, "touch": touch["time"] if touch else None,
            "category": touch["category"] if touch else None, "hasMedia": touch["hasMedia"] if touch else None,
            "campaign": (touch["campaign"] or "") if touch else None, "platform": touch["platform"] if touch else None,
            "action": touch["action"] if touch and kind == DIRECT else None,
        })

    # A notification per (device, key, name, currency): it takes the day, category, side,
    # campaign and platform of the tap or delivery credited with its earliest conversion (ties
    # of time: the smaller event id, the document names none).
    groups = defaultdict(list)
    for c in credits:
        if c["key"] is not None:
            groups[(c["device"], c["key"], c["name"], c["currency"])].append(c)
    notifications = []
    for (device, key, name, currency), members in groups.items():
        first = min(members, key=lambda c: (c["time"], c["id"]))
        notifications.append({
            "device": device, "key": key, "name": name, "currency": currency, "touch": first["touch"],
            "category": first["category"], "hasMedia": first["hasMedia"], "campaign": first["campaign"],
            "platform": first["platform"], "firstKind": first["kind"],
            "direct": sum(1 for c in members if c["kind"] == DIRECT),
            "influenced": sum(1 for c in members if c["kind"] == INFLUENCED),
            "value": sum((c["value"] for c in members), Decimal(0)),
        })

    rollup = defaultdict(lambda: [0, 0, 0, Decimal(0), Decimal(0), Decimal(0)])
    strata = defaultdict(lambda: [0, 0])
    for n in notifications:
        r = rollup[(day(n["touch"]), n["category"], n["hasMedia"], n["name"], n["currency"])]
        v = n["value"]
        r[0] += n["direct"]
        r[1] += n["influenced"]
        r[2] += 1
        r[3] += v
        r[4] += v * v
        r[5] += v * v * v
        s = strata[(day(n["touch"]), n["category"], n["campaign"], n["platform"], n["name"], n["currency"])]
        s[0 if n["hasMedia"] else 1] += 1

    # Direct conversions by the action of their tap, on the UTC day of that tap (the document
    # names no day for this table; the tap's own is what "the tap that preceded them" reads as).
    actions = defaultdict(int)
    totals = defaultdict(lambda: [0, Decimal(0)])
    for c in credits:
        if c["kind"] == DIRECT:
            actions[(day(c["touch"]), c["category"], c["action"], c["name"])] += 1
        t = totals[(day(c["time"]), c["name"], c["currency"], c["kind"])]
        t[0] += 1
        t[1] += c["value"]

    def rows(items):
        return sorted(([text(v) for v in row] for row in items), key=lambda row: [(v is None, v or "") for v in row])

    out = {
        "credits": rows([c["id"], c["time"], c["device"], c["name"], c["currency"], c["value"], c["kind"], c["key"],
                         c["touch"], c["category"], c["hasMedia"], c["campaign"], c["platform"], c["action"]]
                        for c in credits),
        "notifications": rows([n["device"], n["key"], n["name"], n["currency"], n["touch"], n["category"], n["hasMedia"],
                               n["campaign"], n["platform"], n["firstKind"], n["direct"], n["influenced"], n["value"]]
                              for n in notifications),
        "conversions": rows(list(k) + v for k, v in rollup.items()),
        "strata": rows(list(k) + v for k, v in strata.items()),
        "actions": rows(list(k) + [v] for k, v in actions.items()),
        "totals": rows(list(k) + v for k, v in totals.items()),
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
