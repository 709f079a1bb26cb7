"""Results written out: benchmark and experiment rows as CSV, and pictures with
matplotlib (benchmark ratios, time per step).

Figures are drawn with matplotlib's object API (no pyplot, no global backend), so
writing them works headless and leaves an interactive session's settings alone.
"""

import csv
import math
import os
import re
from pathlib import Path

import numpy as np

__all__ = ["write_rows", "ratio_rows", "plot_ratios", "plot_steps"]

# Columns that give how many times faster hitbox is than a baseline (see ratio_rows).
_SPEEDUP = re.compile(r"^(?:speedup|ratio)_vs_([a-z0-9]+)(?:_(\w+))?$")
# Fields that name what a benchmark row measured, in the order a label uses them.
_NAMING = ("scene", "impl", "engine", "kind", "method", "n", "triangles")


def write_rows(path, rows):
    """Write ``rows`` (dicts) to the CSV file ``path``, one column per key in the order
    keys first appear (a row without a key leaves its cell empty); returns ``path``."""
    path = Path(path)
    keys = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    return path


def ratio_rows(results, peers=None):
    """hitbox's speedup over each baseline, from benchmark rows.

    Three column conventions of ``benchmarks/bench_*.py`` are read:

    - ``speedup_vs_<peer>`` and ``speedup_vs_<peer>_<variant>``: peer time / hitbox time.
    - ``ratio_vs_<peer>``: the same, on the hitbox rows (rows of other implementations,
      such as the peer's own row at 1.0, are skipped).
    - ``ratio`` (with an ``impl`` column): row time / the hitbox kernel's time, so on a
      baseline's row, the kernel's speedup over that baseline.

    Parameters
    ----------
    results : dict {bench name: list of dict rows}
        As returned by each benchmark's ``run()`` or read back from its CSV (numbers
        given as strings are parsed).
    peers : iterable of str, optional
        Keep only ratios whose baseline name contains one of these (case-insensitive),
        e.g. ``["coal", "fcl"]``. None keeps every baseline, numpy included.

    Returns
    -------
    list of dict with ``bench``, ``case`` (what was measured), ``peer`` (the baseline),
    ``ratio`` (float, above 1 means hitbox is faster), in input order.
    """
    wanted = None if peers is None else [p.lower() for p in peers]
    out = []
    for bench, rows in results.items():
        for row in rows:
            impl = str(row.get("impl", row.get("engine", "hitbox")))
            is_hitbox = impl.lower().startswith("hitbox")
            for key, value in row.items():
                ratio = _number(value)
                if ratio is None or ratio <= 0:
                    continue
                match = _SPEEDUP.match(key)
                if match and (key.startswith("speedup") or is_hitbox):
                    peer = match.group(1) + (
                        f" ({match.group(2)})" if match.group(2) else ""
                    )
                elif key == "ratio" and "impl" in row and not is_hitbox:
                    peer = impl
                else:
                    continue
                if wanted is not None and not any(w in peer.lower() for w in wanted):
                    continue
                out.append(
                    {"bench": bench, "case": _case(row), "peer": peer, "ratio": ratio}
                )
    return out


def plot_ratios(results, path, *, peers=None, title="hitbox speedup over each baseline"):
    """Bar chart of :func:`ratio_rows`: a bar per (case, baseline), log scale, 1x marked.

    Parameters
    ----------
    results : dict {bench name: list of dict rows}
    path : str or PathLike
        Image file to write (PNG, SVG or PDF by its suffix).
    peers : iterable of str, optional
        As in :func:`ratio_rows`.
    title : str

    Returns
    -------
    Path of the figure, or None when the results hold no ratio to draw (nothing written).
    """
    ratios = ratio_rows(results, peers)
    if not ratios:
        return None
    from matplotlib.figure import Figure

    labels = [f"{r['bench']}: {r['case']}  vs {r['peer']}" for r in ratios]
    values = np.array([r["ratio"] for r in ratios])
    baselines = sorted({r["peer"].split(" (")[0] for r in ratios})
    palette = _colours(len(baselines))
    colours = [palette[baselines.index(r["peer"].split(" (")[0])] for r in ratios]
    height = 1.2 + 0.28 * len(ratios)
    fig = Figure(figsize=(10, height), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(ratios))[::-1]
    ax.barh(y, values, color=colours, height=0.7)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y, labels, fontsize=8)
    lo, hi = values.min(), values.max()
    ax.set_xlim(min(lo, 1.0) / 1.6, max(hi, 1.0) * 3.0)
    for yi, value in zip(y, values, strict=True):
        ax.text(value * 1.05, yi, f"{value:.3g}x", va="center", fontsize=7)
    ax.set_xlabel(
        "times faster than the baseline (log scale; < 1: the baseline is faster)"
    )
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    return _save(fig, path)


def plot_steps(times, path, *, title="Time per step", xlabel="step", steps=None):
    """Time per step along a trajectory, one line per method, totals in the legend.

    Parameters
    ----------
    times : dict {label: (S,) float seconds}
        E.g. ``{"sphere cull, then OBB": t1, "OBB only": t2}``; lengths may differ.
    path : str or PathLike
        Image file to write (PNG, SVG or PDF by its suffix).
    title, xlabel : str
    steps : (S,) float, optional
        The x value of each step (default 0, 1, 2 ...), shared by every line.

    Returns
    -------
    Path of the figure.
    """
    if not isinstance(times, dict) or not times:
        raise ValueError("times must be a non-empty dict {label: per-step seconds}")
    series = {}
    for label, values in times.items():
        arr = np.asarray(values, dtype=np.float64).ravel()
        if not len(arr) or not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError(
                f"times[{label!r}] must be finite seconds >= 0, got {values!r}"
            )
        series[str(label)] = arr
    from matplotlib.figure import Figure

    longest = max(len(a) for a in series.values())
    x = np.arange(longest) if steps is None else np.asarray(steps, dtype=np.float64)
    if len(x) < longest:
        raise ValueError(f"steps has {len(x)} values for {longest} steps")
    scale, unit = _time_unit(max(a.max() for a in series.values()))
    fig = Figure(figsize=(9, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for (label, arr), colour in zip(series.items(), _colours(len(series)), strict=True):
        ax.plot(
            x[: len(arr)],
            arr * scale,
            color=colour,
            linewidth=1.2,
            label=f"{label}: total {_seconds(arr.sum())}",
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"time per step ({unit})")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


# -- helpers -----------------------------------------------------------------------------


def _number(value):
    if isinstance(value, bool | np.bool_):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _case(row):
    parts = [
        f"{key}={row[key]}" if key in ("n", "triangles") else str(row[key])
        for key in _NAMING
        if key in row and row[key] not in (None, "")
    ]
    return " ".join(parts) or "all"


def _colours(n):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _time_unit(largest):
    for scale, unit in ((1.0, "s"), (1e3, "ms"), (1e6, "µs")):
        if largest * scale >= 1.0:
            return scale, unit
    return 1e9, "ns"


def _seconds(value):
    scale, unit = _time_unit(value)
    return f"{value * scale:.3g} {unit}"


def _save(fig, path):
    path = Path(os.fspath(path))
    fig.savefig(path, dpi=120)
    return path
