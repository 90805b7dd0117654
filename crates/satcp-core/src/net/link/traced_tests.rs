//! Hand-worked cases of trace-driven directions (`service.rs`, the delay
//! series of `schedule.rs`): the FIFO and the holding transmitter on a
//! trace of delivery opportunities, a delay series followed to the
//! nanosecond, overtaking under a falling delay, and outage intervals.

use super::protocol::{link_event, TestWorld};
use super::*;
use crate::net::packet::Kind;
use crate::net::Packet;
use crate::scenario::{DelayOrder, DelayTraceCfg, DirTraces, ErrorCfg};
use crate::sim::Event;

const MS: u64 = 1_000_000;

fn cfg(queue: QueueCfg, rate_bps: u64, delay_ns: u64, traces: DirTraces, overhead: u32) -> LinkDirCfg {
    LinkDirCfg { rate_bps, delay_ns, queue, errors: ErrorCfg::None, overhead_bytes: overhead, reorder: None, loss_placement: LossPlacement::Link, traces: Some(Box::new(traces)) }
}

fn opportunities(ms: &[u64]) -> Option<CapacityTrace> {
    Some(CapacityTrace::Opportunities { file: "hand-made".into(), ms: ms.into() })
}

/// The trace 10, 20, 30 ms (repeating every 30 ms), 5 ms of delay, 4 bytes
/// of framing (the default under a capacity trace), this queue.
fn trace_dir(queue: QueueCfg) -> LinkDir {
    let c = cfg(queue, 1_203_200, 5 * MS, DirTraces { capacity: opportunities(&[10, 20, 30]), delay: None }, 4);
    LinkDir::new(0, 1, &c, Rng::new(1, 1))
}

const UNLIMITED: QueueCfg = QueueCfg::DropTail { limit: QueueLimit::Unlimited };

/// Seven 1,500-byte packets offered at once leave one at each opportunity
/// the trace lists, then at the repeated ones (40, 50, 60, 70 ms): three in
/// the trace's first 30 ms.
#[test]
fn a_three_line_trace_gives_exactly_the_departures_it_lists() {
    let mut l = trace_dir(UNLIMITED);
    let arrivals: Vec<Enqueued> = (0..7).map(|_| l.enqueue(0, 1500)).collect();
    let want: Vec<Enqueued> = [15, 25, 35, 45, 55, 65, 75].iter().map(|&m| Enqueued::Arrives(m * MS)).collect();
    assert_eq!(arrivals, want);
    let departed_by_30ms = arrivals.iter().filter(|a| matches!(a, Enqueued::Arrives(t) if *t - 5 * MS <= 30 * MS)).count();
    assert_eq!(departed_by_30ms, 3);
    assert_eq!(l.capacity_bits(30 * MS), 3.0 * 1504.0 * 8.0);
    // every packet waits for its opportunity: six wait at 5 ms (the first
    // leaves at 10 ms, its first byte's instant)
    assert_eq!(l.queue_packets(5 * MS), 7);
    assert_eq!(l.queue_packets(10 * MS), 7, "at its instant the first still waits for an arrival then");
    assert_eq!(l.queue_packets(10 * MS + 1), 6);
}

/// 40-byte ACKs with 4 bytes of framing: 34 leave at 10 ms (1,496 bytes),
/// the 35th finds 8 bytes left and leaves at 20 ms with the next
/// opportunity's first 36.
#[test]
fn ack_sized_packets_share_one_opportunity() {
    let mut l = trace_dir(UNLIMITED);
    for _ in 0..34 {
        assert_eq!(l.enqueue(0, 40), Enqueued::Arrives(15 * MS));
    }
    assert_eq!(l.enqueue(0, 40), Enqueued::Arrives(25 * MS));
    // the 1,468 bytes left at 20 ms take a 1,460-byte packet (1,464 framed)
    assert_eq!(l.enqueue(0, 1460), Enqueued::Arrives(25 * MS));
}

/// A 1,500-byte IP packet with its 4 bytes of framing fills one opportunity
/// exactly; a 1,501-byte one needs a byte of the next.
#[test]
fn a_1500_byte_packet_fits_one_opportunity_and_framing_counts() {
    let mut l = trace_dir(UNLIMITED);
    assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(15 * MS));
    assert_eq!(l.enqueue(0, 1501), Enqueued::Arrives(35 * MS));
    // with overhead = 0 (written on the link) an opportunity carries 1,504
    // IP bytes: 1,504 fit at 10 ms
    let c = cfg(UNLIMITED, 1, 5 * MS, DirTraces { capacity: opportunities(&[10, 20, 30]), delay: None }, 0);
    let mut l = LinkDir::new(0, 1, &c, Rng::new(1, 1));
    assert_eq!(l.enqueue(0, 1504), Enqueued::Arrives(15 * MS));
}

/// What an opportunity has left when the queue is empty is lost: a packet
/// offered after it waits for the next one; one offered at its very
/// instant may still use it.
#[test]
fn unused_opportunities_are_lost_when_the_queue_is_empty() {
    let mut l = trace_dir(UNLIMITED);
    assert_eq!(l.enqueue(0, 100), Enqueued::Arrives(15 * MS));
    assert_eq!(l.enqueue(12 * MS, 100), Enqueued::Arrives(25 * MS));
    assert_eq!(l.enqueue(20 * MS, 100), Enqueued::Arrives(25 * MS));
    assert_eq!(l.enqueue(20 * MS + 1, 100), Enqueued::Arrives(35 * MS));
    // 100 ms idle: the opportunities at 40 .. 100 ms carried nothing
    assert_eq!(l.enqueue(100 * MS + 1, 1500), Enqueued::Arrives(115 * MS));
    assert_eq!(l.utilization(110 * MS), (4.0 * 104.0 + 1504.0) / (11.0 * 1504.0));
}

/// A drop-tail limit counts the packets waiting for their first byte's
/// opportunity.
#[test]
fn the_queue_limit_counts_packets_waiting_for_an_opportunity() {
    let mut l = trace_dir(QueueCfg::DropTail { limit: QueueLimit::Packets(2) });
    assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(15 * MS));
    assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(25 * MS));
    assert_eq!(l.enqueue(0, 1500), Enqueued::DroppedQueue);
    // at 10 ms + 1 the first has left: room for one more, which leaves at 30
    assert_eq!(l.enqueue(10 * MS + 1, 1500), Enqueued::Arrives(35 * MS));
    assert_eq!(l.stats.drops_queue, 1);
}

/// The holding transmitter (the priority queue) on the same trace: the
/// same departures as the FIFO, ACKs sharing an opportunity too.
#[test]
fn the_holding_transmitter_takes_the_same_opportunities() {
    let mut l = trace_dir(QueueCfg::Priority { limit: QueueLimit::Unlimited, low_drop: Default::default() });
    assert!(l.holds_packets());
    let mut w = TestWorld::default();
    let sizes = [1500, 1500, 40, 40, 1460, 1500];
    for (tag, &bytes) in sizes.iter().enumerate() {
        let mut p = Packet::udp(0, 1, 0, bytes).with_kind(Kind::Data);
        p.stream_off = tag as u64;
        l.accept(0, p, &mut w.ctx(0, 1));
    }
    let mut dirs = vec![l];
    let mut arrived = Vec::new();
    while let Some((t, ev)) = w.q.pop() {
        match ev {
            Event::Link { dir, what } => link_event(&mut dirs, dir, what, &mut w.ctx(t, 1)),
            Event::Arrive { .. } => {
                let (id, next) = dirs[0].pop_arrival();
                arrived.push((t / MS, w.pkts.remove(id).stream_off));
                if let Some((at, _)) = next {
                    w.q.push(at, Event::Arrive { dir: 0 });
                }
            }
            e => panic!("{e:?}"),
        }
    }
    // 10 ms, 20 ms; the two ACKs (88 bytes) and the 1,460-byte packet
    // (1,464: 1,416 left, 48 more) at 30 and 40 ms; the last at 50 ms
    // (40 ms has 1,456 left: 48 bytes carry over)
    assert_eq!(arrived, [(15, 0), (25, 1), (35, 2), (35, 3), (45, 4), (55, 5)]);
}

/// A delay series of 10-ms intervals, 24, 18 and 30 ms, repeated: a packet
/// whose last bit leaves at an interval's first nanosecond takes its delay,
/// one leaving a nanosecond before takes the interval before's.
fn delay_dir(order: DelayOrder, delays: &[Option<u64>]) -> LinkDir {
    // 8 Gb/s: a 1-byte packet takes 1 ns
    let d = DelayTraceCfg { file: "hand-made".into(), interval_ns: 10 * MS, from_ns: None, delays_ns: delays.into(), order };
    let c = cfg(UNLIMITED, 8_000_000_000, 24 * MS, DirTraces { capacity: None, delay: Some(d) }, 0);
    LinkDir::new(0, 1, &c, Rng::new(1, 1))
}

#[test]
fn a_delay_series_is_followed_to_the_nanosecond_at_each_interval_start() {
    let series = [Some(24 * MS), Some(18 * MS), Some(30 * MS)];
    let mut l = delay_dir(DelayOrder::InOrder, &series);
    for (k, want) in [(1u64, 18 * MS), (2, 30 * MS), (3, 24 * MS), (4, 18 * MS), (302, 30 * MS)] {
        let start = k * 10 * MS;
        // ends at the interval's last nanosecond, then at its first
        let before = l.enqueue(start - 2, 1);
        let at = l.enqueue(start - 1, 1);
        let prev = series[((k - 1) % 3) as usize].unwrap();
        assert_eq!(before, Enqueued::Arrives(start - 1 + prev), "interval {k}");
        assert_eq!(at, Enqueued::Arrives((start + want).max(start - 1 + prev)), "interval {k}");
        assert_eq!(l.delay_at(start), want);
        assert_eq!(l.delay_at(start - 1), prev);
    }
}

/// When the delay falls (24 -> 18 ms at 10 ms), a packet sent after the
/// fall arrives before one sent just before it under "overtake"
/// (LeoReplayer's priority queue), and waits behind it under "in_order".
#[test]
fn a_falling_delay_lets_later_packets_overtake_or_wait_as_chosen() {
    let series = [Some(24 * MS), Some(18 * MS), Some(30 * MS)];
    let mut l = delay_dir(DelayOrder::Overtake, &series);
    assert_eq!(l.enqueue(10 * MS - 2, 1), Enqueued::Arrives(34 * MS - 1));
    assert_eq!(l.enqueue(10 * MS - 1, 1), Enqueued::ArrivesLate(28 * MS));
    assert_eq!(l.enqueue(10 * MS, 1), Enqueued::ArrivesLate(28 * MS + 1));
    assert_eq!(l.stats.reordered, 2);
    // packets held back arrive earliest first, ties in the order sent
    l.push_late(28 * MS, 7);
    l.push_late(28 * MS, 8);
    assert_eq!((l.pop_late(), l.pop_late()), (7, 8));
    // a rising delay reorders nothing: 18 -> 30 ms at 20 ms
    assert_eq!(l.enqueue(20 * MS - 2, 1), Enqueued::Arrives(38 * MS - 1));
    assert_eq!(l.enqueue(20 * MS - 1, 1), Enqueued::Arrives(50 * MS));
    let mut l = delay_dir(DelayOrder::InOrder, &series);
    assert_eq!(l.enqueue(10 * MS - 2, 1), Enqueued::Arrives(34 * MS - 1));
    assert_eq!(l.enqueue(10 * MS - 1, 1), Enqueued::Arrives(34 * MS - 1));
    assert_eq!(l.stats.reordered, 0);
}

/// A `down` interval loses the packets whose last bit leaves in it; the
/// intervals around it deliver.
#[test]
fn a_down_interval_in_the_delay_series_loses_what_leaves_in_it() {
    let mut l = delay_dir(DelayOrder::Overtake, &[Some(5 * MS), None, Some(7 * MS)]);
    assert_eq!(l.enqueue(10 * MS - 2, 1), Enqueued::Arrives(15 * MS - 1));
    assert_eq!(l.enqueue(10 * MS - 1, 1), Enqueued::Down { sent: true });
    assert_eq!(l.enqueue(20 * MS - 2, 1), Enqueued::Down { sent: true });
    assert_eq!(l.enqueue(20 * MS - 1, 1), Enqueued::Arrives(27 * MS));
    // repeated: 40 ms is the down interval again
    assert_eq!(l.enqueue(40 * MS, 1), Enqueued::Down { sent: true });
    assert_eq!(l.stats.drops_down, 3);
    // routing reads the delay before the outage
    assert_eq!(l.delay_at(15 * MS), 5 * MS);
}

/// An outage (a `changes` down) on a trace-driven FIFO loses what it held
/// and frees the opportunities those packets had: after it a packet takes
/// the first opportunity from its offer.
#[test]
fn an_outage_frees_the_opportunities_of_the_lost_packets() {
    use crate::scenario::DirChange;
    let none = DirChange::default();
    let c = cfg(UNLIMITED, 1_203_200, 5 * MS, DirTraces { capacity: opportunities(&[10, 20, 30]), delay: None }, 4);
    let sched = DirSchedule::new(1_203_200, 5 * MS, &[(22 * MS, none, Some(false)), (26 * MS, none, Some(true))]);
    let mut l = LinkDir::with_schedule(0, 1, &c, sched, Rng::new(1, 1));
    let fates: Vec<Enqueued> = (0..4).map(|_| l.enqueue(0, 1500)).collect();
    assert_eq!(fates[0], Enqueued::Arrives(15 * MS));
    assert_eq!(fates[1], Enqueued::Down { sent: true }, "on the wire at 22 ms (arrives at 25)");
    assert_eq!(fates[2..], [Enqueued::Down { sent: false }, Enqueued::Down { sent: false }]);
    l.on_change(22 * MS);
    l.go_down(0, &mut TestWorld::default().ctx(22 * MS, 1));
    l.on_change(26 * MS);
    assert_eq!(l.enqueue(26 * MS, 1500), Enqueued::Arrives(35 * MS), "the 30 ms opportunity is free again");
}

/// The link series' rate on a trace: what the opportunities of the last
/// 100 ms carried (ten of 1,504 bytes in (0, 100 ms]: 1.2032 Mb/s; in
/// (5, 105 ms] ten too; at 50 ms the five of the 50 ms since the start);
/// a rate series' rate in force.
#[test]
fn the_series_rate_of_a_trace_driven_direction() {
    let mut l = trace_dir(UNLIMITED);
    assert_eq!(l.sample(100 * MS).rate_bps, 1_203_200);
    assert_eq!(l.sample(105 * MS).rate_bps, 1_203_200);
    assert_eq!(l.sample(50 * MS).rate_bps, 1_203_200);
    assert_eq!(l.sample(55 * MS).rate_bps, 5 * 1504 * 8 * 1000 / 55);
    let rates = Some(CapacityTrace::Rates { file: "hand-made".into(), steps: [(0, 1_000_000), (MS, 2_000_000)].into() });
    let c = cfg(UNLIMITED, 1_000_000, 0, DirTraces { capacity: rates, delay: None }, 0);
    let mut l = LinkDir::new(0, 1, &c, Rng::new(1, 1));
    assert_eq!((l.sample(MS - 1).rate_bps, l.sample(MS).rate_bps), (1_000_000, 2_000_000));
    // and its service: 125 bytes take 1 ms at 1 Mb/s, then 0.5 ms at 2 Mb/s
    assert_eq!(l.enqueue(0, 125), Enqueued::Arrives(MS));
    assert_eq!(l.enqueue(0, 125), Enqueued::Arrives(MS + MS / 2));
}

/// `t,delay` pairs: 24 ms from 0, 18 ms from 12.5 ms, down from 20 ms, 30
/// ms from 30 ms and on for good (no repetition).
#[test]
fn delay_pairs_apply_from_their_instants_and_the_last_holds() {
    let d = DelayTraceCfg {
        file: "hand-made".into(),
        interval_ns: 0,
        from_ns: Some([0, 12_500_000, 20 * MS, 30 * MS].into()),
        delays_ns: [Some(24 * MS), Some(18 * MS), None, Some(30 * MS)].into(),
        order: DelayOrder::InOrder,
    };
    let c = cfg(UNLIMITED, 8_000_000_000, 24 * MS, DirTraces { capacity: None, delay: Some(d) }, 0);
    let l = LinkDir::new(0, 1, &c, Rng::new(1, 1));
    let at = [0, 12_500_000 - 1, 12_500_000, 20 * MS - 1, 30 * MS, 1_000_000 * MS].map(|t| l.delay_at(t));
    assert_eq!(at, [24 * MS, 24 * MS, 18 * MS, 18 * MS, 30 * MS, 30 * MS]);
    let mut l = l;
    assert_eq!(l.enqueue(25 * MS, 1), Enqueued::Down { sent: true });
}
