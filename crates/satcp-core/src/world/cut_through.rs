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
//! * the relay node `n` hosts no endpoint, application or PEP, has exactly two
//!   links to two other nodes, and no router agents, packet capture,
//!   sampled series, constellation or scheduled link change exist in the
//!   run: then what arrives over one link and leaves on the other is
//!   routed by a table that never changes, the outgoing direction is fed by
//!   that one incoming direction alone, and nothing looks at its queue
//!   between now and the arrival instant;
//! * both directions are in-order FIFOs with a fixed rate and delay, or
//!   values from traces (functions of time known before the run)
//!   (`LinkDir::in_order_fifo`, `LinkDir::cut_through_target`): the
//!   offers reach the outgoing direction in
//!   the order and at the instants they would have, so its queue, drops,
//!   statistics and error model (its own random stream, judged at the
//!   times it would be) see the same sequence (a packet that a falling
//!   delay series lets overtake others there is held back by an `Arm`
//!   event at the instant it would have been offered, which schedules its
//!   arrival then, as the relay's arrival event would have);
//! * no packet is on the wire of the incoming direction (an earlier packet
//!   still to arrive there must be offered first);
//! * the arrival instant is before the run's stop time.
//! Otherwise the packet travels as always, with an arrival event at `n`.
//!
//! When its arrival at the next hop's far end is scheduled. Behind a packet
//! still on that wire at the arrival instant, when that packet arrives, as
//! without the cut. Otherwise (the wire empty or emptying by then) it is
//! scheduled by an `Event::Arm` at the arrival instant, scheduled when the
//! cut is made, which stands for the arrival at the relay: the event entry
//! takes its tie-break number then, not now, so events of one nanosecond
//! keep their order (`LinkDir::push_unarmed`; the packets behind it wait
//! for it as for any other). An ACK stream crossing a gateway from the
//! satellite hop to a short access link, whose wire empties between ACKs,
//! is cut this way at the cost of one event per ACK instead of two.
//!
//! A run may end before a cut packet reaches the relay: its finite flows
//! complete, or its observer interrupts it. The offer counts as an event of
//! the arrival instant scheduled when the cut was made; the cuts that come
//! after the run's last event in that order are forgotten
//! (`World::rewind_cuts`): each next hop's summary (counters, busy time) is
//! put back as it was before the first of them, and a UDP packet one of
//! them lost is not counted lost. (A run with no finite flow and no
//! observer ends at its stop time: it keeps no log.)
//!
//! What remains. An `Arm` event, or the arrival event of a packet that is
//! not cut after others were, is scheduled when its packet left the hop
//! before; without cuts the arrival at the relay would have been scheduled
//! then only if no earlier packet was still on that wire, else when that
//! one arrived. The two agree on every order but that among events of one
//! nanosecond, and the difference can reach the results only if, at that
//! nanosecond, the last packet on the next hop also reaches the far end,
//! and then only through a third event at the instant the packet reaches
//! it. Both orders obey the engine's rule (events of one instant in the
//! order they were scheduled); no such coincidence was met in the tests,
//! whose networks tie often (equal rates, zero delays): scheduling the
//! arrival behind an emptying wire as if it were not emptying changes
//! their results. The same holds for a cut packet that reaches the relay
//! at the very nanosecond the run ends.

use super::World;
use crate::ids::DirId;
use crate::net::link::SummaryMark;
use crate::net::{Enqueued, Kind, Packet};
use crate::sim::{Event, Time};

/// No cut from this direction.
pub(super) const NO_CUT: u32 = u32::MAX;

/// A cut whose arrival instant has not passed: what to forget if the run
/// ends before it.
pub(super) struct CutRecord {
    /// The arrival instant at the relay.
    at: Time,
    /// The event queue's next tie-break number when the cut was made: the
    /// offer counts as an event of instant `at` scheduled then.
    seq: u64,
    /// The direction offered to, and what its summary read before.
    dir: u32,
    before: SummaryMark,
    /// The UDP flow whose packet the offer lost (counted at once), or
    /// `NO_CUT`.
    udp_lost: u32,
}

impl World {
    /// Decide, before a run, which directions' packets may be cut through
    /// their far end, and onto which direction (`cut_to`).
    pub(super) fn plan_cut_through(&mut self, observed: bool) {
        // only a run that can end before its stop time keeps a log of cuts
        self.cut_rewindable = observed || self.finite_left > 0;
        self.cut_to.clear();
        self.cut_to.resize(self.dirs.len(), NO_CUT);
        let Some(stop) = self.scn.run.stop_ns else { return };
        self.cut_before = stop;
        let static_run = self.leo.is_none() && self.scn.links.iter().all(|l| l.changes.is_empty());
        if !self.cut_through || !static_run || self.agents.any() || self.capture.is_some() || self.scn.run.sample_interval_ns.is_some() {
            return;
        }
        let nodes = self.scn.nodes.len();
        let mut hosts = vec![false; nodes];
        for f in &self.scn.flows {
            hosts[f.src] = true;
            hosts[f.dst] = true;
        }
        // a PEP's node answers and relays segments itself
        for p in &self.scn.peps {
            hosts[p.node] = true;
            if let Some(n) = p.peer {
                hosts[n] = true;
            }
        }
        // the directions leaving each node
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (d, dir) in self.dirs.iter().enumerate() {
            out[dir.from as usize].push(d as u32);
        }
        for n in 0..nodes {
            let [x, y] = out[n][..] else { continue };
            let (to_x, to_y) = (self.dirs[x as usize].to as usize, self.dirs[y as usize].to as usize);
            // (only a constellation restricts which nodes relay: not here)
            if hosts[n] || to_x == to_y || to_x == n || to_y == n {
                continue;
            }
            // what arrives over the reverse of one leaves on the other
            let rev = |d: u32| DirId(d).reverse().0;
            for (inbound, outbound) in [(rev(x), y), (rev(y), x)] {
                if self.dirs[inbound as usize].in_order_fifo() && self.dirs[outbound as usize].cut_through_target() {
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
        if at >= self.cut_before || p.ttl <= 1 || !self.dirs[d as usize].nothing_in_flight() {
            return false;
        }
        let n = self.dirs[d as usize].to;
        if self.routes.next_dir(n, p.dst_node) != e {
            return false; // not the way on (no route: dropped at n as always)
        }
        p.ttl -= 1;
        let dir = &mut self.dirs[e as usize];
        // behind a packet still on the wire at `at`, its arrival is
        // scheduled when that one arrives, as without the cut
        let behind = dir.last_in_flight_after(at);
        let before = self.cut_rewindable.then(|| dir.summary_mark());
        // where the offer stands among the events of its instant: scheduled now
        let seq = self.q.next_seq();
        let fate = super::forward::enqueue_packet(dir, at, p);
        if p.kind.low_priority() {
            super::forward::count_low_priority(dir, &fate);
        }
        let mut udp_lost = NO_CUT;
        match fate {
            Enqueued::Arrives(t) | Enqueued::CorruptedArrives(t) => {
                p.set_corrupted(matches!(fate, Enqueued::CorruptedArrives(_)));
                let id = self.pkts.insert(*p);
                if behind {
                    let first = dir.push_in_flight(t, id);
                    debug_assert!(!first, "behind a packet on the wire");
                } else {
                    // otherwise when it would have been offered: an event
                    // scheduled now for `at` stands for its arrival at the
                    // relay (see the module doc)
                    dir.push_unarmed(t, id);
                    self.q.push(at, Event::Arm { dir: e });
                }
            }
            Enqueued::ArrivesLate(t) => {
                // it overtakes packets sent before it (a falling delay
                // series): held back from the instant it would have been
                // offered, by an event scheduled now for `at`
                let id = self.pkts.insert(*p);
                dir.push_unarmed_late(t, id);
                self.q.push(at, Event::Arm { dir: e });
            }
            _ => {
                if p.kind == Kind::Udp {
                    udp_lost = p.to_ep;
                }
                self.not_arriving(e, *p, fate);
            }
        }
        if let Some(before) = before {
            while self.cut_log.front().is_some_and(|r| r.at < self.now) {
                self.cut_log.pop_front(); // passed: the run cannot end before it
            }
            self.cut_log.push_back(CutRecord { at, seq, dir: e, before, udp_lost });
        }
        true
    }

    /// The run ends at `end`, after the event of tie-break number `seq`
    /// (the last handled, or the first not handled when interrupted): the
    /// cuts that would have come later (at a later instant, or at `end`
    /// but scheduled after that event) never happened. Each direction's
    /// summary goes back to what it read before the first of them (its
    /// offers come in instant order, cut or not, so all later ones go with
    /// it), and a UDP packet they lost is not counted.
    pub(super) fn rewind_cuts(&mut self, end: Time, seq: u64) {
        let mut rewound: Vec<u32> = Vec::new();
        for r in &self.cut_log {
            if r.at < end || (r.at == end && r.seq <= seq) {
                continue;
            }
            if !rewound.contains(&r.dir) {
                self.dirs[r.dir as usize].rewind_summary(&r.before);
                rewound.push(r.dir);
            }
            if r.udp_lost != NO_CUT {
                if let Some(u) = self.apps[r.udp_lost as usize].udp() {
                    u.packets_lost -= 1;
                }
            }
        }
        self.cut_log.clear();
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
    /// on the wire. `finite`: one flow with a size (the run may end by
    /// completion); `interrupt_ms`: a flow starting then, where the test
    /// interrupts the run.
    fn network(rng: &mut Rng, finite: bool, sampled: bool, interrupt_ms: Option<u64>) -> String {
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
        let link = |t: &mut String, rng: &mut Rng, a: &str, b: &str| {
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
            let variant = pick(rng, &["newreno", "sack", "reno", "tahoe", "fack", "vegas", "westwood", "hybla", "cubic", "bbr", "bbr3", "peach"]);
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
        if let Some(ms) = interrupt_ms {
            // an event at that instant in both runs: where the observer stops them
            t += &format!("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\napp = {{ kind = \"ftp\", start = \"{ms}ms\" }}\n");
        }
        t
    }

    /// The summary as JSON without what a cut may change (`events`) and
    /// the wall time; and the events.
    fn run(text: &str, cut: bool, interrupt_ms: Option<u64>) -> (serde_json::Value, u64) {
        let scn = crate::scenario::parse_toml(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut w = World::build(&scn);
        if !cut {
            w.without_cut_through();
        }
        match interrupt_ms {
            Some(ms) => w.run_observed(1, &mut |t| t < ms * 1_000_000),
            None => w.run(), // no observer: no log of cuts, unless a flow is finite
        }
        let out = w.into_output();
        let mut v: serde_json::Value = serde_json::from_str(&out.summary_json()).unwrap();
        let events = v["events"].as_u64().unwrap();
        let m = v.as_object_mut().unwrap();
        m.remove("events");
        m.remove("wall_s");
        (v, events)
    }

    /// A run interrupted while cut packets are still on their way to the
    /// relay: the next hop lost half of them at once (PER 0.5), and the
    /// losses of those the run never reached are not counted.
    #[test]
    fn a_run_that_ends_first_forgets_the_cuts_it_never_reached() {
        let text = "[run]\nstop = \"10s\"\n[nodes]\nh0 = {}\nr = {}\nh1 = {}\n\
                    [[links]]\na = \"h0\"\nb = \"r\"\nrate = \"10Mbps\"\ndelay = \"500ms\"\n\
                    [[links]]\na = \"r\"\nb = \"h1\"\nrate = \"10Mbps\"\ndelay = \"300ms\"\nerrors_ab = { per = 0.5 }\n\
                    [[flows]]\nsrc = \"h0\"\ndst = \"h1\"\napp = { kind = \"cbr\", rate = \"2Mbps\", packet_size = 500 }\n\
                    [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\napp = { kind = \"ftp\", start = \"2s\" }\n";
        let (with, ev_with) = run(text, true, Some(2000));
        let (without, ev_without) = run(text, false, Some(2000));
        assert_eq!(with["ended_by"], "interrupted");
        let lost = with["flows"][0]["udp"]["packets_lost"].as_u64().unwrap();
        assert!(lost > 100, "{lost}");
        assert_eq!(with, without);
        assert!(ev_with < ev_without);
    }

    /// The same results with and without the cut on random networks, also
    /// when finite flows end the run or an observer interrupts it (cuts
    /// the run never reached forgotten); the cut is made where it may be
    /// (fewer events), and never in a run with sampled series.
    #[test]
    fn cut_through_changes_nothing() {
        let mut rng = Rng::new(2026, 11);
        let (mut eligible, mut cut_some) = (0, 0);
        let (mut completed, mut interrupted) = (0, 0);
        for case in 0..200 {
            let (finite, sampled) = (case % 10 == 7 || case % 10 == 3, case % 10 == 8);
            let interrupt_ms = (case % 10 == 9).then(|| 1000 + rng.next_u64() % 1000);
            let text = network(&mut rng, finite, sampled, interrupt_ms);
            let (with, ev_with) = run(&text, true, interrupt_ms);
            let (without, ev_without) = run(&text, false, interrupt_ms);
            assert!(with == without, "case {case}: the cut changed the results\n{text}");
            assert!(ev_with <= ev_without, "case {case}");
            completed += (with["ended_by"] == "completed") as u32;
            interrupted += (with["ended_by"] == "interrupted") as u32;
            if sampled {
                assert_eq!(ev_with, ev_without, "case {case}: a cut where none may be made\n{text}");
            } else {
                eligible += 1;
                cut_some += (ev_with < ev_without) as u32;
            }
        }
        // most eligible networks have a relay with packets to cut; some
        // runs end by completion, and every observed one is interrupted
        assert!(cut_some * 10 >= eligible * 7, "cuts made in {cut_some} of {eligible} networks");
        assert!(completed >= 10 && interrupted == 20, "{completed} completed, {interrupted} interrupted");
    }
}
