#!/usr/bin/env python3
"""An independent recomputation of TapwireCore.MantelHaenszelRiskDifference for the tests.

Reads a JSON array of strata [[x1, n1, x2, n2], ...] on standard input and prints a JSON object
with the Mantel-Haenszel risk difference, Sato's variance, the uncorrected Cochran-Mantel-Haenszel
chi-square and p-value, the hypergeometric null variance of the estimate, the number of strata
with both groups and the trials excluded. Every sum is exact (fractions.Fraction), written from
the cell counts a, b, c, d of each 2x2 table rather than from the Swift code's expressions:

  RD_MH = sum(a*n2/N) - sum(c*n1/N), over sum(n1*n2/N)     (Greenland & Robins 1985)
  Var   = (RD_MH * P + Q) / W^2                            (Sato 1989, Biometrics 45:1323)
          P = sum((n1^2*c - n2^2*a + n1*n2*(n2-n1)/2) / N^2), Q = sum((a*d + c*b) / (2N))
  CMH   = (sum a - sum E[a])^2 / sum Var0[a], E[a] = n1*m1/N,
          Var0[a] = n1*n2*m1*m2 / (N^2 (N-1))               (Mantel & Haenszel 1959)
"""
import json
import math
import sys
from fractions import Fraction as F


def mantel_haenszel(strata):
    """The exact figures for a list of [x1, n1, x2, n2]; None when no stratum has both groups."""
    r = s = w = p = q = observed = expected = null = F(0)
    used = excluded = 0
    for x1, n1, x2, n2 in strata:
        if n1 == 0 or n2 == 0:
            excluded += n1 + n2
            continue
        used += 1
        a, b, c, d = x1, n1 - x1, x2, n2 - x2
        n = n1 + n2
        m1, m2 = a + c, b + d
        r += F(a * n2, n)
        s += F(c * n1, n)
        w += F(n1 * n2, n)
        p += (F(n1 * n1 * c - n2 * n2 * a) + F(n1 * n2 * (n2 - n1), 2)) / (n * n)
        q += F(a * d + c * b, 2 * n)
        observed += a
        expected += F(n1 * m1, n)
        if n > 1:
            null += F(n1 * n2 * m1 * m2, n * n * (n - 1))
    if used == 0:
        return None
    rd = (r - s) / w
    var = (rd * p + q) / (w * w)
    chi2 = (observed - expected) ** 2 / null if null > 0 else None
    pvalue = math.erfc(math.sqrt(float(chi2)) / math.sqrt(2)) if chi2 is not None else 1.0
    return {
        "difference": float(rd), "variance": float(var), "chiSquare": None if chi2 is None else float(chi2),
        "pValue": pvalue, "nullVariance": float(null / (w * w)), "strata": used, "excludedTrials": excluded,
    }


def main():
    print(json.dumps(mantel_haenszel(json.load(sys.stdin))))


if __name__ == "__main__":
    main()
