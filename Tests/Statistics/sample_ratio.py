#!/usr/bin/env python3
"""An independent recomputation of the sample-ratio-mismatch tests for the tests.

Reads one JSON object on standard input and prints one JSON object.

  Pearson's chi-square: X^2 = sum (n_i - N p_i)^2 / (N p_i) in exact fractions (shares as the
  decimals they print as, normalised by their sum), and its upper tail from the closed forms of
  Abramowitz & Stegun 26.4.4 and 26.4.5 in 60-digit decimals (not the continued fraction the
  Swift code uses):
      k even: Q = exp(-x/2) sum_{r < k/2} (x/2)^r / r!
      k odd:  Q = erfc(sqrt(x/2)) + 2 phi(sqrt x) sum_{r=1}^{(k-1)/2} x^{(2r-1)/2} / (1 3 5 ... (2r-1))
  Lindon & Malek (2022): the Dirichlet-multinomial Bayes factor against the multinomial at p,
      BF = Gamma(sum a) / Gamma(sum a + N) prod Gamma(a_i + x_i) / Gamma(a_i) / prod p_i^x_i,
  exactly, as a ratio of integers, when every a_i is an integer (Gamma(a + x) / Gamma(a) is the
  rising product a (a+1) ... (a+x-1)); else with math.lgamma.

Modes:
  {"mode": "chisquare", "cases": [{"counts", "shares"}]} -> {"cases": [{"statistic", "df", "pValue"}]}
  {"mode": "sequential", "cases": [{"counts", "shares", "dirichlet"}]} -> {"cases": [{"logBayesFactor"}]}
"""
import json
import math
import sys
from decimal import Decimal as D, getcontext
from fractions import Fraction as F

getcontext().prec = 60
PI = D("3.14159265358979323846264338327950288419716939937510582097494")


def dec(x):
    return D(x.numerator) / D(x.denominator)


def ln_int(n):
    """ln of a positive integer of any size: its top 200 bits in decimal, plus the shift times ln 2."""
    shift = max(0, n.bit_length() - 200)
    return D(n >> shift).ln() + shift * D(2).ln()


def chi_square(counts, shares):
    ps = [F(repr(s)) for s in shares]
    total_share = sum(ps)
    n = sum(counts)
    x = sum((F(c) - n * p / total_share) ** 2 / (n * p / total_share) for c, p in zip(counts, ps))
    k = len(counts) - 1
    xd = dec(x)
    half = xd / 2
    if k % 2 == 0:
        term, acc = D(1), D(1)
        for r in range(1, k // 2):
            term = term * half / r
            acc += term
        q = (-half).exp() * acc
    else:
        root = xd.sqrt()
        phi = (-half).exp() / (2 * PI).sqrt()
        acc, power, odd = D(0), root, D(1)
        for r in range(1, (k - 1) // 2 + 1):
            odd *= 2 * r - 1
            acc += power / odd
            power *= xd
        q = D(repr(math.erfc(float(half.sqrt())))) + 2 * phi * acc
    return {"statistic": float(xd), "df": k, "pValue": float(q)}


def log_bayes_factor(counts, shares, dirichlet):
    ps = [F(repr(s)) for s in shares]
    total_share = sum(ps)
    ps = [p / total_share for p in ps]
    alphas = [F(repr(a)) for a in dirichlet]
    n = sum(counts)
    if all(a.denominator == 1 for a in alphas):
        a_total = int(sum(alphas))
        num, den = 1, 1
        for a, x in zip(alphas, counts):
            for j in range(x):
                num *= int(a) + j
        for j in range(n):
            den *= a_total + j
        # divide by prod p_i^x_i = prod (p_num / p_den)^x
        for p, x in zip(ps, counts):
            num *= p.denominator ** x
            den *= p.numerator ** x
        return float(ln_int(num) - ln_int(den))
    a_total = float(sum(alphas))
    value = math.lgamma(a_total) - math.lgamma(a_total + n)
    for a, p, x in zip(alphas, ps, counts):
        value += math.lgamma(float(a) + x) - math.lgamma(float(a)) - x * math.log(float(p))
    return value


def main():
    request = json.load(sys.stdin)
    mode = request["mode"]
    if mode == "chisquare":
        out = {"cases": [chi_square(c["counts"], c["shares"]) for c in request["cases"]]}
    elif mode == "sequential":
        out = {"cases": [{"logBayesFactor": log_bayes_factor(c["counts"], c["shares"], c["dirichlet"])}
                         for c in request["cases"]]}
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
