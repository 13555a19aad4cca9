"""The balance report: its statistics, and files whose numbers are the summary's."""
import json
import math
import re
import xml.etree.ElementTree as ET

import pytest

import atoll
from atoll import report, simulation
from atoll.cli import main
from helpers import MASTERISLANDS

SVG_NS = "{http://www.w3.org/2000/svg}"


def test_chi_square_tail_matches_table_values():
    # the 95% points of the chi-square distribution, from any statistics table
    for x, df in [(3.841458820694124, 1), (5.991464547107979, 2), (7.814727903251178, 3),
                  (9.487729036781154, 4), (11.070497693516351, 5)]:
        assert report.chi2_sf(x, df) == pytest.approx(0.05, abs=1e-9)
    assert report.chi2_sf(0.0, 3) == 1.0
    assert report.chi2_sf(2.0, 2) == pytest.approx(math.exp(-1))   # the df=2 tail is e^(-x/2)


def test_binomial_test_and_wilson_interval():
    assert report.binomial_test(5, 10, 0.5) == pytest.approx(1.0)
    assert report.binomial_test(0, 10, 0.5) == pytest.approx(2 / 1024)
    assert report.binomial_test(9, 10, 0.5) == pytest.approx(22 / 1024)   # 0, 1, 9, 10 heads
    assert report.binomial_test(0, 5, 0.0) == 1.0 and report.binomial_test(1, 5, 0.0) == 0.0
    lo, hi = report.wilson_interval(50, 100)
    assert (lo, hi) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    lo, hi = report.wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)


def _summary(wins, finished, draws=0):
    return {"finished": finished, "players": len(wins), "wins_per_seat": wins, "draws": draws}


def test_seat_advantage_tells_a_biased_seat_from_chance():
    fair = report.seat_advantage(_summary([251, 249, 250, 250], 1000))
    assert not fair["significant"] and fair["chi_square"]["p_value"] > 0.9
    biased = report.seat_advantage(_summary([320, 230, 225, 225], 1000))
    assert biased["significant"] and biased["chi_square"]["p_value"] < 0.001
    assert [s["significant"] for s in biased["seats"]] == [True, False, False, False]
    teams = report.seat_advantage(_summary([500, 500, 500, 500], 1000))   # two teams of two
    assert teams["chi_square"] is None and not teams["significant"]


def test_report_numbers_are_the_summary_numbers(tmp_path):
    game = atoll.load(MASTERISLANDS, players=3)
    s = simulation.simulate(game, 40, seed=2)
    written = report.write_report(s, tmp_path / "out")
    names = {p.name for p in written}
    assert names == {"report.md", "report.html", "seat_wins.svg", "lengths.svg", "scores.svg",
                     "endings.svg"}
    assert all(p.exists() and p.stat().st_size > 0 for p in written)
    md = (tmp_path / "out" / "report.md").read_text()
    for p in range(3):
        row = f"| {p} | {s['wins_per_seat'][p]} | {s['win_rate_per_seat'][p]:.1%} |"
        assert row in md
        sc = s["scores_per_seat"][p]
        assert f"| {p} | {sc['mean']:.2f} | {sc['min']} | {sc['max']} |" in md
    for ending, count in s["endings"].items():
        assert f"| {ending} | {count} | {count / 40:.1%} |" in md
    assert f"mean {s['length']['mean']:.1f}" in md and f"max {s['length']['max']}" in md
    for name in ("seat_wins.svg", "lengths.svg", "scores.svg", "endings.svg"):
        assert f"]({name})" in md
        root = ET.parse(tmp_path / "out" / name).getroot()   # well-formed XML
        assert root.tag == SVG_NS + "svg"
    tips = [t.text for t in ET.parse(tmp_path / "out" / "seat_wins.svg").iter(SVG_NS + "title")]
    assert tips == [f"seat {p}: {w} wins, {w / 40:.1%}" for p, w in enumerate(s["wins_per_seat"])]
    bars = ET.parse(tmp_path / "out" / "lengths.svg").iter(SVG_NS + "rect")
    heights = [float(b.get("height")) for b in bars if b.find(SVG_NS + "title") is not None]
    assert sum(1 for h in heights if h > 0) >= 2   # a histogram, not one bar
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count("<svg ") == 4 and "<table>" in page and page.rstrip().endswith("</html>")


def test_scores_chart_has_one_panel_per_seat_on_one_axis(tmp_path):
    game = atoll.load(MASTERISLANDS, players=4)
    s = simulation.simulate(game, 20, seed=0)
    report.write_report(s, tmp_path)
    root = ET.parse(tmp_path / "scores.svg").getroot()
    titles = [t.text for t in root.iter(SVG_NS + "text") if t.text and t.text.startswith("Seat ")]
    assert len(titles) == 4
    per_seat = [t.text for t in root.iter(SVG_NS + "title")]
    assert len(per_seat) % 4 == 0   # every seat gets a bar for every score any seat reached
    for p, sc in enumerate(s["scores_per_seat"]):
        counted = sum(int(re.search(r"(\d+)$", t).group(1))
                      for t in per_seat[p * len(per_seat) // 4:(p + 1) * len(per_seat) // 4])
        assert counted == sum(sc["histogram"].values()) == s["finished"]


def test_cli_report_beside_json(tmp_path, capsys):
    out = tmp_path / "balance"
    assert main(["simulate", str(MASTERISLANDS), "-n", "15", "--players", "2", "--json",
                 "--report", str(out)]) == 0
    cap = capsys.readouterr()
    s = json.loads(cap.out)   # stdout stays pure JSON; the report's paths go to stderr
    assert "report.md" in cap.err
    md = (out / "report.md").read_text()
    assert f"| 0 | {s['wins_per_seat'][0]} | {s['win_rate_per_seat'][0]:.1%} |" in md
    (tmp_path / "file").write_text("x")
    assert main(["simulate", str(MASTERISLANDS), "-n", "2", "--report", str(tmp_path / "file")]) == 2
    assert "--report takes a folder" in capsys.readouterr().err
