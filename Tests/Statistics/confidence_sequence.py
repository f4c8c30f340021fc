#!/usr/bin/env python3
"""An independent recomputation of TapwireCore's anytime-valid statistics for the tests.

Reads one JSON object on standard input and prints one JSON object. Sums of counts are exact
(fractions.Fraction); logarithms and square roots are taken in 50-digit decimal arithmetic, and
the formulas are written as the sources print them rather than as the Swift code arranges them:

  Howard, Ramdas, McAuliffe & Sekhon (2021), Annals of Statistics 49(2), eq. (14), the
  two-sided normal mixture, in Eppo's form for an estimate with standard error se after time t:
      half-width = se * sqrt((t + rho) / t * ln((t + rho) / (rho * alpha^2)))
      rho        = m / (ln(ln(e / alpha^2)) - 2 ln(alpha))          (tightest near t = m)
  Mantel-Haenszel risk difference and Sato's (1989) variance, from each 2x2 table a, b, c, d:
      RD = (sum a*n2/N - sum c*n1/N) / sum n1*n2/N
      Var = (RD * P + Q) / W^2, P = sum (n1^2 c - n2^2 a + n1 n2 (n2 - n1)/2) / N^2,
                                Q = sum (a d + c b) / (2N)
  and the interval's variance is the larger of Sato's and the hypergeometric one under no
  difference (Mantel & Haenszel 1959), sum n1 n2 m1 m2 / (N^2 (N - 1)) / W^2, m1 = a + c, m2 = b + d.

Modes:
  {"mode": "boundary", "cases": [{"alpha", "tuning", "time", "sum"}]}
      -> {"cases": [{"rho", "bound", "standardErrors", "logMixture"}]}
  {"mode": "regression", "alpha", "tuning", "relativeDrop", "perSide", "expected", "asOf",
   "candidate", "baselines": [...], "rows": [[version, platform, segment, hour_us, delivered, count]]}
      -> {"looks": [{"lookAt", "difference", "variance", "lower", "upper", "reference", "crossed",
                     "candidateDelivered", "baselineDelivered"}], "detectedAt": us or null}
      Cells of (platform, segment, hour) count only where both sides delivered; strata are
      platform x segment x UTC day; a look after every hour, counted once each side has perSide
      deliveries and expects `expected` responses and non-responses (Cochran's rule).
  {"mode": "uplift", "alpha", "tuning", "perSide", "expected",
   "days": [{"day", "strata": {key: [x1, n1, x2, n2]}}]}  (each day's strata are that day's alone)
      -> {"days": [{"day", "difference", "lower", "upper", "withheld"}], "decidedOn": day or null}
"""
import json
import sys
from decimal import Decimal as D, getcontext
from fractions import Fraction as F

getcontext().prec = 50
HOUR = 3_600_000_000
DAY = 24 * HOUR


def dec(x):
    if isinstance(x, F):
        return D(x.numerator) / D(x.denominator)
    return D(repr(x)) if isinstance(x, float) else D(x)


def rho_for(tuning, alpha):
    a = dec(alpha)
    return dec(tuning) / ((D(1).exp() / (a * a)).ln().ln() - 2 * a.ln())


def standard_errors(t, rho, alpha):
    a = dec(alpha)
    t = dec(t)
    return ((t + rho) / t * ((t + rho) / (rho * a * a)).ln()).sqrt()


def mh(tables):
    """tables: list of (a, n1, c, n2) with n1, n2 > 0 and 0 <= a <= n1, 0 <= c <= n2."""
    r = s = w = p = q = F(0)
    second = null = F(0)
    for a, n1, c, n2 in tables:
        b, d = n1 - a, n2 - c
        n = n1 + n2
        r += F(a * n2, n)
        s += F(c * n1, n)
        w += F(n1 * n2, n)
        p += (F(n1 * n1 * c - n2 * n2 * a) + F(n1 * n2 * (n2 - n1), 2)) / (n * n)
        q += F(a * d + c * b, 2 * n)
        second += F(c * n1, n)
        if n > 1:
            null += F(n1 * n2 * (a + c) * (b + d), n * n * (n - 1))
    rd = (r - s) / w
    var = max((rd * p + q) / (w * w), null / (w * w), F(0))
    return rd, var, w, second / w


def sufficient(x1, n1, x2, n2, per_side, expected):
    if n1 < per_side or n2 < per_side:
        return False
    pooled = F(x1 + x2, n1 + n2)
    return min(n1, n2) * min(pooled, 1 - pooled) >= F(expected).limit_denominator(10**9)


def boundary(req):
    out = []
    for case in req["cases"]:
        alpha, m, t, s = case["alpha"], case["tuning"], case["time"], case["sum"]
        rho = rho_for(m, alpha)
        tt = dec(t)
        bound = ((tt + rho) * ((tt + rho) / (rho * dec(alpha) ** 2)).ln()).sqrt()
        ss = dec(s)
        log_mixture = (rho / (tt + rho)).ln() / 2 + ss * ss / (2 * (tt + rho))
        out.append({"rho": float(rho), "bound": float(bound), "standardErrors": float(standard_errors(t, rho, alpha)),
                    "logMixture": float(log_mixture)})
    return {"cases": out}


def regression(req):
    alpha, rho = req["alpha"], rho_for(req["tuning"], req["alpha"])
    candidate, baselines = req["candidate"], set(req["baselines"])
    cells = {}
    for version, platform, segment, hour, delivered, count in req["rows"]:
        if hour >= req["asOf"] or (version != candidate and version not in baselines):
            continue
        cell = cells.setdefault((hour, platform, segment), [0, 0, 0, 0])
        side = 0 if version == candidate else 2
        cell[side] += count
        cell[side + 1] += delivered
    hours = sorted({h for (h, _, _), c in cells.items() if c[1] > 0 and c[3] > 0})
    strata = {}
    looks, detected = [], None
    for hour in hours:
        for (h, platform, segment), c in cells.items():
            if h == hour and c[1] > 0 and c[3] > 0:
                t = strata.setdefault((platform, segment, hour - hour % DAY), [0, 0, 0, 0])
                for i in range(4):
                    t[i] += c[i]
        tables = [tuple(t) for t in strata.values() if t[0] <= t[1] and t[2] <= t[3]]
        x1 = sum(t[0] for t in tables)
        n1 = sum(t[1] for t in tables)
        x2 = sum(t[2] for t in tables)
        n2 = sum(t[3] for t in tables)
        if not sufficient(x1, n1, x2, n2, req["perSide"], req["expected"]):
            continue
        rd, var, w, reference = mh(tables)
        half = dec(var).sqrt() * standard_errors(w, rho, alpha)
        lower, upper = max(dec(rd) - half, D(-1)), min(dec(rd) + half, D(1))
        threshold = dec(req["relativeDrop"]) * dec(reference)
        crossed = upper < -threshold
        look_at = min(hour + HOUR, req["asOf"])
        if crossed and detected is None:
            detected = look_at
        looks.append({"lookAt": look_at, "difference": float(rd), "variance": float(var), "lower": float(lower),
                      "upper": float(upper), "reference": float(reference), "crossed": crossed,
                      "candidateDelivered": n1, "baselineDelivered": n2})
    return {"looks": looks, "detectedAt": detected}


def uplift(req):
    alpha, rho = req["alpha"], rho_for(req["tuning"], req["alpha"])
    # A stratum is one key of one UTC day (campaign x platform x day): each day's strata are its
    # own, and a day's look is over every stratum of the days up to it. A side with more engaged
    # than delivered is not used.
    strata = []
    out, decided = [], None
    for day in req["days"]:
        for counts in day["strata"].values():
            x1, n1, x2, n2 = counts
            if x1 > n1:
                x1, n1 = 0, 0
            if x2 > n2:
                x2, n2 = 0, 0
            strata.append((x1, n1, x2, n2))
        tables = [t for t in strata if t[1] > 0 and t[3] > 0]
        if not tables:
            out.append({"day": day["day"], "difference": None, "lower": None, "upper": None, "withheld": True})
            continue
        x1, n1 = sum(t[0] for t in tables), sum(t[1] for t in tables)
        x2, n2 = sum(t[2] for t in tables), sum(t[3] for t in tables)
        rd, var, w, _ = mh(tables)
        half = dec(var).sqrt() * standard_errors(w, rho, alpha)
        lower, upper = max(dec(rd) - half, D(-1)), min(dec(rd) + half, D(1))
        withheld = not sufficient(x1, n1, x2, n2, req["perSide"], req["expected"])
        if not withheld and decided is None and (lower > 0 or upper < 0):
            decided = day["day"]
        out.append({"day": day["day"], "difference": float(rd), "lower": float(lower), "upper": float(upper),
                    "withheld": withheld})
    return {"days": out, "decidedOn": decided}


def main():
    req = json.load(sys.stdin)
    print(json.dumps({"boundary": boundary, "regression": regression, "uplift": uplift}[req["mode"]](req)))


main()
