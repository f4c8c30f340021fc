#!/usr/bin/env python3
"""An independent recomputation of the engagement report's rich vs text-only figures, for the
property test in Tests/TapwireReportTests/UpliftPropertyTests.swift.

Reads a JSON array of reports on standard input. Each report is
  {"perSide": int, "expectedCount": number,
   "rows": [[group, category, campaign, appVersion, platform, utcDay, rich (0/1), delivered, engaged], ...]}
and the answer is, for each report, an object keyed "group\\u0001category" (category "*" for the
overall of the group; group "" without --by) with the figures docs/reports.md defines
("Which notifications a figure counts"), recomputed here from that text:

- a stratum is category x campaign x platform x UTC day; a cell is one side (rich or text-only) of a
  stratum, its rows (of every app version) added up; a cell with no delivered events is left out and its engaged counted as "without
  deliveries"; a cell with more engaged than delivered is left out and its delivered counted as
  "not meaningful"; every other cell is used;
- the pooled sides are the sums of the used cells;
- the adjusted difference is Mantel-Haenszel over the strata of the used cells (mantel_haenszel.py,
  exact fractions), its 95% interval the estimate +- 1.959963984540054 * sqrt(Sato's variance),
  clamped to [-1, 1];
- it is shown only when some stratum has both sides and, over those strata, each side has at least
  perSide delivered and the smaller side's expected engaged and not-engaged counts under the pooled
  rate are at least expectedCount.
"""
import json
import math
import os
import sys
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mantel_haenszel import mantel_haenszel  # noqa: E402

Z95 = 1.959963984540054


def figures(rows, per_side, expected_count):
    cells = {}
    for category, campaign, version, platform, day, rich, delivered, engaged in rows:
        key = (category, campaign, platform, day)
        side = cells.setdefault(key, [[0, 0], [0, 0]])[1 - rich]  # index 0 is rich
        side[0] += delivered
        side[1] += engaged
    pooled = [[0, 0], [0, 0]]
    not_meaningful = without = 0
    strata = []
    for key in sorted(cells):
        used = []
        for i, (delivered, engaged) in enumerate(cells[key]):
            if delivered == 0:
                without += engaged
                used.append((0, 0))
            elif engaged > delivered:
                not_meaningful += delivered
                used.append((0, 0))
            else:
                pooled[i][0] += delivered
                pooled[i][1] += engaged
                used.append((delivered, engaged))
        (n1, x1), (n2, x2) = used
        if n1 or n2:
            strata.append([x1, n1, x2, n2])
    both = [s for s in strata if s[1] > 0 and s[3] > 0]
    result = {
        "richDelivered": pooled[0][0], "richEngaged": pooled[0][1],
        "textDelivered": pooled[1][0], "textEngaged": pooled[1][1],
        "notMeaningfulDelivered": not_meaningful, "engagedWithoutDeliveries": without,
        "strata": len(both), "excludedDelivered": sum(s[1] + s[3] for s in strata if not (s[1] > 0 and s[3] > 0)),
    }
    mh = mantel_haenszel(strata)
    sufficient = mh is not None
    if sufficient:
        x1 = sum(s[0] for s in both)
        n1 = sum(s[1] for s in both)
        x2 = sum(s[2] for s in both)
        n2 = sum(s[3] for s in both)
        rate = F(x1 + x2, n1 + n2)
        if n1 < per_side or n2 < per_side or min(n1, n2) * min(rate, 1 - rate) < F(expected_count):
            sufficient = False
    result["sufficient"] = sufficient
    if sufficient:
        half = Z95 * math.sqrt(mh["variance"])
        result.update({
            "difference": mh["difference"], "lower": max(-1.0, mh["difference"] - half),
            "upper": min(1.0, mh["difference"] + half), "pValue": mh["pValue"],
        })
    return result


def main():
    answers = []
    for report in json.load(sys.stdin):
        by_group = {}
        for group, *rest in report["rows"]:
            by_group.setdefault(group, []).append(rest)
        answer = {}
        for group, rows in by_group.items():
            answer[group + "\u0001*"] = figures(rows, report["perSide"], report["expectedCount"])
            for category in sorted({r[0] for r in rows}):
                answer[group + "\u0001" + category] = figures([r for r in rows if r[0] == category],
                                                              report["perSide"], report["expectedCount"])
        answers.append(answer)
    print(json.dumps(answers))


main()
