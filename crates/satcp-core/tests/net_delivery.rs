//! The delivery invariant under the network models: on random chains whose
//! link directions reorder packets, suffer TRANSAT/DSN bursts (with or
//! without the S-LACP delay, in order or overtakable) or Gilbert-Elliott
//! errors, behind drop-tail or RED queues shared with CBR cross traffic,
//! every TCP flow (NewReno or SACK) completes and delivers each byte exactly
//! once in order; UDP counters add up; the same scenario runs bit-identically.

mod common;
use common::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Channel {
    Clean,
    Reorder { p: f64, extra_ms: u32 },
    Dsn { per: f64, delay_ms: u32, overtake: bool },
    GePackets { p_gb: f64, p_bg: f64, per_bad: f64 },
    GeTime { good_ms: u32, bad_ms: u32 },
}

fn channel() -> impl Strategy<Value = Channel> {
    prop_oneof![
        Just(Channel::Clean),
        (0.001..0.2f64, 1u32..200).prop_map(|(p, extra_ms)| Channel::Reorder { p, extra_ms }),
        (prop_oneof![Just(1.0), 0.0..1.0f64], prop_oneof![Just(0u32), 1u32..1200], any::<bool>())
            .prop_map(|(per, delay_ms, overtake)| Channel::Dsn { per, delay_ms, overtake }),
        (0.001..0.05f64, 0.1..0.9f64, 0.1..1.0f64).prop_map(|(p_gb, p_bg, per_bad)| Channel::GePackets { p_gb, p_bg, per_bad }),
        (200u32..5000, 10u32..500).prop_map(|(good_ms, bad_ms)| Channel::GeTime { good_ms, bad_ms }),
    ]
}

#[derive(Debug, Clone)]
struct Link {
    rate_kbps: u32,
    delay_ms: u32,
    red: bool,
    limit: u32,
    ch: [Channel; 2],
}

fn link() -> impl Strategy<Value = Link> {
    (256u32..20_000, 0u32..300, any::<bool>(), 5u32..120, [channel(), channel()])
        .prop_map(|(rate_kbps, delay_ms, red, limit, ch)| Link { rate_kbps, delay_ms, red, limit, ch })
}

fn channel_toml(d: &str, c: &Channel) -> String {
    match c {
        Channel::Clean => String::new(),
        Channel::Reorder { p, extra_ms } => format!("reorder_{d} = {{ probability = {p}, extra_delay = \"{extra_ms}ms\" }}\n"),
        Channel::Dsn { per, delay_ms, overtake } => format!(
            "errors_{d} = {{ model = \"dsn_burst\", gap_max = \"3s\", per_burst = {per}, burst_delay = \"{delay_ms}ms\", burst_delay_order = \"{}\" }}\n",
            if *overtake { "overtake" } else { "in_order" }
        ),
        Channel::GePackets { p_gb, p_bg, per_bad } => {
            format!("errors_{d} = {{ model = \"gilbert_elliott\", p_gb = {p_gb}, p_bg = {p_bg}, per_bad = {per_bad} }}\n")
        }
        Channel::GeTime { good_ms, bad_ms } => format!(
            "errors_{d} = {{ model = \"gilbert_elliott\", mean_good = \"{good_ms}ms\", mean_bad = \"{bad_ms}ms\", clock = \"arrival\" }}\n"
        ),
    }
}

fn toml(links: &[Link], flows: &[(bool, u32)], cbr_share: Option<f64>, seed: u64) -> String {
    let mut s = format!("[run]\nseed = {seed}\nstop = \"100000s\"\n[nodes]\n");
    for i in 0..=links.len() {
        s += &format!("n{i} = {{}}\n");
    }
    for (i, l) in links.iter().enumerate() {
        s += &format!("[[links]]\na = \"n{}\"\nb = \"n{}\"\nrate = \"{}kbps\"\ndelay = \"{}ms\"\n", i, i + 1, l.rate_kbps, l.delay_ms);
        s += &if l.red {
            format!("queue = {{ kind = \"red\", packets = {} }}\n", l.limit)
        } else {
            format!("queue = {{ kind = \"droptail\", packets = {} }}\n", l.limit)
        };
        s += &channel_toml("ab", &l.ch[0]);
        s += &channel_toml("ba", &l.ch[1]);
    }
    let last = links.len();
    // every flow must complete: no giving up after 15 timeouts in a row
    // (a harsh burst channel can cause that; tests/every_run_ends.rs tests it)
    for (i, (sack, size)) in flows.iter().enumerate() {
        let v = if *sack { "sack" } else { "newreno" };
        s += &format!(
            "[[flows]]\nname = \"t{i}\"\nsrc = \"n0\"\ndst = \"n{last}\"\ntcp = {{ variant = \"{v}\", mss = 960, rwnd = \"1MB\", max_retransmissions = 0 }}\napp = {{ kind = \"ftp\", size = {size}, start = \"{}ms\" }}\n",
            100 * i
        );
    }
    if let Some(share) = cbr_share {
        let min_rate = links.iter().map(|l| l.rate_kbps).min().unwrap();
        let rate = (min_rate as f64 * share).max(10.0) as u64;
        s += &format!("[[flows]]\nname = \"cbr\"\nsrc = \"n0\"\ndst = \"n{last}\"\napp = {{ kind = \"cbr\", rate = \"{rate}kbps\", packet_size = 500 }}\n");
    }
    s
}

/// Links, TCP flows (SACK?, bytes), CBR share of the slowest link, seed.
type Case = (Vec<Link>, Vec<(bool, u32)>, Option<f64>, u64);

fn scenario() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(link(), 1..4),
        prop::collection::vec((any::<bool>(), 1u32..300_000), 1..3),
        prop::option::of(0.05..0.6f64),
        0u64..(1 << 62),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn tcp_delivers_exactly_once_in_order_under_every_channel((links, flows, cbr, seed) in scenario()) {
        let text = toml(&links, &flows, cbr, seed);
        let out = run_text(&text, &[]);
        prop_assert_eq!(out.summary.ended_by.as_str(), "completed", "{}", text);
        for (f, (_, size)) in out.summary.flows.iter().zip(&flows) {
            prop_assert!(f.completed, "{}\n{}", f.name, text);
            prop_assert_eq!(f.bytes_delivered, *size as u64, "{}", text);
            prop_assert_eq!(f.integrity_errors, 0, "{}", text);
        }
        if cbr.is_some() {
            let u = out.summary.flows.last().unwrap().udp.unwrap();
            prop_assert!(u.packets_received + u.packets_lost <= u.packets_sent);
            prop_assert_eq!(u.bytes_sent, 500 * u.packets_sent);
        }
        let drops: u64 = out.summary.links.iter().map(|l| l.drops.queue + l.drops.errors + l.drops.red_early + l.drops.red_forced).sum();
        let again = run_text(&text, &[]);
        let again_drops: u64 = again.summary.links.iter().map(|l| l.drops.queue + l.drops.errors + l.drops.red_early + l.drops.red_forced).sum();
        prop_assert_eq!(drops, again_drops);
        prop_assert_eq!(out.summary.events, again.summary.events);
        prop_assert_eq!(out.summary.sim_time_s, again.summary.sim_time_s);
    }
}
