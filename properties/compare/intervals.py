"""Confidence intervals and tests for play statistics; pure arithmetic, no game code.

The methods, and why each fits its quantity (docs/rule-designers.md explains them
for readers of a report):

- A **proportion** or **share** (a seat's share of wins with ties shared, the share of
  games a condition ends, the share of games stopped by the safety cap) is the mean of
  per-game values in [0, 1]. `wilson` gives the Wilson score interval. For 0/1 values it
  is the usual Wilson interval; for shared wins (1/k to each of k tied winners) the
  values lie in [0, 1], whose variance is at most p(1 - p), so the interval is
  conservative (never too narrow). It stays inside [0, 1] and is sound near 0 and 1,
  where the normal (Wald) interval is not.
- A **mean** (actions or rounds per game, a final score, how often an action fires per
  game) gets Student's t interval, mean +- t(0.975, n - 1) s / sqrt(n), shown only from
  `MIN_N` games on: the games are independent, and the t interval's coverage rests on
  the central limit theorem, which needs a few dozen games for counts like these.
- A **spread** (standard deviation) gets the large-sample interval of the delta method
  from the fourth central moment (no assumption of normal scores), also from `MIN_N`.
- A **difference** between two versions: when both played the same seeds (common random
  numbers) the games pair up, and `paired` takes the t interval of the per-game
  differences, which removes the variation the two versions share. Otherwise `unpaired`
  uses Welch's normal interval (means) or Newcombe's hybrid score interval (shares).
- **Many differences** at once: `holm` adjusts their p-values (Holm's step-down), so
  that the chance of marking any difference when the versions play alike is at most
  `alpha` (5%), whatever the dependence between the statistics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import attrs

CONFIDENCE = 0.95
MIN_N = 30  # fewer games than this: no interval for a mean, spread or difference
_NORMAL = NormalDist()


def z_quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile by the Cornish-Fisher expansion (error < 1e-4 for df >= 10)."""
    z = _NORMAL.inv_cdf(p)
    if df <= 0:
        return math.inf
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def t_two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of Student's t (normal approximation after Hill's transform)."""
    if math.isinf(t):
        return 0.0
    a = abs(t)
    z = a * (1 - 1 / (4 * df)) / math.sqrt(1 + a * a / (2 * df)) if df > 0 else 0.0
    return min(1.0, 2 * (1 - _NORMAL.cdf(z)))


@attrs.frozen
class Interval:
    """A point estimate with its confidence interval (None when too few games)."""

    value: float
    low: float | None
    high: float | None
    n: int
    method: str

    @property
    def half_width(self) -> float:
        if self.low is None or self.high is None:
            return math.inf
        return (self.high - self.low) / 2

    def covers(self, x: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= x <= self.high


def _moments(xs: Sequence[float]) -> tuple[int, float, float]:
    n = len(xs)
    if n == 0:
        return 0, math.nan, math.nan
    mean = math.fsum(xs) / n
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return n, mean, var


def wilson(xs: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Wilson score interval for the mean of per-game values in [0, 1]."""
    n = len(xs)
    if n == 0:
        return Interval(math.nan, None, None, 0, "wilson")
    p = math.fsum(xs) / n
    z = z_quantile(0.5 + confidence / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n))
    low = 0.0 if p == 0 else max(0.0, centre - half)  # exact ends: no rounding past 0 or 1
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return Interval(p, low, high, n, "wilson")


def mean_t(xs: Sequence[float], confidence: float = CONFIDENCE,
           floor: float | None = None) -> Interval:
    """Student's t interval for a mean; no interval below MIN_N values. `floor`: the least
    value possible (0 for a count), below which the interval is cut."""
    n, mean, var = _moments(xs)
    if n < MIN_N:
        return Interval(mean, None, None, n, "t")
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
    low = mean - half if floor is None else max(floor, mean - half)
    return Interval(mean, low, mean + half, n, "t")


def sd_delta(xs: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The standard deviation, with the delta-method interval from the fourth moment."""
    n, mean, var = _moments(xs)
    sd = math.sqrt(var) if n > 1 else math.nan
    if n < MIN_N:
        return Interval(sd, None, None, n, "delta")
    se_var = _se_variance(xs, mean, var)
    z = z_quantile(0.5 + confidence / 2)
    low = math.sqrt(max(0.0, var - z * se_var))
    high = math.sqrt(var + z * se_var)
    return Interval(sd, low, high, n, "delta")


def _se_variance(xs: Sequence[float], mean: float, var: float) -> float:
    n = len(xs)
    m4 = math.fsum((x - mean) ** 4 for x in xs) / n
    return math.sqrt(max(0.0, m4 - var * var) / n)


@attrs.frozen
class Difference:
    """new - old, with its interval and the two-sided p-value of 'no difference'."""

    value: float
    low: float | None
    high: float | None
    p: float | None
    n: int
    paired: bool


def paired(old: Sequence[float], new: Sequence[float],
           confidence: float = CONFIDENCE) -> Difference:
    """Mean of per-game differences (the same game index under both versions)."""
    d = [b - a for a, b in zip(old, new, strict=True)]
    n, mean, var = _moments(d)
    if n < MIN_N:
        return Difference(mean, None, None, None, n, True)
    se = math.sqrt(var / n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * se
    p = (0.0 if mean != 0 else 1.0) if se == 0 else t_two_sided_p(mean / se, n - 1)
    return Difference(mean, mean - half, mean + half, p, n, True)


def unpaired(old: Sequence[float], new: Sequence[float], share: bool,
             confidence: float = CONFIDENCE) -> Difference:
    """new - old for independent samples: Newcombe's interval for shares, Welch's else."""
    n1, m1, v1 = _moments(old)
    n2, m2, v2 = _moments(new)
    n = min(n1, n2)
    if n < MIN_N:
        return Difference(m2 - m1, None, None, None, n, False)
    diff = m2 - m1
    z = z_quantile(0.5 + confidence / 2)
    se = math.sqrt(v1 / n1 + v2 / n2)
    if share:
        a, b = wilson(old, confidence), wilson(new, confidence)
        assert a.low is not None and a.high is not None and b.low is not None and b.high is not None
        low = diff - math.sqrt((b.value - b.low) ** 2 + (a.high - a.value) ** 2)
        high = diff + math.sqrt((b.high - b.value) ** 2 + (a.value - a.low) ** 2)
    else:
        low, high = diff - z * se, diff + z * se
    p = (0.0 if diff != 0 else 1.0) if se == 0 else min(1.0, 2 * (1 - _NORMAL.cdf(abs(diff) / se)))
    return Difference(diff, low, high, p, n, False)


def sd_unpaired(old: Sequence[float], new: Sequence[float],
                confidence: float = CONFIDENCE) -> Difference:
    """Difference of two standard deviations, delta method, treated as independent."""
    n1, m1, v1 = _moments(old)
    n2, m2, v2 = _moments(new)
    n = min(n1, n2)
    s1, s2 = math.sqrt(v1) if n1 > 1 else math.nan, math.sqrt(v2) if n2 > 1 else math.nan
    if n < MIN_N:
        return Difference(s2 - s1, None, None, None, n, False)
    # se(s) = se(s^2) / (2 s); a zero spread has no spread to estimate
    se1 = _se_variance(old, m1, v1) / (2 * s1) if s1 > 0 else 0.0
    se2 = _se_variance(new, m2, v2) / (2 * s2) if s2 > 0 else 0.0
    se = math.sqrt(se1 * se1 + se2 * se2)
    diff = s2 - s1
    z = z_quantile(0.5 + confidence / 2)
    p = (0.0 if diff != 0 else 1.0) if se == 0 else min(1.0, 2 * (1 - _NORMAL.cdf(abs(diff) / se)))
    return Difference(diff, diff - z * se, diff + z * se, p, n, False)


def holm(pvalues: Sequence[float | None], alpha: float = 1 - CONFIDENCE) -> list[bool]:
    """Holm's step-down procedure: which hypotheses to reject, family-wise error <= alpha.

    None (no test: too few games) is never rejected and does not count in the family.
    """
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m = len(tested)
    reject = [False] * len(pvalues)
    for rank, (p, i) in enumerate(tested):
        if p > alpha / (m - rank):
            break
        reject[i] = True
    return reject
