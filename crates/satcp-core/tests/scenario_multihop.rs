//! `[multihop]`: Topology(n_sat, N, f(i), h_s(i), h_r(i, j)) written out as
//! nodes, links, flows and an XFWA agent; the schedules A-D; errors that
//! name the field; overrides before and after the expansion.

mod common;
use common::*;
use satcp_core::scenario::*;

fn scn(extra: &str) -> String {
    format!(
        "[run]\nstop = \"20s\"\n[multihop]\nsatellites = 3\nbottleneck = \"T1\"\ngroups = [{{ flows = 8 }}]\ntcp = {{ profile = \"ns2\", variant = \"newreno\", mss = 1000 }}\n{extra}"
    )
}

#[test]
fn equal_rtts_chain_is_written_out() {
    let s = parse_toml(&scn(""), &[]).unwrap();
    // b1..b3, src1..8, dst1..8
    assert_eq!(s.nodes.len(), 3 + 16);
    // 2 ISLs + 8 up + 8 down
    assert_eq!(s.links.len(), 2 + 16);
    let isl = &s.links[0];
    assert_eq!((isl.dirs[0].rate_bps, isl.dirs[0].delay_ns), (1_500_000, 20_000_000));
    // one bandwidth-delay product at 160 ms in 1040-byte packets: 28.8 -> 29
    assert_eq!(isl.dirs[0].queue.limit(), QueueLimit::Packets(29));
    assert_eq!(s.flows.len(), 8);
    // scenario A: every start within [0, 5 ms], none stops
    for f in &s.flows {
        let AppCfg::Ftp(a) = &f.app else { panic!() };
        assert!(a.start_ns <= 5_000_000 && a.stop_ns.is_none());
    }
    assert!(s.agents.is_empty());
}

fn starts_stops(schedule: &str) -> Vec<(u64, Option<u64>)> {
    let s = parse_toml(&scn(&format!("schedule = \"{schedule}\"\nstart_jitter = \"0s\"\n")), &[]).unwrap();
    s.flows.iter().map(|f| match &f.app {
        AppCfg::Ftp(a) => (a.start_ns / 1_000_000_000, a.stop_ns.map(|t| t / 1_000_000_000)),
        _ => panic!(),
    }).collect()
}

#[test]
fn schedules_b_c_d_are_fig4s_stairs() {
    // T1, MAX = 8 (spec 004 section 2.6)
    assert_eq!(starts_stops("B"), vec![(0, None), (0, None), (5, None), (5, None), (10, None), (10, None), (15, None), (15, None)]);
    assert_eq!(starts_stops("C"), vec![(0, None), (0, None), (0, Some(15)), (0, Some(15)), (0, Some(10)), (0, Some(10)), (0, Some(5)), (0, Some(5))]);
    // D: {1-4} from 0, {5-8} at 5 s, {3,4} stop at 10 s, {5,6} at 15 s: {1,2,7,8} to the end
    assert_eq!(starts_stops("D"), vec![(0, None), (0, None), (0, Some(10)), (0, Some(10)), (5, Some(15)), (5, Some(15)), (5, None), (5, None)]);
}

#[test]
fn different_rtt_groups_and_the_agent() {
    // Topology(3, 4, MAX/4, i-1, i-1): RTTs 160, 240, 320, 400 ms
    let text = "[run]\nstop = \"20s\"\n[multihop]\nbottleneck = \"T1\"\ngroups = [{ flows = 2, hops_before = 0, hops_after = 0 }, { flows = 2, hops_before = 1, hops_after = 1 }, { flows = 2, hops_before = 2, hops_after = 2 }, { flows = 2, hops_before = 3, hops_after = [3, 3] }]\nxfwa = { alpha = 1.5 }\n";
    let s = parse_toml(text, &[]).unwrap();
    assert_eq!(s.flows.len(), 8);
    // private satellites: 2 x (0 + 2 + 4 + 6)
    assert_eq!(s.nodes.len(), 3 + 16 + 24);
    // the buffer: one BDP at the mean RTT 280 ms: 1.5e6 x 0.28 / 8320 = 50.5 -> 50
    assert_eq!(s.links[0].dirs[0].queue.limit(), QueueLimit::Packets(50));
    assert_eq!(s.agents.len(), 1);
    let AgentKind::Xfwa(x) = s.agents[0].kind else { panic!() };
    assert_eq!(x.alpha, 1.5);
    assert_eq!((s.nodes[s.agents[0].node].name.as_str(), s.agents[0].link), ("b1", Some(0)));
    // the longest flow's path: src8 -> f8u1..3 -> b1..b3 -> f8d1..3 -> dst8, 10 hops of 20 ms
    let out = run_text(&text.replace("stop = \"20s\"", "stop = \"3s\""), &[]);
    let f8 = &out.summary.flows[7];
    // at least its 400 ms of propagation, at most that and a full buffer
    let srtt = f8.final_srtt_s.unwrap();
    assert!((0.40..0.40 + 50.0 * 1040.0 * 8.0 / 1.5e6 + 0.05).contains(&srtt), "{srtt}");
}

#[test]
fn overrides_reach_both_the_keys_and_what_they_make() {
    let s = parse_toml(&scn(""), &["multihop.bottleneck=\"OC3\"".into(), "flows.f3.app.stop=\"7s\"".into()]).unwrap();
    assert_eq!(s.links[0].dirs[0].rate_bps, 155_000_000);
    let AppCfg::Ftp(a) = &s.flows[2].app else { panic!() };
    assert_eq!(a.stop_ns, Some(7_000_000_000));
}

#[test]
fn errors_name_the_field() {
    let e = |extra: &str| parse_toml(&scn(extra), &[]).expect_err("refused");
    assert_eq!(e("schedule = \"E\"\n").path, "multihop.schedule");
    assert_eq!(e("buffer = \"half\"\n").path, "multihop.buffer");
    let one = parse_toml(&scn("").replace("satellites = 3", "satellites = 1"), &[]).expect_err("refused");
    assert_eq!(one.path, "multihop.satellites");
    let t9 = parse_toml(&scn("").replace("\"T1\"", "\"T9\""), &[]).expect_err("refused");
    assert_eq!(t9.path, "multihop.bottleneck");
    assert!(t9.allowed.contains("OC3"), "{}", t9.allowed);
    assert_eq!(e("links_extra = 1\n").path, "multihop.links_extra");
    let g = parse_toml("[run]\nstop = \"1s\"\n[multihop]\ngroups = [{ flows = 2, hops_after = [1] }]\n", &[]).expect_err("refused");
    assert_eq!(g.path, "multihop.groups.0.hops_after");
    let m = parse_toml("[run]\nstop = \"1s\"\n[multihop]\nsatellites = 3\n", &[]).expect_err("refused");
    assert_eq!(m.path, "multihop.groups");
}

/// The paper's claim in scenario A at T1: XFWA loses nothing and shares
/// evenly where NewReno on drop-tail overflows the buffer.
#[test]
fn xfwa_on_scenario_a_t1_removes_the_losses() {
    let run = |xfwa: bool| {
        let out = run_file("xfwa/equal_rtts.toml", &[&format!("multihop.xfwa={xfwa}")]);
        let l = out.summary.links.iter().find(|l| l.from == "b1" && l.to == "b2").unwrap().clone();
        let g: Vec<f64> = out.summary.flows.iter().map(|f| f.goodput_bps).collect();
        let jain = g.iter().sum::<f64>().powi(2) / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
        (l.drops.queue, l.utilization, jain)
    };
    let (tcp_drops, tcp_util, tcp_jain) = run(false);
    let (x_drops, x_util, x_jain) = run(true);
    assert!(tcp_drops > 50, "{tcp_drops}");
    assert_eq!(x_drops, 0);
    assert!(x_jain > 0.99 && x_jain > tcp_jain, "{x_jain} {tcp_jain}");
    assert!(x_util >= tcp_util - 0.005 && x_util > 0.95, "{x_util} {tcp_util}");
}

/// Section III-D: UDP cross traffic at 4 Mb/s through a T2 bottleneck with
/// ten TCP flows under XFWA. On one drop-tail queue XFWA, counting only
/// TCP, shares the whole link among them and the queue overflows; with TCP
/// and other traffic in their own classes (TCP 60% of the link), XFWA
/// shares the TCP class's 6 Mb/s and buffer: no TCP packet is lost and the
/// UDP source keeps its 4 Mb/s.
#[test]
fn classes_keep_non_responsive_traffic_out_of_xfwa() {
    let base = "[run]\nstop = \"20s\"\n[multihop]\nbottleneck = \"T2\"\ngroups = [{ flows = 10 }]\nxfwa = true\ntcp = { profile = \"ns2\", variant = \"newreno\", mss = 1000, rwnd = \"4MB\", window_scaling = true }\n[[flows]]\nname = \"udp\"\nsrc = \"src1\"\ndst = \"dst1\"\napp = { kind = \"cbr\", rate = \"4Mbps\", packet_size = 1000 }\n";
    let run = |sets: &[&str]| {
        let out = run_text(base, sets);
        let l = out.summary.links.iter().find(|l| l.from == "b1" && l.to == "b2").unwrap().clone();
        let udp = out.summary.flows.iter().find(|f| f.name == "udp").unwrap().udp.clone().unwrap();
        let tcp_drops: u64 = out.summary.flows.iter().filter(|f| f.name != "udp").map(|f| f.retransmissions).sum();
        (l, udp, tcp_drops)
    };
    let (plain, _, plain_rtx) = run(&[]);
    assert!(plain.drops.queue > 100, "{}", plain.drops.queue);
    assert!(plain_rtx > 50, "{plain_rtx}");
    let (classes, udp, rtx) = run(&["links.isl1.queue={ kind = \"classes\", packets = 120, other_packets = 50, tcp_share = 0.6 }"]);
    assert_eq!(rtx, 0, "no TCP segment lost or resent");
    assert!(classes.utilization > 0.95, "{}", classes.utilization);
    // the UDP source's 4 Mb/s is its share: little of it lost
    assert!((udp.packets_received as f64) > 0.97 * udp.packets_sent as f64, "{udp:?}");
}
