"""Plots of play statistics as inline SVG, drawn with matplotlib (the extra `[plots]`).

Two figures per player count and policy: the distribution of game length (actions per
game; old against new in a comparison) and each seat's win share with its 95%
interval. SVG text is drawn as paths, so the page needs no fonts or other files.

A figure draws plain numbers, one series per version (report.py takes them from the
cells of play statistics): the actions of each finished game, and each seat's win share.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from .intervals import Interval

COLOURS = ("#1f77b4", "#d62728")


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def cell_figures(lengths: Sequence[Sequence[int]], win_shares: Sequence[Sequence[Interval]],
                 names: Sequence[str]) -> str:
    """An HTML block with the two figures of one player count and policy: per series (a
    version), the actions of each finished game and each seat's win share."""
    if not available():
        return ("<p class=note>Plots need matplotlib: <code>pip install "
                "'rulespec[plots]'</code>.</p>")
    return (f"<div class=figures>{length_figure(lengths, names)}"
            f"{win_share_figure(win_shares, names)}</div>")


def _svg(fig) -> str:
    import matplotlib

    buf = io.StringIO()
    # text as paths (no fonts needed); fixed ids and no date: the same numbers, the same page
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "rulespec"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prologue and DOCTYPE inside HTML


def _figure():
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no GUI backend

    return Figure(figsize=(5.2, 3.0), dpi=100)


def length_figure(lengths: Sequence[Sequence[int]], names: Sequence[str]) -> str:
    fig = _figure()
    ax = fig.add_subplot()
    low = min((min(d) for d in lengths if d), default=0)
    high = max((max(d) for d in lengths if d), default=1)
    step = max(1, (high - low + 1) // 60)
    bins = list(range(low, high + step + 1, step))
    for d, name, colour in zip(lengths, names, COLOURS, strict=False):
        if d:
            ax.hist(d, bins=bins, histtype="step", linewidth=1.5, color=colour,
                    weights=[1 / len(d)] * len(d), label=f"{name} ({len(d):,} games)")
    ax.set_xlabel("actions per game")
    ax.set_ylabel("share of games")
    ax.set_title("game length")
    ax.legend(fontsize="small", frameon=False)
    return _svg(fig)


def win_share_figure(win_shares: Sequence[Sequence[Interval]], names: Sequence[str]) -> str:
    fig = _figure()
    ax = fig.add_subplot()
    players = len(win_shares[0])
    width = 0.8 / len(win_shares)
    for k, (shares, name, colour) in enumerate(zip(win_shares, names, COLOURS, strict=False)):
        xs, ys, lo, hi = [], [], [], []
        for s, e in enumerate(shares):
            xs.append(s + (k - (len(win_shares) - 1) / 2) * width)
            ys.append(100 * e.value)
            lo.append(100 * (e.value - e.low) if e.low is not None else 0)
            hi.append(100 * (e.high - e.value) if e.high is not None else 0)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", color=colour, capsize=4, label=name)
    ax.axhline(100 / players, color="#888", linewidth=0.8, linestyle="--", label="1 / players")
    ax.set_xticks(range(players), [f"seat {s}" for s in range(players)])
    ax.set_ylabel("win share, % (95% interval)")
    ax.set_title("win share by seat")
    ax.legend(fontsize="small", frameon=False)
    return _svg(fig)
