//! Hand-worked traces of the controller hooks beyond the window, driven by
//! the test-only controller `cc::probe` on tests.rs's set-up (MSS 1000, IW
//! 10, no delayed ACK, 100 Mb/s, 50 ms one way: a 1040-byte segment takes
//! 83.2 us to send, the RTT is 100 ms plus serialisation).

use crate::tcp::cc::probe::{self, Probe, ProbeCfg};
use crate::tcp::cc::{Cc, DupAck};
use super::harness::{DropRule, Harness, Sent};
use crate::tcp::sender::SSTHRESH_INFINITE;
use super::{cfg as base_cfg, drop_first_tx_of, seg};
use crate::net::Kind;
use crate::scenario::{Controller, Recovery, TcpCfg};
use crate::sim::Time;

const MS: u64 = 1_000_000;

fn cfg(recovery: Recovery, p: ProbeCfg) -> TcpCfg {
    let mut c = base_cfg(recovery);
    c.controller = Controller::Probe(p);
    c
}

fn run(c: &TcpCfg, drop: DropRule, bytes: u64) -> Harness {
    let mut h = Harness::new(c, 100_000_000, 50 * MS);
    h.drop = drop;
    h.transfer(bytes);
    h.run_until(100_000 * MS);
    assert_eq!(h.delivered(), bytes);
    h
}

fn probe(h: &Harness, ep: usize) -> &Probe {
    match &h.eps[ep].snd.cc {
        Cc::Probe(p) => p,
        _ => unreachable!(),
    }
}

fn of_kind(h: &Harness, from: u32, kind: Kind) -> Vec<Sent> {
    h.log.iter().filter(|s| s.from == from && s.pkt.kind == kind).copied().collect()
}

/// When the first ACK of data reaches the sender: one way (50 ms and 3.2
/// us for its 40 bytes) after the receiver sent it.
fn first_data_ack_at(h: &Harness) -> Time {
    let first = h.log.iter().find(|s| s.from == 0 && s.pkt.payload > 0).unwrap().t;
    let ack = h.log.iter().find(|s| s.from == 1 && s.t > first && s.pkt.kind == Kind::Ack).unwrap();
    ack.t + 50 * MS + 3_200
}

#[test]
fn dummy_segments_on_the_controllers_timer() {
    // Three dummies 10 ms apart after the first data ACK, no window growth
    // at all: 20 segments go out in two windows of 10.
    let dummies = ProbeCfg { dummies: 3, spacing_ns: 10 * MS, ..Default::default() };
    let h = run(&cfg(Recovery::NewReno, dummies), Box::new(|_, _| false), 20_000);
    let t = first_data_ack_at(&h);
    // On the wire: the first dummy leaves on the first data ACK, after
    // segment 11 (which that ACK released); the others 10 and 20 ms later,
    // when segment 20 (with the FIN) is the last sent. Each is a copy of
    // that segment's 1000 bytes: sequence and stream offset as the
    // original, no FIN, no retransmission flag.
    let d = of_kind(&h, 0, Kind::Dummy);
    let at: Vec<Time> = d.iter().map(|s| s.t).collect();
    assert_eq!(at, vec![t, t + 10 * MS, t + 20 * MS]);
    let copies: Vec<(u64, u32, u32)> = d.iter().map(|s| (s.pkt.stream_off, s.pkt.payload, s.pkt.ip_bytes)).collect();
    assert_eq!(copies, vec![(seg(11), 1000, 1040), (seg(20), 1000, 1040), (seg(20), 1000, 1040)]);
    assert!(d.iter().all(|s| s.pkt.tcp.seq as u64 == s.pkt.stream_off && s.pkt.tcp.flags == 0x10 && !s.pkt.retx));
    let original_11 = h.log.iter().find(|s| s.pkt.kind == Kind::Data && s.pkt.stream_off == seg(11)).unwrap();
    assert!(original_11.t <= t, "segment 11 left first");
    // The receiver answers each the moment it arrives with a DummyAck, a
    // pure ACK of what it holds in order: 11000 bytes the first time
    // (segment 11 came just before: the dummy waited 83.2 us behind it),
    // everything and the FIN (20002) later.
    let da = of_kind(&h, 1, Kind::DummyAck);
    let answered: Vec<(Time, u32, u32)> = da.iter().map(|s| (s.t, s.pkt.tcp.ack, s.pkt.ip_bytes)).collect();
    let one_way = 50 * MS + 83_200;
    let expect = vec![(at[0] + 83_200 + one_way, 11_001, 40), (at[1] + one_way, 20_002, 40), (at[2] + one_way, 20_002, 40)];
    assert_eq!(answered, expect);
    // Counted apart; the controller saw all three DummyAcks and no
    // duplicate ACK (a DummyAck is never one); cwnd never moved.
    let (s, r) = (h.eps[0].stats, h.eps[1].stats);
    assert_eq!((s.dummy_segments_sent, s.dummy_acks_received, r.dummy_acks_sent), (3, 3, 3));
    assert_eq!((r.dummy_segments_sent, r.dummy_acks_received, s.dummy_acks_sent), (0, 0, 0));
    let p = probe(&h, 0);
    assert_eq!((p.dummies_asked, p.dummy_acks), (3, 3));
    assert!(p.verdicts.is_empty());
    assert!(h.win.iter().all(|w| w.ssthresh == SSTHRESH_INFINITE && !w.in_recovery));
    let mut steps: Vec<u64> = h.win.iter().map(|w| w.cwnd).collect();
    steps.dedup();
    assert_eq!(steps, vec![1000, 10_000], "one SMSS before the handshake, then IW 10");
    // Delivery and every ordinary counter are those of the same run
    // without dummies; so are the data segments sent (they only queue
    // behind a dummy now and then).
    let plain = run(&cfg(Recovery::NewReno, ProbeCfg::default()), Box::new(|_, _| false), 20_000);
    let (ps, pr) = (plain.eps[0].stats, plain.eps[1].stats);
    let ordinary = |e: crate::tcp::endpoint::EndpointStats| (e.segments_sent, e.retransmissions, e.timeouts, e.fast_recoveries);
    assert_eq!((ordinary(s), ordinary(r)), (ordinary(ps), ordinary(pr)));
    let (rcv, prcv) = (&h.eps[1].rcv, &plain.eps[1].rcv);
    assert_eq!((rcv.bytes_delivered, rcv.bytes_arrived, rcv.data_segments), (20_000, 20_000, 20));
    assert_eq!((prcv.bytes_delivered, prcv.bytes_arrived, prcv.data_segments), (20_000, 20_000, 20));
    let sent = |h: &Harness| of_kind(h, 0, Kind::Data).iter().map(|s| (s.pkt.stream_off, s.pkt.retx)).collect::<Vec<_>>();
    assert_eq!(sent(&h), sent(&plain));
    assert_eq!(h.eps[0].stats.integrity_errors + h.eps[1].stats.integrity_errors, 0);
    assert!(h.eps[0].is_finished() && h.eps[1].is_finished());
}

#[test]
fn cwnd_follows_the_controller_on_dummy_acks_only() {
    // The same run, each DummyAck adding one segment: cwnd is 10, 11, 12,
    // 13 segments and nothing else.
    let p = ProbeCfg { dummies: 3, spacing_ns: 10 * MS, dummy_ack_growth: 1000, ..Default::default() };
    let h = run(&cfg(Recovery::NewReno, p), Box::new(|_, _| false), 20_000);
    let mut steps: Vec<u64> = h.win.iter().map(|w| w.cwnd).collect();
    steps.dedup();
    assert_eq!(steps, vec![1000, 10_000, 11_000, 12_000, 13_000]);
    // A dummy of a given range: [1, 501), 500 bytes.
    let r = ProbeCfg { dummies: 1, range: Some((1, 500)), ..Default::default() };
    let h = run(&cfg(Recovery::Sack, r), Box::new(|_, _| false), 20_000);
    let d = of_kind(&h, 0, Kind::Dummy);
    assert_eq!(d.iter().map(|s| (s.pkt.stream_off, s.pkt.payload, s.pkt.ip_bytes)).collect::<Vec<_>>(), vec![(1, 500, 540)]);
    assert_eq!(of_kind(&h, 1, Kind::DummyAck).len(), 1);
}

#[test]
fn corruption_verdicts_resend_without_touching_the_window() {
    // Segments 3 and 6 lost once; slow start (IW 10) by RFC 5681. With
    // every loss judged corruption each duplicate ACK resends the segment
    // at snd_una and nothing else: no fast recovery, no timeout, ssthresh
    // never set and cwnd only ever growing. (A controller that answers
    // corruption to every duplicate ACK, as this one does, also resends on
    // the duplicate ACKs its own extra copies provoke; CETEN-R's draw per
    // loss event is its own business.)
    let corrupt = ProbeCfg { aimd: true, corruption: true, ..Default::default() };
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let h = run(&cfg(recovery, corrupt), drop_first_tx_of(&[3, 6]), 40_000);
        let st = h.eps[0].stats;
        assert_eq!((st.fast_recoveries, st.timeouts), (0, 0), "{recovery:?}");
        assert!(h.win.iter().all(|w| w.ssthresh == SSTHRESH_INFINITE && !w.in_recovery), "{recovery:?}");
        assert!(h.win.windows(2).all(|p| p[1].cwnd >= p[0].cwnd), "{recovery:?}");
        // segment 3 is resent on the first duplicate ACK, then segment 6
        let resent: Vec<u64> = h.data_sent().into_iter().filter(|d| d.2).map(|d| d.1).collect();
        assert_eq!(resent[0], seg(3), "{recovery:?}");
        assert_eq!(resent.iter().find(|&&o| o != seg(3)), Some(&seg(6)), "{recovery:?}");
        // every byte delivered once, in order
        let rcv = &h.eps[1].rcv;
        assert_eq!((rcv.bytes_delivered, h.eps[1].stats.integrity_errors), (40_000, 0));
        // Each corruption verdict counts its duplicate ACK (CETEN-R's printed
        // code counts before it judges): the counts run 1, 2, 3, ... within
        // a run of duplicates, reach DupThresh, and still no fast recovery
        // starts, since a corrupted duplicate never reaches the scheme.
        let v = &probe(&h, 0).verdicts;
        assert!(v.iter().all(|d| !d.in_recovery), "{v:?}");
        assert_eq!(v[0].count, 1);
        assert!(v.windows(2).all(|p| p[1].count == p[0].count + 1 || p[1].count == 1), "{v:?}");
        assert!(v.iter().any(|d| d.at_dupthresh && d.count == 3), "{v:?}");
        // one resend per verdict (with SACK only while pipe < cwnd)
        match recovery {
            Recovery::Sack => assert!(st.retransmissions > 0 && st.retransmissions <= v.len() as u64),
            _ => assert_eq!(st.retransmissions, v.len() as u64),
        }
    }
    // Judged congestion instead, the same losses halve the window once.
    let congestion = ProbeCfg { aimd: true, ..Default::default() };
    let h = run(&cfg(Recovery::NewReno, congestion), drop_first_tx_of(&[3, 6]), 40_000);
    assert_eq!(h.eps[0].stats.fast_recoveries, 1);
    let v = &probe(&h, 0).verdicts;
    let third = v.iter().position(|d| d.at_dupthresh).unwrap();
    assert_eq!(v[third], DupAck { count: 3, at_dupthresh: true, in_recovery: false, head_sent_at: v[third].head_sent_at });
    assert!(v[..third].iter().enumerate().all(|(i, d)| d.count == i as u32 + 1 && !d.in_recovery));
    assert!(v[third + 1..].iter().all(|d| d.in_recovery && !d.at_dupthresh));
}

#[test]
fn research_option_round_trip() {
    // Both ends run the probe: data segments carry FORWARD [MARK, n]; the
    // receiver echoes the latest on each ACK; the sender keeps the echo.
    let r = ProbeCfg { research: true, ..Default::default() };
    let h = run(&cfg(Recovery::NewReno, r), Box::new(|_, _| false), 5_000);
    let data: Vec<&Sent> = h.log.iter().filter(|s| s.from == 0 && s.pkt.payload > 0).collect();
    assert_eq!(data.len(), 5);
    for (n, s) in data.iter().enumerate() {
        let o = s.pkt.tcp.research().unwrap();
        assert_eq!((o.exid, o.wire_len, o.words[0], o.words[1]), (probe::FORWARD, probe::WIRE_LEN, probe::MARK, n as u32 + 1));
        // the option's 12 bytes count on the wire
        assert_eq!(s.pkt.ip_bytes, 40 + 12 + 1000);
    }
    // each data segment is ACKed at once with its own words echoed
    let acks: Vec<&Sent> = h.log.iter().filter(|s| s.from == 1 && s.pkt.kind == Kind::Ack && s.pkt.tcp.research().is_some()).collect();
    assert_eq!(acks.len(), 5);
    for (n, s) in acks.iter().enumerate() {
        let o = s.pkt.tcp.research().unwrap();
        assert_eq!((o.exid, o.words[0], o.words[1]), (probe::ECHO, probe::MARK, n as u32 + 1));
        assert_eq!(s.pkt.ip_bytes, 40 + 12);
    }
    // nothing on the handshake, nor on the ACK before any data arrived
    assert!(h.log.iter().filter(|s| s.pkt.tcp.flags & 0x02 != 0).all(|s| s.pkt.tcp.research().is_none()));
    let first_data = data[0].t;
    assert!(h.log.iter().filter(|s| s.from == 1 && s.t < first_data).all(|s| s.pkt.tcp.research().is_none()));
    // what each end kept: the receiver the last FORWARD, the sender its
    // echo; and the other way round for the receiver's FIN, the one data
    // segment it sent, whose ACK echoes it
    let (snd, rcv) = (probe(&h, 0), probe(&h, 1));
    assert_eq!(rcv.received.unwrap().words[..2], [probe::MARK, 5]);
    assert_eq!(snd.echoed.unwrap().words[..2], [probe::MARK, 5]);
    assert_eq!(snd.received.unwrap().words[..2], [probe::MARK, 1]);
    assert_eq!(rcv.echoed.unwrap().words[..2], [probe::MARK, 1]);
}
