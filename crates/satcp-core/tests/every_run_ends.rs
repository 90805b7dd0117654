//! Every run ends: a new user's slip (BER 0.01 for 1e-5 on a 1 Mb/s link,
//! no `run.stop`) delivers nothing, and the flow gives up the way Linux
//! does (15 retransmission timeouts in a row, `tcp_retries2`) instead of
//! retrying for ever; `max_retransmissions = 0` restores ns-2's endless
//! retries (then `run.stop` bounds the run).

mod common;
use common::*;

/// 1 Mb/s, 10 ms, a bit error rate of 1 in 100: no segment gets through.
fn slip() -> String {
    TwoNodes::new("1Mbps", "10ms").link("errors_ab = { ber = 0.01 }").flow(Some("f"), "", "kind = \"ftp\", size = \"1MB\"").toml()
}

#[test]
fn a_flow_that_cannot_progress_gives_up_after_fifteen_timeouts() {
    let out = run_text(&slip(), &[]);
    let f = &out.summary.flows[0];
    assert!(f.aborted && !f.completed);
    assert_eq!(out.summary.ended_by, "aborted");
    let why = f.abort_reason.as_deref().unwrap();
    assert!(why.contains("15 retransmission timeouts in a row"), "{why}");
    assert_eq!(f.bytes_delivered, 0);
    // 15 expiries with the RTO doubling to its 60 s cap: about 11 minutes
    assert!((300.0..1200.0).contains(&out.summary.sim_time_s), "{}", out.summary.sim_time_s);
    // a limit of 2 gives up sooner; 0 never (the run's stop ends it)
    let two = run_text(&slip(), &["flows.f.tcp.max_retransmissions=2"]);
    assert!(two.summary.flows[0].aborted && two.summary.sim_time_s < out.summary.sim_time_s);
    // all but certain loss (BER 0.999): the same end
    let certain = run_text(&slip(), &["links.0.errors_ab={ ber = 0.999 }"]);
    assert_eq!(certain.summary.ended_by, "aborted");
    let never = run_text(&slip(), &["flows.f.tcp.max_retransmissions=0", "run.stop=\"2000s\""]);
    assert!(!never.summary.flows[0].aborted && never.summary.flows[0].abort_reason.is_none());
    assert_eq!(never.summary.sim_time_s, 2000.0);
}

/// A FIN lost again under RACK (found by the quic-geo study: Hybla, the
/// linux profile, IW 32 over the demo's GEO path, 1 MB). The FIN went out
/// alone, its resend was lost in the queue's overflow and RACK marked it
/// lost again; SACK recovery then sent segments of length 0 without the
/// FIN, each leaving the lost range where it was, until the process ran
/// out of memory (3-6 GB). A resend of the FIN alone now carries it.
#[test]
fn a_fin_lost_again_is_resent_and_the_run_ends() {
    let out = run_file(
        "geo_bent_pipe.toml",
        &["links.1.errors_ab={ per = 0 }", "flows.download.tcp={ variant = \"hybla\", profile = \"linux\", initial_window = 32 }", "flows.download.app.size=\"1MB\""],
    );
    let f = &out.summary.flows[0];
    assert!(f.completed && !f.aborted, "{f:?}");
    assert_eq!(f.bytes_delivered, 1_000_000);
    // the 1 MB at 2 Mb/s takes 4 s; the overshoot's repair a few round trips
    assert!(f.completion_s.unwrap() < 10.0, "{:?}", f.completion_s);
    // segments sent stay of the transfer's order: 1 MB is 685 segments
    assert!(f.segments_sent < 2_000, "{}", f.segments_sent);
}
