#!/usr/bin/env python3
"""An independent recomputation of the skew-adjusted mean intervals for the tests.

Reads one JSON object on standard input and prints one JSON object. Sums arrive as exact decimal
strings and become fractions.Fraction, so the central moments are exact; square roots, cube
roots and the quantile are taken in 60-digit decimal arithmetic; and instead of the closed-form
inverse the Swift code uses, each transformed quantile is found by bisection of the cubic as the
papers print it:

  Hall (1992), JRSS B 54:221 (studied by Zhou & Dinh 2005, Biostatistics 6:187), in the
  per-observation scaling, with T = (xbar - mu) / s, gamma = mu3 / s^3, s^2 = M2 / (n - 1), mu3 = M3 / n:
      g(T) = T + gamma T^2 / 3 + gamma^2 T^3 / 27 + gamma / (6 n)
      CI   = [xbar - s g^-1(z / sqrt n), xbar - s g^-1(-z / sqrt n)]
  and for a difference of two means, Zou & Donner's (2008) MOVER over the groups' intervals
  (l1, u1), (l2, u2), with d = xbar1 - xbar2:
      CI   = [d - sqrt((xbar1 - l1)^2 + (u2 - xbar2)^2), d + sqrt((u1 - xbar1)^2 + (xbar2 - l2)^2)]
  z is statistics.NormalDist().inv_cdf (Wichura's AS 241), not the Swift code's Halley iteration.

Modes:
  {"mode": "quantile", "tails": [q]} -> {"z": [z with P(Z > z) = q]}
  {"mode": "mean", "cases": [{"count", "sum", "sumOfSquares", "sumOfCubes", "confidence"}]}
      -> {"cases": [{"mean", "variance", "mu3", "lower", "upper"} or null]}
  {"mode": "difference", "cases": [{"first": {sums}, "second": {sums}, "confidence"}]}
      -> {"cases": [{"difference", "lower", "upper"} or null]}
  {"mode": "sampleSize", "cases": [{sums}]} -> {"cases": [{"skewness", "minimumCount"}]}
      Cochran's rule as Sugden, Smith & Jones (2000), JRSS B 62:787, refine it: n > 28 + 25 G1^2,
      G1 = m3 / m2^(3/2) with m_r = sum (x - xbar)^r / n. G1^2 = m3^2 / m2^3 is a fraction, so the
      bound, and the least integer above it, are exact.
"""
import json
import sys
from decimal import Decimal as D, getcontext
from fractions import Fraction as F
from statistics import NormalDist

getcontext().prec = 60


def dec(x):
    return D(x.numerator) / D(x.denominator) if isinstance(x, F) else D(x)


def cbrt(x):
    if x == 0:
        return D(0)
    r = (abs(x).ln() / 3).exp()
    return r if x > 0 else -r


def moments(c):
    n = int(c["count"])
    s1, s2, s3 = F(c["sum"]), F(c["sumOfSquares"]), F(c["sumOfCubes"])
    if n < 2:
        return None
    m2 = s2 - s1 * s1 / n
    m3 = s3 - 3 * s1 * s2 / n + 2 * s1 ** 3 / (n * n)
    if m2 < 0:
        return None
    return n, s1 / n, m2 / (n - 1), m3 / n


def solve(f, y):
    """The root of the increasing f(t) = y, by bisection."""
    lo, hi = D(-1), D(1)
    while f(lo) > y:
        lo *= 2
    while f(hi) < y:
        hi *= 2
    for _ in range(220):
        mid = (lo + hi) / 2
        if f(mid) < y:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def z_for(confidence):
    return D(repr(NormalDist().inv_cdf(1 - (1 - float(confidence)) / 2)))


def one_mean(c):
    m = moments(c)
    if m is None or m[2] == 0:
        return None
    n, mean, var, mu3 = m
    s = dec(var).sqrt()
    gamma = dec(mu3) / (s ** 3)
    g = lambda t: t + gamma * t * t / 3 + gamma * gamma * t ** 3 / 27 + gamma / (6 * n)
    z = z_for(c["confidence"])
    root_n = D(n).sqrt()
    lower = dec(mean) - s * solve(g, z / root_n)
    upper = dec(mean) - s * solve(g, -z / root_n)
    return {"mean": float(dec(mean)), "variance": float(dec(var)), "mu3": float(dec(mu3)),
            "lower": float(lower), "upper": float(upper)}


def difference(c):
    """MOVER (Zou & Donner 2008) over the two one-sample intervals; a group without variance is
    its mean, known."""
    a, b = moments(c["first"]), moments(c["second"])
    if a is None or b is None or (a[2] == 0 and b[2] == 0):
        return None
    def bounds(m, sums):
        if m[2] == 0:
            return dec(m[1]), dec(m[1])
        r = one_mean(dict(sums, confidence=c["confidence"]))
        return D(repr(r["lower"])), D(repr(r["upper"]))
    l1, u1 = bounds(a, c["first"])
    l2, u2 = bounds(b, c["second"])
    m1, m2 = dec(a[1]), dec(b[1])
    d = m1 - m2
    lower = d - ((m1 - l1) ** 2 + (u2 - m2) ** 2).sqrt()
    upper = d + ((u1 - m1) ** 2 + (m2 - l2) ** 2).sqrt()
    return {"difference": float(d), "lower": float(lower), "upper": float(upper)}


def sample_size(c):
    n = int(c["count"])
    s1, s2, s3 = F(c["sum"]), F(c["sumOfSquares"]), F(c["sumOfCubes"])
    m2 = (s2 - s1 * s1 / n) / n
    m3 = (s3 - 3 * s1 * s2 / n + 2 * s1 ** 3 / (n * n)) / n
    g1_squared = m3 * m3 / (m2 ** 3) if m2 > 0 else F(0)
    bound = 28 + 25 * g1_squared
    g1 = dec(g1_squared).sqrt() * (1 if m3 >= 0 else -1)
    return {"skewness": float(g1), "minimumCount": bound.numerator // bound.denominator + 1}


def main():
    request = json.load(sys.stdin)
    mode = request["mode"]
    if mode == "quantile":
        out = {"z": [-NormalDist().inv_cdf(q) for q in request["tails"]]}
    elif mode == "mean":
        out = {"cases": [one_mean(c) for c in request["cases"]]}
    elif mode == "difference":
        out = {"cases": [difference(c) for c in request["cases"]]}
    elif mode == "sampleSize":
        out = {"cases": [sample_size(c) for c in request["cases"]]}
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
