//! Cut-through of relay nodes: a packet accepted by a link direction whose
//! far end only relays it onto one other direction is offered to that
//! direction at once, for the instant it will arrive, instead of through an
//! arrival event there. A sender - access - gateway - satellite - client
//! network spends a quarter of its instructions on the gateway's arrival
//! events (`docs/performance.md`); they change nothing a relay could not
//! compute when the packet leaves the hop before.
//!
//! Exactness. The run computes the same bits with and without it (but
//! `events`: fewer are popped), which `tests::cut_through_changes_nothing`
//! checks on random networks. That holds because a cut is made only when:
//! * the relay node `n` hosts no endpoint or application, has exactly two
//!   links to two other nodes, and no router agents, packet capture,
//!   sampled series, constellation or scheduled link change exist in the
//!   run: then what arrives over one link and leaves on the other is
//!   routed by a table that never changes, the outgoing direction is fed by
//!   that one incoming direction alone, and nothing looks at its queue
//!   between now and the arrival instant;
//! * both directions are in-order FIFOs with a fixed rate and delay
//!   (`LinkDir::in_order_fifo`): the offers reach the outgoing direction in
//!   the order and at the instants they would have, so its queue, drops,
//!   statistics and error model (its own random stream, judged at the
//!   times it would be) see the same sequence;
//! * no packet is on the wire of the incoming direction (an earlier packet
//!   still to arrive there must be offered first);
//! * the arrival instant is before the run's stop time, and no flow is
//!   finite (a run that ends early by completion would otherwise have
//!   counted offers it never reached);
//! * the outgoing direction's last packet on the wire arrives after that
//!   instant: the packet joins a non-empty wire, so the event entry of its
//!   arrival is made when the packet before it arrives, as without the
//!   cut; an entry made now would take a tie-break number from now and
//!   could reorder events at one nanosecond.
//! Otherwise the packet travels as always, with an arrival event at `n`.
//!
//! What remains. A packet that is not cut after others were has its arrival
//! event at `n` scheduled when it left, where without cuts it would have been
//! scheduled when the packet ahead of it arrived; the two agree on every
//! order but that among events of one nanosecond, and the difference can
//! reach the results only if, at that nanosecond, the last packet on the
//! next hop also reaches the far end and a third event shares the instant
//! the packet then reaches it. Both orders obey the engine's rule (events of
//! one instant in the order they were scheduled); no such coincidence was
//! met in the tests. A run interrupted by its observer (a wall-clock limit)
//! may differ in what the relay's next hop counted for packets still on
//! their way.
//!
//! Not cut: ACKs that cross a gateway from a long link onto a short one.
//! The first one of a flow finds the short link empty (no cut: see the last
//! condition) and waits on the long link, and the ones behind it then wait
//! too (the third); on a satellite hop that wire is never empty again.
//! Cutting them would need the packets of one wire offered in two ways at
//! once, which the ordering argument above does not cover.

use super::World;
use crate::net::{Enqueued, Packet};
use crate::sim::Time;

/// No cut from this direction.
pub(super) const NO_CUT: u32 = u32::MAX;

impl World {
    /// Decide, before a run, which directions' packets may be cut through
    /// their far end, and onto which direction (`cut_to`).
    pub(super) fn plan_cut_through(&mut self) {
        self.cut_to.clear();
        self.cut_to.resize(self.dirs.len(), NO_CUT);
        let Some(stop) = self.scn.run.stop_ns else { return };
        self.cut_before = stop;
        let static_run = self.leo.is_none() && self.scn.links.iter().all(|l| l.changes.is_empty());
        if !self.cut_through || !static_run || self.agents.any() || self.capture.is_some() || self.scn.run.sample_interval_ns.is_some() || self.finite_left > 0 {
            return;
        }
        let nodes = self.scn.nodes.len();
        let mut hosts = vec![false; nodes];
        for f in &self.scn.flows {
            hosts[f.src] = true;
            hosts[f.dst] = true;
        }
        // the directions leaving each node
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (d, dir) in self.dirs.iter().enumerate() {
            out[dir.from as usize].push(d as u32);
        }
        for n in 0..nodes {
            let [x, y] = out[n][..] else { continue };
            let (to_x, to_y) = (self.dirs[x as usize].to as usize, self.dirs[y as usize].to as usize);
            if hosts[n] || to_x == to_y || to_x == n || to_y == n || (!self.relay.is_empty() && !self.relay[n]) {
                continue;
            }
            // what arrives over the reverse of one leaves on the other
            // (directions come in pairs: 2i is a -> b, 2i + 1 is b -> a)
            for (inbound, outbound) in [(x ^ 1, y), (y ^ 1, x)] {
                if self.dirs[inbound as usize].in_order_fifo() && self.dirs[outbound as usize].in_order_fifo() {
                    self.cut_to[inbound as usize] = outbound;
                }
            }
        }
    }

    /// `p`, just accepted by direction `d`, reaches its far end at `at`:
    /// offer it to the next direction now if it may be cut through (see
    /// the module doc). Returns false if it must travel with an arrival
    /// event.
    #[inline]
    pub(super) fn try_cut(&mut self, d: u32, at: Time, p: &mut Packet) -> bool {
        let e = self.cut_to[d as usize];
        if at >= self.cut_before || p.ttl <= 1 || !self.dirs[d as usize].nothing_in_flight() || !self.dirs[e as usize].last_in_flight_after(at) {
            return false;
        }
        let n = self.dirs[d as usize].to;
        if self.routes.next_dir(n, p.dst_node) != e {
            return false; // not the way on (no route: dropped at n as always)
        }
        p.ttl -= 1;
        let dir = &mut self.dirs[e as usize];
        let fate = dir.enqueue(at, p.ip_bytes);
        if p.kind.low_priority() {
            super::count_low_priority(dir, &fate);
        }
        if let Enqueued::Arrives(t) = fate {
            let id = self.pkts.insert(*p);
            let first = dir.push_in_flight(t, id);
            debug_assert!(!first, "cut onto an empty wire");
        } else {
            self.not_arriving(e, *p, fate);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::World;
    use crate::sim::Rng;

    /// A random network of hosts and relays: a chain h0 - r1 .. rk - h1
    /// (k from 1 to 3), sometimes with a second host on the first relay's
    /// side (making that relay a junction, never cut) or a flow ending on a
    /// relay (a host, never cut); random rates (often equal, so that
    /// arrivals tie), delays (sometimes zero), queues (drop-tail in packets
    /// or bytes, RED, unlimited), error models (PER, BER, Gilbert-Elliott,
    /// a DSN burst with in-order delay, at the link or its head), framing
    /// overhead; TCP flows both ways (several variants, profiles, delayed
    /// ACKs or not) and UDP cross traffic; a stop time that leaves packets
    /// on the wire. `finite`: one flow with a size (no cut may be made).
    fn network(rng: &mut Rng, finite: bool, sampled: bool) -> String {
        let pick = |rng: &mut Rng, xs: &[&'static str]| xs[(rng.next_u64() % xs.len() as u64) as usize];
        let relays = 1 + (rng.next_u64() % 3) as usize;
        let mut chain: Vec<String> = vec!["h0".into()];
        chain.extend((1..=relays).map(|i| format!("r{i}")));
        chain.push("h1".into());
        let junction = rng.bernoulli(0.2);
        let mut t = format!("[run]\nseed = {}\nstop = \"{}ms\"\n", rng.next_u64() % 1000, 2000 + rng.next_u64() % 8000);
        if sampled {
            t += "sample_interval = \"100ms\"\n";
        }
        t += "[nodes]\n";
        for n in chain.iter().chain(junction.then_some(&"h2".to_string())) {
            t += &format!("{n} = {{}}\n");
        }
        let same_rate = rng.bernoulli(0.5);
        let mut link = |t: &mut String, rng: &mut Rng, a: &str, b: &str| {
            *t += &format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\n");
            let rate = if same_rate { "10Mbps" } else { pick(rng, &["1Mbps", "2Mbps", "10Mbps", "100Mbps"]) };
            *t += &format!("rate_ab = \"{rate}\"\nrate_ba = \"{}\"\n", pick(rng, &["1Mbps", "2Mbps", "10Mbps", rate]));
            *t += &format!("delay = \"{}\"\n", pick(rng, &["0ms", "1ms", "5ms", "20ms", "250ms"]));
            for side in ["ab", "ba"] {
                let q = pick(rng, &["", "{ kind = \"droptail\", packets = 5 }", "{ kind = \"droptail\", packets = 30 }",
                                    "{ kind = \"droptail\", bytes = 20000 }", "{ kind = \"red\", packets = 40 }"]);
                if !q.is_empty() {
                    *t += &format!("queue_{side} = {q}\n");
                }
                let e = pick(rng, &["", "", "{ per = 0.01 }", "{ per = 0.001 }", "{ ber = 1e-6 }",
                                    "{ model = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.2, per_bad = 0.5 }",
                                    "{ model = \"dsn_burst\", burst_mean = \"200ms\", gap_mean = \"1s\", gap_min = \"500ms\", burst_delay = \"30ms\" }",
                                    "{ per = 0.02 }"]);
                if !e.is_empty() {
                    *t += &format!("errors_{side} = {e}\n");
                }
            }
            if rng.bernoulli(0.3) {
                *t += "overhead = 2\n";
            }
            if rng.bernoulli(0.2) {
                *t += "loss_placement = \"head\"\n";
            }
        };
        for w in chain.windows(2) {
            link(&mut t, rng, &w[0], &w[1]);
        }
        if junction {
            link(&mut t, rng, "h2", "r1");
        }
        let hosts: Vec<&str> = if junction { vec!["h0", "h1", "h2"] } else { vec!["h0", "h1"] };
        let flows = 1 + rng.next_u64() % 4;
        for i in 0..flows {
            let (mut src, dst) = (pick(rng, &hosts), pick(rng, &hosts));
            if src == dst {
                src = if dst == "h1" { "h0" } else { "h1" };
            }
            let dst = if rng.bernoulli(0.1) { "r1" } else { dst };
            let variant = pick(rng, &["newreno", "sack", "reno", "tahoe", "fack", "vegas", "westwood", "hybla", "cubic", "bbr", "peach"]);
            let profile = pick(rng, &["rfc", "linux", "ns2"]);
            let size = if finite && i == 0 { ", size = \"200kB\"" } else { "" };
            t += &format!(
                "[[flows]]\nsrc = \"{src}\"\ndst = \"{dst}\"\ntcp = {{ variant = \"{variant}\", profile = \"{profile}\", delayed_ack = {} }}\n\
                 app = {{ kind = \"ftp\", start = \"{}ms\"{size} }}\n",
                rng.bernoulli(0.5),
                rng.next_u64() % 500
            );
        }
        if rng.bernoulli(0.4) {
            t += &format!("[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\napp = {{ kind = \"cbr\", rate = \"{}\", packet_size = 500 }}\n", pick(rng, &["100kbps", "1Mbps"]));
        }
        t
    }

    /// The summary as JSON without what a cut may change (`events`) and
    /// the wall time; and the events.
    fn run(text: &str, cut: bool) -> (serde_json::Value, u64) {
        let scn = crate::scenario::parse_toml(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut w = World::build(&scn);
        if !cut {
            w.without_cut_through();
        }
        w.run();
        let out = w.into_output();
        let mut v: serde_json::Value = serde_json::from_str(&out.summary_json()).unwrap();
        let events = v["events"].as_u64().unwrap();
        let m = v.as_object_mut().unwrap();
        m.remove("events");
        m.remove("wall_s");
        (v, events)
    }

    /// The same results with and without the cut on random networks; the
    /// cut is made where it may be (fewer events), and never in a run with
    /// a finite flow or sampled series.
    #[test]
    fn cut_through_changes_nothing() {
        let mut rng = Rng::new(2026, 11);
        let (mut eligible, mut cut_some) = (0, 0);
        for case in 0..150 {
            let (finite, sampled) = (case % 10 == 7, case % 10 == 8);
            let text = network(&mut rng, finite, sampled);
            let (with, ev_with) = run(&text, true);
            let (without, ev_without) = run(&text, false);
            assert!(with == without, "case {case}: the cut changed the results\n{text}");
            assert!(ev_with <= ev_without, "case {case}");
            if finite || sampled {
                assert_eq!(ev_with, ev_without, "case {case}: a cut where none may be made\n{text}");
            } else {
                eligible += 1;
                cut_some += (ev_with < ev_without) as u32;
            }
        }
        // most eligible networks have a relay with packets to cut
        assert!(cut_some * 10 >= eligible * 7, "cuts made in {cut_some} of {eligible} networks");
    }
}
