//! The link-layer selective-repeat ARQ (`net/link/arq/selective_repeat.rs`, `net/link/arq/mod.rs`)
//! in whole runs: in-order delivery that hides loss from TCP, the
//! persistence limit's residual loss, the capacity that retransmissions and
//! link ACKs take, FEC's residual loss and its cost on the air, the bypass
//! class, and outages. (The delivery invariant through ARQ links on random
//! scenarios is in `engine_delivery.rs`; the state machines' hand-worked
//! cases are unit tests in `net/link/arq/selective_repeat.rs`.)

mod common;
use common::*;
use satcp_core::stats::output::ArqSummary;
use satcp_core::RunOutput;

/// a -- b, 2 Mb/s both ways, 50 ms; `link` adds keys to the link; `flows`
/// is the [[flows]] text.
fn two_nodes(link: &str, flows: &str) -> String {
    TwoNodes::new("2Mbps", "50ms").seed(7).stop("200s").link("name = \"hop\"").link(link).then(flows).toml()
}

const CBR: &str = "[[flows]]\nname = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"cbr\", rate = \"1Mbps\", packet_size = 1000, stop = \"100s\" }\n";

const TCP: &str = "[[flows]]\nname = \"bulk\"\nsrc = \"a\"\ndst = \"b\"\ntcp = { variant = \"newreno\", sack = true }\napp = { kind = \"ftp\", size = \"2MB\" }\n";

fn arq(out: &RunOutput, dir: usize) -> &ArqSummary {
    out.summary.links[dir].arq.as_ref().expect("an ARQ link")
}

#[test]
fn a_persistent_arq_hides_every_loss_from_tcp() {
    let out = run_text(&two_nodes("errors_ab = { per = 0.1 }\nerrors_ba = { per = 0.05 }\narq = { persistence = 20 }", TCP), &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!((f.retransmissions, f.timeouts, f.integrity_errors), (0, 0, 0), "TCP never sees a loss");
    let ab = arq(&out, 0);
    assert!(ab.retransmissions as f64 > 0.08 * ab.frames as f64, "{ab:?}");
    assert_eq!((ab.abandoned, ab.skipped, ab.residual_loss), (0, 0, 0.0));
    assert_eq!(ab.delivered, ab.frames);
    assert!(ab.delayed > 0 && ab.max_extra_delay_s >= 0.1, "a repaired frame waits at least a hop round trip: {ab:?}");
    // the TCP ACKs on b -> a are frames too, repaired the same way
    let ba = arq(&out, 1);
    assert_eq!((ba.abandoned, ba.skipped), (0, 0));
    assert!(ba.frames - ba.delivered <= 4, "only the last ACKs still on the air when the transfer ends: {ba:?}");
    assert!(ba.retransmissions > 0);
    // the link ACKs for a -> b's frames go on b -> a, and vice versa: at
    // most one per frame received, fewer where a busy transmitter lets one
    // ACK answer several (a -> b is busy with data)
    assert!(ba.acks >= ab.frames / 2 && ba.acks <= ab.frames + ab.retransmissions, "{ab:?} {ba:?}");
    assert!(ab.acks > 0 && ab.acks < ba.frames, "{ab:?} {ba:?}");
}

#[test]
fn without_arq_the_same_losses_reach_tcp() {
    let out = run_text(&two_nodes("errors_ab = { per = 0.1 }\nerrors_ba = { per = 0.05 }", TCP), &[]);
    assert!(out.summary.flows[0].retransmissions > 50);
    assert!(out.summary.links[0].arq.is_none());
}

/// UDP loss and the ARQ's residual loss for a persistence and PER.
fn residual(persistence: u32, per: f64) -> (f64, f64) {
    let link = format!("errors_ab = {{ per = {per} }}\narq = {{ persistence = {persistence} }}");
    let out = run_text(&two_nodes(&link, CBR), &[]);
    let u = out.summary.flows[0].udp.unwrap();
    let a = arq(&out, 0);
    // every frame given up is skipped by the far end, and only those (but
    // the last one, which no later frame makes a hole of)
    assert!(a.skipped <= a.abandoned && a.abandoned <= a.skipped + 1, "{a:?}");
    (u.packets_lost as f64 / u.packets_sent as f64, a.residual_loss)
}

#[test]
fn the_persistence_limit_leaves_per_to_the_power_of_the_tries() {
    // 12,500 CBR packets; a frame is lost to IP when all 1 + persistence
    // copies are corrupted: PER^(1 + persistence)
    for (persistence, per) in [(0u32, 0.3f64), (1, 0.3), (2, 0.3)] {
        let want = per.powi(persistence as i32 + 1);
        let (udp_loss, res) = residual(persistence, per);
        let sd = (want * (1.0 - want) / 12_500.0).sqrt();
        assert!((res - want).abs() < 4.0 * sd + 1e-4, "persistence {persistence}: residual {res} vs {want}");
        assert!((udp_loss - res).abs() < 1e-3, "UDP sees the ARQ's residual loss: {udp_loss} vs {res}");
    }
}

#[test]
fn retransmissions_and_link_acks_take_capacity() {
    // 1 Mb/s of 1000-byte CBR: 125 packets/s for 100 s. Each frame is
    // 1008 bytes on the air (8-byte header), each link ACK 40 bytes.
    let out = run_text(&two_nodes("errors_ab = { per = 0.2 }\narq = { persistence = 10 }", CBR), &["run.stop=\"150s\""]);
    let (ab, ba) = (arq(&out, 0), arq(&out, 1));
    let end = out.summary.sim_time_s;
    let busy_ab = out.summary.links[0].utilization * end;
    let busy_ba = out.summary.links[1].utilization * end;
    let frame_s = 1008.0 * 8.0 / 2e6;
    let ack_s = 40.0 * 8.0 / 2e6;
    let sent = (ab.frames + ab.retransmissions) as f64;
    assert!((busy_ab - sent * frame_s).abs() < 1e-6, "{busy_ab} vs {}", sent * frame_s);
    assert!((busy_ba - ba.acks as f64 * ack_s).abs() < 1e-6, "the reverse carries only link ACKs");
    assert_eq!(out.summary.links[0].packets_tx, ab.frames + ab.retransmissions + ab.acks);
    // a lossy hop needs 1/(1 - PER) transmissions per frame: 25% more
    assert!((sent / ab.frames as f64 - 1.25).abs() < 0.02);
    // every frame of the 12,500 is acknowledged by at least one link ACK
    // of its own or a later one; one ACK per intact frame when idle
    assert!(ba.acks as f64 > 0.95 * ab.delivered as f64);
    // at 1.9 Mb/s offered on 2 Mb/s, the queue overflows
    let tight = run_text(&two_nodes("errors_ab = { per = 0.2 }\narq = { persistence = 10 }\nqueue = { kind = \"droptail\", packets = 20 }", CBR), &["flows.cbr.app.rate=\"1.9Mbps\""]);
    let lost = tight.summary.flows[0].udp.unwrap().packets_lost;
    assert!(tight.summary.links[0].drops.queue > 0 && lost == tight.summary.links[0].drops.queue, "{lost}");
    assert!(tight.summary.links[0].utilization * tight.summary.sim_time_s > 99.0, "saturated while the CBR runs");
}

#[test]
fn fec_turns_raw_bit_errors_into_a_small_residual_and_costs_n_over_k() {
    // BER 1e-4 on 1008-byte frames: raw PER 55%; RS(255, 223) leaves ~1e-13
    let plain = run_text(&two_nodes("errors_ab = { ber = 1e-4 }\narq = { persistence = 0 }", CBR), &[]);
    let raw = arq(&plain, 0).residual_loss;
    assert!((raw - 0.553).abs() < 0.02, "{raw}");
    let out = run_text(&two_nodes("errors_ab = { ber = 1e-4 }\narq = { persistence = 0, fec = { n = 255, k = 223 } }", CBR), &[]);
    let a = arq(&out, 0);
    assert_eq!((a.retransmissions, a.abandoned, a.residual_loss), (0, 0, 0.0));
    // 1008 bytes -> 5 codewords of 255 bytes on the air
    let busy = out.summary.links[0].utilization * out.summary.sim_time_s;
    assert!((busy - a.frames as f64 * 1275.0 * 8.0 / 2e6).abs() < 1e-6);
    // on a PER channel, `repair` is the fraction of corrupted frames FEC
    // repairs: 50% corrupted, 80% of those repaired, 10% lost
    let out = run_text(&two_nodes("errors_ab = { per = 0.5 }\narq = { persistence = 0, fec = { n = 255, k = 223, repair = 0.8 } }", CBR), &[]);
    let res = arq(&out, 0).residual_loss;
    assert!((res - 0.1).abs() < 0.012, "{res}");
}

#[test]
fn fec_on_a_burst_channel_needs_its_repair_fraction() {
    let text = two_nodes("errors_ab = { model = \"dsn_burst\", per_burst = 1.0 }\narq = { fec = { n = 255, k = 223 } }", CBR);
    let err = satcp_core::scenario::parse_toml(&text, &[]).unwrap_err();
    assert_eq!(err.path, "links.0.arq.fec.repair");
    assert!(err.allowed.contains("errors_ab"), "{err}");
}

#[test]
fn a_bypass_class_is_sent_once_and_not_resequenced() {
    let flows = format!("{CBR}{TCP}");
    let out = run_text(&two_nodes("errors_ab = { per = 0.2 }\narq = { persistence = 20, bypass = [\"udp\"] }", &flows), &[]);
    let u = out.summary.flows[0].udp.unwrap();
    let a = arq(&out, 0);
    // the run ends with the TCP transfer, some UDP packets still queued
    assert!(a.bypass <= u.packets_sent && a.bypass >= u.packets_received + u.packets_lost, "every UDP packet once: {a:?} {u:?}");
    let loss = u.packets_lost as f64 / (u.packets_received + u.packets_lost) as f64;
    assert!((loss - 0.2).abs() < 0.02, "bypass packets see the raw PER: {loss}");
    let tcp = &out.summary.flows[1];
    assert!(tcp.completed);
    assert_eq!((tcp.retransmissions, tcp.timeouts), (0, 0), "TCP still goes through the ARQ");
    assert_eq!(a.delivered, a.frames);
}

#[test]
fn an_outage_loses_the_queue_but_the_window_is_resent_after_it() {
    // a 2 s outage in the middle of a TCP transfer: what was in the ARQ's
    // window is retransmitted when the link is back (persistence permitting)
    let link = "arq = { persistence = 20 }\nchanges = [{ at = \"3s\", down = true }, { at = \"5s\", down = false }]";
    let out = run_text(&two_nodes(link, TCP), &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.integrity_errors == 0);
    let a = arq(&out, 0);
    assert!(a.retransmissions > 0 && a.timer_expiries > 0);
    assert_eq!(a.skipped, 0, "{a:?}");
}

#[test]
fn arq_refuses_what_it_cannot_run_on() {
    for (link, path) in [
        ("queue = { kind = \"priority\" }\narq = {}", "links.0.arq"),
        ("reorder = { probability = 0.1, extra_delay = \"10ms\" }\narq = {}", "links.0.arq"),
        ("errors_ab = { model = \"dsn_burst\", per_burst = 0.01, burst_delay = \"550ms\" }\narq = {}", "links.0.arq"),
        ("arq = { fec = { n = 100, k = 100 } }", "links.0.arq.fec.k"),
        ("arq = { bypass = [\"voice\"] }", "links.0.arq.bypass"),
        ("arq = { window = 0 }", "links.0.arq.window"),
        ("arq = { colour = 1 }", "links.0.arq.colour"),
    ] {
        let err = satcp_core::scenario::parse_toml(&two_nodes(link, CBR), &[]).unwrap_err();
        assert_eq!(err.path, path, "{link}: {err}");
    }
}

#[test]
fn a_red_queue_above_the_arq_drops_early() {
    // 2.5 Mb/s of CBR into 2 Mb/s: RED in front of the ARQ's transmitter
    // drops early and keeps its average below the hard limit
    let link = "errors_ab = { per = 0.1 }\nqueue = { kind = \"red\", packets = 50 }\narq = {}";
    let out = run_text(&two_nodes(link, CBR), &["flows.cbr.app.rate=\"2.5Mbps\""]);
    let l = &out.summary.links[0];
    assert!(l.drops.red_early > 0, "{:?}", l.drops);
    assert!(l.max_queue_packets <= 50);
    // persistence 3 at PER 0.1: 1e-4 of the ~12,500 frames lost (1.25)
    assert!(arq(&out, 0).skipped <= 6);
}

#[test]
fn arq_runs_are_deterministic() {
    let text = two_nodes("errors_ab = { per = 0.2 }\nerrors_ba = { per = 0.1 }\narq = { persistence = 1 }", &format!("{CBR}{TCP}"));
    let json = |mut o: RunOutput| {
        o.summary.wall_s = 0.0;
        serde_json::to_string(&o.summary).unwrap()
    };
    assert_eq!(json(run_text(&text, &[])), json(run_text(&text, &[])));
}
