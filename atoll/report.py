"""The balance report of ``atoll simulate --report DIR``.

It reads nothing but a simulation summary (the dict that ``--json``
prints), so its numbers are the summary's. It writes ``report.md``,
``report.html`` (the same text, the plots inline) and one SVG per plot.

The plots are small hand-written SVG bar charts rather than matplotlib: four
bar charts do not justify a large dependency, the files come out the same on
every machine (diffable, testable as XML), and the report works in a bare
install.

Seat advantage is judged by two tests written out below (no scipy):

* for each seat, an exact two-sided binomial test of its win count against
  the mean win rate of all seats, Bonferroni-corrected for the number of
  seats; valid whatever the dependence between seats in a game, so also
  with teams and shared wins;
* when every game has at most one winner, a chi-square goodness-of-fit test
  of the winner's seat against equal shares.
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Optional

Z95 = 1.959963984540054   # the 97.5% quantile of the standard normal
ALPHA = 0.05


# ---------------------------------------------------------------- statistics

def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


def binomial_test(k: int, n: int, p: float) -> float:
    """Exact two-sided p-value of k successes in n trials of probability p:
    the probability of every outcome no more likely than k."""
    if p <= 0.0 or p >= 1.0:
        return 1.0 if k == (0 if p <= 0.0 else n) else 0.0

    def logpmf(i):
        return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                + i * math.log(p) + (n - i) * math.log1p(-p))
    limit = logpmf(k) + 1e-9   # tolerance for rounding between equal terms
    # Terms beyond 40 standard deviations of the mean are below e^-800: zero in floats.
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    lo, hi = max(0, math.floor(mean - 40 * sd - 1)), min(n, math.ceil(mean + 40 * sd + 1))
    return min(1.0, sum(math.exp(v) for v in map(logpmf, range(lo, hi + 1)) if v <= limit))


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with an integer number of degrees
    of freedom, by the closed forms of the upper incomplete gamma function."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if x <= 0:
        return 1.0
    h = x / 2
    if df % 2 == 0:   # Q(m, h) = e^-h * sum_{i<m} h^i / i!
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= h / i
            total += term
        return min(1.0, math.exp(-h) * total)
    # odd: Q(1/2, h) = erfc(sqrt h), then Q(a+1, h) = Q(a, h) + h^a e^-h / Gamma(a+1)
    total = math.erfc(math.sqrt(h))
    a = 0.5
    for _ in range((df - 1) // 2):
        total += math.exp(a * math.log(h) - h - math.lgamma(a + 1))
        a += 1
    return min(1.0, total)


def seat_advantage(summary: dict) -> dict:
    """Win rate per seat with its 95% interval and tests; see the module doc."""
    n, k = summary["finished"], summary["players"]
    wins = summary["wins_per_seat"]
    mean_rate = sum(wins) / (k * n) if n else 0.0
    seats = []
    for p, w in enumerate(wins):
        lo, hi = wilson_interval(w, n)
        pv = binomial_test(w, n, mean_rate) if n else 1.0
        adj = min(1.0, pv * k)
        seats.append({"seat": p, "wins": w, "rate": w / n if n else 0.0, "ci": (lo, hi),
                      "p_value": pv, "p_adjusted": adj, "significant": adj < ALPHA})
    sole = n > 0 and sum(wins) + summary["draws"] == n   # no game had two winners
    chi = None
    if sole and sum(wins) > 0 and k > 1:
        expected = sum(wins) / k
        stat = sum((w - expected) ** 2 / expected for w in wins)
        pv = chi2_sf(stat, k - 1)
        chi = {"statistic": stat, "df": k - 1, "p_value": pv, "significant": pv < ALPHA,
               "games": sum(wins)}
    return {"mean_rate": mean_rate, "seats": seats, "sole_winners": sole, "chi_square": chi,
            "significant": any(s["significant"] for s in seats) or bool(chi and chi["significant"])}


def quantile(hist: dict, q: float) -> float:
    """The q-quantile (lower) of values given as {str(value): count}."""
    items = sorted((float(v), c) for v, c in hist.items())
    total = sum(c for _, c in items)
    if not total:
        return 0.0
    need, seen = q * (total - 1), 0
    for v, c in items:
        seen += c
        if seen > need:
            return v
    return items[-1][0]


# ---------------------------------------------------------------- SVG

W, PANEL_H = 640, 230
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 46
FILL, EDGE = "#4c78a8", "#1f3b57"


def _nice_step(top: float, integer: bool) -> float:
    """A tick step of 1, 2, 2.5 or 5 times a power of ten giving about five
    ticks up to ``top``; a whole number for counts."""
    if top <= 0:
        return 1.0
    raw = top / 5
    mag = 10 ** math.floor(math.log10(raw))
    for m in ((1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)):
        if raw <= m * mag:
            return max(1, m * mag) if integer else m * mag
    return 10 * mag   # pragma: no cover


def _num(v: float, percent: bool) -> str:
    if percent:
        return f"{v:.0%}" if abs(v * 100 - round(v * 100)) < 1e-9 else f"{v:.1%}"
    return f"{v:g}"


def _panel(title: str, labels: list, values: list, y0: float, *, xlabel: str, ylabel: str,
           percent: bool = False, errors: Optional[list] = None, ref: Optional[float] = None,
           ref_label: str = "", tips: Optional[list] = None) -> list[str]:
    """SVG elements of one bar chart whose top edge is at ``y0``."""
    e = html.escape
    out = [f'<text x="{W / 2}" y="{y0 + 18}" text-anchor="middle" font-size="14" '
           f'font-weight="bold">{e(title)}</text>']
    x0, x1 = LEFT, W - RIGHT
    base, top_y = y0 + PANEL_H - BOTTOM, y0 + TOP
    highs = list(values) + [hi for _, hi in errors or []] + ([ref] if ref is not None else [])
    top = max(highs, default=0) or 1
    step = _nice_step(top, not percent)
    top = step * math.ceil(top / step - 1e-9)

    def y(v):
        return base - (base - top_y) * v / top
    t = 0.0
    while t <= top + 1e-9:
        out.append(f'<line x1="{x0}" y1="{y(t):.1f}" x2="{x1}" y2="{y(t):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11">'
                   f'{e(_num(t, percent))}</text>')
        t += step
    n = max(1, len(values))
    slot = (x1 - x0) / n
    every = max(1, math.ceil(n * 7 * max((len(str(lb)) for lb in labels), default=1) / (x1 - x0)))
    for i, (lb, v) in enumerate(zip(labels, values)):
        bx = x0 + i * slot + slot * 0.1
        tip = tips[i] if tips else f"{lb}: {_num(v, percent)}"
        out.append(f'<rect x="{bx:.1f}" y="{y(v):.1f}" width="{slot * 0.8:.1f}" '
                   f'height="{base - y(v):.1f}" fill="{FILL}"><title>{e(tip)}</title></rect>')
        if errors:
            lo, hi = errors[i]
            cx = bx + slot * 0.4
            out.append(f'<path d="M{cx:.1f},{y(lo):.1f}V{y(hi):.1f}M{cx - 5:.1f},{y(lo):.1f}'
                       f'h10M{cx - 5:.1f},{y(hi):.1f}h10" stroke="{EDGE}" stroke-width="1.5" '
                       f'fill="none"/>')
        if i % every == 0:
            out.append(f'<text x="{bx + slot * 0.4:.1f}" y="{base + 15}" text-anchor="middle" '
                       f'font-size="11">{e(str(lb))}</text>')
    if ref is not None:
        out.append(f'<line x1="{x0}" y1="{y(ref):.1f}" x2="{x1}" y2="{y(ref):.1f}" '
                   f'stroke="#c0392b" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{x1}" y="{y(ref) - 5:.1f}" text-anchor="end" font-size="11" '
                   f'fill="#c0392b">{e(ref_label)}</text>')
    out.append(f'<line x1="{x0}" y1="{base}" x2="{x1}" y2="{base}" stroke="#333"/>')
    out.append(f'<text x="{(x0 + x1) / 2}" y="{base + 34}" text-anchor="middle" font-size="12">'
               f'{e(xlabel)}</text>')
    out.append(f'<text transform="translate(16,{(top_y + base) / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle" font-size="12">{e(ylabel)}</text>')
    return out


def svg(panels: list[dict]) -> str:
    """One SVG document of bar charts stacked vertically (keyword arguments
    of :func:`_panel` per chart)."""
    body = []
    for i, p in enumerate(panels):
        body += _panel(y0=i * PANEL_H, **p)
    h = PANEL_H * len(panels)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" '
            f'viewBox="0 0 {W} {h}" font-family="sans-serif">\n'
            f'<rect width="{W}" height="{h}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _bins(hist: dict, most: int = 30) -> tuple[list, list]:
    """Integer histogram {str(v): count} as bar labels and counts: one bar per
    value when the range is small, else ranges of equal width."""
    if not hist:
        return [], []
    vals = {int(float(v)): c for v, c in hist.items()}
    lo, hi = min(vals), max(vals)
    width = max(1, math.ceil((hi - lo + 1) / most))
    labels, counts = [], []
    for start in range(lo, hi + 1, width):
        end = min(start + width - 1, hi)
        labels.append(str(start) if width == 1 else f"{start}-{end}")
        counts.append(sum(c for v, c in vals.items() if start <= v <= end))
    return labels, counts


# ---------------------------------------------------------------- the report

def _pct(v: float) -> str:
    return f"{v:.1%}"


def _pval(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def build(summary: dict) -> tuple[list, dict]:
    """The report as blocks (("h1"|"h2"|"p", text), ("table", head, rows),
    ("figure", file, caption)) and the SVG files by name."""
    s = summary
    adv = seat_advantage(s)
    k, n = s["players"], s["finished"]
    opts = ", ".join(f"{a}={b}" for a, b in s["options"].items()) or "none"
    eng = s.get("engine", {"name": "local"})
    where = "this machine" if eng.get("name") == "local" else \
        f"Dask ({eng.get('scheduler')}, {eng.get('workers')} workers)"
    blocks: list = [("h1", f"Balance report: {s['game']}")]
    blocks.append(("p", f"{s['games']} games by uniformly random agents, {k} players, options: "
                        f"{opts}; seeds {s['seed']}..{s['seed'] + s['games'] - 1}. {n} games "
                        f"finished, {len(s['problems'])} hit a problem. Played on {where} in "
                        f"{s['seconds']:.1f} s."))
    files = {}

    blocks.append(("h2", "Seat advantage"))
    rows = [[str(x["seat"]), str(x["wins"]), _pct(x["rate"]),
             f"{_pct(x['ci'][0])} to {_pct(x['ci'][1])}", _pval(x["p_adjusted"]),
             "yes" if x["significant"] else "no"] for x in adv["seats"]]
    blocks.append(("table", ["seat", "wins", "win rate", "95% interval", "p (adjusted)",
                             "significant"], rows))
    blocks.append(("p", f"The mean win rate of a seat is {_pct(adv['mean_rate'])}. Each seat's "
                        "win count is tested against it (exact two-sided binomial test, p "
                        f"multiplied by {k} for the {k} seats; significant below {ALPHA:g}). "
                        "Intervals are Wilson score intervals."))
    chi = adv["chi_square"]
    if chi:
        verdict = "significant" if chi["significant"] else "not significant"
        blocks.append(("p", f"Every game had at most one winner, so the winner's seat is tested "
                            f"against equal shares over the {chi['games']} won games: chi-square "
                            f"{chi['statistic']:.2f} with {chi['df']} degrees of freedom, p = "
                            f"{_pval(chi['p_value'])}: {verdict}."))
    elif n:
        blocks.append(("p", "Some games had several winners (teams, or a shared win), so no "
                            "chi-square test over the winner's seat; where seats play different "
                            "roles or teams, a difference belongs to the role as much as to the "
                            "seat."))
    blocks.append(("p", "Conclusion: " + ("the seats do not win equally often."
                                          if adv["significant"] else
                                          "no significant seat advantage in these games.")))
    files["seat_wins.svg"] = svg([dict(
        title="Win rate per seat (95% interval)", labels=[f"seat {x['seat']}" for x in adv["seats"]],
        values=[x["rate"] for x in adv["seats"]], errors=[x["ci"] for x in adv["seats"]],
        ref=adv["mean_rate"], ref_label=f"mean {_pct(adv['mean_rate'])}", percent=True,
        xlabel="seat", ylabel="win rate",
        tips=[f"seat {x['seat']}: {x['wins']} wins, {_pct(x['rate'])}" for x in adv["seats"]])])
    blocks.append(("figure", "seat_wins.svg", "Win rate per seat"))

    L = s["length"]
    hist = L.get("histogram", {})
    blocks.append(("h2", "Game length"))
    blocks.append(("p", f"Actions per finished game: mean {L['mean']:.1f}, median "
                        f"{quantile(hist, 0.5):g}, quartiles {quantile(hist, 0.25):g} and "
                        f"{quantile(hist, 0.75):g}, min {L['min']}, max {L['max']}."))
    labels, counts = _bins(hist)
    files["lengths.svg"] = svg([dict(title="Game length", labels=labels, values=counts,
                                     xlabel="actions", ylabel="games")])
    blocks.append(("figure", "lengths.svg", "Distribution of game lengths"))

    blocks.append(("h2", "Scores per seat"))
    blocks.append(("table", ["seat", "mean", "min", "max"],
                   [[str(p), f"{x['mean']:.2f}", str(x["min"]), str(x["max"])]
                    for p, x in enumerate(s["scores_per_seat"])]))
    every = {}
    for x in s["scores_per_seat"]:
        every.update({v: 0 for v in x["histogram"]})
    panels = []
    for p, x in enumerate(s["scores_per_seat"]):
        full = {v: x["histogram"].get(v, 0) for v in every}   # the same axis for every seat
        lb, ct = _bins(full)
        panels.append(dict(title=f"Seat {p}: score (mean {x['mean']:.2f})", labels=lb, values=ct,
                           xlabel="score", ylabel="games"))
    files["scores.svg"] = svg(panels)
    blocks.append(("figure", "scores.svg", "Distribution of scores, one chart per seat"))

    blocks.append(("h2", "How games ended"))
    ends = dict(s["endings"])
    rows = [[str(e), str(c), _pct(c / s["games"])] for e, c in ends.items()]
    if s["problems"]:
        rows.append(["(problem: no normal end)", str(len(s["problems"])),
                     _pct(len(s["problems"]) / s["games"])])
    blocks.append(("table", ["ending", "games", "share"], rows))
    files["endings.svg"] = svg([dict(title="Which ending fired", labels=[r[0] for r in rows],
                                     values=[int(r[1]) for r in rows], xlabel="ending",
                                     ylabel="games")])
    blocks.append(("figure", "endings.svg", "Endings"))
    for pr in s["problems"][:10]:
        blocks.append(("p", f"Problem, seed {pr['seed']}: {pr['problem']}"))
    return blocks, files


_MD = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\\": "\\\\", "`": "\\`",
                     "[": "\\[", "]": "\\]", "|": "\\|"})


def md_text(text) -> str:
    """Text (a game's title, an ending, a problem) as Markdown: on one line,
    with no HTML, code, link or table cell of its own."""
    return " ".join(str(text).split()).translate(_MD)


def to_markdown(blocks: list) -> str:
    out = []
    for b in blocks:
        if b[0] == "h1":
            out.append(f"# {md_text(b[1])}")
        elif b[0] == "h2":
            out.append(f"## {md_text(b[1])}")
        elif b[0] == "p":
            out.append(md_text(b[1]))
        elif b[0] == "table":
            out.append("\n".join(["| " + " | ".join(map(md_text, b[1])) + " |",
                                  "|" + "---|" * len(b[1])] +
                                 ["| " + " | ".join(map(md_text, r)) + " |" for r in b[2]]))
        elif b[0] == "figure":
            out.append(f"![{md_text(b[2])}]({b[1]})")
    return "\n\n".join(out) + "\n"


def to_html(blocks: list, files: dict) -> str:
    e = html.escape
    out = []
    for b in blocks:
        if b[0] in ("h1", "h2", "p"):
            out.append(f"<{b[0]}>{e(b[1])}</{b[0]}>")
        elif b[0] == "table":
            out.append("<table>\n<tr>" + "".join(f"<th>{e(h)}</th>" for h in b[1]) + "</tr>\n" +
                       "\n".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                                 for r in b[2]) + "\n</table>")
        elif b[0] == "figure":
            out.append(f"<figure>\n{files[b[1]]}<figcaption>{e(b[2])}</figcaption>\n</figure>")
    title = e(blocks[0][1])
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
            f"<title>{title}</title>\n<style>body{{font-family:sans-serif;max-width:46em;margin:2em auto}}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
            "text-align:right}figure{margin:1em 0}</style>\n</head>\n<body>\n" +
            "\n".join(out) + "\n</body>\n</html>\n")


def write_report(summary: dict, folder) -> list[Path]:
    """Write report.md, report.html and the SVG plots into ``folder``
    (created if needed); return the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    blocks, files = build(summary)
    written = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    (folder / "report.md").write_text(to_markdown(blocks), encoding="utf-8")
    (folder / "report.html").write_text(to_html(blocks, files), encoding="utf-8")
    return [folder / "report.md", folder / "report.html"] + written
