"""Hypatia's side of `satcp.crosscheck_hypatia`: satgenpy 0.4.0 builds a
satellite network and its dynamic state, and its post-analysis functions
trace each pair's path and RTT at every step.

    .venv-hypatia/bin/python crosscheck/hypatia/peer.py OUT --start S --duration S [--step-ms 100]

Runs in its own virtual environment (satgenpy pulls astropy, cartopy,
ephem, networkx...; `make hypatia-venv`). Writes into OUT what Hypatia's
`paper/satellite_networks_state/main_helper.py` writes for Kuiper-630 with
the algorithm "free one, only over ISLs", in the same order with the same
calls: `ground_stations.txt` (`extend_ground_stations` of a basic file of
cities from Hypatia's top-100 list), `tles.txt`
(`generate_tles_from_scratch_manual` with `main_kuiper_630.py`'s
constants), `isls.txt` (`generate_plus_grid_isls`, shift 0),
`description.txt` (its max GSL and ISL lengths), `gsl_interfaces_info.txt`
(one interface per node), then `generate_dynamic_state` from `--start` to
`--start + --duration` (the fstate files, in `dynamic_state/`), and last
`paths.csv`: per step and pair (src < dst, by ground-station id) the path
that `get_path` follows through the forwarding state and its RTT, the
lengths of the path there and the path back (`compute_path_length_without_graph`)
over c: the loop of satgenpy's `print_routes_and_rtt`, without its gnuplot
figure. Node ids are Hypatia's: satellites 0..N-1, then ground station g
as N + g.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time

import satgen

# Kuiper-630 as Hypatia's paper generates it (main_kuiper_630.py).
EARTH_RADIUS_M = 6378135.0  # WGS72
NAME = "Kuiper-630"
ECCENTRICITY = 0.0000001  # pyephem refuses 0
ARG_OF_PERIGEE_DEGREE = 0.0
PHASE_DIFF = True
MEAN_MOTION_REV_PER_DAY = 14.80
ALTITUDE_M = 630000
MIN_ELEVATION_DEGREE = 30.0
SATELLITE_CONE_RADIUS_M = ALTITUDE_M / math.tan(math.radians(MIN_ELEVATION_DEGREE))
MAX_GSL_LENGTH_M = math.sqrt(math.pow(SATELLITE_CONE_RADIUS_M, 2) + math.pow(ALTITUDE_M, 2))
MAX_ISL_LENGTH_M = 2 * math.sqrt(math.pow(EARTH_RADIUS_M + ALTITUDE_M, 2) - math.pow(EARTH_RADIUS_M + 80000, 2))
NUM_ORBS = 34
NUM_SATS_PER_ORB = 34
INCLINATION_DEGREE = 51.9
ALGORITHM = "algorithm_free_one_only_over_isls"

# Five cities of Hypatia's ground_stations_cities_sorted_by_estimated_2025_pop_top_100
# (its lines 24, 21, 27, 54 and 9), as written there.
CITIES = [
    ("Paris", "48.85341", "2.3488"),
    ("Moskva-(Moscow)", "55.754996", "37.621849"),
    ("London", "51.50853", "-0.12574"),
    ("Madrid", "40.4165", "-3.70256"),
    ("New-York-Newark", "40.717042", "-74.003663"),
]

SPEED_OF_LIGHT_M_PER_S = 299792458.0


def network(out: str) -> None:
    """The network's files, as main_helper.calculate writes them."""
    with open(os.path.join(out, "ground_stations_basic.txt"), "w") as f:
        for gid, (name, lat, lon) in enumerate(CITIES):
            f.write(f"{gid},{name},{lat},{lon},0\n")
    satgen.extend_ground_stations(os.path.join(out, "ground_stations_basic.txt"), os.path.join(out, "ground_stations.txt"))
    satgen.generate_tles_from_scratch_manual(os.path.join(out, "tles.txt"), NAME, NUM_ORBS, NUM_SATS_PER_ORB, PHASE_DIFF,
                                             INCLINATION_DEGREE, ECCENTRICITY, ARG_OF_PERIGEE_DEGREE,
                                             MEAN_MOTION_REV_PER_DAY)
    satgen.generate_plus_grid_isls(os.path.join(out, "isls.txt"), NUM_ORBS, NUM_SATS_PER_ORB, isl_shift=0, idx_offset=0)
    satgen.generate_description(os.path.join(out, "description.txt"), MAX_GSL_LENGTH_M, MAX_ISL_LENGTH_M)
    satgen.generate_simple_gsl_interfaces_info(os.path.join(out, "gsl_interfaces_info.txt"), NUM_ORBS * NUM_SATS_PER_ORB,
                                               len(CITIES), 1, 1, 1, 1)


def dynamic_state(out: str, start_ns: int, end_ns: int, step_ns: int) -> str:
    """generate_dynamic_state over [start, end), as help_dynamic_state's
    one thread calls it; the fstate directory."""
    tles = satgen.read_tles(os.path.join(out, "tles.txt"))
    stations = satgen.read_ground_stations_extended(os.path.join(out, "ground_stations.txt"))
    n = len(tles["satellites"])
    isls = satgen.read_isls(os.path.join(out, "isls.txt"), n)
    interfaces = satgen.read_gsl_interfaces_info(os.path.join(out, "gsl_interfaces_info.txt"), n, len(stations))
    state = os.path.join(out, "dynamic_state")
    os.makedirs(state, exist_ok=True)
    # generate_dynamic_state prints its progress every tenth of the steps
    # (and divides by zero with fewer than ten): verbose logs below ten
    verbose = (end_ns - start_ns) // step_ns < 10
    satgen.generate_dynamic_state(state, tles["epoch"], end_ns, step_ns, start_ns, tles["satellites"], stations, isls,
                                  interfaces, MAX_GSL_LENGTH_M, MAX_ISL_LENGTH_M, ALGORITHM, verbose)
    return state


def trace(out: str, state: str, start_ns: int, end_ns: int, step_ns: int) -> None:
    """paths.csv: print_routes_and_rtt's loop for every pair."""
    tles = satgen.read_tles(os.path.join(out, "tles.txt"))
    satellites, epoch = tles["satellites"], tles["epoch"]
    stations = satgen.read_ground_stations_extended(os.path.join(out, "ground_stations.txt"))
    isls = satgen.read_isls(os.path.join(out, "isls.txt"), len(satellites))
    n = len(satellites)
    fstate: dict[tuple[int, int], int] = {}
    with open(os.path.join(out, "paths.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_ns", "src", "dst", "rtt_ns", "path"])
        for t in range(start_ns, end_ns, step_ns):
            with open(os.path.join(state, f"fstate_{t}.txt")) as fs:
                for line in fs:
                    current, destination, next_hop = (int(x) for x in line.split(",")[:3])
                    fstate[(current, destination)] = next_hop
            for a in range(len(stations)):
                for b in range(a + 1, len(stations)):
                    src, dst = n + a, n + b
                    there, back = satgen.get_path(src, dst, fstate), satgen.get_path(dst, src, fstate)
                    if there is None or back is None:
                        w.writerow([t, src, dst, "", "Unreachable"])
                        continue
                    length = sum(satgen.compute_path_length_without_graph(p, epoch, t, satellites, stations, isls,
                                                                         MAX_GSL_LENGTH_M, MAX_ISL_LENGTH_M)
                                 for p in (there, back))
                    w.writerow([t, src, dst, f"{length * 1e9 / SPEED_OF_LIGHT_M_PER_S:.3f}",
                                "-".join(str(x) for x in there)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--start", type=float, default=0.0, help="first step, seconds after the TLE epoch")
    ap.add_argument("--duration", type=float, required=True, help="seconds of steps")
    ap.add_argument("--step-ms", type=int, default=100)
    a = ap.parse_args(argv)
    step_ns = a.step_ms * 1_000_000
    start_ns = round(a.start * 1e9 / step_ns) * step_ns
    end_ns = start_ns + round(a.duration * 1e9 / step_ns) * step_ns
    os.makedirs(a.out, exist_ok=True)
    began = time.time()
    network(a.out)
    state = dynamic_state(a.out, start_ns, end_ns, step_ns)
    trace(a.out, state, start_ns, end_ns, step_ns)
    with open(os.path.join(a.out, "peer.json"), "w") as f:
        json.dump({"satgenpy": satgen.__version__, "start_ns": start_ns, "end_ns": end_ns, "step_ns": step_ns,
                   "max_gsl_length_m": MAX_GSL_LENGTH_M, "wall_s": time.time() - began}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
