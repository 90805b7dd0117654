//! Engine benchmark: events per second and wall time on fixed scenarios.
//!
//! `satcp-bench [--repeat N] [--json]`. Each scenario runs N times (default
//! 3); the best wall time is reported (the least disturbed by the machine).
//! This is a benchmark, not a test: it asserts nothing about speed.
//! `satcp-bench --print-scenario NAME` prints a scenario's TOML, the one
//! source the ns-3 side-by-side (bench/ns3) runs satcp-run on. Last, the
//! link-layer ARQ's cost per frame against a plain link, and a
//! trace-driven link's cost per packet against a fixed-rate one
//! (`geo-10-flows-traced`, the twin of `geo-10-flows`).
//! Then QUIC's cost per datagram against TCP's per segment (`--only
//! quic-cost` alone; with TLS too when built `--features tls`).
//! `satcp-bench --only NAME` runs one scenario (and not the ARQ cost) and
//! prints the process's peak resident memory after it (VmHWM): `make
//! bench` runs the XFWA OC3 scenario so, alone in its process, and the
//! constellation scenarios (Starlink shell, 100 stations, 1000 flows, 10 s
//! and 100 s: minutes), which run only so.

use std::time::Instant;

use satcp_core::scenario::parse_toml;

struct Bench {
    name: &'static str,
    what: &'static str,
    toml: String,
    /// Minutes to run: only with `--only` (`make bench` runs each alone).
    heavy: bool,
}

fn geo_10_flows() -> String {
    let s = String::from(
        r#"[run]
seed = 1
stop = "1000s"
[nodes]
server = {}
gateway = {}
client = {}
[[links]]
a = "server"
b = "gateway"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "gateway"
b = "client"
rate_ab = "10Mbps"
rate_ba = "2Mbps"
delay = "250ms"
queue_ab = { kind = "droptail", packets = 100 }
errors_ab = { ber = 1e-8 }
"#,
    );
    s + &bulk_flows(10, ("server", "client"), |_| "sack", "1MiB", 100)
}

/// geo-10-flows with the GEO link's forward direction driven by traces,
/// its trace-driven twin: a Mahimahi trace of 5 opportunities every 6 ms
/// (10.03 Mb/s, for 10 Mb/s) and a delay series of 10-ms intervals, 250 ms
/// for 15 s then 252 ms for 15 s, repeated (a reconfiguration every 15 s;
/// packets overtake at each fall). The files are written to a temporary
/// directory and named by absolute path (`--print-scenario` shows them).
fn geo_10_flows_traced() -> String {
    let dir = std::env::temp_dir().join(format!("satcp-bench-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory for the trace files");
    let (bw, delay) = (dir.join("bw.txt"), dir.join("delay.txt"));
    std::fs::write(&bw, "# synthetic: 5 opportunities in 6 ms\n1\n2\n3\n4\n6\n").expect("the capacity trace written");
    let delays: String = (0..3000).map(|i| if i < 1500 { "250\n" } else { "252\n" }).collect();
    std::fs::write(&delay, delays).expect("the delay trace written");
    let path = |p: &std::path::Path| format!("{:?}", p.display().to_string());
    let twin = geo_10_flows()
        .replace("rate_ab = \"10Mbps\"\n", &format!("capacity_trace_ab = {}\n", path(&bw)))
        .replace("delay = \"250ms\"\n", &format!("delay_ba = \"250ms\"\ndelay_trace_ab = {{ file = {}, interval = \"10ms\" }}\n", path(&delay)));
    assert!(twin.contains("capacity_trace_ab") && twin.contains("delay_trace_ab"), "the GEO link takes the traces");
    twin
}

fn geo_50_flows_100mbps() -> String {
    let s = String::from(
        r#"[run]
seed = 1
stop = "300s"
[nodes]
servers = {}
gateway = {}
clients = {}
[[links]]
a = "servers"
b = "gateway"
rate = "1Gbps"
delay = "2ms"
[[links]]
a = "gateway"
b = "clients"
rate = "100Mbps"
delay = "250ms"
queue_ab = { kind = "droptail", packets = 1000 }
"#,
    );
    s + &bulk_flows(50, ("servers", "clients"), |i| if i % 2 == 0 { "sack" } else { "newreno" }, "4MiB", 20)
}

/// `n` unlimited FTP flows between two nodes, flow i starting at i x
/// `stagger_ms`.
fn bulk_flows(n: usize, (src, dst): (&str, &str), variant: impl Fn(usize) -> &'static str, rwnd: &str, stagger_ms: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "[[flows]]\nname = \"f{i}\"\nsrc = \"{src}\"\ndst = \"{dst}\"\ntcp = {{ variant = \"{}\", rwnd = \"{rwnd}\" }}\napp = {{ kind = \"ftp\", start = \"{}ms\" }}\n",
                variant(i),
                i * stagger_ms
            )
        })
        .collect()
}

/// The XFWA study's equal-RTT network at OC3: 512 NewReno flows through
/// XFWA for 20 simulated seconds (`scenarios/xfwa/equal_rtts.toml`).
fn xfwa_oc3() -> String {
    include_str!("../../../../scenarios/xfwa/equal_rtts.toml").replace("bottleneck = \"T1\"", "bottleneck = \"OC3\"")
}

/// One Starlink shell (72 x 22 at 550 km, 53 degrees, +Grid), 100 ground
/// stations spread uniformly over the sphere between 56 S and 56 N (a
/// fixed pseudo-random draw), 1000 CUBIC flows between random pairs of
/// them, unlimited, starting in the first second; links at Hypatia's
/// paper's 10 Mb/s with 100-packet queues; routes recomputed every 100 ms,
/// the next step's on a second thread (`run.topology_threads = 2`).
fn starlink_shell(stop: &str) -> String {
    let mut s = format!(
        r#"[run]
seed = 1
stop = "{stop}"
topology_step = "100ms"
topology_threads = 2
[[constellations]]
name = "starlink"
walker = {{ kind = "delta", planes = 72, per_plane = 22, altitude = "550km", inclination = 53.0, phasing = 1 }}
isl = {{ rate = "10Mbps", queue = {{ kind = "droptail", packets = 100 }} }}
gsl = {{ rate = "10Mbps", min_elevation = 25, queue = {{ kind = "droptail", packets = 100 }} }}
attach = "shortest-path"
"#
    );
    // a fixed 64-bit LCG (Knuth's MMIX constants): the same stations and
    // pairs on every machine
    let mut x: u64 = 0x5eed;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let zmax = 56f64.to_radians().sin();
    for i in 0..100 {
        let lat = ((2.0 * next() - 1.0) * zmax).asin().to_degrees();
        let lon = 360.0 * next() - 180.0;
        s += &format!("[[ground_stations]]\nname = \"g{i}\"\nlat = {lat:.4}\nlon = {lon:.4}\n");
    }
    for _ in 0..1000 {
        let a = (next() * 100.0) as usize;
        let b = (a + 1 + (next() * 99.0) as usize) % 100;
        let start = (next() * 1000.0) as u64;
        s += &format!("[[flows]]\nsrc = \"g{a}\"\ndst = \"g{b}\"\ntcp = {{ variant = \"cubic\" }}\napp = {{ kind = \"ftp\", start = \"{start}ms\" }}\n");
    }
    s
}

/// The process's peak resident set (kB), from /proc (Linux).
fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let benches = [
        Bench { name: "geo-10-flows", what: "10 SACK flows, 10/2 Mb/s GEO bent pipe, 100-packet buffer, BER 1e-8, 1000 s", toml: geo_10_flows(), heavy: false },
        Bench { name: "geo-10-flows-traced", what: "geo-10-flows with its 10 Mb/s direction on a Mahimahi trace and a delay series (the trace-driven twin)", toml: geo_10_flows_traced(), heavy: false },
        Bench { name: "geo-50-flows-100mbps", what: "50 NewReno/SACK flows on a 100 Mb/s GEO link, 1000-packet buffer, 300 s", toml: geo_50_flows_100mbps(), heavy: false },
        Bench { name: "xfwa-oc3-512", what: "XFWA, 512 NewReno flows over a 3-satellite OC3 chain, one-BDP buffer, 20 s", toml: xfwa_oc3(), heavy: false },
        Bench { name: "starlink-1000-flows-10s", what: "Starlink shell (1584 satellites, +Grid), 100 ground stations, 1000 CUBIC flows, 10 Mb/s links, 10 s", toml: starlink_shell("10s"), heavy: true },
        Bench { name: "starlink-1000-flows-100s", what: "the same for 100 s (cost against simulated time)", toml: starlink_shell("100s"), heavy: true },
    ];
    let usage = "usage: satcp-bench [--repeat N] [--json] [--only NAME] | --print-scenario NAME";
    let mut repeat = 3;
    let mut json = false;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().and_then(|v| v.parse().ok()).unwrap_or(3),
            "--json" => json = true,
            "--only" => only = args.next(),
            "--print-scenario" => {
                let name = args.next().unwrap_or_default();
                match benches.iter().find(|b| b.name == name) {
                    Some(b) => {
                        print!("{}", b.toml);
                        return;
                    }
                    None => {
                        let names: Vec<_> = benches.iter().map(|b| b.name).collect();
                        eprintln!("error: unknown scenario {name:?}; one of {}", names.join(", "));
                        std::process::exit(2);
                    }
                }
            }
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        }
    }
    if only.as_deref() == Some("quic-cost") {
        let (tcp, null, tls) = quic_cost(repeat);
        print_quic_cost(tcp, null, tls);
        return;
    }
    if !json {
        println!("satcp-bench {} ({} build, best of {repeat})", satcp_core::VERSION, satcp_core::BUILD);
        println!("{:<22} {:>10} {:>12} {:>9} {:>12} {:>12} {:>12}", "scenario", "sim s", "events", "wall s", "events/s", "pkts/s", "sim s/wall s");
    }
    if let Some(o) = &only {
        if !benches.iter().any(|b| &b.name == o) {
            let names: Vec<_> = benches.iter().map(|b| b.name).collect();
            eprintln!("error: unknown scenario {o:?}; one of {}", names.join(", "));
            std::process::exit(2);
        }
    }
    let mut rows = vec![];
    for b in benches.iter().filter(|b| only.as_deref().map_or(!b.heavy, |o| o == b.name)) {
        let scn = parse_toml(&b.toml, &[]).expect("benchmark scenario is valid");
        let mut best = f64::INFINITY;
        let mut events = 0;
        let mut sim = 0.0;
        let mut routing = 0.0;
        // TCP segments delivered in order to the applications (bytes / MSS):
        // the work the run did, whatever events it took (a relay cut
        // through takes none, world/cut_through.rs)
        let mut pkts = 0;
        for _ in 0..repeat {
            let t0 = Instant::now();
            let out = satcp_core::run(&scn);
            let wall = t0.elapsed().as_secs_f64();
            if wall < best {
                routing = out.routing_wall_s;
            }
            best = best.min(wall);
            events = out.summary.events;
            sim = out.summary.sim_time_s;
            pkts = out.summary.flows.iter().zip(&scn.flows).filter(|(f, _)| f.udp.is_none()).map(|(f, c)| f.bytes_delivered / c.tcp.mss as u64).sum::<u64>();
        }
        let eps = events as f64 / best;
        let pps = pkts as f64 / best;
        if json {
            rows.push(format!(
                "{{\"scenario\":\"{}\",\"build\":\"{}\",\"sim_s\":{sim},\"events\":{events},\"wall_s\":{best},\"events_per_s\":{eps},\"delivered_pkts\":{pkts},\"delivered_pkts_per_s\":{pps},\"routing_wall_s\":{routing}}}",
                b.name,
                satcp_core::BUILD
            ));
        } else {
            println!("{:<22} {:>10.0} {:>12} {:>9.3} {:>12.3e} {:>12.3e} {:>12.0}", b.name, sim, events, best, eps, pps, sim / best);
            println!("  {}", b.what);
            if scn.leo.is_some() {
                println!("  of which recomputing routes (every topology step): {routing:.3} s wall");
            }
        }
    }
    if only.is_some() {
        let rss = peak_rss_kb().map_or("unknown".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
        if json {
            println!("[{}]", rows.join(","));
        } else {
            println!("peak resident memory of this process: {rss}");
        }
        return;
    }
    let in_order = benches[1].toml.replace("interval = \"10ms\" }", "interval = \"10ms\", order = \"in_order\" }");
    let ((fixed, fixed_wall, fixed_pkts), (traced, traced_wall, traced_pkts), (ordered, ordered_wall, ordered_pkts)) =
        trace_cost(&benches[0].toml, &benches[1].toml, &in_order, repeat);
    if json {
        rows.push(format!("{{\"scenario\":\"trace-cost\",\"fixed_ns_per_packet\":{fixed},\"traced_ns_per_packet\":{traced},\"traced_in_order_ns_per_packet\":{ordered}}}"));
    } else {
        println!("trace-driven link cost (geo-10-flows against its twin on a capacity trace and a delay series):");
        println!("  fixed-rate link {fixed:.0} ns per IP packet over the hop ({fixed_pkts} packets, {fixed_wall:.3} s)");
        println!("  trace-driven, packets may overtake {traced:.0} ns ({traced_pkts} packets, {traced_wall:.3} s): x{:.2}", traced / fixed);
        println!("  trace-driven, delay in order {ordered:.0} ns ({ordered_pkts} packets, {ordered_wall:.3} s): x{:.2}", ordered / fixed);
    }
    let (plain_router, routing, pep) = pep_cost(repeat);
    if json {
        rows.push(format!("{{\"scenario\":\"pep-cost\",\"router_ns_per_packet\":{plain_router},\"routing_router_ns_per_packet\":{routing},\"pep_ns_per_packet\":{pep}}}"));
    } else {
        println!("PEP cost (geo-10-flows with a split-TCP PEP on the gateway, [[peps]]):");
        println!("  plain router {plain_router:.0} ns per IP packet over the GEO hop (cut through: no event at the gateway); the same router taking each packet {routing:.0} ns");
        println!("  PEP {pep:.0} ns (its two endpoints per connection and the relay included): x{:.2} the cut-through router, x{:.2} the router taking each packet", pep / plain_router, pep / routing);
    }
    let (plain, arq) = arq_cost(repeat);
    if !json {
        println!("link-layer ARQ cost (geo-10-flows with arq = {{}} on the GEO link, both directions):");
        println!("  plain link {plain:.0} ns per IP packet over the hop; ARQ {arq:.0} ns per frame (link ACKs, timers and resequencing included): x{:.2}", arq / plain);
    }
    let (tcp, null, tls) = quic_cost(repeat);
    let tls_json = tls.map_or("null".to_string(), |t| t.0.to_string());
    if json {
        rows.push(format!("{{\"scenario\":\"arq-cost\",\"plain_ns_per_packet\":{plain},\"arq_ns_per_frame\":{arq}}}"));
        rows.push(format!("{{\"scenario\":\"quic-cost\",\"tcp_ns_per_packet\":{},\"quic_null_ns_per_packet\":{},\"quic_tls_ns_per_packet\":{tls_json}}}", tcp.0, null.0));
        println!("[{}]", rows.join(","));
    } else {
        print_quic_cost(tcp, null, tls);
    }
}

type Cost = (f64, f64, u64);

fn print_quic_cost(tcp: Cost, null: Cost, tls: Option<Cost>) {
    println!("QUIC cost (20 MB over a 10 Mb/s, 250 ms GEO hop, CUBIC; packets both ways over the hop):");
    println!("  TCP (SACK) {:.0} ns per packet ({} packets, {:.3} s)", tcp.0, tcp.2, tcp.1);
    println!("  QUIC, null crypto (the default) {:.0} ns per datagram ({} datagrams, {:.3} s): x{:.2}", null.0, null.2, null.1, null.0 / tcp.0);
    match tls {
        Some(t) => println!("  QUIC, TLS 1.3 (crypto = \"tls\") {:.0} ns per datagram ({} datagrams, {:.3} s): x{:.2}", t.0, t.2, t.1, t.0 / tcp.0),
        None => println!("  QUIC with TLS: not in this build (cargo build --features tls)"),
    }
}

/// The GEO hop of the QUIC cost lines: a 100 Mb/s, 5 ms access link, then
/// 10 Mb/s and 250 ms with a 400-packet queue; 20 MB over `transport`.
fn quic_geo(transport: &str) -> String {
    format!(
        r#"
[run]
seed = 1
stop = "600s"
[nodes]
server = {{}}
gw = {{}}
client = {{}}
[[links]]
a = "server"
b = "gw"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "gw"
b = "client"
rate = "10Mbps"
delay = "250ms"
queue_ab = {{ kind = "droptail", packets = 400 }}
[[flows]]
name = "download"
src = "server"
dst = "client"
{transport}
app = {{ kind = "ftp", size = "20MB" }}
"#
    )
}

/// Wall time per packet over the GEO hop (both directions, best of
/// `repeat`): TCP SACK with CUBIC, QUIC (quinn's CUBIC) with null crypto,
/// and with TLS where the build has it. Issue 41's bound: QUIC at most 5x.
fn quic_cost(repeat: usize) -> (Cost, Cost, Option<Cost>) {
    let per_packet = |t: &str| best_per_packet(&quic_geo(t), repeat, |l| l.packets_tx);
    let tcp = per_packet(r#"tcp = { variant = "cubic", recovery = "sack", sack = true }"#);
    let null = per_packet("transport = \"quic\"\nquic = { cc = \"quinn-cubic\" }");
    #[cfg(feature = "tls")]
    let tls = Some(per_packet("transport = \"quic\"\nquic = { cc = \"quinn-cubic\", crypto = \"tls\" }"));
    #[cfg(not(feature = "tls"))]
    let tls = None;
    (tcp, null, tls)
}

/// Wall time per IP packet carried over geo-10-flows' GEO hop, with the
/// gateway a plain router (cut through, world/cut_through.rs), the same
/// router taking each packet as an event (as it does with a third link or
/// an agent, and as ns-2's and ns-3's nodes do), and with a PEP on it
/// splitting every connection (best of `repeat`): the whole run's time,
/// so what the PEP adds to a packet's path (the gateway's arrival event,
/// two more TCP endpoints per connection, the relay).
fn pep_cost(repeat: usize) -> (f64, f64, f64) {
    let plain = geo_10_flows();
    let with_pep = format!("{plain}\n[[peps]]\nnode = \"gateway\"\n");
    let per_packet = |toml: &str| best_per_packet(toml, repeat, |l| l.packets_tx).0;
    let routing = best_per_packet_with(&plain, repeat, |l| l.packets_tx, |s| satcp_core::try_run_every_hop(s).expect("no capture files")).0;
    (per_packet(&plain), routing, per_packet(&with_pep))
}

/// Wall time per IP packet carried over geo-10-flows' GEO hop (both
/// directions), on fixed values and on traces (best of `repeat`): the whole
/// run's time, so what the traces add to a packet's path.
fn trace_cost(fixed: &str, traced: &str, in_order: &str, repeat: usize) -> ((f64, f64, u64), (f64, f64, u64), (f64, f64, u64)) {
    let per_packet = |toml: &str| best_per_packet(toml, repeat, |l| l.packets_tx);
    assert_ne!(traced, in_order, "the in-order twin");
    (per_packet(fixed), per_packet(traced), per_packet(in_order))
}

/// Wall time per IP packet carried over geo-10-flows' GEO hop, without and
/// with the link-layer ARQ (best of `repeat`): a plain link's packets sent,
/// the ARQ's frames (first transmissions), both directions.
fn arq_cost(repeat: usize) -> (f64, f64) {
    let plain = geo_10_flows();
    let with_arq = plain.replace("errors_ab = { ber = 1e-8 }\n", "errors_ab = { ber = 1e-8 }\narq = {}\n");
    assert_ne!(plain, with_arq, "the GEO link takes the ARQ");
    let per_packet = |toml: &str| best_per_packet(toml, repeat, |l| l.arq.as_ref().map_or(l.packets_tx, |a| a.frames)).0;
    (per_packet(&plain), per_packet(&with_arq))
}

/// (ns per packet, best wall seconds, packets) of a run over geo-10-flows'
/// GEO hop (link directions 2 and 3), best of `repeat`; `packets` counts a
/// direction's packets.
fn best_per_packet(toml: &str, repeat: usize, packets: impl Fn(&satcp_core::stats::output::LinkSummary) -> u64) -> (f64, f64, u64) {
    best_per_packet_with(toml, repeat, packets, satcp_core::run)
}

/// [`best_per_packet`] with the engine entry `run` (every hop an event, or
/// relays cut through).
fn best_per_packet_with(
    toml: &str,
    repeat: usize,
    packets: impl Fn(&satcp_core::stats::output::LinkSummary) -> u64,
    run: fn(&satcp_core::scenario::Scenario) -> satcp_core::RunOutput,
) -> (f64, f64, u64) {
    let scn = parse_toml(toml, &[]).expect("benchmark scenario is valid");
    let mut best = f64::INFINITY;
    let mut n = 0;
    for _ in 0..repeat {
        let t0 = Instant::now();
        let out = run(&scn);
        best = best.min(t0.elapsed().as_secs_f64());
        n = out.summary.links[2..4].iter().map(&packets).sum::<u64>();
    }
    (best * 1e9 / n as f64, best, n)
}
