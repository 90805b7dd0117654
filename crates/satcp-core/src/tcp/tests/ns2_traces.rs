//! Hand-worked traces of the rules the `ns2` profile takes from ns-2's
//! agents (`tcp/profile.rs`): the loss response's window basis, the
//! recover rule, the timer restarted by a fast retransmit, Sack1's counted
//! pipe and FACK's restart. Each test sets one key and shows what it
//! changes against the RFC reading on the same drops.

use super::harness::Harness;
use super::{cfg, drop_first_sends_of, drop_first_tx_of, seg, transfer_with};
use crate::scenario::{InitialWindow, RecoverRule, Recovery, SackPipe, SsthreshBasis};
use crate::sim::Rng;
use crate::tcp::sender::Sender;

const MS: u64 = 1_000_000;

/// The time from the fast retransmission of segment 3 to the RTO's, the
/// first two sends of segment 3 dropped (1 Mb/s, 50 ms one way).
fn rto_after_lost_fast_retransmission(c: &crate::scenario::TcpCfg) -> u64 {
    let mut h = Harness::new(c, 1_000_000, 50 * MS);
    h.drop = drop_first_sends_of(3, 2);
    h.transfer(20_000);
    h.run_until(30_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let r: Vec<_> = h.data_sent().into_iter().filter(|d| d.1 == seg(3) && d.2).map(|d| d.0).collect();
    assert_eq!(r.len(), 2, "the fast retransmission and the RTO's");
    r[1] - r[0]
}

/// IW 11: the ACKs of segments 1 and 2 open cwnd to 13 and release segments
/// 12-15, so at the third duplicate ACK for segment 3 FlightSize is 13
/// segments (15001 - 2001) and cwnd is 13 segments.
fn entry_ssthresh(basis: SsthreshBasis) -> u64 {
    let mut c = cfg(Recovery::NewReno);
    c.initial_window = InitialWindow::Segments(11);
    c.ssthresh_basis = basis;
    let h = transfer_with(&c, drop_first_tx_of(&[3]), 30_000);
    h.win.iter().find(|w| w.in_recovery).unwrap().ssthresh
}

#[test]
fn window_basis_halves_whole_packets_as_ns2_slowdown() {
    // RFC 5681: FlightSize / 2 = 6500 bytes; ns-2: int(window() / 2) = 6 packets
    assert_eq!(entry_ssthresh(SsthreshBasis::Flight), 6500);
    assert_eq!(entry_ssthresh(SsthreshBasis::Window), 6000);
}

/// Segment 3 and its fast retransmission are lost, so the RTO resends it;
/// that is lost too and a second RTO follows. RFC 5681 keeps the first
/// expiry's ssthresh; ns-2 halves window() again, and cwnd is then one
/// packet: ssthresh falls to its floor of two.
#[test]
fn window_basis_halves_at_every_timeout() {
    let second_rto_ssthresh = |basis: SsthreshBasis| {
        let mut c = cfg(Recovery::NewReno);
        c.ssthresh_basis = basis;
        let h = transfer_with(&c, drop_first_sends_of(3, 3), 20_000);
        assert_eq!(h.eps[0].stats.timeouts, 2);
        // the window log entry where cwnd is one segment for the second time
        let mut ones = h.win.iter().filter(|w| w.cwnd == 1000 && w.ssthresh < 1 << 40).map(|w| w.ssthresh).collect::<Vec<_>>();
        ones.dedup();
        ones
    };
    let rfc = second_rto_ssthresh(SsthreshBasis::Flight);
    let ns2 = second_rto_ssthresh(SsthreshBasis::Window);
    assert_eq!(rfc.len(), 1, "RFC 5681 keeps ssthresh on the second expiry: {rfc:?}");
    assert_eq!(ns2.last(), Some(&2000), "ns-2 halves cwnd = 1 packet to the floor: {ns2:?}");
    assert!(ns2.len() == 2 && ns2[0] > 2000, "{ns2:?}");
}

#[test]
fn recover_rule_at_or_beyond() {
    let mut c = cfg(Recovery::NewReno);
    for (rule, at, beyond) in [(RecoverRule::At, true, true), (RecoverRule::Beyond, false, true)] {
        c.recover_rule = rule;
        let mut s = Sender::new(&c, Rng::new(0, 0));
        s.recover = 5001;
        s.una = 5001;
        assert_eq!(s.past_recover(), at, "{rule:?} at recover");
        s.una = 6001;
        assert_eq!(s.past_recover(), beyond, "{rule:?} beyond");
    }
}

/// At 1 Mb/s each 1040-byte segment takes 8.3 ms, so the third duplicate
/// ACK for segment 3 arrives about 25 ms after the last new ACK. With the
/// fast retransmission lost too, the RTO (1 s) fires 1 s after the fast
/// retransmit when that restarted the timer (ns-2), 1 s after the last new
/// ACK when it did not (RFC 6298).
#[test]
fn fast_retransmit_restarts_the_timer_under_ns2() {
    let rto_retx_after_fr = |rearm: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.rearm_rto_on_fast_retransmit = rearm;
        rto_after_lost_fast_retransmission(&c)
    };
    let rearmed = rto_retx_after_fr(true);
    let not = rto_retx_after_fr(false);
    assert_eq!(rearmed, 1000 * MS, "one RTO after the fast retransmit");
    assert!(not < 1000 * MS - 15 * MS, "RFC 6298: one RTO after the last new ACK ({not})");
}

/// ns-2's Vegas backs the coarse RTO off at its fast retransmit
/// (`reset_rtx_timer(1)`, backoff left at its default 1), where the other
/// agents' `dupack_action` restarts it without (`reset_rtx_timer(1, 0)`).
/// The path of the test above, Vegas on NewReno recovery, the fast
/// retransmission of segment 3 lost too: the RTO then fires two RTOs (2 s)
/// after the fast retransmit, one (1 s) without the backoff.
#[test]
fn ns2_vegas_backs_the_rto_off_at_its_fast_retransmit() {
    use crate::scenario::{Controller, VegasCfg};
    let rto_retx_after_fr = |rto_backoff: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.rearm_rto_on_fast_retransmit = true;
        c.controller = Controller::Vegas(VegasCfg { alpha: 1, beta: 3, gamma: 1, late_iw: false, fine_timeout: false, rto_backoff });
        rto_after_lost_fast_retransmission(&c)
    };
    assert_eq!(rto_retx_after_fr(true), 2000 * MS);
    assert_eq!(rto_retx_after_fr(false), 1000 * MS);
}

/// Sack1's counted pipe on one loss (segment 3), Limited Transmit off.
/// IW 10 leaves at 100 ms; the ACKs of 1 and 2 (200 ms) open cwnd to 12
/// and release 11-14; the duplicate ACKs for 4-10 follow 83 us apart, and
/// those for 11-14 come a round trip later.
/// * ns-2: outside recovery nothing is sent on a duplicate ACK; at the
///   third (for 6) pipe = (14 - 2) - 3 = 9 and cwnd = 6; the duplicate ACKs
///   for 7-10 take pipe to 5: one new segment (15) in that round trip.
/// * RFC 6675: the first two duplicate ACKs each let a new segment out (15,
///   16: pipe leaves SACKed data out); after the fast retransmit pipe = 11,
///   12, 13, 14, 15, 16 and the retransmission = 7 >= 6: nothing more.
#[test]
fn ns2_sack_pipe_counts_acks() {
    let new_in_recovery = |pipe: SackPipe| {
        let mut c = cfg(Recovery::Sack);
        c.sack_pipe = pipe;
        c.limited_transmit = false;
        let h = transfer_with(&c, drop_first_tx_of(&[3]), 40_000);
        assert_eq!((h.eps[0].stats.retransmissions, h.eps[0].stats.timeouts), (1, 0));
        let fr = h.data_sent().into_iter().find(|d| d.2).unwrap().0;
        // new segments sent from the fast retransmit for one round trip
        h.data_sent().into_iter().filter(|d| !d.2 && d.0 >= fr && d.0 < fr + 99 * MS).count()
    };
    let (ns2, rfc) = (new_in_recovery(SackPipe::Ns2), new_in_recovery(SackPipe::Rfc6675));
    assert_eq!((ns2, rfc), (1, 0));
}

/// ns-2's FACK restarts cwnd at one packet on entering recovery and opens
/// it by one per ACK during it.
#[test]
fn ns2_fack_restarts_cwnd_and_slow_starts_in_recovery() {
    let mut c = cfg(Recovery::Fack);
    c.fack_ns2 = true;
    let h = transfer_with(&c, drop_first_tx_of(&[3]), 30_000);
    let rec: Vec<_> = h.win.iter().filter(|w| w.in_recovery).map(|w| w.cwnd).collect();
    assert_eq!(rec[0], 1000, "{rec:?}");
    assert!(rec.windows(2).all(|p| p[1] >= p[0] && p[1] <= p[0] + 1000), "{rec:?}");
    assert!(*rec.last().unwrap() > 1000);
}

/// ns-2's Vegas takes windowInit_ one round trip late: one segment in the
/// first round of data, then 2 + 1 = 3 at its ACK; growth every other
/// round doubles from there (3, 6, 12) where the window taken at once gives
/// 2, 4, 8.
#[test]
fn ns2_vegas_takes_the_initial_window_a_round_late() {
    use crate::scenario::{Controller, VegasCfg};
    let rounds = |late_iw: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.sack = false;
        c.initial_window = InitialWindow::Segments(2);
        c.controller = Controller::Vegas(VegasCfg { alpha: 1, beta: 3, gamma: 1, late_iw, fine_timeout: false, rto_backoff: false });
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        h.transfer(60_000);
        h.run_until(10_000 * MS);
        assert_eq!(h.delivered(), 60_000);
        // segments sent per round trip of data (the first leaves at 100 ms)
        let mut per_round = [0u32; 6];
        for d in h.data_sent() {
            let r = ((d.0 - 100 * MS) / (100 * MS)) as usize;
            if r < per_round.len() {
                per_round[r] += 1;
            }
        }
        per_round
    };
    assert_eq!(rounds(true)[..5], [1, 3, 3, 6, 6]);
    assert_eq!(rounds(false)[..5], [2, 2, 4, 4, 8]);
}

/// ns-2's FACK sends, and opens cwnd, only on ACKs without SACK blocks:
/// between the first duplicate ACK for segment 3 and the fast retransmit
/// nothing leaves, where the Mathis FACK (the pipe leaving SACKed data out)
/// sends a segment per duplicate.
#[test]
fn ns2_fack_sends_nothing_on_sack_acks_before_its_fast_retransmit() {
    let sent_before_fr = |ns2: bool| {
        let mut c = cfg(Recovery::Fack);
        c.fack_ns2 = ns2;
        c.limited_transmit = false;
        let h = transfer_with(&c, drop_first_tx_of(&[3]), 30_000);
        // when the receiver's first ACK with a SACK block arrives (50 ms
        // after it left), and the fast retransmit
        let first_sack = h.log.iter().find(|s| s.from == 1 && !s.pkt.tcp.sack().is_empty()).unwrap().t + 50 * MS;
        let fr = h.data_sent().iter().find(|d| d.2).unwrap().0;
        h.data_sent().iter().filter(|d| !d.2 && d.0 > first_sack && d.0 < fr).count()
    };
    assert_eq!(sent_before_fr(true), 0);
    assert!(sent_before_fr(false) > 0);
}

/// The ns-2 of 2003 (`partial_window_deflation_ 0`): a NewReno partial ACK
/// drops the window's inflation whole, so the window right after it is
/// ssthresh; RFC 6582 deflates by what the ACK acknowledged and adds one
/// segment back, keeping the inflation the other duplicates brought.
#[test]
fn ns2_2003_partial_ack_drops_the_inflation_whole() {
    let after_partial = |deflation: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.sack = false;
        c.partial_window_deflation = deflation;
        let h = transfer_with(&c, drop_first_tx_of(&[3, 6]), 20_000);
        // the windows logged in recovery: the first drop below the inflated
        // window is the partial ACK's
        let rec: Vec<_> = h.win.iter().filter(|w| w.in_recovery).map(|w| (w.cwnd, w.ssthresh)).collect();
        let i = rec.windows(2).position(|p| p[1].0 < p[0].0).unwrap() + 1;
        (rec[i - 1].0, rec[i].0, rec[i].1)
    };
    let (inflated, ns2, ssthresh) = after_partial(false);
    assert_eq!(ns2, ssthresh);
    let (inflated_rfc, rfc, _) = after_partial(true);
    assert_eq!(inflated, inflated_rfc);
    assert!(rfc > ssthresh && rfc < inflated, "{rfc} {ssthresh} {inflated}");
}

/// One drop (segment 3) and NewReno's repair with cwnd set to ssthresh at
/// the full ACK: RFC 6582 stops there; ns-2 then runs its ordinary
/// `opencwnd()` on the same ACK, one congestion-avoidance step more.
#[test]
fn the_ack_that_ends_recovery_opens_cwnd_under_ns2() {
    let exit_cwnd = |opens: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.full_ack_cwnd = crate::scenario::FullAckCwnd::Ssthresh;
        c.exit_opens_cwnd = opens;
        let h = transfer_with(&c, drop_first_tx_of(&[3]), 30_000);
        let i = h.win.iter().position(|w| w.in_recovery).unwrap();
        let after = h.win[i..].iter().find(|w| !w.in_recovery).unwrap();
        (after.cwnd, after.ssthresh)
    };
    let (rfc, ssthresh) = exit_cwnd(false);
    assert_eq!(rfc, ssthresh);
    let (ns2, ssthresh2) = exit_cwnd(true);
    assert_eq!(ssthresh2, ssthresh);
    // one congestion-avoidance step: SMSS^2 / cwnd (1000-byte segments)
    let step = 1000 * 1000 / ssthresh;
    assert!(ns2.abs_diff(ssthresh + step) <= 1, "{ns2} vs {ssthresh} + {step}");
}

/// One segment; the receiver's (delayed) ACK of it is lost, so the sender's
/// timer resends it: a copy of the receiver's highest in-order segment with
/// nothing held above it. RFC 5681 4.2 ACKs a duplicate at once; ns-2's
/// DelAck sink takes it for new in-order data and delays the ACK by its
/// timer (200 ms here).
#[test]
fn ns2_delays_the_ack_of_a_copy_of_the_last_in_order_segment() {
    let ack_after_resend = |delay_dup: bool| {
        let mut c = cfg(Recovery::NewReno);
        c.delayed_ack = true;
        c.delayed_ack_timeout_ns = 200 * MS;
        c.delay_duplicate_ack = delay_dup;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        let mut acks = 0;
        h.drop = Box::new(move |p, from| {
            if from == 1 && p.payload == 0 && !p.tcp.has(crate::net::packet::FLAG_SYN) {
                acks += 1;
                return acks == 1;
            }
            false
        });
        h.transfer_open(1000);
        h.run_until(10_000 * MS);
        let resend = h.log.iter().find(|s| s.from == 0 && s.pkt.retx).expect("the RTO resends the segment").t;
        let ack = h.log.iter().filter(|s| s.from == 1 && s.pkt.payload == 0 && s.t > resend).map(|s| s.t).next().unwrap();
        ack - (resend + 50 * MS)
    };
    assert!(ack_after_resend(false) < MS, "RFC: at once");
    let wait = ack_after_resend(true);
    assert!((199 * MS..=201 * MS).contains(&wait), "ns-2: the delayed-ACK timer, {wait}");
}

/// ns-2's FACK holds its sends while SACK blocks are reported outside
/// recovery; after a timeout with the scoreboard kept (`rto_clears_sack =
/// false`, so SACK blocks stay) that hold must not apply: segment 3 lost
/// three times (original, fast retransmission, first timeout's resend) and
/// the go-back-N after each timeout sends at once. Found at PER 0.1 in the
/// Modified Peach study, where the hold stalled FACK to 0.8 kb/s.
#[test]
fn ns2_fack_go_back_n_after_a_timeout_with_the_scoreboard_kept() {
    let mut c = cfg(Recovery::Fack);
    c.fack_ns2 = true;
    c.rto_clears_sack = false;
    let h = transfer_with(&c, drop_first_sends_of(3, 3), 30_000);
    assert_eq!(h.eps[0].stats.timeouts, 2);
    // every timeout's resend of segment 3 leaves at the expiry, and the
    // transfer ends within a second of the last one
    let resends: Vec<u64> = h.data_sent().iter().filter(|d| d.2 && d.1 == seg(3)).map(|d| d.0).collect();
    assert_eq!(resends.len(), 3, "{resends:?}");
    let last = h.data_sent().last().unwrap().0;
    assert!(last < resends[2] + 1_000 * MS, "go-back-N went on: last send {last} after {}", resends[2]);
}

/// ns-2's FACK samples the RTT on every ACK its `oldack()` handles, from
/// the timestamp the sink echoes: TS.Recent, the segment that last moved
/// the receiver's window. With segment 3 lost from a 40-segment window on
/// a 1 Mb/s link, the duplicate ACKs arrive up to 40 x 8.3 ms after
/// segment 2 was sent, so those samples run from one RTT to one RTT plus
/// 320 ms (measured: smoothed RTT 200.8 ms after the recovery); the Mathis
/// FACK takes Karn's samples of the cumulative ACKs only (170.7 ms, the
/// queue of the 40-segment burst included).
#[test]
fn ns2_fack_samples_the_echoed_timestamp_on_duplicate_acks() {
    let srtt_after_recovery = |ns2: bool| {
        let mut c = cfg(Recovery::Fack);
        c.fack_ns2 = ns2;
        c.initial_window = InitialWindow::Segments(40);
        let mut h = Harness::new(&c, 1_000_000, 50 * MS);
        h.drop = drop_first_tx_of(&[3]);
        h.transfer(60_000);
        h.run_until(30_000 * MS);
        assert_eq!(h.delivered(), 60_000);
        h.eps[0].snd.rtt.srtt.unwrap() / 1e6
    };
    let (ns2, mathis) = (srtt_after_recovery(true), srtt_after_recovery(false));
    assert!(ns2 > mathis + 20.0, "ns-2 {ns2:.1} ms, Mathis {mathis:.1} ms");
    assert!(mathis < 180.0, "{mathis}");
}

/// ns-2's FACK keeps fast recovery through a timeout ("Do not clear
/// fastrecov_ or alter recover_"): segment 3 and its fast retransmission
/// lost, the timer fires in recovery; cwnd falls to one segment and the
/// resend goes from snd.una, but recovery goes on and ends only at the old
/// `recover` (segment 3's fast retransmit's snd.max), where the Mathis
/// FACK, like every other scheme, leaves recovery for the go-back-N.
#[test]
fn ns2_fack_keeps_recovery_through_a_timeout() {
    let after_rto = |ns2: bool| {
        let mut c = cfg(Recovery::Fack);
        c.fack_ns2 = ns2;
        let h = transfer_with(&c, drop_first_sends_of(3, 2), 30_000);
        assert_eq!(h.eps[0].stats.timeouts, 1);
        let rto_at = h.data_sent().iter().filter(|d| d.1 == seg(3) && d.2).nth(1).unwrap().0;
        let w = h.win_at(rto_at);
        (w.cwnd, w.in_recovery)
    };
    assert_eq!(after_rto(true), (1000, true));
    assert_eq!(after_rto(false), (1000, false));
}
