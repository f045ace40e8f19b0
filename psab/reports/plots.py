"""The report's figures, as PNG files drawn with matplotlib (imported here, lazily, on Agg).

Each function takes plain numbers and a path and writes one PNG; nothing here reads runs.
An agent keeps its colour in every figure (the order of agents in the report).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Colour-blind-safe qualitative palette (Okabe & Ito, 2008), then matplotlib's tab10.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

DPI = 110

#: Narrowest figure, in inches: at :data:`DPI`, less the margins the tight bounding box trims,
#: it is about as wide as the HTML report's column (1116 px), where the figures are shown at
#: full width — so they fill the page without being blown up (they were about half of it).
MIN_WIDTH_IN = 12.0


def _plt() -> Any:
    try:
        import matplotlib
    except ImportError:
        from psab.errors import InvalidArgumentError

        raise InvalidArgumentError("psab report draws its plots with matplotlib: pip install 'psab[report]' "
                                   "(or pass --no-plots)") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def colours(n: int) -> list[str]:
    if n <= len(_PALETTE):
        return list(_PALETTE[:n])
    plt = _plt()
    cmap = plt.get_cmap("tab20")
    return [_PALETTE[i] if i < len(_PALETTE) else cmap((i - len(_PALETTE)) % 20) for i in range(n)]


def _style(ax: Any) -> None:
    ax.spines["top"].set_visible(False)
    ax.spines["right"].set_visible(False)
    ax.grid(axis="y", color="#dde2ea", linewidth=0.8)
    ax.set_axisbelow(True)


def _save(fig: Any, path: Path) -> Path:
    plt = _plt()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    return path


def _finish(fig: Any, ax: Any, path: Path, tick_labels: Sequence[str], *, ylabel: str, title: str,
            legend_ncols: int, legend_y: float) -> Path:
    """What every bar chart ends with: wrapped ticks, the [0, 1.12] score axis (room for the
    value labels), title, house style, the legend under the axes, and the PNG."""
    ax.set_xticks(range(len(tick_labels)), tick_labels, fontsize=9)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11, loc="left")
    _style(ax)
    ax.legend(ncols=legend_ncols, fontsize=8.5, frameon=False, loc="upper center", bbox_to_anchor=(0.5, legend_y))
    return _save(fig, path)


def _bars(ax: Any, xs: Sequence[float], ys: Sequence[float], width: float, colour: Any, label: str,
          intervals: Sequence[tuple[float, float] | None], *, labels: bool, fmt: str = "{:.2f}") -> None:
    """Bars, whiskers only where an interval has width, and the value over each bar (so a zero
    score shows as a 0 rather than as a missing bar)."""
    ax.bar(xs, ys, width=width, color=colour, label=label)
    wx, wy, lo, hi = [], [], [], []
    for x, y, iv in zip(xs, ys, intervals, strict=True):
        if iv is not None and y == y and iv[1] - iv[0] > 1e-12:
            wx.append(x)
            wy.append(y)
            lo.append(max(0.0, y - iv[0]))
            hi.append(max(0.0, iv[1] - y))
    if wx:
        ax.errorbar(wx, wy, yerr=[lo, hi], fmt="none", ecolor="#333333", elinewidth=1.0, capsize=3)
    for x, y, iv in zip(xs, ys, intervals, strict=True):
        if y != y:
            continue
        top = max(y, iv[1] if iv is not None and iv[1] - iv[0] > 1e-12 else y)
        if labels or y == 0:
            ax.text(x, top + 0.012, fmt.format(y), ha="center", va="bottom", fontsize=7.5, color="#333333")


def _wrap(label: str, width: int = 16) -> str:
    words = label.replace("_", " ").split()
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "\n".join(lines)


def grouped_bars(path: Path, groups: Sequence[str], agents: Sequence[str],
                 values: Mapping[tuple[str, str], float], intervals: Mapping[tuple[str, str], tuple[float, float]],
                 *, title: str, ylabel: str, counts: Mapping[str, int] | None = None) -> Path:
    """One group of bars per ``groups`` item, one bar per agent; missing values are not drawn."""
    plt = _plt()
    n_g, n_a = len(groups), max(1, len(agents))
    width = 0.8 / n_a
    fig_w = min(16.0, max(MIN_WIDTH_IN, 1.0 + n_g * (0.45 + 0.32 * n_a)))
    fig, ax = plt.subplots(figsize=(fig_w, 4.3))
    cols = colours(len(agents))
    for j, agent in enumerate(agents):
        xs, ys, ivs = [], [], []
        for i, g in enumerate(groups):
            if (agent, g) in values:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(values[(agent, g)])
                ivs.append(intervals.get((agent, g)))
        if not xs:
            continue
        _bars(ax, xs, ys, width * 0.92, cols[j], agent, ivs, labels=n_g * n_a <= 40)
    labels = [_wrap(g) + (f"\n(n={counts[g]})" if counts and g in counts else "") for g in groups]
    return _finish(fig, ax, path, labels, ylabel=ylabel, title=title, legend_ncols=min(4, n_a),
                   legend_y=-0.18 if n_g else -0.1)


def split_bars(path: Path, agents: Sequence[str], public: Mapping[str, float], heldout: Mapping[str, float],
               intervals: Mapping[tuple[str, str], tuple[float, float]], *, title: str) -> Path:
    """Public against held-out mean score per agent (paired bars, with intervals where known)."""
    plt = _plt()
    n = max(1, len(agents))
    fig, ax = plt.subplots(figsize=(min(14.0, max(MIN_WIDTH_IN, 1.2 + 1.1 * n)), 4.0))
    xs = list(range(len(agents)))
    pub = [public.get(a, float("nan")) for a in agents]
    held = [heldout.get(a, float("nan")) for a in agents]
    _bars(ax, [x - 0.2 for x in xs], pub, 0.38, "#0072B2", "public", [intervals.get((a, "public")) for a in agents],
          labels=True)
    if any(v == v for v in held):
        _bars(ax, [x + 0.2 for x in xs], held, 0.38, "#E69F00", "held-out",
              [intervals.get((a, "heldout")) for a in agents], labels=True)
    else:
        ax.text(0.99, 0.97, "no held-out split in these runs", transform=ax.transAxes, ha="right", va="top",
                fontsize=9, color="#5b6577")
    return _finish(fig, ax, path, [_wrap(a, 14) for a in agents], ylabel="mean score (with retries)", title=title,
                   legend_ncols=2, legend_y=-0.14)


def rate_bars(path: Path, agents: Sequence[str], feasible: Mapping[str, float], perfect: Mapping[str, float],
              *, title: str) -> Path:
    """Feasible rate against perfect rate per agent: the gap is admissible but suboptimal work."""
    plt = _plt()
    n = max(1, len(agents))
    fig, ax = plt.subplots(figsize=(min(14.0, max(MIN_WIDTH_IN, 1.2 + 1.1 * n)), 4.0))
    xs = list(range(len(agents)))
    f = [feasible.get(a, 0.0) for a in agents]
    p = [perfect.get(a, 0.0) for a in agents]
    _bars(ax, [x - 0.2 for x in xs], f, 0.38, "#56B4E9", "feasible rate", [None] * len(xs), labels=True, fmt="{:.0%}")
    _bars(ax, [x + 0.2 for x in xs], p, 0.38, "#009E73", "perfect rate", [None] * len(xs), labels=True, fmt="{:.0%}")
    return _finish(fig, ax, path, [_wrap(a, 14) for a in agents], ylabel="share of cases", title=title,
                   legend_ncols=2, legend_y=-0.14)
