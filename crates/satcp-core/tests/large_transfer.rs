//! Sequence numbers beyond 4 GiB: a 5 GiB transfer whose wire sequence
//! numbers wrap (twice, starting just below 2^32) arrives complete, in
//! order, with every segment's unwrapped sequence number matching the offset
//! it was sent with. Losses force retransmissions across the wrap.

mod common;
use common::*;

#[test]
fn five_gib_transfer_wraps_the_sequence_space() {
    let scenario = r#"
[run]
seed = 3
[nodes]
a = {}
b = {}
[[links]]
a = "a"
b = "b"
rate = "10Gbps"
delay = "1ms"
errors_ab = { per = 0.00002 }
[[flows]]
name = "big"
src = "a"
dst = "b"
tcp = { variant = "sack", mss = 8960, rwnd = "16MiB", window_scaling = true, iss = 4294966296 }
app = { kind = "ftp", size = "5GiB" }
"#;
    let out = run_text(scenario, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!(f.bytes_delivered, 5 << 30);
    assert_eq!(f.integrity_errors, 0);
    assert!(f.retransmissions > 0, "losses must exercise recovery across the wrap");
}
