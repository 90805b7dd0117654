//! End-to-end tests of engine seams whose real users are test-only for now:
//! TCP Peach's dummy segments (the later Peach issue) come here from the
//! test-only controller `cc = "probe"`, which sends them on its own timer,
//! through a whole network with a priority queue at the bottleneck.

use crate::scenario::{parse_toml, Controller, Scenario};
use crate::tcp::cc::probe::ProbeCfg;

const MS: u64 = 1_000_000;

/// server - gateway - client; the GEO hop is the bottleneck (2 Mb/s, 6 ms
/// per packet, 30 packets of queue). The flow's window (20 segments) alone
/// fits the queue; 2000 dummies, one every 2 ms for 4 s from the first
/// ACK, do not.
fn scenario(queue_kind: &str) -> Scenario {
    let text = format!(
        r#"
[run]
stop = "120s"
[nodes]
server = {{}}
gateway = {{}}
client = {{}}
[[links]]
a = "server"
b = "gateway"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "gateway"
b = "client"
rate_ab = "2Mbps"
rate_ba = "1Mbps"
delay = "250ms"
queue_ab = {{ kind = "{queue_kind}", packets = 30 }}
[[flows]]
src = "server"
dst = "client"
tcp = {{ variant = "sack", cc = "probe", rwnd = 29200, delayed_ack = false }}
app = {{ kind = "ftp", size = 1460000 }}
[[agents]]
node = "gateway"
kind = "monitor"
link = 1
"#
    );
    let mut scn = parse_toml(&text, &[]).unwrap();
    scn.flows[0].tcp.controller = Controller::Probe(ProbeCfg { dummies: 2000, spacing_ns: 2 * MS, aimd: true, ..Default::default() });
    scn
}

#[test]
fn a_priority_queue_keeps_data_and_loses_dummies_first() {
    let pri = crate::run(&scenario("priority"));
    let f = &pri.summary.flows[0];
    let sat = &pri.summary.links[2];
    let mon = &pri.summary.agents[0].counters;
    eprintln!("priority queue: {} dummies lost ({} refused, {} pushed out), {} retransmissions", mon["packets_dummy"] - f.dummy_acks_sent, sat.drops.queue, sat.drops.pushed_out, f.retransmissions);
    assert!(f.completed && f.bytes_delivered == 1_460_000 && f.integrity_errors == 0);
    assert_eq!(f.dummy_segments_sent, 2000);
    // dummies were lost at the bottleneck: refused when the queue was full
    // of them, or pushed out of it by data
    let lost_dummies = mon["packets_dummy"] - f.dummy_acks_sent;
    assert!(sat.drops.pushed_out > 0, "data pushed queued dummies out: {:?}", sat.drops);
    assert_eq!(lost_dummies, sat.drops.queue + sat.drops.pushed_out, "every loss at the bottleneck was a dummy");
    // and no data segment was: nothing retransmitted
    assert_eq!((f.retransmissions, f.timeouts), (0, 0));

    // The same traffic through a drop-tail queue loses data too.
    let tail = crate::run(&scenario("droptail"));
    let f = &tail.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 1_460_000);
    assert!(tail.summary.links[2].drops.queue > 0);
    eprintln!("drop-tail: {} drops, {} retransmissions, {} timeouts", tail.summary.links[2].drops.queue, f.retransmissions, f.timeouts);
    assert!(f.retransmissions > 0, "drop-tail drops data beside the dummies");
    assert!(f.dummy_acks_sent > pri.summary.flows[0].dummy_acks_sent, "and lets more dummies through");
}
