"""Cross-check of satcp's constellation paths against Hypatia's own path
computation (satgenpy 0.4.0).

    python -m satcp.crosscheck_hypatia [--start 0] [--duration 100] [--out DIR]

(``make crosscheck-hypatia``; ``docs/validation-hypatia.md`` has the
measured numbers.) Hypatia's side is ``crosscheck/hypatia/peer.py`` in its
own virtual environment, ``.venv-hypatia`` (``crosscheck/hypatia/venv.sh``
makes it when missing): Kuiper-630 as Hypatia's paper generates it (34 x 34
satellites from its own TLEs, +Grid ISLs, five of its top-100 cities,
"free one, only over ISLs", the maximum GSL length 630 km / sin 30 deg =
1,260 km), its dynamic state at every 100 ms step of the window, and each
pair's path and RTT by its post-analysis functions. Hypatia's output is
kept in ``target/hypatia/START-DURATION-STEP`` and read again while the
peer, its pinned packages and the window are unchanged (the state of 1,156 satellites takes
Hypatia 1.6-2.2 s a step here, a Floyd-Warshall over all of them).

satcp's side is a path-only scenario made from Hypatia's files: the same
TLEs (``tle``: Hypatia's ``tles.txt`` without its first line, the plane
count; SGP4 from each TLE's epoch, 2000-01-01 00:00 UTC), ``run.epoch`` the
TLE epoch plus ``--start`` (Hypatia hands pyephem the instant as a UTC
string), the ISL pairs of ``isls.txt``, the cities' latitudes and
longitudes as ``ground_stations.txt`` writes them, ``gsl.max_range`` its
``max_gsl_length_m``, ``attach = "shortest-path"`` (stations do not relay:
Hypatia's "only over ISLs"), a 100 ms topology step and one ``[[paths]]``
per pair.

Compared per pair and step: the RTT (satcp: twice the path's one-way
propagation delay; Hypatia: the lengths of the path there and back over
c), and the steps at which the path changes. What must hold: RTTs within
0.2 ms at every step more than 1 s from a path change of either side, and
every path change of either side within 1 s of one of the other's. Output:
a table on stdout, ``steps.csv`` and ``pairs.csv`` in ``--out`` (default
``bench-results/crosscheck-hypatia``).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import satcp

from .tables import format_table, num

REPO = Path(__file__).resolve().parents[2]
PEER = REPO / "crosscheck" / "hypatia" / "peer.py"
VENV_SCRIPT = REPO / "crosscheck" / "hypatia" / "venv.sh"
REQUIREMENTS = REPO / "crosscheck" / "hypatia" / "requirements.txt"
VENV_PYTHON = REPO / ".venv-hypatia" / "bin" / "python"
CACHE = REPO / "target" / "hypatia"
TLE_EPOCH = datetime.datetime(2000, 1, 1)
#: What must hold.
RTT_TOLERANCE_S = 0.2e-3
CHANGE_TOLERANCE_S = 1.0


class HypatiaUnavailable(RuntimeError):
    """satgenpy could not be installed into .venv-hypatia."""


def hypatia(start_s: float, duration_s: float, step_ms: int = 100) -> Path:
    """Hypatia's network and paths for the window (run, or read back)."""
    out = CACHE / f"{start_s:g}-{duration_s:g}-{step_ms}"
    stamp = out / "peer.json"
    if stamp.is_file() and all(stamp.stat().st_mtime > f.stat().st_mtime for f in (PEER, REQUIREMENTS)):
        return out
    if subprocess.run(["bash", str(VENV_SCRIPT)], cwd=REPO).returncode != 0:
        raise HypatiaUnavailable(f"satgenpy could not be installed into {VENV_PYTHON.parent.parent} ({VENV_SCRIPT})")
    stamp.unlink(missing_ok=True)
    r = subprocess.run([str(VENV_PYTHON), str(PEER), str(out), "--start", repr(start_s), "--duration", repr(duration_s),
                        "--step-ms", str(step_ms)], cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{PEER.name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")
    return out


def scenario(net: Path, start_s: float, duration_s: float, step_ms: int = 100) -> dict:
    """satcp's path-only scenario over Hypatia's network files."""
    tles = (net / "tles.txt").read_text().splitlines()[1:]  # the first line counts planes
    isls = [[int(a), int(b)] for a, b in (line.split() for line in (net / "isls.txt").read_text().splitlines())]
    stations = [line.split(",") for line in (net / "ground_stations.txt").read_text().splitlines()]
    props = dict(line.split("=", 1) for line in (net / "description.txt").read_text().split())
    epoch = TLE_EPOCH + datetime.timedelta(seconds=start_s)
    return {
        "run": {"stop": f"{duration_s}s", "topology_step": f"{step_ms}ms", "epoch": epoch.isoformat()},
        "constellations": [{
            "name": "sat",
            "tle": "\n".join(tles) + "\n",
            "isls": isls,
            "isl": {"rate": "10Gbps"},
            "gsl": {"rate": "10Gbps", "max_range": f"{float(props['max_gsl_length_m'])}m"},
            "attach": "shortest-path",
        }],
        "ground_stations": [{"name": f"gs{s[0]}", "lat": float(s[2]), "lon": float(s[3]), "alt": f"{float(s[4])}m"}
                            for s in stations],
        "paths": [{"src": f"gs{a}", "dst": f"gs{b}"} for a in range(len(stations)) for b in range(a + 1, len(stations))],
    }


@dataclass
class Step:
    """One pair at one step, in Hypatia's node ids."""
    t_s: float
    rtt_s: float | None
    path: str  # node ids joined by "-", or "Unreachable"


def hypatia_steps(net: Path) -> dict[tuple[int, int], list[Step]]:
    start = json.loads((net / "peer.json").read_text())["start_ns"]
    out: dict[tuple[int, int], list[Step]] = {}
    with open(net / "paths.csv") as f:
        for r in csv.DictReader(f):
            rtt = float(r["rtt_ns"]) / 1e9 if r["rtt_ns"] else None
            out.setdefault((int(r["src"]), int(r["dst"])), []).append(Step((int(r["t_ns"]) - start) / 1e9, rtt, r["path"]))
    return out


def satcp_steps(scn: dict) -> dict[tuple[int, int], list[Step]]:
    res = satcp.run(scn)
    n = sum(1 for line in scn["constellations"][0]["tle"].splitlines() if line.startswith("1 "))

    def node(name: str) -> int:
        kind, k = ("gs", name[2:]) if name.startswith("gs") else ("sat", name.split("-")[1])
        return int(k) + (n if kind == "gs" else 0)

    out: dict[tuple[int, int], list[Step]] = {}
    for t, src, dst, rtt, path in res.path_series[["t_s", "src", "dst", "rtt_s", "path"]].itertuples(index=False):
        reachable = isinstance(path, str) and path != ""
        key = (node(src), node(dst))
        out.setdefault(key, []).append(Step(round(t, 9), rtt if reachable else None,
                                            "-".join(str(node(x)) for x in path.split()) if reachable else "Unreachable"))
    return out


def changes(steps: list[Step]) -> list[float]:
    """The instants the path differs from the step before."""
    return [b.t_s for a, b in zip(steps, steps[1:]) if a.path != b.path]


def nearest(t: float, others: list[float]) -> float:
    return min((abs(t - o) for o in others), default=float("inf"))


@dataclass
class PairResult:
    src: int
    dst: int
    steps: int
    hypatia_changes: list[float]
    satcp_changes: list[float]
    same_path: int
    max_change_gap_s: float
    max_rtt_diff_s: float  # steps more than 1 s from a change of either side
    max_rtt_diff_same_path_s: float
    #: (t, Hypatia's step, satcp's step)
    rows: list[tuple[float, Step, Step]]


def compare(hyp: dict, sat: dict) -> list[PairResult]:
    out = []
    for key in sorted(hyp):
        h, s = hyp[key], sat[key]
        if [x.t_s for x in h] != [x.t_s for x in s]:
            raise RuntimeError(f"pair {key}: Hypatia has {len(h)} steps, satcp {len(s)}, or at other instants")
        hc, sc = changes(h), changes(s)
        gaps = [nearest(t, sc) for t in hc] + [nearest(t, hc) for t in sc]
        both = [(a, b) for a, b in zip(h, s) if a.rtt_s is not None and b.rtt_s is not None]
        away = [abs(a.rtt_s - b.rtt_s) for a, b in both if nearest(a.t_s, hc + sc) > CHANGE_TOLERANCE_S]
        same = [abs(a.rtt_s - b.rtt_s) for a, b in both if a.path == b.path]
        out.append(PairResult(key[0], key[1], len(h), hc, sc, sum(a.path == b.path for a, b in zip(h, s)),
                              max(gaps, default=0.0), max(away, default=0.0), max(same, default=0.0),
                              [(a.t_s, a, b) for a, b in zip(h, s)]))
    return out


def crosscheck(start_s: float, duration_s: float, step_ms: int = 100) -> list[PairResult]:
    net = hypatia(start_s, duration_s, step_ms)
    return compare(hypatia_steps(net), satcp_steps(scenario(net, start_s, duration_s, step_ms)))


def holds(results: list[PairResult]) -> bool:
    return all(r.max_change_gap_s <= CHANGE_TOLERANCE_S + 1e-9 and r.max_rtt_diff_s <= RTT_TOLERANCE_S for r in results)


def report(results: list[PairResult]) -> str:
    rows = [(f"{r.src}-{r.dst}", r.steps, len(r.hypatia_changes), len(r.satcp_changes), f"{100 * r.same_path / r.steps:.1f}",
             num(r.max_change_gap_s, ".1f"), num(r.max_rtt_diff_s, ".2f", 1e6), num(r.max_rtt_diff_same_path_s, ".3f", 1e6))
            for r in results]
    table = format_table(["pair", "steps", "changes Hypatia", "changes satcp", "same path %", "max change gap s",
                          "max |dRTT| us (>1 s from a change)", "max |dRTT| us (same path)"], rows, "lrrrrrrr")
    worst_gap = max(r.max_change_gap_s for r in results)
    worst_rtt = max(r.max_rtt_diff_s for r in results)
    verdict = "holds" if holds(results) else "does not hold"
    return (f"{table}\n\nRTT within {RTT_TOLERANCE_S * 1e3:g} ms more than {CHANGE_TOLERANCE_S:g} s from a change "
            f"(worst {worst_rtt * 1e6:.2f} us) and every change within {CHANGE_TOLERANCE_S:g} s of the other's "
            f"(worst {worst_gap:.1f} s): {verdict}")


def write_csv(results: list[PairResult], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "pairs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["src", "dst", "steps", "changes_hypatia_s", "changes_satcp_s", "same_path_steps", "max_change_gap_s",
                    "max_rtt_diff_s", "max_rtt_diff_same_path_s"])
        for r in results:
            w.writerow([r.src, r.dst, r.steps, " ".join(f"{t:g}" for t in r.hypatia_changes),
                        " ".join(f"{t:g}" for t in r.satcp_changes), r.same_path, r.max_change_gap_s, r.max_rtt_diff_s,
                        r.max_rtt_diff_same_path_s])
    with open(out / "steps.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "src", "dst", "rtt_hypatia_s", "rtt_satcp_s", "path_hypatia", "path_satcp"])
        for r in results:
            for t, h, s in r.rows:
                w.writerow([f"{t:g}", r.src, r.dst, h.rtt_s, s.rtt_s, h.path, s.path])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--start", type=float, default=0.0, help="seconds after the TLE epoch (default 0)")
    ap.add_argument("--duration", type=float, default=100.0, help="seconds of 100 ms steps (default 100)")
    ap.add_argument("--out", default=str(REPO / "bench-results" / "crosscheck-hypatia"))
    a = ap.parse_args(argv)
    try:
        results = crosscheck(a.start, a.duration)
    except HypatiaUnavailable as e:
        print(f"crosscheck-hypatia: {e}", file=sys.stderr)
        return 3
    print(report(results))
    write_csv(results, Path(a.out))
    return 0 if holds(results) else 1


if __name__ == "__main__":
    sys.exit(main())
