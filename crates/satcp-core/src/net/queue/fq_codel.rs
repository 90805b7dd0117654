//! FQ-CoDel (RFC 8290): packets hashed by flow into `flows` queues, each
//! with its own CoDel state (`codel.rs`), served by deficit round robin
//! with a byte `quantum`, new flows before old ones
//! (`queue = { kind = "fq_codel", packets = 10240, flows = 1024, quantum = 1514,
//! target = "5ms", interval = "100ms" }`; defaults Linux `sch_fq_codel`'s).
//!
//! Follows RFC 8290 sections 4.1-4.2 and Linux `net/sched/sch_fq_codel.c`
//! (`fq_codel_enqueue`, `fq_codel_dequeue`, `fq_codel_drop`):
//! * Enqueue: the packet joins its flow's queue at the tail, stamped with
//!   the instant; a flow on neither list joins the tail of the new list with
//!   a deficit of one quantum. If the total then exceeds the limit, the
//!   flow with the largest backlog in bytes (the lowest index among equals,
//!   Linux's scan) loses packets from its head until half its backlog has
//!   gone or 64 packets have (Linux's `drop_batch_size`), and its CoDel
//!   `count` is raised by the number dropped (Linux; RFC 8290 leaves the
//!   overflow action to the implementation). These are overflow drops
//!   (`drops.queue`); the arrival itself may be among them.
//! * Dequeue: take the first flow of the new list, else of the old list; a
//!   flow whose deficit is not positive gets another quantum and goes to
//!   the old list's tail; otherwise CoDel dequeues from it (dropping on the
//!   way: `drops.codel`); a flow found empty goes to the old list's tail if
//!   it came from the new list and the old list is not empty (so a flow
//!   that keeps emptying cannot starve the old ones), else leaves the
//!   lists; the packet sent costs its flow its size in deficit.
//! * CoDel's "one maximum-size packet left" test reads the whole queue's
//!   backlog, as Linux passes `sch->qstats.backlog` (RFC 8290 says
//!   nothing); the maximum packet is the largest seen by the whole queue.
//!
//! The flow hash (RFC 8290 section 4.1.1 asks for a hash over the 5-tuple
//! with a perturbation; Linux uses the skb's flow hash, perturbed by a
//! random key at creation): satcp packets carry no ports, so the 5-tuple
//! is (source node, destination node, protocol TCP or UDP, destination
//! endpoint, which stands for the port pair: each flow direction has its
//! own). The key is mixed with SplitMix64's finaliser after a fixed
//! perturbation (0x9E3779B97F4A7C15), and its top 32 bits are scaled to
//! `flows` as Linux's `reciprocal_scale` does: deterministic, the same
//! buckets in every run; two flows may share a bucket (as in Linux) when
//! `flows` is small.
//!
//! Sizes: IP bytes for the backlog, the deficit and the quantum (Linux
//! counts the frame with its 14-byte Ethernet header, hence its default
//! quantum of 1514 = a 1500-byte MTU + 14: here that quantum sends one
//! 1500-byte packet a turn and leaves 14 bytes of credit).

use std::collections::VecDeque;

use super::codel::{CoDelParams, CoDelState, Dequeued};
use super::priority::Held;
use super::sojourn::Sojourns;
use crate::net::packet::Kind;
use crate::net::Packet;
use crate::sim::Time;

/// Linux's `drop_batch_size`: at most this many packets go in one overflow.
const DROP_BATCH: usize = 64;
const PERTURBATION: u64 = 0x9E37_79B9_7F4A_7C15;

/// FQ-CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCoDelParams {
    /// Packets waiting in all the flows together.
    pub limit_packets: u32,
    pub flows: u32,
    /// Bytes a flow may send a round.
    pub quantum: u32,
    pub codel: CoDelParams,
}

#[derive(Clone, Debug, Default)]
struct Flow {
    /// (packet, enqueue instant, ECN-capable)
    q: VecDeque<(Held, Time, bool)>,
    backlog: u64,
    deficit: i64,
    codel: CoDelState,
    /// On the new or the old list.
    listed: bool,
}

#[derive(Clone, Debug)]
pub struct FqCoDelQueue {
    p: FqCoDelParams,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    maxpacket: u64,
    pub sojourns: Sojourns,
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The bucket of packet `p` among `flows` (see the module's comment).
pub fn flow_bucket(p: &Packet, flows: u32) -> u32 {
    let nodes = p.src_node as u64 | (p.dst_node as u64) << 32;
    let port = (p.to_ep as u64) << 1 | (p.kind != Kind::Udp) as u64;
    let h = mix(mix(nodes ^ PERTURBATION) ^ port);
    (((h >> 32) * flows as u64) >> 32) as u32
}

impl FqCoDelQueue {
    pub fn new(p: FqCoDelParams) -> Self {
        FqCoDelQueue {
            p,
            flows: vec![Flow::default(); p.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            maxpacket: 0,
            sojourns: Sojourns::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Enqueue `h` (packet `p`) at `now`; overflow victims are appended to
    /// `dropped`.
    pub fn enqueue(&mut self, h: Held, p: &Packet, now: Time, dropped: &mut Vec<Held>) {
        self.enqueue_in(flow_bucket(p, self.p.flows), h, p.ecn().capable(), now, dropped);
    }

    fn enqueue_in(&mut self, idx: u32, h: Held, ect: bool, now: Time, dropped: &mut Vec<Held>) {
        let quantum = self.p.quantum as i64;
        let f = &mut self.flows[idx as usize];
        f.q.push_back((h, now, ect));
        f.backlog += h.bytes as u64;
        if !f.listed {
            f.listed = true;
            f.deficit = quantum;
            self.new_flows.push_back(idx);
        }
        self.len += 1;
        self.bytes += h.bytes as u64;
        self.maxpacket = self.maxpacket.max(h.bytes as u64);
        if self.len > self.p.limit_packets as usize {
            self.drop_from_fattest(dropped);
        }
    }

    /// Linux `fq_codel_drop`: half the fattest flow's backlog from its head,
    /// at most 64 packets.
    fn drop_from_fattest(&mut self, dropped: &mut Vec<Held>) {
        let mut fat = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > self.flows[fat].backlog {
                fat = i;
            }
        }
        let f = &mut self.flows[fat];
        let threshold = f.backlog / 2;
        let (mut len, mut n) = (0u64, 0usize);
        loop {
            let (h, _, _) = f.q.pop_front().expect("the fattest flow holds a packet");
            len += h.bytes as u64;
            dropped.push(h);
            n += 1;
            if n >= DROP_BATCH || len >= threshold {
                break;
            }
        }
        f.codel.add_count(n as u32);
        f.backlog -= len;
        self.len -= n;
        self.bytes -= len;
    }

    /// The next packet to send at `now` and whether CoDel marked it CE
    /// (`ecn`); CoDel's drops are appended to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Held>) -> Option<(Held, bool)> {
        loop {
            let from_new = !self.new_flows.is_empty();
            let idx = *(if from_new { self.new_flows.front() } else { self.old_flows.front() })?;
            let f = &mut self.flows[idx as usize];
            if f.deficit <= 0 {
                f.deficit += self.p.quantum as i64;
                self.pop_list(from_new);
                self.old_flows.push_back(idx);
                continue;
            }
            let (total_len, total_bytes) = (&mut self.len, &mut self.bytes);
            let Flow { q, backlog, codel, .. } = f;
            let d = codel.dequeue(now, self.maxpacket, &self.p.codel, dropped, || {
                let d = q.pop_front().map(|(h, enqueued, ect)| Dequeued { h, enqueued, ect, marked: false });
                if let Some(d) = &d {
                    *backlog -= d.h.bytes as u64;
                    *total_len -= 1;
                    *total_bytes -= d.h.bytes as u64;
                }
                (d, *total_bytes)
            });
            match d {
                None => {
                    self.pop_list(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(idx);
                    } else {
                        self.flows[idx as usize].listed = false;
                    }
                }
                Some(d) => {
                    f.deficit -= d.h.bytes as i64;
                    self.sojourns.record(now - d.enqueued);
                    return Some((d.h, d.marked));
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub fn drain_into(&mut self, out: &mut Vec<Held>) {
        for f in &mut self.flows {
            out.extend(f.q.drain(..).map(|(h, _, _)| h));
            f.backlog = 0;
            f.listed = false;
        }
        self.new_flows.clear();
        self.old_flows.clear();
        self.len = 0;
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn params(limit: u32, flows: u32) -> FqCoDelParams {
        FqCoDelParams { limit_packets: limit, flows, quantum: 1514, codel: CoDelParams { target_ns: 5 * MS, interval_ns: 100 * MS, ecn: false } }
    }

    fn h(id: u32, bytes: u32) -> Held {
        Held { id, bytes }
    }

    #[test]
    fn drr_sends_a_quantum_per_flow_per_round_new_flows_first() {
        let mut q = FqCoDelQueue::new(params(100, 4));
        let mut out = vec![];
        // flow 0: four 1000-byte packets; flow 1: two 1000-byte packets
        for id in 0..4 {
            q.enqueue_in(0, h(id, 1000), false, 0, &mut out);
        }
        for id in 10..12 {
            q.enqueue_in(1, h(id, 1000), false, 0, &mut out);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0, &mut out)).map(|x| x.0.id).collect();
        // flow 0 (deficit 1514): 0 (514 left), 1 (-486): to the old list;
        // flow 1: 10, 11 (-486): old list; flow 0 again with 1028: 2, 3
        assert_eq!(order, vec![0, 1, 10, 11, 2, 3]);
        assert!(out.is_empty() && q.len() == 0);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty(), "empty flows leave the lists");
    }

    #[test]
    fn a_sparse_flow_goes_ahead_of_a_backlogged_one() {
        let mut q = FqCoDelQueue::new(params(100, 4));
        let mut out = vec![];
        for id in 0..20 {
            q.enqueue_in(0, h(id, 1500), false, 0, &mut out);
        }
        assert_eq!(q.dequeue(0, &mut out).map(|x| x.0.id), Some(0));
        assert_eq!(q.dequeue(0, &mut out).map(|x| x.0.id), Some(1), "deficit 14 is still positive");
        // the bulk flow is now on the old list; a new flow's packet is next
        q.enqueue_in(2, h(99, 100), false, 0, &mut out);
        assert_eq!(q.dequeue(0, &mut out).map(|x| x.0.id), Some(99));
        assert_eq!(q.dequeue(0, &mut out).map(|x| x.0.id), Some(2));
    }

    #[test]
    fn overflow_drops_half_the_fattest_flows_backlog_from_its_head() {
        let mut q = FqCoDelQueue::new(params(10, 4));
        let mut out = vec![];
        for id in 0..8 {
            q.enqueue_in(1, h(id, 1000), false, 0, &mut out);
        }
        q.enqueue_in(2, h(100, 1500), false, 0, &mut out);
        q.enqueue_in(2, h(101, 1500), false, 0, &mut out);
        assert!(out.is_empty());
        // the 11th packet: flow 1 (8000 bytes) is the fattest; half of it is
        // 4000 bytes: its four oldest packets go
        q.enqueue_in(3, h(200, 100), false, 0, &mut out);
        assert_eq!(out.iter().map(|x| x.id).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!((q.len(), q.bytes()), (7, 4000 + 3000 + 100));
        assert_eq!(q.flows[1].codel.count(), 4, "CoDel's count raised by the drops");
    }

    /// A 10 Mb/s transmitter (1500 bytes: 1.2 ms) served by FQ-CoDel: a
    /// bulk flow offers two 1500-byte packets per packet sent (a standing
    /// queue CoDel works on), a ping-like flow a 100-byte packet every
    /// 10 ms. Returns the ping packets' sojourn times and the bulk drops.
    fn ping_beside_bulk(seconds: u64) -> (Vec<Time>, usize) {
        let mut q = FqCoDelQueue::new(params(10_240, 1024));
        let (bulk, ping) = (5u32, 700u32); // two buckets
        let mut out = vec![];
        let mut sent_at = std::collections::HashMap::new();
        let (mut now, mut next_ping, mut id) = (0, 0, 0u32);
        let mut sojourns = vec![];
        while now < seconds * 1_000 * MS {
            while next_ping <= now {
                q.enqueue_in(ping, h(1_000_000 + id, 100), false, next_ping, &mut out);
                sent_at.insert(1_000_000 + id, next_ping);
                next_ping += 10 * MS;
                id += 1;
            }
            for _ in 0..2 {
                q.enqueue_in(bulk, h(id, 1500), false, now, &mut out);
                id += 1;
            }
            let (p, _) = q.dequeue(now, &mut out).expect("the bulk flow is backlogged");
            if let Some(t) = sent_at.remove(&p.id) {
                sojourns.push(now - t);
            }
            now += p.bytes as u64 * 8 * 100; // ns at 10 Mb/s
        }
        assert!(out.iter().all(|x| x.id < 1_000_000), "no ping packet dropped");
        (sojourns, out.len())
    }

    #[test]
    fn a_sparse_flow_keeps_its_delay_under_5ms_beside_a_bulk_flow() {
        let (sojourns, bulk_drops) = ping_beside_bulk(10);
        assert!(sojourns.len() >= 999, "{} pings sent", sojourns.len());
        let max = *sojourns.iter().max().unwrap();
        // a ping waits at most for the bulk packet being sent (1.2 ms): it
        // arrives to the new list and goes next
        assert!(max <= 1_200_000, "worst ping sojourn {max} ns");
        assert!(max < 5 * MS);
        assert!(bulk_drops > 0, "CoDel dropped bulk packets");
    }

    /// `ecn = true`: two bulk flows in their own buckets, each offered one
    /// 1500-byte packet per packet sent (so each builds a standing queue):
    /// the ECN-capable one is marked and never dropped, the other dropped
    /// and never marked, each by its own CoDel.
    #[test]
    fn ecn_marks_the_ect_flow_and_drops_the_other() {
        let mut p = params(10_240, 1024);
        p.codel.ecn = true;
        let mut q = FqCoDelQueue::new(p);
        let (ect, plain) = (5u32, 700u32);
        let mut out = vec![];
        let (mut now, mut id) = (0, 0u32);
        let (mut marks_ect, mut marks_plain) = (0, 0);
        while now < 3_000 * MS {
            q.enqueue_in(ect, h(id, 1500), true, now, &mut out);
            q.enqueue_in(plain, h(id + 1, 1500), false, now, &mut out);
            id += 2;
            let (p, marked) = q.dequeue(now, &mut out).expect("backlogged");
            if marked {
                if p.id % 2 == 0 { marks_ect += 1 } else { marks_plain += 1 }
            }
            now += 1_200_000;
        }
        assert!(marks_ect > 0, "the ECT flow is marked");
        assert_eq!(marks_plain, 0, "a Not-ECT packet is never marked");
        assert!(!out.is_empty() && out.iter().all(|x| x.id % 2 == 1), "only the Not-ECT flow loses packets");
        assert_eq!(q.flows[ect as usize].codel.count(), marks_ect, "count advances per mark");
    }

    #[test]
    fn the_flow_hash_is_fixed_and_spreads_flows() {
        let mut buckets = std::collections::BTreeSet::new();
        for ep in 0..64 {
            let mut p = Packet::udp(0, 1, 0, 100);
            p.to_ep = ep;
            p.kind = Kind::Data;
            let b = flow_bucket(&p, 1024);
            assert!(b < 1024);
            assert_eq!(b, flow_bucket(&p, 1024), "deterministic");
            buckets.insert(b);
        }
        assert!(buckets.len() >= 60, "64 flows in 1024 buckets: {} distinct", buckets.len());
    }
}
