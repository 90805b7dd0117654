//! `[[links]]`: rate, delay, queue, errors (and where they act), framing
//! overhead and reordering per direction, the link's scheduled `changes`
//! and its `arq`.
//!
//! `changes` is an array of inline tables in increasing time, each with `at`
//! and at least one of `down` (true: the link goes down, false: it comes
//! back), `rate`/`rate_ab`/`rate_ba` and `delay`/`delay_ab`/`delay_ba` (the
//! same spellings as the link's own keys). Going down or up applies to both
//! directions. Two changes at the same instant are refused (write them as
//! one).
//!
//! Trace-driven directions (`net/link/service.rs`, `net/link/schedule.rs`,
//! `net/errors/loss_series.rs`; the file formats in
//! `net/link/trace_files.rs`), each key also in `_ab` / `_ba` forms:
//! `capacity_trace = "bw.txt"` (Mahimahi delivery opportunities) or
//! `rate_trace = "rate.csv"` (`t,rate` lines) in place of `rate`;
//! `delay_trace = { file, interval, order }` (or without `interval`, a
//! file of `t,delay` pairs) in place of `delay`;
//! `loss_trace = { file, interval }` in place of `errors`. A direction given
//! both a value and the trace that replaces it is refused, as is a change
//! of a value a trace gives, and `arq` on a traced link. Paths are relative
//! to the scenario file's directory.

use super::*;
const LINK_KEYS: &[&str] = &[
    "name", "a", "b", "rate", "rate_ab", "rate_ba", "delay", "delay_ab", "delay_ba", "queue", "queue_ab",
    "queue_ba", "errors", "errors_ab", "errors_ba", "overhead", "overhead_ab", "overhead_ba", "reorder",
    "reorder_ab", "reorder_ba", "changes", "arq", "loss_placement", "loss_placement_ab", "loss_placement_ba",
    "capacity_trace", "capacity_trace_ab", "capacity_trace_ba", "rate_trace", "rate_trace_ab", "rate_trace_ba",
    "delay_trace", "delay_trace_ab", "delay_trace_ba", "loss_trace", "loss_trace_ab", "loss_trace_ba",
];

const CHANGE_KEYS: &[&str] = &["at", "down", "rate", "rate_ab", "rate_ba", "delay", "delay_ab", "delay_ba"];

const CHANGES_EXPECTED: &str =
    "an array of inline tables in increasing time, e.g. [{ at = \"20s\", down = true }, { at = \"22s\", down = false }, { at = \"40s\", rate_ab = \"1Mbps\" }]";


/// `base` (both directions), `base_ab` and `base_ba`: the value for each
/// direction, the specific key winning. All present keys are validated.
fn per_direction<T: Clone>(
    t: &Tbl,
    base: &str,
    read: impl Fn(&Tbl, &str) -> Res<Option<T>>,
) -> Res<[(Option<T>, String); 2]> {
    let both = read(t, base)?;
    let mut out = Vec::with_capacity(2);
    for dir in ["ab", "ba"] {
        let key = format!("{}_{}", base, dir);
        out.push((read(t, &key)?.or_else(|| both.clone()), key));
    }
    let ba = out.pop().unwrap();
    let ab = out.pop().unwrap();
    Ok([ab, ba])
}

pub(super) fn parse_links(root: &Tbl, nodes: &[NodeCfg], base_dir: Option<&Path>) -> Res<Vec<LinkCfg>> {
    let arr = array(root, "links", "an array of at least one link table ([[links]])")?;
    let mut links = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, lv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("links.{}", i), lv, "a link table ([[links]])")?;
        t.only(LINK_KEYS)?;
        if let Some(name) = t.str("name")? {
            check_name(&t, "name", name)?;
            if names.contains(&name) {
                return Err(t.bad("name", "a name not used by another link"));
            }
            names.push(name);
        }
        let a = node_ref(&t, "a", nodes)?;
        let b = node_ref(&t, "b", nodes)?;
        if a == b {
            return Err(t.bad("b", format!("a node other than a (\"{}\"): a link joins two different nodes", nodes[a].name)));
        }
        let traced = parse_traces(&t, base_dir)?;
        let rate = traced.rate;
        let delay = traced.delay;
        let queue = per_direction(&t, "queue", parse_queue)?;
        let mut errors = per_direction(&t, "errors", |t, k| parse_errors(t, k, base_dir))?;
        for (d, loss) in traced.loss.into_iter().enumerate() {
            if let Some((cfg, key)) = loss {
                if errors[d].0.is_some() {
                    let written = written_key(&t, &errors[d].1);
                    return Err(t.bad(&key, format!("either {written} or {key} for a direction, not both (loss_trace is this direction's error model)")));
                }
                errors[d].0 = Some(ErrorCfg::LossSeries(cfg));
            }
        }
        let overhead = per_direction(&t, "overhead", |t, k| t.u32_in(k, 0, u32::MAX))?;
        let reorder = per_direction(&t, "reorder", parse_reorder)?;
        let loss_placement = per_direction(&t, "loss_placement", |t, k| {
            Ok(t.choice(k, &["link", "head"])?.map(|v| if v == "head" { LossPlacement::Head } else { LossPlacement::Link }))
        })?;
        for (d, (a, key)) in loss_placement.iter().enumerate() {
            if *a == Some(LossPlacement::Head) && queue[d].0.is_some_and(|q| q.holds_packets()) {
                return Err(t.bad(key, "\"link\" with the priority or class queue (the error model at the head is modelled before a FIFO's queue only)"));
            }
        }
        let dir = |d: usize| LinkDirCfg {
            rate_bps: rate[d],
            delay_ns: delay[d],
            queue: queue[d].0.unwrap_or(QueueCfg::DropTail { limit: QueueLimit::Unlimited }),
            errors: errors[d].0.clone().unwrap_or(ErrorCfg::None),
            overhead_bytes: overhead[d].0.unwrap_or(match traced.traces[d].as_ref().and_then(|t| t.capacity.as_ref()) {
                Some(CapacityTrace::Opportunities { .. }) => crate::net::link::service::TUN_HEADER_BYTES,
                _ => 0,
            }),
            reorder: reorder[d].0,
            loss_placement: loss_placement[d].0.unwrap_or_default(),
            traces: traced.traces[d].clone(),
        };
        for (d, (q, key)) in queue.iter().enumerate() {
            if let Some(QueueCfg::Red(r)) = q {
                check_red(&t, key, r, rate[d], delay[d])?;
            }
        }
        let changes = parse_changes(&t)?;
        let dirs = [dir(0), dir(1)];
        check_changes_against_traces(&t, &changes, &dirs)?;
        let arq = parse_arq(&t, &dirs)?;
        links.push(LinkCfg { a, b, dirs, changes, arq });
    }
    Ok(links)
}

/// `changes`: the link's scheduled changes, checked in order.
fn parse_changes(link: &Tbl) -> Res<Vec<LinkChange>> {
    let Some(v) = link.get("changes") else { return Ok(Vec::new()) };
    let Value::Array(items) = v else { return Err(type_error(&link.at("changes"), v, CHANGES_EXPECTED)) };
    let mut out: Vec<LinkChange> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut t = Tbl::new(format!("{}.{}", link.at("changes"), i), item, CHANGES_EXPECTED)?;
        t.only(CHANGE_KEYS)?;
        let at = t.require("at", t.duration("at")?, units::DURATION_ALLOWED)?;
        if let Some(prev) = out.last() {
            if at <= prev.at_ns {
                return Err(t.bad("at", format!("a time after the previous change's ({} ns): changes are listed in increasing time, one entry per instant", prev.at_ns)));
            }
        }
        let up = t.bool("down")?.map(|down| !down);
        let rate = per_direction(&t, "rate", |t, k| t.rate(k))?;
        let delay = per_direction(&t, "delay", |t, k| t.duration(k))?;
        let dirs = [0, 1].map(|d| DirChange { rate_bps: rate[d].0, delay_ns: delay[d].0 });
        if up.is_none() && dirs.iter().all(|c| c.rate_bps.is_none() && c.delay_ns.is_none()) {
            return Err(ScenarioError::new(
                t.path.clone(),
                show(item),
                "a change with at least one of down, rate, rate_ab, rate_ba, delay, delay_ab, delay_ba besides at",
            ));
        }
        out.push(LinkChange { at_ns: at, up, dirs });
    }
    Ok(out)
}

const QUEUE_EXPECTED: &str =
    "an inline table: { kind = \"droptail\", packets = N } or { kind = \"droptail\", bytes = \"64KB\" } or { kind = \"droptail\" } (unlimited) or { kind = \"red\", packets = N, ... } or { kind = \"priority\", packets = N } (dummy segments last and dropped first) or { kind = \"classes\", packets = N, other_packets = M, tcp_share = 0.8 } (TCP and other traffic in their own buffers with shares of the link) or { kind = \"dropfront\", packets = N } (the oldest waiting packet dropped for an arrival) or { kind = \"codel\", packets = N, target = \"5ms\", interval = \"100ms\" } (RFC 8289) or { kind = \"fq_codel\", packets = 10240, flows = 1024, quantum = 1514, target = \"5ms\", interval = \"100ms\" } (RFC 8290); red, codel and fq_codel take ecn = true (mark ECN-capable packets instead of dropping them)";

const RED_KEYS: &[&str] = &[
    "kind", "packets", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "mean_pktsize", "byte_mode",
    "target_delay", "ecn",
];

pub(super) fn parse_queue(link: &Tbl, key: &str) -> Res<Option<QueueCfg>> {
    let Some(mut t) = link.table(key, QUEUE_EXPECTED)? else { return Ok(None) };
    t.allowed = &["kind"];
    let kind = t.choice("kind", &["droptail", "red", "priority", "classes", "dropfront", "codel", "fq_codel"])?;
    if kind == Some("fq_codel") {
        t.only(&["kind", "packets", "flows", "quantum", "target", "interval", "ecn"])?;
        let limit_packets = t.u32_in("packets", 1, u32::MAX)?.unwrap_or(10_240);
        let flows = t.u32_in("flows", 1, 65_536)?.unwrap_or(1024);
        let quantum = t.u32_in("quantum", 1, u32::MAX)?.unwrap_or(1514);
        let (target_ns, interval_ns) = codel_times(&t)?;
        let ecn = t.bool("ecn")?.unwrap_or(false);
        return Ok(Some(QueueCfg::FqCoDel { limit_packets, flows, quantum, target_ns, interval_ns, ecn }));
    }
    if kind == Some("codel") {
        t.only(&["kind", "packets", "bytes", "target", "interval", "ecn"])?;
        let limit = queue_limit(link, key, &t)?.unwrap_or(QueueLimit::Packets(CODEL_DEFAULT_PACKETS));
        let (target_ns, interval_ns) = codel_times(&t)?;
        let ecn = t.bool("ecn")?.unwrap_or(false);
        return Ok(Some(QueueCfg::CoDel { limit, target_ns, interval_ns, ecn }));
    }

    if kind == Some("red") {
        t.only(RED_KEYS)?;
        return Ok(Some(QueueCfg::Red(parse_red(&t)?)));
    }
    if kind == Some("classes") {
        t.only(&["kind", "packets", "other_packets", "tcp_share"])?;
        let lim = |k: &str| -> Res<QueueLimit> { Ok(t.u32_in(k, 1, u32::MAX)?.map_or(QueueLimit::Unlimited, QueueLimit::Packets)) };
        let tcp_share = t.number("tcp_share", |x| x > 0.0 && x < 1.0, "a share of the link in (0, 1), e.g. 0.8")?.unwrap_or(0.5);
        return Ok(Some(QueueCfg::Classes { tcp: lim("packets")?, other: lim("other_packets")?, tcp_share }));
    }
    t.only(if kind == Some("priority") { &["kind", "packets", "bytes", "dummy_drop"] } else { &["kind", "packets", "bytes"] })?;
    let limit = queue_limit(link, key, &t)?.unwrap_or(QueueLimit::Unlimited);
    if kind == Some("dropfront") {
        return Ok(Some(QueueCfg::DropFront { limit }));
    }
    if kind == Some("priority") {
        let low_drop = match t.choice("dummy_drop", &["full", "queued"])? {
            Some("queued") => LowDrop::Queued,
            _ => LowDrop::Full,
        };
        return Ok(Some(QueueCfg::Priority { limit, low_drop }));
    }
    Ok(Some(QueueCfg::DropTail { limit }))
}

/// CoDel's `target` and `interval` (defaults 5 ms and 100 ms, Linux's).
fn codel_times(t: &Tbl) -> Res<(u64, u64)> {
    let target_ns = t.duration("target")?.unwrap_or(5_000_000);
    let interval_ns = t.duration("interval")?.unwrap_or(100_000_000);
    if target_ns == 0 {
        return Err(t.bad("target", "a positive sojourn time target, e.g. \"5ms\""));
    }
    if interval_ns < target_ns {
        return Err(t.bad("interval", format!("an interval at least the target ({target_ns} ns), e.g. \"100ms\"")));
    }
    Ok((target_ns, interval_ns))
}

/// CoDel's default limit: Linux `sch_codel`'s 1000 packets.
const CODEL_DEFAULT_PACKETS: u32 = 1000;

/// A queue's `packets` or `bytes` limit (None: neither given).
fn queue_limit(link: &Tbl, key: &str, t: &Tbl) -> Res<Option<QueueLimit>> {
    let packets = t.u32_in("packets", 1, u32::MAX)?;
    let bytes = t.size_pos("bytes")?;
    Ok(match (packets, bytes) {
        (Some(_), Some(_)) => return Err(link.bad(key, "a queue limit in packets or in bytes, not both")),
        (Some(p), None) => Some(QueueLimit::Packets(p)),
        (None, Some(b)) => Some(QueueLimit::Bytes(b)),
        (None, None) => None,
    })
}

const ERRORS_EXPECTED: &str =
    "an inline table: { per = x } or { ber = x } or { ber = x, bits = N }, with x in [0, 1), or { model = \"dsn_burst\" | \"gilbert_elliott\" | \"trace\", ... }";

pub(super) fn parse_errors(link: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<ErrorCfg>> {
    let Some(mut t) = link.table(key, ERRORS_EXPECTED)? else { return Ok(None) };
    if t.map.contains_key("model") {
        t.allowed = &["model"];
        let model = t.choice("model", &["dsn_burst", "gilbert_elliott", "trace"])?;
        return Ok(Some(match model {
            Some("dsn_burst") => {
                t.only(DSN_KEYS)?;
                ErrorCfg::DsnBurst(parse_dsn_burst(&t)?)
            }
            Some("gilbert_elliott") => {
                t.only(GE_KEYS)?;
                ErrorCfg::GilbertElliott(parse_gilbert_elliott(&t)?)
            }
            _ => {
                t.only(&["model", "file", "clock", "burst_delay", "burst_delay_order"])?;
                ErrorCfg::Trace(parse_error_trace(&t, base_dir)?)
            }
        }));
    }
    t.only(&["per", "ber", "bits"])?;
    let per = t.prob("per")?;
    let ber = t.prob("ber")?;
    let bits = t.u32_in("bits", 1, u32::MAX)?;
    match (per, ber, bits) {
        (Some(_), Some(_), _) => Err(link.bad(key, format!("either per or ber, not both: {}", ERRORS_EXPECTED))),
        (Some(_), None, Some(_)) => Err(t.bad("bits", "bits only goes with ber (a fixed number of bits per packet)")),
        (Some(p), None, None) => Ok(Some(ErrorCfg::Per(p))),
        (None, Some(b), fixed_bits) => Ok(Some(ErrorCfg::Ber { ber: b, fixed_bits })),
        (None, None, _) => Err(link.bad(key, ERRORS_EXPECTED)),
    }
}

fn parse_red(t: &Tbl) -> Res<RedCfg> {
    use crate::net::queue::red::{DEFAULT_MAX_P, DEFAULT_MEAN_PKTSIZE, DEFAULT_TARGET_DELAY_NS};
    let th = |k: &str| t.number(k, |x| x > 0.0, "a number of packets > 0 (leave out for ns-2's automatic setting)");
    Ok(RedCfg {
        limit_packets: t.u32_in("packets", 1, u32::MAX)?,
        min_th: th("min_th")?,
        max_th: th("max_th")?,
        max_p: t.number("max_p", |x| x > 0.0 && x <= 1.0, "a number in (0, 1]")?.unwrap_or(DEFAULT_MAX_P),
        w_q: t.number("w_q", |x| x > 0.0 && x <= 1.0, "a number in (0, 1] (leave out for ns-2's automatic setting)")?,
        gentle: t.bool("gentle")?.unwrap_or(true),
        wait: t.bool("wait")?.unwrap_or(true),
        mean_pktsize: t.u32_in("mean_pktsize", 1, u32::MAX)?.unwrap_or(DEFAULT_MEAN_PKTSIZE),
        byte_mode: t.bool("byte_mode")?.unwrap_or(false),
        target_delay_ns: t.duration_pos("target_delay")?.unwrap_or(DEFAULT_TARGET_DELAY_NS),
        ecn: t.bool("ecn")?.unwrap_or(false),
    })
}

/// min_th < max_th once the automatic values are worked out for this
/// direction's rate and delay.
fn check_red(link: &Tbl, key: &str, r: &RedCfg, rate: u64, delay: u64) -> Res<()> {
    let p = crate::net::queue::red::RedParams::resolve(r, rate, delay);
    if p.min_th < p.max_th {
        return Ok(());
    }
    let base = key.trim_end_matches("_ab").trim_end_matches("_ba");
    let written = if link.map.contains_key(key) { key } else { base };
    let which = if r.max_th.is_some() { "max_th" } else { "min_th" };
    Err(ScenarioError::new(
        format!("{}.{}", link.at(written), which),
        format!("{}", if which == "max_th" { p.max_th } else { p.min_th }),
        format!("min_th < max_th (here min_th = {}, max_th = {}, after ns-2's automatic settings)", p.min_th, p.max_th),
    ))
}

const DSN_KEYS: &[&str] = &[
    "model", "burst_mean", "burst_min", "burst_max", "gap_mean", "gap_min", "gap_max", "bounding", "gap_law", "gap_from",
    "per_burst", "per_good", "clock", "burst_delay", "burst_delay_order",
];

fn parse_clock(t: &Tbl) -> Res<ErrorClock> {
    Ok(match t.choice("clock", &["tx_start", "arrival"])? {
        Some("arrival") => ErrorClock::Arrival,
        _ => ErrorClock::TxStart,
    })
}

/// `<name>_mean`, `<name>_min`, `<name>_max` with defaults (ns).
fn bounded_exp(t: &Tbl, name: &str, def: (u64, u64, u64), bounding: Bounding) -> Res<BoundedExp> {
    let k = |s: &str| format!("{}_{}", name, s);
    let mean_ns = t.duration_pos(&k("mean"))?.unwrap_or(def.0);
    let min_ns = t.duration(&k("min"))?.unwrap_or(def.1);
    let max_ns = t.duration_pos(&k("max"))?.unwrap_or(def.2);
    if min_ns > max_ns {
        let key = if t.map.contains_key(&k("max")) { k("max") } else { k("min") };
        return Err(t.bad(&key, format!("{} <= {} ({} ns vs {} ns)", k("min"), k("max"), min_ns, max_ns)));
    }
    Ok(BoundedExp { mean_ns, min_ns, max_ns, bounding })
}

fn parse_dsn_burst(t: &Tbl) -> Res<DsnBurstCfg> {
    let bounding = match t.choice("bounding", &["truncate", "clamp"])? {
        Some("clamp") => Bounding::Clamp,
        _ => Bounding::Truncate,
    };
    let burst = bounded_exp(t, "burst", (300_000_000, 100_000_000, 500_000_000), bounding)?;
    let gap_bounding = match t.choice("gap_law", &["exponential", "uniform"])? {
        Some("uniform") => Bounding::Uniform,
        _ => bounding,
    };
    let gap = bounded_exp(t, "gap", (5_500_000_000, 1_000_000_000, 10_000_000_000), gap_bounding)?;
    let gap_from = match t.choice("gap_from", &["start", "end"])? {
        Some("end") => GapFrom::End,
        _ => GapFrom::Start,
    };
    if gap_from == GapFrom::Start && gap.min_ns < burst.max_ns {
        return Err(t.bad(
            "gap_min",
            format!(
                "a duration >= burst_max ({} ns) when gaps run start to start (bursts would overlap), or set gap_from = \"end\"",
                burst.max_ns
            ),
        ));
    }
    if gap.max_ns == 0 {
        return Err(t.bad("gap_max", "a duration > 0"));
    }
    let (burst_delay_ns, burst_delay_order) = parse_burst_delay(t)?;
    Ok(DsnBurstCfg {
        burst,
        gap,
        gap_from,
        per_burst: t.prob_closed("per_burst")?.unwrap_or(1.0),
        per_good: t.prob_closed("per_good")?.unwrap_or(0.0),
        clock: parse_clock(t)?,
        burst_delay_ns,
        burst_delay_order,
    })
}

/// The S-LACP approximation's keys of a burst model: `burst_delay` (0 by
/// default) and `burst_delay_order`.
fn parse_burst_delay(t: &Tbl) -> Res<(u64, DelayOrder)> {
    let order = match t.choice("burst_delay_order", &["in_order", "overtake"])? {
        Some("overtake") => DelayOrder::Overtake,
        _ => DelayOrder::InOrder,
    };
    Ok((t.duration("burst_delay")?.unwrap_or(0), order))
}

const GE_KEYS: &[&str] =
    &["model", "p_gb", "p_bg", "mean_good", "mean_bad", "per_good", "per_bad", "initial", "clock"];

fn parse_gilbert_elliott(t: &Tbl) -> Res<GilbertElliottCfg> {
    let p = |k: &str| t.number(k, |x| x > 0.0 && x <= 1.0, "a transition probability in (0, 1]");
    let (p_gb, p_bg) = (p("p_gb")?, p("p_bg")?);
    let (mg, mb) = (t.duration_pos("mean_good")?, t.duration_pos("mean_bad")?);
    const BOTH: &str = "either p_gb and p_bg (per-packet transitions) or mean_good and mean_bad (time-driven), not both";
    let transitions = match (p_gb, p_bg, mg, mb) {
        (Some(p_gb), Some(p_bg), None, None) => GeTransitions::PerPacket { p_gb, p_bg },
        (None, None, Some(mean_good_ns), Some(mean_bad_ns)) => GeTransitions::Time { mean_good_ns, mean_bad_ns },
        (Some(_), Some(_), _, _) => return Err(t.bad(if mg.is_some() { "mean_good" } else { "mean_bad" }, BOTH)),
        _ => {
            let missing_key = [("p_gb", p_gb.is_none() && p_bg.is_some()), ("p_bg", p_bg.is_none() && p_gb.is_some()),
                ("mean_good", mg.is_none() && mb.is_some()), ("mean_bad", mb.is_none() && mg.is_some())]
                .iter()
                .find(|(_, m)| *m)
                .map_or("p_gb", |(k, _)| *k);
            return Err(missing(&t.at(missing_key), BOTH));
        }
    };
    let initial = match t.choice("initial", &["good", "bad", "stationary"])? {
        Some("bad") => GeInitial::Bad,
        Some("stationary") => GeInitial::Stationary,
        _ => GeInitial::Good,
    };
    Ok(GilbertElliottCfg {
        transitions,
        per_good: t.prob_closed("per_good")?.unwrap_or(0.0),
        per_bad: t.prob_closed("per_bad")?.unwrap_or(1.0),
        initial,
        clock: parse_clock(t)?,
    })
}

fn parse_error_trace(t: &Tbl, base_dir: Option<&Path>) -> Res<ErrorTraceCfg> {
    const FILE: &str = "a path to a CSV file of error intervals start,end[,per] in seconds";
    let file = t.require("file", t.str("file")?, FILE)?;
    let path = Path::new(file);
    let full = match base_dir {
        Some(b) if path.is_relative() => b.join(path),
        _ => path.to_path_buf(),
    };
    let text = std::fs::read_to_string(&full)
        .map_err(|e| t.bad("file", format!("{} (cannot read {}: {})", FILE, full.display(), e)))?;
    let intervals = crate::net::errors::trace::parse_intervals(&text).map_err(|e| t.bad("file", format!("{}: {}", full.display(), e)))?;
    let (burst_delay_ns, burst_delay_order) = parse_burst_delay(t)?;
    Ok(ErrorTraceCfg { file: file.to_string(), intervals: intervals.into(), clock: parse_clock(t)?, burst_delay_ns, burst_delay_order })
}

const ARQ_KEYS: &[&str] =
    &["persistence", "window", "timeout", "reseq_timeout", "header", "ack_size", "ack_blocks", "bypass", "fec"];
const ARQ_EXPECTED: &str = "an inline table, e.g. { persistence = 3, window = 1024, fec = { n = 255, k = 223 }, bypass = [\"udp\"] } ({} for the defaults)";
const FEC_EXPECTED: &str = "an inline table { n = 255, k = 223 } (a Reed-Solomon code over bytes, k < n <= 255), with repair = p in [0, 1] on error models other than ber";

/// `arq`: the link-layer selective-repeat ARQ on both directions
/// (`net/link/arq/selective_repeat.rs`); it needs a FIFO hop, so the priority queue, reordering and the S-LACP approximation's burst delay are refused
/// with it.
fn parse_arq(link: &Tbl, dirs: &[LinkDirCfg; 2]) -> Res<Option<ArqCfg>> {
    use crate::net::link::arq::selective_repeat::*;
    use crate::net::link::arq::BYPASS_NAMES;
    let Some(mut t) = link.table("arq", ARQ_EXPECTED)? else { return Ok(None) };
    t.only(ARQ_KEYS)?;
    for (d, key) in [(0, "ab"), (1, "ba")] {
        let c = &dirs[d];
        if c.traces.is_some() || matches!(c.errors, ErrorCfg::LossSeries(_)) {
            return Err(link.bad("arq", format!("a link without traces on its {key} direction: the ARQ's air times are computed from a fixed rate and delay")));
        }
        if c.queue.holds_packets() {
            return Err(link.bad("arq", format!("a link whose queue_{key} is drop-tail or RED: the ARQ serves its IP queue in order (the priority and class queues are not combined with it)")));
        }
        if c.loss_placement == LossPlacement::Head {
            return Err(link.bad("arq", format!("a link without loss_placement_{key} = \"head\": the ARQ's frames meet errors on the link")));
        }
        if c.reorder.is_some() {
            return Err(link.bad("arq", format!("a link without reorder_{key}: the ARQ's hop is a FIFO and it delivers in order")));
        }
        let delay = match &c.errors {
            ErrorCfg::DsnBurst(b) => b.burst_delay_ns,
            ErrorCfg::Trace(tr) => tr.burst_delay_ns,
            _ => 0,
        };
        if delay > 0 {
            return Err(link.bad("arq", format!("a link whose errors_{key} has no burst_delay: burst_delay approximates an ARQ's recovery, and the real ARQ replaces it (set burst_delay = 0)")));
        }
    }
    let fec = match t.table("fec", FEC_EXPECTED)? {
        None => None,
        Some(mut f) => {
            f.only(&["n", "k", "repair"])?;
            let n = f.require("n", f.u32_in("n", 2, 255)?, FEC_EXPECTED)?;
            let k = f.require("k", f.u32_in("k", 1, 254)?, FEC_EXPECTED)?;
            if k >= n {
                return Err(f.bad("k", format!("an integer in 1..{n} (fewer data bytes than the codeword's n = {n})")));
            }
            let repair = f.prob_closed("repair")?;
            if repair.is_none() {
                for (d, key) in [(0, "ab"), (1, "ba")] {
                    if !matches!(dirs[d].errors, ErrorCfg::None | ErrorCfg::Ber { .. }) {
                        return Err(missing(&f.at("repair"), &format!("a number in [0, 1]: the fraction of corrupted frames FEC repairs (errors_{key} is not independent bit errors, so the code's gain cannot be computed)")));
                    }
                }
            }
            Some(crate::net::link::arq::fec::FecCfg { n, k, repair })
        }
    };
    let mut bypass = 0u8;
    if let Some(v) = t.get("bypass") {
        let names: Vec<&str> = BYPASS_NAMES.iter().map(|b| b.0).collect();
        let expected = format!("an array of classes sent without ARQ, each one of {}", quoted_list(&names));
        let Value::Array(items) = v else { return Err(type_error(&t.at("bypass"), v, &expected)) };
        for item in items {
            let bit = item.as_str().and_then(|s| BYPASS_NAMES.iter().find(|b| b.0 == s)).map(|b| b.1);
            bypass |= bit.ok_or_else(|| t.bad("bypass", expected.clone()))?;
        }
    }
    Ok(Some(ArqCfg {
        persistence: t.u32_in("persistence", 0, 255)?.unwrap_or(DEFAULT_PERSISTENCE),
        window: t.u32_in("window", 1, 1 << 20)?.unwrap_or(DEFAULT_WINDOW),
        timeout_ns: t.duration_pos("timeout")?,
        reseq_timeout_ns: t.duration_pos("reseq_timeout")?,
        header_bytes: t.u32_in("header", 0, 1024)?.unwrap_or(DEFAULT_HEADER_BYTES),
        ack_bytes: t.u32_in("ack_size", 1, 65_535)?.unwrap_or(DEFAULT_ACK_BYTES),
        ack_blocks: t.u32_in("ack_blocks", 0, MAX_ACK_BLOCKS as u32)?.unwrap_or(DEFAULT_ACK_BLOCKS),
        bypass,
        fec,
    }))
}

const REORDER_EXPECTED: &str = "an inline table { probability = p, extra_delay = \"20ms\" } with p in (0, 1]";

fn parse_reorder(link: &Tbl, key: &str) -> Res<Option<ReorderCfg>> {
    let Some(mut t) = link.table(key, REORDER_EXPECTED)? else { return Ok(None) };
    t.only(&["probability", "extra_delay"])?;
    let probability = t.number("probability", |x| x > 0.0 && x <= 1.0, "a number in (0, 1]")?;
    let extra = t.duration_pos("extra_delay")?;
    Ok(Some(ReorderCfg {
        probability: t.require("probability", probability, REORDER_EXPECTED)?,
        extra_delay_ns: t.require("extra_delay", extra, REORDER_EXPECTED)?,
    }))
}


/// What the trace keys of a link give each direction.
struct Traced {
    /// The rate (a trace's mean rate, or its first) and the delay (a
    /// series' first) each direction's configuration holds.
    rate: [u64; 2],
    delay: [u64; 2],
    traces: [Option<Box<DirTraces>>; 2],
    /// The loss series and the key it was read from.
    loss: [Option<(LossTraceCfg, String)>; 2],
}

/// The key a value of a direction was written with: `key` (`rate_ab`) or
/// its plain form (`rate`).
fn written_key(t: &Tbl, key: &str) -> String {
    if t.map.contains_key(key) {
        key.to_string()
    } else {
        key.trim_end_matches("_ab").trim_end_matches("_ba").to_string()
    }
}

/// The text of a trace file named by `file` under `key` (relative to the
/// scenario's directory), checked with `parse`; errors name the file.
fn read_trace<T>(t: &Tbl, key: &str, file: &str, base_dir: Option<&Path>, what: &str, parse: impl Fn(&str) -> Result<T, String>) -> Res<T> {
    let path = Path::new(file);
    let full = match base_dir {
        Some(b) if path.is_relative() => b.join(path),
        _ => path.to_path_buf(),
    };
    let text = std::fs::read_to_string(&full).map_err(|e| t.bad(key, format!("{what} (cannot read {}: {e})", full.display())))?;
    parse(&text).map_err(|e| t.bad(key, format!("{what}; in {}, {e}", full.display())))
}

const OPPORTUNITIES_FILE: &str = "a path to a Mahimahi trace: one whole millisecond per line, non-decreasing, each an opportunity for 1504 bytes";
const RATES_FILE: &str = "a path to a CSV file of t,rate lines (t in seconds from 0, increasing; rate as the rate key, e.g. 12Mbps)";
const DELAY_TRACE_EXPECTED: &str = "an inline table { file = \"delay.txt\", interval = \"10ms\" } (a one-way delay in ms per line, or down) or { file = \"delay.csv\" } (t,delay pairs), with order = \"overtake\" (default) or \"in_order\"";
const DELAYS_FILE: &str = "a path to a file of one-way delays, one per interval: milliseconds >= 0, or down";
const DELAY_PAIRS_FILE: &str = "a path to a CSV file of t,delay lines (no interval given): t in seconds from 0, increasing; delay in milliseconds >= 0, or down";
const LOSS_TRACE_EXPECTED: &str = "an inline table { file = \"loss.txt\", interval = \"1s\" } (a loss probability in [0, 1] per line)";
const PROBABILITIES_FILE: &str = "a path to a file of loss probabilities in [0, 1], one per interval";

fn parse_capacity_trace(t: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<CapacityTrace>> {
    let Some(file) = t.str(key)? else { return Ok(None) };
    let ms = read_trace(t, key, file, base_dir, OPPORTUNITIES_FILE, crate::net::link::trace_files::parse_opportunities)?;
    Ok(Some(CapacityTrace::Opportunities { file: file.to_string(), ms: ms.into() }))
}

fn parse_rate_trace(t: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<CapacityTrace>> {
    let Some(file) = t.str(key)? else { return Ok(None) };
    let steps = read_trace(t, key, file, base_dir, RATES_FILE, crate::net::link::trace_files::parse_rates)?;
    Ok(Some(CapacityTrace::Rates { file: file.to_string(), steps: steps.into() }))
}

fn parse_delay_trace(link: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<DelayTraceCfg>> {
    let Some(mut t) = link.table(key, DELAY_TRACE_EXPECTED)? else { return Ok(None) };
    t.only(&["file", "interval", "order"])?;
    let file = t.require("file", t.str("file")?, DELAYS_FILE)?;
    let order = match t.choice("order", &["overtake", "in_order"])? {
        Some("in_order") => DelayOrder::InOrder,
        _ => DelayOrder::Overtake,
    };
    let Some(interval_ns) = t.duration_pos("interval")? else {
        // no interval: t,delay pairs
        let pairs = read_trace(&t, "file", file, base_dir, DELAY_PAIRS_FILE, crate::net::link::trace_files::parse_delay_pairs)?;
        let from_ns = Some(pairs.iter().map(|p| p.0).collect());
        return Ok(Some(DelayTraceCfg { file: file.to_string(), interval_ns: 0, from_ns, delays_ns: pairs.iter().map(|p| p.1).collect(), order }));
    };
    let delays = read_trace(&t, "file", file, base_dir, DELAYS_FILE, crate::net::link::trace_files::parse_delays)?;
    Ok(Some(DelayTraceCfg { file: file.to_string(), interval_ns, from_ns: None, delays_ns: delays.into(), order }))
}

fn parse_loss_trace(link: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<LossTraceCfg>> {
    let Some(mut t) = link.table(key, LOSS_TRACE_EXPECTED)? else { return Ok(None) };
    t.only(&["file", "interval"])?;
    let file = t.require("file", t.str("file")?, PROBABILITIES_FILE)?;
    let interval_ns = t.require("interval", t.duration_pos("interval")?, &positive(units::DURATION_ALLOWED))?;
    let probabilities = read_trace(&t, "file", file, base_dir, PROBABILITIES_FILE, crate::net::link::trace_files::parse_probabilities)?;
    Ok(Some(LossTraceCfg { file: file.to_string(), interval_ns, probabilities: probabilities.into() }))
}

/// Each direction's rate or capacity trace, delay or delay series, and
/// loss series: exactly one of `rate`, `capacity_trace`, `rate_trace`, and
/// one of `delay`, `delay_trace`.
fn parse_traces(t: &Tbl, base_dir: Option<&Path>) -> Res<Traced> {
    let rate = per_direction(t, "rate", |t, k| t.rate(k))?;
    let opportunities = per_direction(t, "capacity_trace", |t, k| parse_capacity_trace(t, k, base_dir))?;
    let rates = per_direction(t, "rate_trace", |t, k| parse_rate_trace(t, k, base_dir))?;
    let delay = per_direction(t, "delay", |t, k| t.duration(k))?;
    let delay_trace = per_direction(t, "delay_trace", |t, k| parse_delay_trace(t, k, base_dir))?;
    let loss = per_direction(t, "loss_trace", |t, k| parse_loss_trace(t, k, base_dir))?;
    let mut out = Traced { rate: [0; 2], delay: [0; 2], traces: [None, None], loss: [None, None] };
    for d in 0..2 {
        let given: Vec<&String> =
            [(rate[d].0.is_some(), &rate[d].1), (opportunities[d].0.is_some(), &opportunities[d].1), (rates[d].0.is_some(), &rates[d].1)]
                .into_iter()
                .filter_map(|(set, k)| set.then_some(k))
                .collect();
        if given.len() > 1 {
            let keys: Vec<String> = given.iter().map(|k| written_key(t, k)).collect();
            return Err(t.bad(&keys[1], format!("one of rate, capacity_trace, rate_trace for a direction, not both {} and {} (a trace replaces the rate)", keys[0], keys[1])));
        }
        let capacity = opportunities[d].0.clone().or_else(|| rates[d].0.clone());
        out.rate[d] = match (&rate[d].0, &capacity) {
            (Some(r), _) => *r,
            (None, Some(CapacityTrace::Opportunities { ms, .. })) => crate::net::link::service::Opportunities::mean_rate_bps(ms),
            (None, Some(CapacityTrace::Rates { steps, .. })) => steps[0].1,
            (None, None) => {
                return Err(missing(
                    &t.at(&rate[d].1),
                    &format!("{} (set rate for both directions or {} for this one), or capacity_trace / rate_trace", units::RATE_ALLOWED, rate[d].1),
                ))
            }
        };
        out.traces[d] = capacity.map(|c| Box::new(DirTraces { capacity: Some(c), delay: None }));
    }
    // the delays after both rates (a scenario missing both names the rate)
    for d in 0..2 {
        if let (Some(_), Some(_)) = (&delay[d].0, &delay_trace[d].0) {
            return Err(t.bad(&written_key(t, &delay_trace[d].1), format!("either {} or {} for a direction, not both (a delay series replaces the delay)", written_key(t, &delay[d].1), written_key(t, &delay_trace[d].1))));
        }
        out.delay[d] = match (&delay[d].0, &delay_trace[d].0) {
            (Some(v), _) => *v,
            (None, Some(s)) => s.delays_ns.iter().flatten().next().copied().expect("checked: a series with a delay"),
            (None, None) => {
                return Err(missing(
                    &t.at(&delay[d].1),
                    &format!("{} (set delay for both directions or {} for this one), or delay_trace", units::DURATION_ALLOWED, delay[d].1),
                ))
            }
        };
        if let Some(series) = &delay_trace[d].0 {
            out.traces[d].get_or_insert_with(|| Box::new(DirTraces { capacity: None, delay: None })).delay = Some(series.clone());
        }
        out.loss[d] = loss[d].0.clone().map(|l| (l, written_key(t, &loss[d].1)));
    }
    Ok(out)
}

/// A change may not set a value a trace gives.
fn check_changes_against_traces(link: &Tbl, changes: &[LinkChange], dirs: &[LinkDirCfg; 2]) -> Res<()> {
    for (i, ch) in changes.iter().enumerate() {
        for (d, side) in [(0, "ab"), (1, "ba")] {
            let Some(tr) = &dirs[d].traces else { continue };
            let clash = if tr.capacity.is_some() && ch.dirs[d].rate_bps.is_some() {
                Some(("rate", "capacity_trace or rate_trace"))
            } else if tr.delay.is_some() && ch.dirs[d].delay_ns.is_some() {
                Some(("delay", "delay_trace"))
            } else {
                None
            };
            if let Some((what, trace)) = clash {
                return Err(ScenarioError::new(
                    format!("{}.{}", link.at("changes"), i),
                    format!("a change of the {side} direction's {what}"),
                    format!("changes that leave the {what} of a direction with a {trace} alone (the trace gives it; down / up changes are allowed)"),
                ));
            }
        }
    }
    Ok(())
}
