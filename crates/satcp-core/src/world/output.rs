//! What a run hands back: a row of every time series at each sampling tick,
//! and the summary at the end. Both read only what the models hand out
//! (`Endpoint::flow_counters`, `LinkDir::sample` and `LinkDir::summary`, the
//! applications' and agents' counters), never their internals.

use super::World;
use crate::app::App;
use crate::ids::{DirId, FlowId};
use crate::net::LinkDir;
use crate::scenario::AppCfg;
use crate::sim::secs;
use crate::stats::output::*;

impl World {
    /// One row of every time series: per TCP flow (its server's sending
    /// state, its client's receiving progress) and per link direction.
    pub(super) fn sample(&mut self) {
        let t = secs(self.now);
        for f in (0..self.flows.len()).map(FlowId::new) {
            if self.apps[f.index()].udp_stats().is_some() {
                continue; // UDP cross traffic has no TCP state to sample
            }
            if let Some(q) = self.quic[f.index()].as_deref() {
                // what quinn hands out: its window, its bytes in flight
                // (quic/flight.rs), its smoothed RTT and the bytes
                // delivered; the rest is TCP's
                let c = q.counters();
                let fs = &mut self.flow_series;
                fs.time_s.push(t);
                fs.flow.push(f.0);
                // before the server has a connection (srtt None): NaN
                fs.cwnd_bytes.push(c.srtt_ns.map_or(f64::NAN, |_| c.cwnd as f64));
                fs.ssthresh_bytes.push(f64::NAN);
                fs.eff_window_bytes.push(f64::NAN);
                fs.flight_bytes.push(c.flight.map_or(f64::NAN, |v| v as f64));
                fs.srtt_s.push(c.srtt_ns.map_or(f64::NAN, |v| v / 1e9));
                fs.rto_s.push(f64::NAN);
                fs.rcv_high_bytes.push(f64::NAN);
                fs.delivered_bytes.push(c.bytes_delivered as f64);
                fs.snd_max_bytes.push(f64::NAN);
                fs.timeouts.push(f64::NAN);
                fs.spurious_rtos.push(f64::NAN);
                continue;
            }
            let s = self.eps[f.server().index()].flow_counters();
            let c = self.eps[f.client().index()].flow_counters();
            let fs = &mut self.flow_series;
            fs.time_s.push(t);
            fs.flow.push(f.0);
            fs.cwnd_bytes.push(s.cwnd as f64);
            fs.ssthresh_bytes.push(s.ssthresh.map_or(f64::NAN, |v| v as f64));
            fs.eff_window_bytes.push(s.cwnd.min(s.peer_wnd) as f64);
            fs.flight_bytes.push(s.flight as f64);
            fs.srtt_s.push(s.srtt_ns.map_or(f64::NAN, |v| v / 1e9));
            fs.rto_s.push(secs(s.rto_ns));
            fs.rcv_high_bytes.push(c.rcv_high.saturating_sub(1) as f64);
            fs.delivered_bytes.push(c.bytes_delivered as f64);
            fs.snd_max_bytes.push(s.snd_max.saturating_sub(1) as f64);
            fs.timeouts.push((s.stats.timeouts + c.stats.timeouts) as f64);
            fs.spurious_rtos.push((s.stats.spurious_rtos + c.stats.spurious_rtos) as f64);
        }
        if self.peps.is_some() {
            self.pep_sample();
        }
        for (i, d) in self.dirs.iter_mut().enumerate() {
            let row = d.sample(self.now);
            let ls = &mut self.link_series;
            ls.time_s.push(t);
            ls.link.push(i as u32);
            ls.queue_packets.push(row.queue_packets as f64);
            ls.queue_bytes.push(row.queue_bytes as f64);
            ls.rate_bps.push(row.rate_bps as f64);
            ls.bytes_tx.push(row.bytes_tx as f64);
            ls.red_avg_packets.push(row.red_avg_packets.unwrap_or(f64::NAN));
        }
    }

    pub fn into_output(mut self) -> RunOutput {
        let end = self.now;
        // every packet of the pool is on some link (or in a holding queue)
        debug_assert_eq!(self.pkts.live(), self.dirs.iter().map(LinkDir::pool_packets).sum::<usize>(), "packets lost track of");
        let (paths, ground_stations, path_series, routing_ns) = match self.leo.as_deref_mut() {
            Some(l) => (l.path_summaries(), std::mem::take(&mut l.stations_out), std::mem::take(&mut l.series), l.routing_ns),
            None => Default::default(),
        };
        let (flows, pages) = self.flow_summaries();
        let summary = Summary {
            satcp_version: crate::VERSION.to_string(),
            seed: self.scn.run.seed,
            sim_time_s: secs(end),
            ended_by: self.ended_by.to_string(),
            events: self.q.popped(),
            wall_s: 0.0,
            flows,
            links: self.link_summaries(),
            nodes: self.node_summaries(),
            agents: self.agent_summaries(),
            paths,
            ground_stations,
            peps: Vec::new(),
        };
        let peps = self.pep_summaries();
        let summary = Summary { peps, ..summary };
        RunOutput {
            summary,
            flow_series: self.flow_series,
            link_series: self.link_series,
            pages,
            path_series,
            pep_series: std::mem::take(&mut self.pep_series),
            routing_wall_s: routing_ns as f64 / 1e9,
        }
    }

    /// Each flow's line of the summary, and its completed HTTP pages.
    fn flow_summaries(&self) -> (Vec<FlowSummary>, PageTable) {
        let (scn, end) = (&self.scn, self.now);
        let node = |i: usize| scn.nodes[i].name.clone();
        let mut flows = Vec::with_capacity(scn.flows.len());
        let mut pages = PageTable::default();
        for (f, fc) in scn.flows.iter().enumerate() {
            let f = FlowId::new(f);
            let (srv, cli) = (&self.eps[f.server().index()], &self.eps[f.client().index()]);
            let (s, c) = (srv.flow_counters(), cli.flow_counters());
            let app = &self.apps[f.index()];
            let start = app.start_time();
            let last = app.last_byte_at();
            let active = last.unwrap_or(end).saturating_sub(start);
            let rate = |bytes: u64| if active == 0 { 0.0 } else { bytes as f64 * 8.0 / secs(active) };
            let (mut pages_done, mut page_sum) = (0u64, 0.0);
            if let App::Http(h) = app {
                for (k, &(ps, pe)) in h.pages.iter().enumerate() {
                    pages.flow.push(f.0);
                    pages.page.push(k as u32);
                    pages.start_s.push(secs(ps));
                    pages.end_s.push(secs(pe));
                    pages.response_s.push(secs(pe - ps));
                    pages_done += 1;
                    page_sum += secs(pe - ps);
                }
            }
            let (ss, cs) = (s.stats, c.stats);
            let udp = app.udp_stats();
            let run = &self.flows[f.index()];
            // what every transport's line says the same way
            let common = FlowSummary {
                name: fc.name.clone(),
                src: node(fc.src),
                dst: node(fc.dst),
                app: app.kind().to_string(),
                completed: app.completed_at().is_some(),
                start_s: secs(start),
                stop_s: match &fc.app {
                    AppCfg::Ftp(a) => a.stop_ns.map(secs),
                    _ => None,
                },
                completion_s: app.completed_at().map(|t| secs(t - start)),
                last_byte_at_s: last.filter(|_| matches!(fc.app, AppCfg::Ftp(_))).map(secs),
                pages_completed: pages_done,
                mean_page_response_s: (pages_done > 0).then(|| page_sum / pages_done as f64),
                first_byte_s: self.peps.as_deref().and_then(|p| p.first_byte[f.index()]).map(|t| secs(t.saturating_sub(start))),
                ..FlowSummary::default()
            };
            if let Some(q) = self.quic[f.index()].as_deref() {
                let qc = q.counters();
                let cfg = fc.quic.as_ref().expect("a QUIC flow");
                flows.push(FlowSummary {
                    variant: format!("quic/{}", cfg.cc.name()),
                    fin_done_at_s: None,
                    bytes_delivered: qc.bytes_delivered,
                    bytes_received: qc.bytes_received,
                    goodput_bps: rate(qc.bytes_delivered),
                    throughput_bps: rate(qc.bytes_received),
                    segments_sent: qc.datagrams_sent,
                    retransmissions: qc.lost_packets,
                    integrity_errors: qc.integrity_errors,
                    aborted: run.aborted,
                    abort_reason: run.aborted.then(|| "the QUIC connection was lost (quinn's ConnectionLost: idle timeout or a protocol error)".to_string()),
                    final_cwnd_bytes: qc.cwnd,
                    final_srtt_s: qc.srtt_ns.map(|v| v / 1e9),
                    quic: Some(QuicStats {
                        handshake_s: qc.handshake_ns.map(secs),
                        datagrams_sent: qc.datagrams_sent,
                        lost_packets: qc.lost_packets,
                        lost_bytes: qc.lost_bytes,
                        congestion_events: qc.congestion_events,
                        ptos: qc.ptos,
                        client_acks: qc.client_acks,
                    }),
                    ..common
                });
                continue;
            }
            flows.push(FlowSummary {
                variant: if udp.is_some() { "udp".to_string() } else { fc.tcp.variant.clone() },
                fin_done_at_s: run.fin_done_at.map(secs),
                bytes_delivered: c.bytes_delivered,
                bytes_received: c.bytes_arrived,
                goodput_bps: rate(c.bytes_delivered),
                throughput_bps: rate(c.bytes_arrived),
                segments_sent: ss.segments_sent + cs.segments_sent,
                retransmissions: ss.retransmissions + cs.retransmissions,
                timeouts: ss.timeouts + cs.timeouts,
                fast_recoveries: ss.fast_recoveries + cs.fast_recoveries,
                loss_probes: ss.loss_probes + cs.loss_probes,
                spurious_rtos: ss.spurious_rtos + cs.spurious_rtos,
                dummy_segments_sent: ss.dummy_segments_sent + cs.dummy_segments_sent,
                dummy_acks_sent: ss.dummy_acks_sent + cs.dummy_acks_sent,
                dummy_acks_received: ss.dummy_acks_received + cs.dummy_acks_received,
                ecn_reductions: (udp.is_none() && fc.tcp.ecn == crate::tcp::ecn::EcnSetting::On).then_some(ss.ecn_reductions + cs.ecn_reductions),
                integrity_errors: ss.integrity_errors + cs.integrity_errors,
                aborted: run.aborted,
                abort_reason: run.aborted.then(|| {
                    if let Some(side) = [srv, cli].iter().find_map(|e| e.reset_side()) {
                        let how = if side == crate::tcp::reset::ResetSide::Received { "received" } else { "sent" };
                        return format!("the connection was reset (a reset {how} by one of its ends: a PEP on the path lost or gave up its split connection)");
                    }
                    let n = fc.tcp.max_retransmissions.unwrap_or(0);
                    format!("no progress after {n} retransmission timeouts in a row (tcp.max_retransmissions = {n}; 0 never gives up)")
                }),
                final_cwnd_bytes: if udp.is_some() { 0 } else { s.cwnd },
                final_srtt_s: s.srtt_ns.map(|v| v / 1e9),
                profile: udp.is_none().then(|| fc.tcp.profile.name().to_string()),
                limited: udp.is_none().then(|| {
                    let [cwnd, rwnd, app, pacing] = srv.limited_shares(end);
                    Limited { cwnd, rwnd, app, pacing }
                }),
                udp,
                quic: None,
                ..common
            });
        }
        (flows, pages)
    }

    /// Each link direction's line of the summary; a constellation's links
    /// only where they carried or dropped something (thousands of
    /// directions otherwise).
    fn link_summaries(&self) -> Vec<LinkSummary> {
        let scn = &self.scn;
        let node = |i: usize| scn.nodes[i].name.clone();
        let first_moving = scn.leo.as_ref().map_or(usize::MAX, |l| l.shells.iter().map(|s| s.first_link).min().unwrap_or(usize::MAX));
        let mut links = Vec::with_capacity(self.dirs.len());
        for (i, d) in self.dirs.iter().enumerate() {
            let id = DirId(i as u32);
            if id.link() >= first_moving && !d.was_used() {
                continue;
            }
            let l = &scn.links[id.link()];
            let label = DirLabel {
                index: id.link(),
                a: node(l.a),
                b: node(l.b),
                direction: id.name(),
                from: node(d.from as usize),
                to: node(d.to as usize),
                rate_bps: l.dirs[id.side()].rate_bps,
                delay_s: secs(l.dirs[id.side()].delay_ns),
            };
            links.push(d.summary(label, self.now, &self.dirs[id.reverse().index()]));
        }
        links
    }

    fn node_summaries(&self) -> Vec<NodeSummary> {
        let nodes = self.scn.nodes.iter().zip(&self.nodes);
        nodes.map(|(n, s)| NodeSummary { name: n.name.clone(), drops_no_route: s.drops_no_route, drops_ttl: s.drops_ttl }).collect()
    }

    fn agent_summaries(&self) -> Vec<AgentSummary> {
        let scn = &self.scn;
        scn.agents
            .iter()
            .zip(&self.agents.list)
            .map(|(c, a)| AgentSummary {
                node: scn.nodes[c.node].name.clone(),
                link: c.link,
                kind: c.kind.name().to_string(),
                counters: crate::router::RouterAgent::counters(a),
            })
            .collect()
    }
}
