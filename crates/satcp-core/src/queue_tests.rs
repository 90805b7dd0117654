//! End-to-end tests of the drop-front and CoDel queues: a bulk TCP flow
//! through a 10 Mb/s bottleneck, the scenario keys and their errors.

use crate::scenario::parse_toml;

/// server - router - client; the 10 Mb/s router -> client hop is the
/// bottleneck with `queue`; 20 ms of propagation each way (40 ms RTT);
/// one bulk flow with the `tcp` table (the ECN tests' path too).
pub(crate) fn bulk_with(queue: &str, tcp: &str, stop: &str) -> String {
    format!(
        r#"
[run]
stop = "{stop}"
[nodes]
server = {{}}
router = {{}}
client = {{}}
[[links]]
a = "server"
b = "router"
rate = "100Mbps"
delay = "5ms"
[[links]]
a = "router"
b = "client"
rate = "10Mbps"
delay = "15ms"
queue_ab = {queue}
[[flows]]
src = "server"
dst = "client"
tcp = {tcp}
app = {{ kind = "ftp" }}
"#
    )
}

/// `bulk_with` with SACK recovery, CUBIC and an 8 MiB window.
fn bulk(queue: &str, stop: &str) -> String {
    bulk_with(queue, r#"{ variant = "sack", cc = "cubic", rwnd = "8MiB" }"#, stop)
}

pub(crate) fn run(text: &str) -> crate::RunOutput {
    crate::run(&parse_toml(text, &[]).unwrap())
}

#[test]
fn codel_keeps_the_standing_queue_near_target_where_droptail_fills() {
    let codel = run(&bulk(r#"{ kind = "codel", packets = 1000 }"#, "30s"));
    let tail = run(&bulk(r#"{ kind = "droptail", packets = 1000 }"#, "30s"));
    let (c, t) = (&codel.summary.links[2], &tail.summary.links[2]);
    let q = c.queue.as_ref().expect("CoDel reports its sojourns");
    eprintln!("codel: {:?} {:?}, util {:.3}; droptail: {:?} max queue {}", c.drops, q, c.utilization, t.drops, t.max_queue_packets);
    assert!(c.drops.codel > 0 && c.drops.queue == 0, "CoDel, not overflow, dropped: {:?}", c.drops);
    assert!(t.queue.is_none(), "drop-tail keeps no sojourn account");
    // CUBIC fills a 1000-packet drop-tail buffer (1.2 s at 10 Mb/s)...
    assert!(t.max_queue_packets > 500);
    // ...while CoDel holds the median sojourn within a few targets and the
    // link busy
    let p50 = q.sojourn_p50_s.unwrap();
    assert!(p50 < 0.030, "median sojourn {p50} s");
    assert!(c.utilization > 0.9, "utilisation {}", c.utilization);
    assert_eq!(q.dequeued, c.packets_tx, "every packet sent was dequeued once");
    // determinism: the same bits again
    let mut again = run(&bulk(r#"{ kind = "codel", packets = 1000 }"#, "30s")).summary;
    again.wall_s = codel.summary.wall_s; // the only field that is not simulated
    assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&codel.summary).unwrap());
}

#[test]
fn dropfront_drops_at_the_head_and_never_refuses() {
    let out = run(&bulk(r#"{ kind = "dropfront", packets = 20 }"#, "20s"));
    let l = &out.summary.links[2];
    eprintln!("dropfront: {:?} {:?}", l.drops, l.queue);
    assert!(l.drops.head > 0 && l.drops.queue == 0, "{:?}", l.drops);
    assert!(l.max_queue_packets <= 20);
    // a 20-packet queue at 10 Mb/s: no packet waits more than 20 x 1.2 ms
    let p99 = l.queue.as_ref().unwrap().sojourn_p99_s.unwrap();
    assert!(p99 <= 20.0 * 1500.0 * 8.0 / 10e6 * 1.04, "p99 {p99}");
    let f = &out.summary.flows[0];
    assert!(f.retransmissions > 0 && f.integrity_errors == 0);
    let json = serde_json::to_value(l).unwrap();
    assert_eq!(json["drops"]["head"], l.drops.head);
    assert!(json["drops"].get("codel").is_none(), "causes that did not happen are not listed");
}

#[test]
fn queue_keys_are_checked() {
    let err = |q: &str| parse_toml(&bulk(q, "1s"), &[]).unwrap_err().to_string();
    assert!(err(r#"{ kind = "codel", target = "0s" }"#).contains("target"));
    assert!(err(r#"{ kind = "codel", target = "50ms", interval = "10ms" }"#).contains("interval"));
    assert!(err(r#"{ kind = "codel", flows = 3 }"#).contains("flows"));
    assert!(err(r#"{ kind = "dropfront", packets = 3, bytes = "3KB" }"#).contains("not both"));
    assert!(err(r#"{ kind = "fifo" }"#).contains("codel"));
    let scn = parse_toml(&bulk(r#"{ kind = "codel" }"#, "1s"), &[]).unwrap();
    assert_eq!(
        scn.links[1].dirs[0].queue,
        crate::scenario::QueueCfg::CoDel { limit: crate::scenario::QueueLimit::Packets(1000), target_ns: 5_000_000, interval_ns: 100_000_000, ecn: false },
        "Linux sch_codel's defaults"
    );
}

#[test]
fn fq_codel_keeps_a_ping_flow_whole_beside_bulk_tcp() {
    let mut text = bulk(r#"{ kind = "fq_codel" }"#, "30s");
    text.push_str(
        r#"
[[flows]]
name = "ping"
src = "server"
dst = "client"
app = { kind = "cbr", rate = "80kbps", packet_size = 100 }
"#,
    );
    let out = run(&text);
    let l = &out.summary.links[2];
    let (tcp, ping) = (&out.summary.flows[0], &out.summary.flows[1]);
    let udp = ping.udp.as_ref().unwrap();
    eprintln!("fq_codel: {:?} {:?} util {:.3}; tcp goodput {:.0}; ping {:?}", l.drops, l.queue, l.utilization, tcp.goodput_bps, udp);
    assert!(l.drops.codel > 0, "CoDel acts on the bulk flow");
    assert_eq!(udp.packets_lost, 0, "the sparse flow loses nothing");
    assert!(udp.packets_received >= 2990);
    assert!(tcp.goodput_bps > 8.5e6, "the bulk flow keeps the link");
    assert!(l.queue.as_ref().unwrap().sojourn_p99_s.unwrap() < 0.015);
}

#[test]
fn an_outage_empties_each_holding_queue_and_the_transfer_still_completes() {
    for q in [r#"{ kind = "dropfront", packets = 50 }"#, r#"{ kind = "codel" }"#, r#"{ kind = "fq_codel" }"#] {
        let text = bulk(q, "60s")
            .replace(r#"app = { kind = "ftp" }"#, r#"app = { kind = "ftp", size = "8MB" }"#)
            .replace("queue_ab = ", "changes = [{ at = \"2s\", down = true }, { at = \"3s\", down = false }]\nqueue_ab = ");
        let out = run(&text);
        let (l, f) = (&out.summary.links[2], &out.summary.flows[0]);
        assert!(l.drops.down > 0, "{q}: the outage took what was queued: {:?}", l.drops);
        assert!(f.completed && f.integrity_errors == 0 && f.bytes_delivered == 8_000_000, "{q}");
        let s = l.queue.as_ref().unwrap();
        assert_eq!(s.dequeued, l.packets_tx, "{q}");
    }
}
