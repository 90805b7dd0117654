//! A transmitter several link directions share (`Tx::Shared`): Hypatia's
//! ground-link device (`gsl.device = "shared"`, `world/leo.rs`). Each ground
//! station and each satellite has one device, with one rate and one
//! drop-tail queue, whatever peers it sends to; each of its directions (the
//! station's to each satellite it uses, the satellite's to each station it
//! serves) keeps its own wire, delay, errors, state and counters.
//!
//! Source: Hypatia's `GSLNetDevice` (ns3-sat-sim, `gsl-net-device.cc`): one
//! queue (`DropTailQueue`, `gsl_max_queue_size_pkts`) and one rate
//! (`gsl_data_rate_megabit_per_s`) per device; a packet's next hop is the
//! one its node's forwarding state gave when it was queued
//! (`m_queueDests`), kept while it waits; `GSLChannel` delivers it to that
//! peer whatever the peer's range by then.
//!
//! The device is a FIFO with committed departures, as `fifo.rs`: a packet
//! offered at `now` starts at max(now, the device's end of its last
//! transmission), so one event per packet per hop is kept and every
//! direction's arrivals stay in order. The queue limit counts the packets
//! of every peer waiting in the device, not the one being sent (ns-3's
//! device queue too: a packet leaves it when its transmission starts).
//!
//! Choices:
//! * The delay is the distance when the packet's last bit leaves (satcp's
//!   rule for every moving link); Hypatia's channel takes it when the first
//!   bit leaves. A ground link's length changes by at most 7 km/s x the
//!   packet's transmission time: 8 m, 28 ns, for 1,500 bytes at 10 Mb/s.
//! * A handover (`gsl.handover`): with "delivered" (Hypatia's) a packet
//!   queued for the old peer keeps it and arrives; with "lost" it still
//!   takes its turn on the device (the transmitter sends what it queued)
//!   and is lost as it comes off the wire. Either way the device's later
//!   packets keep their committed times.
//! * A member direction's queue (`queue_packets`, the series, an agent's
//!   backlog) is its own packets waiting in the device: the members' sum
//!   to the device's. `max_queue_packets` is the most packets of every
//!   peer a packet of this direction found waiting.

use super::fifo::{Discipline, Fifo};
use super::protocol::LinkCtx;
use super::{serialisation_ns, LinkDir, Tx};
use crate::net::Packet;
use crate::scenario::QueueLimit;
use crate::sim::Time;
use std::collections::VecDeque;

/// The shared devices of a run, by index (a `Tx::Shared` direction names
/// its device's).
#[derive(Default)]
pub struct Devices(Vec<Fifo>);

impl Devices {
    /// New idle devices with drop-tail queues of these limits, in order;
    /// the first's index.
    pub fn add(&mut self, limits: impl IntoIterator<Item = QueueLimit>) -> u32 {
        let first = self.0.len() as u32;
        self.0.extend(limits.into_iter().map(|l| Fifo::new(Discipline::DropTail(l))));
        first
    }
}

/// A direction that sends through a shared device.
pub(in crate::net::link) struct Member {
    device: u32,
    /// This direction's transmissions not over when it last took a
    /// packet, (start, end, IP bytes) in order: its queue, the end of its
    /// last transmission, and the part of its busy time after a run's end
    /// (its utilisation) are read from them.
    sent: VecDeque<(Time, Time, u32)>,
}

impl Member {
    /// Its packets waiting (not started) at `now`.
    pub(super) fn waiting(&self, now: Time) -> impl Iterator<Item = u32> + '_ {
        self.sent.iter().filter(move |&&(start, _, _)| start >= now).map(|&(_, _, bytes)| bytes)
    }

    /// When its last transmission ends.
    pub(super) fn busy_until(&self) -> Time {
        self.sent.back().map_or(0, |&(_, end, _)| end)
    }

    /// Its transmission time after `t` (committed before it).
    pub(super) fn busy_after(&self, t: Time) -> Time {
        self.sent.iter().map(|&(start, end, _)| end.saturating_sub(start.max(t))).sum()
    }
}

impl LinkDir {
    /// Send through shared device `device` from now on (a direction made
    /// for it, before any packet).
    pub fn join_device(&mut self, device: u32) {
        self.tx = Tx::Shared(Box::new(Member { device, sent: VecDeque::new() }));
    }

    /// The world routed `p` onto this direction `d`: it waits in the
    /// device's queue for its turn, then goes on this direction's wire.
    pub(super) fn shared_accept(&mut self, d: u32, p: Packet, ctx: &mut LinkCtx) {
        let now = ctx.now;
        if self.schedule.down_at(now) {
            self.stats.drops_down += 1;
            ctx.out.lost.push(p);
            return;
        }
        let Tx::Shared(m) = &mut self.tx else { unreachable!("a member of a shared device") };
        let dev = &mut ctx.devices.0[m.device as usize];
        dev.advance(now);
        while m.sent.front().is_some_and(|&(_, end, _)| end <= now) {
            m.sent.pop_front();
        }
        let start = dev.busy_until.max(now);
        if start > now {
            if dev.full(p.ip_bytes) {
                self.stats.drops_queue += 1;
                self.stats.low_priority_dropped += p.kind.low_priority() as u64;
                ctx.out.queue_drops.push((d, p));
                return;
            }
            dev.wait(start, p.ip_bytes);
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(dev.waiting.len() as u64);
            self.stats.queue_wait_ns = self.stats.queue_wait_ns.saturating_add(start - now);
        }
        let end = start + serialisation_ns(p.ip_bytes, self.overhead_bytes, self.schedule.rate_at(start));
        dev.busy_until = end;
        m.sent.push_back((start, end, p.ip_bytes));
        self.last_start = start;
        self.count_tx(start, end, p.ip_bytes);
        self.stats.low_priority_tx += p.kind.low_priority() as u64;
        let fate = self.launch::<false>(now, start, end, p.ip_bytes, None);
        if ctx.captures {
            ctx.out.started.push((d, start, p));
        }
        let id = ctx.pkts.insert(p);
        self.put_on_wire(d, id, fate, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link::protocol::TestWorld;
    use crate::scenario::{ErrorCfg, LinkDirCfg, QueueCfg};
    use crate::sim::{Event, Rng};

    const MS: Time = 1_000_000;

    /// Directions 0 and 1 of one device: 24 kb/s (a 30-byte packet takes 10
    /// ms), queue of `limit` packets; delays 5 and 7 ms.
    fn members(limit: u32) -> (Vec<LinkDir>, TestWorld) {
        let mut w = TestWorld::default();
        let k = w.devices.add([QueueLimit::Packets(limit)]);
        let dirs = [5, 7]
            .map(|ms| {
                let cfg = LinkDirCfg { rate_bps: 24_000, delay_ns: ms * MS, queue: QueueCfg::DropTail { limit: QueueLimit::Packets(100) }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
                let mut d = LinkDir::moving(0, 1, &cfg, Rng::new(1, ms));
                d.set_ramp(0, ms * MS, 1_000 * MS, ms * MS);
                d.join_device(k);
                d
            })
            .into();
        (dirs, w)
    }

    fn offer(dirs: &mut [LinkDir], w: &mut TestWorld, now: Time, d: usize, tag: u64) {
        let mut p = Packet::udp(0, 1, 0, 30);
        p.stream_off = tag; // tells the packets apart
        dirs[d].accept(d as u32, p, &mut w.ctx(now, dirs.len()));
    }

    /// (direction, start, tag) of every transmission started.
    fn started(w: &TestWorld) -> Vec<(u32, Time, u64)> {
        w.out.started.iter().map(|&(d, s, p)| (d, s, p.stream_off)).collect()
    }

    /// Every packet off the wires: (time, direction, tag, lost with its link).
    fn arrivals(dirs: &mut [LinkDir], w: &mut TestWorld) -> Vec<(Time, u32, u64, bool)> {
        let mut out = Vec::new();
        while let Some((t, ev)) = w.q.pop() {
            let Event::Arrive { dir } = ev else { panic!("{ev:?}") };
            let (id, next) = dirs[dir as usize].pop_arrival();
            let p = w.pkts.remove(id);
            out.push((t, dir, p.stream_off, dirs[dir as usize].pop_doomed(p.ip_bytes, false)));
            if let Some((at, _)) = next {
                w.q.push(at, Event::Arrive { dir });
            }
        }
        out
    }

    /// Two peers of one device take turns on its one transmitter, in the
    /// order offered, and its one queue limit counts both.
    #[test]
    fn peers_share_the_rate_and_the_queue() {
        let (mut dirs, mut w) = members(2);
        offer(&mut dirs, &mut w, 0, 0, 1); // sent [0, 10)
        offer(&mut dirs, &mut w, 0, 1, 2); // waits: [10, 20)
        offer(&mut dirs, &mut w, MS, 0, 3); // waits: [20, 30)
        offer(&mut dirs, &mut w, 2 * MS, 1, 4); // two wait: the queue is full
        assert_eq!(started(&w), [(0, 0, 1), (1, 10 * MS, 2), (0, 20 * MS, 3)]);
        assert_eq!(w.out.queue_drops.iter().map(|&(d, p)| (d, p.stream_off)).collect::<Vec<_>>(), [(1, 4)]);
        assert_eq!((dirs[0].stats.drops_queue, dirs[1].stats.drops_queue), (0, 1));
        // each direction's queue is its own packets waiting; the device's is their sum
        assert_eq!((dirs[0].queue_packets(5 * MS), dirs[1].queue_packets(5 * MS)), (1, 1));
        assert_eq!((dirs[0].queue_packets(15 * MS), dirs[1].queue_packets(15 * MS)), (1, 0));
        assert_eq!((dirs[0].stats.max_queue_packets, dirs[1].stats.max_queue_packets), (2, 1));
        // the device falls idle at 30 ms: a packet then starts at once
        offer(&mut dirs, &mut w, 30 * MS, 1, 5);
        assert_eq!(started(&w).last(), Some(&(1, 30 * MS, 5)));
        // each on its own wire, with its own delay
        assert_eq!(
            arrivals(&mut dirs, &mut w),
            [(15 * MS, 0, 1, false), (27 * MS, 1, 2, false), (35 * MS, 0, 3, false), (47 * MS, 1, 5, false)]
        );
        // each direction's utilisation is its own packets' time: 20 ms of 40
        assert_eq!((dirs[0].utilization(40 * MS), dirs[1].utilization(40 * MS)), (0.5, 0.5));
    }

    /// A handover that loses what the old link holds: the packets queued
    /// for it keep their turns on the device and are lost as they come off
    /// the wire; the other peer's packets keep their times.
    #[test]
    fn a_handover_loses_the_old_peer_s_packets_in_their_turns() {
        let (mut dirs, mut w) = members(10);
        offer(&mut dirs, &mut w, 0, 0, 1); // [0, 10) to peer 0
        offer(&mut dirs, &mut w, 0, 0, 2); // [10, 20) to peer 0
        offer(&mut dirs, &mut w, 0, 1, 3); // [20, 30) to peer 1
        dirs[0].go_down_now(0, &mut w.ctx(5 * MS, 2));
        offer(&mut dirs, &mut w, 6 * MS, 0, 4); // refused: down
        offer(&mut dirs, &mut w, 6 * MS, 1, 5); // [30, 40): behind the lost ones' turns
        assert_eq!(started(&w), [(0, 0, 1), (0, 10 * MS, 2), (1, 20 * MS, 3), (1, 30 * MS, 5)]);
        assert_eq!(w.out.lost.iter().map(|p| p.stream_off).collect::<Vec<_>>(), [4]);
        assert_eq!(
            arrivals(&mut dirs, &mut w),
            [(15 * MS, 0, 1, true), (25 * MS, 0, 2, true), (37 * MS, 1, 3, false), (47 * MS, 1, 5, false)]
        );
        assert_eq!(dirs[0].stats.drops_down, 3);
        assert_eq!(dirs[0].utilization(40 * MS), 0.5, "the device spent their time");
    }

    /// Under "delivered" (Hypatia's) the old link only takes no new packet:
    /// what was queued for it is sent in its turn and arrives.
    #[test]
    fn a_packet_queued_before_a_delivered_handover_arrives() {
        let (mut dirs, mut w) = members(10);
        offer(&mut dirs, &mut w, 0, 1, 1); // [0, 10) to peer 1
        offer(&mut dirs, &mut w, 0, 0, 2); // [10, 20) to peer 0
        dirs[0].up = false; // handed over at 5 ms
        offer(&mut dirs, &mut w, 6 * MS, 1, 3); // [20, 30) to peer 1
        assert_eq!(arrivals(&mut dirs, &mut w), [(17 * MS, 1, 1, false), (25 * MS, 0, 2, false), (37 * MS, 1, 3, false)]);
        assert_eq!(dirs[0].stats.drops_down, 0);
    }
}
