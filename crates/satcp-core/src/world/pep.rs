//! The world's side of the PEPs (`pep/`): a TCP segment that reaches a
//! PEP's node on its way elsewhere goes to the PEP, which forwards it,
//! holds it, or hands it to one of the endpoints it hosts (appended to the
//! world's endpoint arena, ids from `Peps::ep_base` on); those endpoints'
//! notes come back here and the relay acts on them. Runs without
//! `[[peps]]` never come here (`World::peps` is None).

use super::World;
use crate::ids::EpId;
use crate::net::packet::{FLAG_ACK, FLAG_SYN};
use crate::net::Packet;
use crate::pep::{PassReason, Peps, Relay, Slot, NONE};
use crate::scenario::{PepWindow, PoolFull, RwndGrowth};
use crate::sim::Rng;
use crate::tcp::{Ctx, Endpoint, Note};
use std::sync::Arc;

/// + hosted endpoint id: its controller's and its clock's random streams.
const STREAM_PEP_CC: u64 = 11 << 40;
const STREAM_PEP_CLOCK: u64 = 12 << 40;

/// Which configuration a hosted end runs.
#[derive(Clone, Copy)]
enum EndCfg {
    /// The flow's own `tcp` (an end facing a real end).
    Flow,
    /// The PEP's `leg` (the connection between a PEP and what it opens to).
    Leg,
}

impl World {
    /// The PEPs of the scenario; None without `[[peps]]`.
    pub(super) fn build_peps(scn: &crate::scenario::Scenario) -> Option<Box<Peps>> {
        if scn.peps.is_empty() {
            return None;
        }
        let research = scn
            .flows
            .iter()
            .map(|f| {
                let probe = Endpoint::new(0, 1, 0, 1, &f.tcp);
                probe.carries_research_option()
            })
            .collect();
        Some(Box::new(Peps::new(&scn.peps, scn.nodes.len(), scn.flows.len(), research)))
    }

    /// TCP segment `p` reached `node` on its way elsewhere: true if a PEP
    /// there took it (delivered it to an end it hosts, or held it).
    #[cold]
    #[inline(never)]
    pub(super) fn pep_take(&mut self, node: u32, p: &Packet) -> bool {
        let peps = self.peps.as_deref().expect("PEPs");
        let k = peps.at_node[node as usize];
        if k == NONE {
            return false;
        }
        let f = p.endpoint().flow().index();
        match peps.list[k as usize].flows[f] {
            Slot::Pass => false,
            Slot::Lost => {
                self.pep_answer_lost(k as usize, p);
                true
            }
            Slot::Split(r) => {
                let ep = peps.relays[r as usize].end_for(p.to_ep);
                self.deliver_to(ep, p);
                true
            }
            // the held SYN stands for its retransmissions
            Slot::Waiting => is_syn(p),
            Slot::ExpectPeer => {
                let peer_node = peps.list[k as usize].peer.map(|j| peps.list[j as usize].node);
                if Some(p.src_node) != peer_node {
                    return false;
                }
                // the pair's first PEP split it: this one answers that
                // PEP's opening (a SYN, or the first segment of a leg
                // that starts established) and opens towards the acceptor
                let r = self.open_relay(k as usize, f, p.to_ep, EndCfg::Leg);
                let a = self.peps.as_deref().expect("PEPs").relays[r].ends[0];
                self.eps[a as usize].listen(self.now);
                self.deliver_to(a, p);
                self.connect_far_end(r);
                true
            }
            Slot::Unseen => {
                if !is_syn(p) {
                    // a connection whose opening this PEP did not see
                    self.peps.as_deref_mut().expect("PEPs").set_both(k as usize, f, Slot::Pass);
                    return false;
                }
                self.pep_decide(k as usize, f, p)
            }
        }
    }

    /// Flow `f`'s SYN `p` at PEP `k`, seen first by it: split, pass or
    /// hold.
    fn pep_decide(&mut self, k: usize, f: usize, p: &Packet) -> bool {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let c = &self.scn.peps[peps.list[k].cfg];
        let fc = &self.scn.flows[f];
        if let Err(why) = peps.admits(c, f, fc.port, fc.split) {
            let n = &mut peps.list[k].counters;
            match why {
                PassReason::OptOut => n.passed_opt_out += 1,
                PassReason::Port => n.passed_port += 1,
                PassReason::Option => n.passed_option += 1,
            }
            peps.set_both(k, f, Slot::Pass);
            return false;
        }
        let need = 2 * c.buffer_bytes;
        if !peps.room(k, need, c.pool_bytes) {
            match c.pool_full {
                PoolFull::Pass => {
                    peps.list[k].counters.passed_pool_full += 1;
                    peps.set_both(k, f, Slot::Pass);
                    return false;
                }
                PoolFull::Wait => {
                    peps.list[k].counters.waited += 1;
                    peps.list[k].flows[f] = Slot::Waiting;
                    peps.list[k].waiting.push_back((f as u32, *p));
                    return true;
                }
            }
        }
        self.split_here(k, f, p);
        true
    }

    /// Split flow `f` at PEP `k` on its SYN `p`: reserve, answer, open.
    fn split_here(&mut self, k: usize, f: usize, p: &Packet) {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let need = 2 * self.scn.peps[peps.list[k].cfg].buffer_bytes;
        peps.reserve(k, need);
        if let Some(j) = peps.list[k].peer {
            peps.reserve(j as usize, need);
            peps.list[j as usize].flows[f] = Slot::ExpectPeer;
        }
        peps.list[k].counters.split += 1;
        let r = self.open_relay(k, f, p.to_ep, EndCfg::Flow);
        let a = self.peps.as_deref().expect("PEPs").relays[r].ends[0];
        self.eps[a as usize].listen(self.now);
        self.deliver_to(a, p);
        self.connect_far_end(r);
    }

    /// End 1 of relay `r` opens its connection towards the acceptor.
    fn connect_far_end(&mut self, r: usize) {
        let b = self.peps.as_deref().expect("PEPs").relays[r].ends[1];
        let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
        self.eps[b as usize].connect(&mut ctx);
        self.settle();
    }

    /// A relay for flow `f` at PEP `k`: its two hosted ends, end 0 (facing
    /// the opener; `first` says which configuration) and end 1 (facing the
    /// acceptor, the `acceptor` endpoint's side: the flow's configuration
    /// at the pair's second PEP or the leg at the first).
    fn open_relay(&mut self, k: usize, f: usize, acceptor: u32, first: EndCfg) -> usize {
        let peps = self.peps.as_deref().expect("PEPs");
        let cfg = &self.scn.peps[peps.list[k].cfg];
        let buffer = cfg.buffer_bytes;
        let node = peps.list[k].node;
        let fc = &self.scn.flows[f];
        let acc = EpId(acceptor);
        let opener = acc.peer();
        let node_of = |e: EpId| if e.side() == crate::ids::Side::Server { fc.src as u32 } else { fc.dst as u32 };
        let second = match first {
            EndCfg::Flow => EndCfg::Leg,
            EndCfg::Leg => EndCfg::Flow,
        };
        let make_cfg = |which: EndCfg| {
            let mut c = match which {
                EndCfg::Flow => fc.tcp.clone(),
                EndCfg::Leg => cfg.leg.as_ref().map_or_else(|| fc.tcp.clone(), |l| l.for_flow(&fc.tcp).clone()),
            };
            // the buffer is the most a direction holds: the fixed window,
            // or, autotuned, the receive buffer's half (the cap Linux's
            // autotuning opens the window up to) and the send buffer's
            (c.rwnd_bytes, c.rwnd_growth) = match cfg.receive_window {
                PepWindow::Autotune => (buffer / 2, RwndGrowth::LinuxAutotuned),
                PepWindow::Fixed => (buffer, RwndGrowth::Fixed),
            };
            // the buffer is the PEP's memory: nothing beyond the window is
            // kept (TCP-ADaLR's receivers take data beyond it)
            c.accept_beyond_window = false;
            Arc::new(c)
        };
        let cfgs = [make_cfg(first), make_cfg(second)];
        let seed = self.scn.run.seed;
        let base = self.eps.len() as u32;
        let r = peps.relays.len();
        for (i, (peer, peer_node)) in [(opener, node_of(opener)), (acc, node_of(acc))].into_iter().enumerate() {
            let id = base + i as u32;
            let mut ep = Endpoint::with_shared_cfg(id, peer.0, node, peer_node, cfgs[i].clone(), Rng::new(seed, STREAM_PEP_CC + id as u64));
            ep.seed_clock(Rng::new(seed, STREAM_PEP_CLOCK + id as u64));
            ep.defer_reads();
            ep.note_acks();
            self.eps.push(ep);
        }
        let peps = self.peps.as_deref_mut().expect("PEPs");
        peps.relay_of.extend([r as u32, r as u32]);
        peps.relays.push(Relay {
            pep: k as u32,
            flow: f as u32,
            acceptor,
            ends: [base, base + 1],
            delivered: [0; 2],
            moved: [0; 2],
            peer_closed: [false; 2],
            acked: [0; 2],
            finished: [false; 2],
            released: false,
            opened_at: self.now,
            finished_at: [None; 2],
            send_buffer: [0; 2],
            peak: [0; 2],
            reset: false,
            lost: false,
        });
        peps.list[k].flows[f] = Slot::Split(r as u32);
        r
    }

    /// Hand `p` to hosted endpoint `ep` and let what follows happen.
    fn deliver_to(&mut self, ep: u32, p: &Packet) {
        let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
        self.eps[ep as usize].on_segment(&mut ctx, p);
        #[cfg(debug_assertions)]
        self.eps[ep as usize].check_invariants();
        self.settle();
    }

    /// A note from an endpoint a PEP hosts: the relay acts on it.
    pub(super) fn pep_note(&mut self, n: Note) {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let ep = match n {
            Note::Delivered { ep, .. } | Note::PeerClosed { ep } | Note::Finished { ep } | Note::AllAcked { ep } | Note::Aborted { ep } | Note::Acked { ep, .. } => ep,
        };
        let r = peps.relay_of[(ep - peps.ep_base) as usize] as usize;
        let rel = &mut peps.relays[r];
        let c = &self.scn.peps[peps.list[rel.pep as usize].cfg];
        let (autotune, buffer) = (c.receive_window == PepWindow::Autotune, c.buffer_bytes);
        let i = rel.side_of(ep);
        let other = rel.ends[1 - i];
        let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
        match n {
            Note::Delivered { total, .. } => {
                let n = total - rel.delivered[i];
                rel.delivered[i] = total;
                rel.peak[i] = rel.peak[i].max(rel.held(i));
                if autotune {
                    // the other end's send buffer may take it at once
                    pep_move(rel, &mut self.eps, i, buffer, &mut ctx);
                } else if n > 0 {
                    rel.moved[i] = total;
                    self.eps[other as usize].write(&mut ctx, n);
                }
            }
            Note::Acked { total, .. } => {
                // the other end's received bytes that this end's peer now holds
                let k = total - rel.acked[i];
                rel.acked[i] = total;
                if autotune {
                    pep_move(rel, &mut self.eps, 1 - i, buffer, &mut ctx);
                } else {
                    self.eps[other as usize].read(&mut ctx, k);
                }
            }
            Note::PeerClosed { .. } => {
                rel.peer_closed[i] = true;
                if rel.moved[i] == rel.delivered[i] {
                    self.eps[other as usize].close(&mut ctx);
                }
            }
            Note::Finished { .. } => {
                rel.finished[i] = true;
                rel.finished_at[i] = Some(self.now);
                if rel.finished[1 - i] {
                    self.release(r);
                }
            }
            Note::Aborted { .. } => {
                rel.reset = true;
                let k = rel.pep as usize;
                if self.eps[other as usize].state != crate::tcp::State::Aborted && !self.eps[other as usize].is_finished() {
                    peps.list[k].counters.resets_sent += 1;
                    self.eps[other as usize].reset(&mut ctx);
                }
                self.release(r);
            }
            Note::AllAcked { .. } => {}
        }
    }

    /// Relay `r` is over: its pool reservation goes back, and waiting SYNs
    /// that now fit are split.
    fn release(&mut self, r: usize) {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let rel = &mut peps.relays[r];
        if rel.released {
            return;
        }
        rel.released = true;
        let k = rel.pep as usize;
        let f = rel.flow as usize;
        let c = &self.scn.peps[peps.list[k].cfg];
        let need = 2 * c.buffer_bytes;
        peps.list[k].pool_used -= need;
        // the pair's second PEP never took the connection over (it failed
        // before): its reservation goes back too
        if let Some(j) = peps.list[k].peer {
            let far = &mut peps.list[j as usize];
            if far.flows[f] == Slot::ExpectPeer {
                far.flows[f] = Slot::Unseen;
                far.pool_used -= need;
            }
        }
        // admit the waiting SYNs in order while they fit
        loop {
            let peps = self.peps.as_deref_mut().expect("PEPs");
            let pool = self.scn.peps[peps.list[k].cfg].pool_bytes;
            if peps.list[k].waiting.is_empty() || !peps.room(k, need, pool) {
                return;
            }
            let (f, syn) = peps.list[k].waiting.pop_front().expect("a waiting SYN");
            self.split_here(k, f as usize, &syn);
        }
    }

    /// A note in a run with PEPs: true if it was from an endpoint a PEP
    /// hosts (the relay took it); a flow's own Delivered note sets its
    /// first byte.
    #[cold]
    #[inline(never)]
    pub(super) fn pep_took_note(&mut self, n: Note) -> bool {
        let base = self.peps.as_deref().expect("PEPs").ep_base;
        let ep = match n {
            Note::Delivered { ep, .. } | Note::PeerClosed { ep } | Note::Finished { ep } | Note::AllAcked { ep } | Note::Aborted { ep } | Note::Acked { ep, .. } => ep,
        };
        if ep >= base {
            self.pep_note(n);
            return true;
        }
        if let Note::Delivered { ep, total } = n {
            self.pep_first_byte(EpId(ep), total);
        }
        false
    }

    /// A note from a flow's own endpoint in a run with PEPs: the first
    /// byte its receiving side got.
    pub(super) fn pep_first_byte(&mut self, ep: EpId, total: u64) {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let fb = &mut peps.first_byte[ep.flow().index()];
        if fb.is_none() && total > 0 && ep.side() == crate::ids::Side::Client {
            *fb = Some(self.now);
        }
    }
}

impl World {
    /// Link `link` went down: a PEP whose node has no link up any more
    /// loses its state (see `pep/`).
    pub(super) fn pep_outages(&mut self, link: usize) {
        let l = &self.scn.links[link];
        for node in [l.a as u32, l.b as u32] {
            let peps = self.peps.as_deref().expect("PEPs");
            let k = peps.at_node[node as usize];
            if k == NONE || peps.list[k as usize].down {
                continue;
            }
            if self.dirs.iter().any(|d| (d.from == node || d.to == node) && d.up) {
                continue;
            }
            self.pep_crash(k as usize);
        }
    }

    /// Link `link` came up: a PEP on either end is up again (with nothing
    /// of what it had).
    pub(super) fn pep_back(&mut self, link: usize) {
        let l = &self.scn.links[link];
        let peps = self.peps.as_deref_mut().expect("PEPs");
        for node in [l.a, l.b] {
            let k = peps.at_node[node];
            if k != NONE {
                peps.list[k as usize].down = false;
            }
        }
    }

    fn pep_crash(&mut self, k: usize) {
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let pep = &mut peps.list[k];
        pep.down = true;
        pep.counters.outages += 1;
        pep.waiting.clear();
        for s in pep.flows.iter_mut() {
            match *s {
                Slot::Waiting | Slot::ExpectPeer => *s = Slot::Unseen,
                _ => {}
            }
        }
        for r in 0..peps.relays.len() {
            let rel = &mut peps.relays[r];
            if rel.pep as usize != k || rel.released {
                continue;
            }
            rel.lost = true;
            rel.released = true;
            peps.list[k].flows[rel.flow as usize] = Slot::Lost;
            peps.list[k].counters.connections_lost += 1;
            for e in rel.ends {
                self.eps[e as usize].lose_state();
            }
        }
        peps.list[k].pool_used = 0;
    }

    /// A segment of a connection PEP `k` lost: a reset in reply, from the
    /// PEP's node to the segment's sender (as its peer), unless it is one.
    fn pep_answer_lost(&mut self, k: usize, p: &Packet) {
        use crate::net::packet::{TcpHeader, FLAG_FIN, FLAG_RST};
        let peps = self.peps.as_deref_mut().expect("PEPs");
        let pep = &mut peps.list[k];
        let node = pep.node;
        if p.tcp.has(FLAG_RST) {
            return;
        }
        pep.counters.lost_answered += 1;
        let fc = &self.scn.flows[p.endpoint().flow().index()];
        let sender = p.endpoint().peer();
        let to_node = if sender.side() == crate::ids::Side::Server { fc.src } else { fc.dst } as u32;
        let len = p.payload + p.tcp.has(FLAG_SYN | FLAG_FIN) as u32;
        let h = TcpHeader { seq: p.tcp.ack, ack: p.tcp.seq.wrapping_add(len), flags: FLAG_RST | FLAG_ACK, ..Default::default() };
        let mut rst = Packet::tcp(node, to_node, sender.0, h, 0, 0, false);
        self.forward(node, &mut rst);
    }
}

/// Under `receive_window = "autotune"`, the relay as socat and PEPsal
/// run it: it reads what end `i` received while the other end's send
/// buffer has room (a writable socket) and writes it there, so what the
/// next leg has not acknowledged sits in the send buffer and end `i`
/// keeps unread only what does not fit. The send buffer grows as Linux's
/// does (`Endpoint::linux_send_buffer`) up to half of `buffer` (the
/// receive window opens up to the other half) and never shrinks. A FIN
/// received at end `i` closes the other end once all is moved.
fn pep_move(rel: &mut Relay, eps: &mut [Endpoint], i: usize, buffer: u64, ctx: &mut Ctx) {
    let (rx, tx) = (rel.ends[i] as usize, rel.ends[1 - i] as usize);
    let sb = rel.send_buffer[1 - i].max(eps[tx].linux_send_buffer().min(buffer / 2));
    rel.send_buffer[1 - i] = sb;
    let in_send_buffer = rel.moved[i] - rel.acked[1 - i];
    let n = eps[rx].unread().min(sb.saturating_sub(in_send_buffer));
    if n > 0 {
        eps[rx].read(ctx, n);
        rel.moved[i] += n;
        eps[tx].write(ctx, n);
    }
    if n > 0 && rel.peer_closed[i] && rel.moved[i] == rel.delivered[i] {
        eps[tx].close(ctx);
    }
}

/// A segment opening a connection: SYN without ACK.
fn is_syn(p: &Packet) -> bool {
    p.tcp.has(FLAG_SYN) && !p.tcp.has(FLAG_ACK)
}

impl World {
    /// Each PEP's line of the summary (empty without PEPs).
    pub(super) fn pep_summaries(&self) -> Vec<crate::stats::output::PepSummary> {
        use crate::sim::secs;
        use crate::stats::output::{LegSummary, Limited, PepSummary, SplitSummary};
        let Some(peps) = self.peps.as_deref() else { return Vec::new() };
        let name = |n: u32| self.scn.nodes[n as usize].name.clone();
        let end = self.now;
        let mut out = Vec::with_capacity(peps.list.len());
        for (k, pep) in peps.list.iter().enumerate() {
            let c = &self.scn.peps[pep.cfg];
            let mut connections = Vec::new();
            for rel in peps.relays.iter().filter(|r| r.pep as usize == k) {
                let legs = (0..2)
                    .map(|i| {
                        let ep = &self.eps[rel.ends[i] as usize];
                        let fc = ep.flow_counters();
                        let [cwnd, rwnd, app, pacing] = ep.limited_shares(end);
                        LegSummary {
                            toward: if i == 0 { "opener" } else { "acceptor" }.to_string(),
                            to_node: name(ep.peer_node),
                            variant: ep.cfg.variant.clone(),
                            profile: ep.cfg.profile.name().to_string(),
                            completion_s: rel.finished_at[i].map(|t| secs(t - rel.opened_at)),
                            segments_sent: fc.stats.segments_sent,
                            retransmissions: fc.stats.retransmissions,
                            timeouts: fc.stats.timeouts,
                            fast_recoveries: fc.stats.fast_recoveries,
                            limited: Limited { cwnd, rwnd, app, pacing },
                            final_cwnd_bytes: fc.cwnd,
                            final_srtt_s: fc.srtt_ns.map(|v| v / 1e9),
                        }
                    })
                    .collect();
                let state = if rel.lost {
                    "lost"
                } else if rel.reset {
                    "reset"
                } else if rel.finished == [true, true] {
                    "finished"
                } else {
                    "open"
                };
                connections.push(SplitSummary {
                    flow: self.scn.flows[rel.flow as usize].name.clone(),
                    opened_s: secs(rel.opened_at),
                    state: state.to_string(),
                    bytes_to_acceptor: rel.delivered[0],
                    bytes_to_opener: rel.delivered[1],
                    peak_to_acceptor_bytes: rel.peak[0],
                    peak_to_opener_bytes: rel.peak[1],
                    legs,
                });
            }
            out.push(PepSummary {
                node: name(pep.node),
                peer: pep.peer.map(|j| name(peps.list[j as usize].node)),
                buffer_bytes: c.buffer_bytes,
                pool_bytes: c.pool_bytes,
                counters: peps.counters(k),
                connections,
            });
        }
        out
    }

    /// One row per split connection at a sampling tick.
    pub(super) fn pep_sample(&mut self) {
        let Some(peps) = self.peps.as_deref() else { return };
        let t = crate::sim::secs(self.now);
        let mut per_pep = vec![0u32; peps.list.len()];
        for rel in &peps.relays {
            let k = rel.pep as usize;
            let s = &mut self.pep_series;
            s.time_s.push(t);
            s.pep.push(rel.pep);
            s.connection.push(per_pep[k]);
            s.flow.push(rel.flow);
            s.to_acceptor_bytes.push(rel.held(0) as f64);
            s.to_opener_bytes.push(rel.held(1) as f64);
            s.pool_used_bytes.push(peps.list[k].pool_used as f64);
            per_pep[k] += 1;
        }
    }
}
