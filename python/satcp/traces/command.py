"""``satcp trace import``: measurement files in, trace files and a measured
series out, and the scenario keys that use them printed.

Inputs are files or ``-`` (standard input), each read whole; the format is
recognised from the content (``detect``) unless ``--format`` names it:
iperf3 JSON (an object with ``start`` and ``intervals``, or
``--json-stream`` events), Starlink dish history (an object with
``dishGetHistory`` or the history arrays; a CSV whose header starts
``datetimestamp_utc,`` with ``pop_ping_drop_rate``), ping output (a ``PING``
header or per-probe lines). From several inputs, each file comes from the
first input that gives its quantity (capacity from a volume, delay from
RTTs, loss from losses), so iperf3 and ping run together make one set.

Written to ``--out DIR``: ``measured.csv`` (``measured.py``), and as the
inputs allow ``bw.txt`` (Mahimahi capacity), ``rate.csv`` (with
``--rate-csv``), ``delay.txt``, ``loss.txt`` (``writers.py``). The scenario
snippet goes to standard output, what was read and checked to standard
error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..messages import error

# The importers (NumPy, pandas) are imported when the command runs, so that
# building satcp's parser (every command, `satcp --help`) does not load them.

FORMATS = ("iperf3", "ping", "starlink")
DIRECTIONS = ("down", "up")  # starlink_dish.DIRECTIONS
OPPORTUNITY_BYTES = 1504  # writers.MAHIMAHI_OPPORTUNITY_BYTES
EXIT_INPUT = 2


def detect(text: str, source: str) -> str:
    from . import iperf3, ping, starlink_dish
    from .measurement import TraceInputError

    for name, mod in (("iperf3", iperf3), ("starlink", starlink_dish), ("ping", ping)):
        if mod.looks_like(text):
            return name
    first = next((l for l in text.splitlines() if l.strip()), "")
    raise TraceInputError(source, "line 1", f"format not recognised ({first[:60]!r}); expected iperf3 -J JSON, "
                                            "iputils ping output or Starlink get_history JSON / bulk_history CSV "
                                            "(or name it with --format)")


def load(path: str, fmt: str | None, args: argparse.Namespace):
    """The measurement in ``path`` (``-``: standard input)."""
    from . import iperf3, ping, starlink_dish
    from .measurement import TraceInputError

    source = "<stdin>" if path == "-" else path
    if path == "-":
        text = sys.stdin.read()
    else:
        p = Path(path)
        if not p.is_file():
            raise TraceInputError(source, "", "file not found")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise TraceInputError(source, f"byte {e.start}", "not UTF-8 text; expected a tool's text or JSON output") from None
    if not text.strip():
        raise TraceInputError(source, "", "empty input")
    fmt = fmt or detect(text, source)
    if fmt == "iperf3":
        return iperf3.read(text, source)
    if fmt == "ping":
        return ping.read(text, source, interval_s=args.ping_interval)
    return starlink_dish.read(text, source, direction=args.direction, last=args.last)


def _positive(kind: type):
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not v > 0:
            raise argparse.ArgumentTypeError(f"{text!r}: expected a number > 0")
        return v
    return parse


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a fraction in (0, 1), e.g. 0.5")
    return v


def add_parser(sub) -> None:
    t = sub.add_parser("trace", help="import measured data (iperf3, ping, Starlink dish) into traces, or synthesize "
                                  "a Starlink-like one",
                       description="Measured data into trace files for trace-driven links. See docs/traces.md.")
    tsub = t.add_subparsers(dest="trace_command", metavar="SUBCOMMAND")
    tsub.required = True
    i = tsub.add_parser(
        "import", help="iperf3 JSON, ping output or Starlink dish history into traces and a measured series",
        description="Read iperf3 -J JSON (its intervals; client or server side, -R, TCP or UDP, -P streams summed, "
                    "--omit intervals dropped), iputils ping output (with or without -D; -O's 'no answer yet' "
                    "lines) or a Starlink dish's get_history JSON / starlink-grpc-tools bulk_history CSV. Write to "
                    "DIR: measured.csv (t_s,goodput_bps,rtt_ms,loss per bin, for satcp report --measured), "
                    "bw.txt (Mahimahi delivery opportunities of 1,504 bytes, from the bytes measured), "
                    "delay.txt (one-way delay in ms per probe interval, RTT x --delay-split), loss.txt (a loss "
                    "probability per --loss-interval) and with --rate-csv rate.csv (t_seconds,rate); print the "
                    "scenario keys that use them. With several inputs, each file comes from the first input "
                    "that gives its quantity. See docs/traces.md.")
    i.add_argument("inputs", nargs="+", metavar="INPUT", help="measurement file, or - for standard input")
    i.add_argument("--out", metavar="DIR", required=True, help="directory for the files written")
    i.add_argument("--format", choices=FORMATS,
                   help="format of every INPUT (default: recognised from each one's content)")
    i.add_argument("--bin", type=_positive(float), default=1.0, metavar="SECONDS",
                   help="bin of the measured series (default 1)")
    i.add_argument("--delay-split", type=_fraction, default=0.5, metavar="FRACTION",
                   help="one-way delay = RTT x FRACTION (default 0.5: both directions equal)")
    i.add_argument("--ping-interval", type=_positive(float), metavar="SECONDS",
                   help="ping's -i (default: from -D timestamps, else 1 s as ping's default)")
    i.add_argument("--loss-interval", type=_positive(float), metavar="SECONDS",
                   help="interval of loss.txt (default: 1 s, or the measurement's interval if longer)")
    i.add_argument("--bytes-per-opportunity", type=_positive(float), default=OPPORTUNITY_BYTES,
                   metavar="BYTES", help="measured bytes one Mahimahi opportunity stands for (default 1504: "
                                         "measured bytes as link bytes; 1448 to carry the measured TCP goodput)")
    i.add_argument("--rate-csv", action="store_true", help="also write rate.csv (t_seconds,rate per interval)")
    i.add_argument("--direction", choices=DIRECTIONS, default="down",
                   help="Starlink: which throughput array is the volume (default down)")
    i.add_argument("--last", type=_positive(int), metavar="SAMPLES",
                   help="Starlink: only the newest SAMPLES seconds of the history")
    i.add_argument("--relative-to", metavar="DIR",
                   help="write the snippet's paths relative to DIR (where the scenario file is; default: "
                        "as written, relative to the current directory)")
    i.set_defaults(func=cmd_trace_import)

    y = tsub.add_parser(
        "synth", help="a SYNTHETIC Starlink-like trace (seeded): capacity, delay and loss files",
        description="Draw a synthetic Starlink-like trace from satcp's model (python/satcp/traces/synthetic.py, "
                    "its parameters and the measurements they come from in its header): capacity between 5 and "
                    "70 Mb/s moving within seconds, a one-way delay stepping at the reconfigurations 12, 27, 42 "
                    "and 57 s past each minute, 0.1-0.5%% random loss, short outages. Not a measurement. Write "
                    "to DIR: bw.txt (Mahimahi opportunities), delay.txt (one-way ms per 10 ms, 'down' in an "
                    "outage), loss.txt (a probability per second), synth.json (parameters, target mean, "
                    "reconfigurations, outages); print the scenario keys that use them. The same seed and "
                    "options give the same files. See docs/traces.md.")
    y.add_argument("--seed", type=int, required=True, metavar="N", help="seed of the trace's random draws")
    y.add_argument("--duration", type=_duration_s, default=120, metavar="DURATION",
                   help="trace length, whole seconds >= 15 (e.g. 120s, 10min; default 120s); the trace repeats")
    y.add_argument("--mean", type=_positive(float), default=25.0, metavar="MBPS",
                   help="target mean capacity in Mb/s, outages included (default 25; between 5 and 70)")
    y.add_argument("--out", metavar="DIR", required=True, help="directory for the files written")
    y.add_argument("--relative-to", metavar="DIR",
                   help="write the snippet's paths relative to DIR (default: as written)")
    y.set_defaults(func=cmd_trace_synth)


def _duration_s(text: str) -> int:
    t = text.strip()
    for suffix, scale in (("min", 60), ("ms", None), ("s", 1), ("", 1)):
        if t.endswith(suffix):
            number = t[: len(t) - len(suffix)] if suffix else t
            break
    try:
        v = float(number)
    except ValueError:
        v = None
    if scale is None or v is None or v * scale != int(v * scale) or v * scale < 15:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of seconds >= 15 (120s, 10min)")
    return int(v * scale)


def cmd_trace_synth(args: argparse.Namespace) -> int:
    from . import synthetic
    from .writers import Written, scenario_snippet

    try:
        params = synthetic.Params(duration_s=args.duration, mean_mbps=args.mean)
        params.check()
    except ValueError as e:
        error(f"--mean/--duration: {e}")
        return EXIT_INPUT
    out = Path(args.out)
    trace = synthetic.generate(args.seed, params)
    paths = synthetic.write(trace, out)
    print(f"wrote SYNTHETIC Starlink-like trace (seed {args.seed}, {args.duration} s) to {out}: target mean "
          f"{trace.target_mean_bps / 1e6:.3f} Mb/s, {len(trace.reconfigurations_s)} reconfigurations, "
          f"{len(trace.outages_s)} outages", file=sys.stderr)
    w = Written(capacity=paths["capacity"], delay=paths["delay"], delay_interval_s=synthetic.DELAY_INTERVAL_MS / 1e3,
                loss=paths["loss"], loss_interval_s=float(synthetic.LOSS_INTERVAL_S))
    rel = Path(args.relative_to) if args.relative_to else None
    # capacity and loss are the downlink's (a -> b: the gateway side as a),
    # the delay both directions'
    snippet = scenario_snippet(w, rel).replace("capacity_trace =", "capacity_trace_ab =")
    snippet = snippet.replace("loss_trace =", "loss_trace_ab =").replace(
        "(plain keys: both directions; _ab / _ba: one)", "(a: the gateway side, b: the dish; give rate_ba for the uplink)")
    sys.stdout.write(snippet)
    return 0


def cmd_trace_import(args: argparse.Namespace) -> int:
    import numpy as np

    from . import measured
    from .measurement import TraceInputError
    from .writers import (Written, loss_probabilities, loss_samples, one_way_delays, opportunities, rate_lines,
                          scenario_snippet, write_capacity, write_values)

    if sum(p == "-" for p in args.inputs) > 1:
        error("standard input (-) can be read once")
        return EXIT_INPUT
    try:
        inputs = [load(p, args.format, args) for p in args.inputs]
    except TraceInputError as e:
        error(str(e))
        return EXIT_INPUT
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = [f"read {m.source}: " + "; ".join(m.notes) for m in inputs]
    w = Written()
    try:
        df, origin = measured.series(inputs, args.bin)
        measured.write(out / "measured.csv", df)
        report.append(f"wrote {out / 'measured.csv'}: {len(df)} bins of {args.bin:g} s; "
                      + ", ".join(f"{c} from {s}" for c, s in origin.items()))

        vol = next((m for m in inputs if m.volume is not None), None)
        if vol is not None:
            stamps = opportunities(vol.volume, args.bytes_per_opportunity)
            w.capacity = out / "bw.txt"
            write_capacity(w.capacity, stamps)
            carried = len(stamps) * args.bytes_per_opportunity
            report.append(f"wrote {w.capacity}: {len(stamps)} opportunities over {stamps[-1]} ms "
                          f"= {carried:.0f} bytes at {args.bytes_per_opportunity:g} per opportunity; measured "
                          f"{vol.volume.total_bytes:.0f} bytes (difference {carried - vol.volume.total_bytes:+.0f})")
            if args.rate_csv:
                w.rate = out / "rate.csv"
                w.rate.write_text("\n".join(rate_lines(vol.volume, vol.source)) + "\n", encoding="ascii")
                report.append(f"wrote {w.rate}: {len(vol.volume.bytes)} rates")

        rtt = next((m for m in inputs if m.probes is not None and np.isfinite(m.probes.rtt_ms).any()), None)
        if rtt is not None:
            delays, held = one_way_delays(rtt.probes, args.delay_split)
            w.delay, w.delay_interval_s = out / "delay.txt", rtt.probes.interval_s
            write_values(w.delay, delays, 3)
            report.append(f"wrote {w.delay}: {len(delays)} one-way delays every {w.delay_interval_s:g} s "
                          f"(RTT x {args.delay_split:g}; {int(held.sum())} held over probes without reply)")

        lossy = next((m for m in inputs if loss_samples(m) is not None), None)
        if lossy is not None:
            step = loss_samples(lossy)[0]
            w.loss_interval_s = args.loss_interval or max(1.0, step)
            probs = loss_probabilities(lossy, w.loss_interval_s)
            w.loss = out / "loss.txt"
            write_values(w.loss, probs, 6)
            report.append(f"wrote {w.loss}: {len(probs)} loss probabilities every {w.loss_interval_s:g} s "
                          f"(mean {probs.mean():.4g})")
    except ValueError as e:
        error(str(e))
        return EXIT_INPUT
    print("\n".join(report), file=sys.stderr)
    rel = Path(args.relative_to) if args.relative_to else None
    sys.stdout.write(scenario_snippet(w, rel))
    return 0
