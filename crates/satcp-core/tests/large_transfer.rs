//! Sequence numbers beyond 4 GiB: a 5 GiB transfer whose wire sequence
//! numbers wrap (twice, starting just below 2^32) arrives complete, in
//! order, with every segment's unwrapped sequence number matching the offset
//! it was sent with. Losses force retransmissions across the wrap.

mod common;
use common::*;

#[test]
fn five_gib_transfer_wraps_the_sequence_space() {
    let scenario = TwoNodes::new("10Gbps", "1ms")
        .seed(3)
        .link("errors_ab = { per = 0.00002 }")
        .flow(Some("big"), "variant = \"sack\", mss = 8960, rwnd = \"16MiB\", window_scaling = true, iss = 4294966296", "kind = \"ftp\", size = \"5GiB\"")
        .toml();
    let out = run_text(&scenario, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!(f.bytes_delivered, 5 << 30);
    assert_eq!(f.integrity_errors, 0);
    assert!(f.retransmissions > 0, "losses must exercise recovery across the wrap");
}
