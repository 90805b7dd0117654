//! What one run returns: a JSON-serialisable summary and columnar tables.
//!
//! Tables are plain column vectors (one `Vec` per column) so the Python
//! binding can hand them to NumPy/pandas without per-row objects.

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub satcp_version: String,
    pub seed: u64,
    /// Simulated time at which the run ended.
    pub sim_time_s: f64,
    /// "completed" (every finite flow has completed), "aborted" (every
    /// finite flow is done and some gave up: see each flow's `aborted` and
    /// `abort_reason`), "stop" (the stop time was
    /// reached), "idle" (nothing left to happen) or "interrupted" (an
    /// observer of `run_observed` stopped it).
    pub ended_by: String,
    /// Events taken off the event queue (including stale timer entries; a
    /// relay node cut through takes none, `world/cut_through.rs`): a
    /// measure of the engine's work, not of the model's.
    pub events: u64,
    /// Wall-clock seconds the engine spent building and running the scenario.
    pub wall_s: f64,
    pub flows: Vec<FlowSummary>,
    /// Every direction of every `[[links]]` entry; of a constellation's
    /// links (ISLs, ground-to-satellite links), only the directions that
    /// carried or dropped a packet. `index` and `direction` name each.
    pub links: Vec<LinkSummary>,
    /// One per node, in the order of `[nodes]`.
    pub nodes: Vec<NodeSummary>,
    /// One per `[[agents]]` entry, in order.
    pub agents: Vec<AgentSummary>,
    /// One per `[[paths]]` pair, in order (constellations).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathSummary>,
    /// One per `[[ground_stations]]` entry, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ground_stations: Vec<StationSummary>,
    /// One per PEP (`[[peps]]`: a pair gives two, its `node` first), in
    /// order; absent without PEPs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub peps: Vec<PepSummary>,
}

/// A PEP over the run (`pep/`, docs/models/pep.md).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PepSummary {
    pub node: String,
    /// The other PEP of its pair.
    pub peer: Option<String>,
    pub buffer_bytes: u64,
    pub pool_bytes: u64,
    /// Connections split, passed (by reason), waited; resets; the pool's
    /// peak reservation.
    pub counters: std::collections::BTreeMap<String, u64>,
    /// Each connection it split, in the order split.
    pub connections: Vec<SplitSummary>,
}

/// A connection split at one PEP: its two legs as the PEP's ends saw them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SplitSummary {
    pub flow: String,
    pub opened_s: f64,
    /// "finished" (both legs' FIN exchanges done), "reset" or "open".
    pub state: String,
    /// Bytes relayed towards the acceptor and towards the opener.
    pub bytes_to_acceptor: u64,
    pub bytes_to_opener: u64,
    /// Most bytes held at once towards the acceptor and towards the opener
    /// (never above the buffer).
    pub peak_to_acceptor_bytes: u64,
    pub peak_to_opener_bytes: u64,
    /// The leg towards the opener (the PEP's end that answered its SYN),
    /// then the leg towards the acceptor (the end the PEP opened).
    pub legs: Vec<LegSummary>,
}

/// One leg of a split connection, as the PEP's end of it counted.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LegSummary {
    /// "opener" or "acceptor": which way the leg goes from the PEP.
    pub toward: String,
    /// The node at the leg's other end as addressed (a peer PEP on the
    /// way takes the leg over).
    pub to_node: String,
    pub variant: String,
    /// The profile the leg's TCP ran (a leg without `profile` takes its
    /// flow's).
    pub profile: String,
    /// From the connection's split to the end of this leg's FIN exchange.
    pub completion_s: Option<f64>,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// What limited the PEP's sender on this leg.
    pub limited: Limited,
    pub final_cwnd_bytes: u64,
    pub final_srtt_s: Option<f64>,
}

/// A traced ground-station pair over the run (`[[paths]]`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PathSummary {
    pub src: String,
    pub dst: String,
    /// Topology steps at which the path (its nodes) differed from the
    /// step before.
    pub changes_s: Vec<f64>,
    /// Smallest and largest RTT (twice the path's propagation delay) over
    /// the steps with a path; None if there never was one.
    pub min_rtt_s: Option<f64>,
    pub max_rtt_s: Option<f64>,
    /// Steps with no path at all (nothing in view, or the graph cut).
    pub steps_without_path: u64,
    /// Every distinct path taken, as its nodes separated by spaces; the
    /// path series' `route` column indexes this list.
    pub routes: Vec<String>,
}

/// A ground station's account of its satellite links.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StationSummary {
    pub name: String,
    /// Times its traffic moved to another satellite: under a single
    /// attachment policy, a new attachment; under "shortest-path", a change
    /// in the first satellite of its routes towards the nodes it exchanges
    /// traffic with. The first attachment is not a handover.
    pub handovers: u64,
    pub handover_times_s: Vec<f64>,
    /// Ground-to-satellite links brought up (first time or again) and
    /// taken down.
    pub links_up: u64,
    pub links_down: u64,
    /// Topology steps at which it had no satellite in view.
    pub steps_without_satellite: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct NodeSummary {
    pub name: String,
    /// Packets the node could not route (every path to the destination was
    /// down).
    pub drops_no_route: u64,
    /// Packets whose TTL ran out at the node.
    pub drops_ttl: u64,
}

/// What a router agent counted (its own counters, by name).
#[derive(Clone, Debug, Default, Serialize)]
pub struct AgentSummary {
    pub node: String,
    /// The link whose interface it watches, or None for all of the node's.
    pub link: Option<usize>,
    pub kind: String,
    pub counters: std::collections::BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub variant: String,
    pub app: String,
    /// The application's work is done (file delivered and, when the response
    /// end is "fin", the FIN exchange complete; for HTTP: every page asked for
    /// has completed). Unlimited flows never complete.
    pub completed: bool,
    /// Absolute time the application started (first SYN sent).
    pub start_s: f64,
    /// When the application stops writing (an FTP `stop`), if it does.
    pub stop_s: Option<f64>,
    /// Response time: from the first SYN to the response end the flow's app
    /// names (last byte delivered, or FIN exchange done). None if not reached.
    pub completion_s: Option<f64>,
    /// Absolute time the last byte of a finite transfer reached the receiving
    /// application.
    pub last_byte_at_s: Option<f64>,
    /// Absolute time the FIN exchange completed.
    pub fin_done_at_s: Option<f64>,
    /// Original data bytes delivered in order to the receiving application
    /// (server -> client direction).
    pub bytes_delivered: u64,
    /// Data bytes (including retransmitted and duplicate copies) that arrived
    /// at the receiving TCP.
    pub bytes_received: u64,
    /// bytes_delivered x 8 / active time (start to last byte, or to the end of
    /// the run if not complete).
    pub goodput_bps: f64,
    /// bytes_received x 8 / the same active time.
    pub throughput_bps: f64,
    pub segments_sent: u64,
    /// Data segments sent again (fast retransmit, recovery, RTO).
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Tail loss probes sent (`tcp.tlp`).
    pub loss_probes: u64,
    /// Retransmission timeouts F-RTO (`tcp.frto`) found spurious.
    pub spurious_rtos: u64,
    /// Low-priority dummy segments the window controller had sent (copies
    /// of data already sent; not in `segments_sent` or `retransmissions`).
    pub dummy_segments_sent: u64,
    /// DummyAcks the receiving TCP sent in answer to dummy segments.
    pub dummy_acks_sent: u64,
    /// DummyAcks that reached the sending TCP.
    pub dummy_acks_received: u64,
    /// Window reductions for ECN-Echo (RFC 3168), both ends: only for a
    /// flow with `tcp.ecn = true` (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_reductions: Option<u64>,
    /// Data segments whose 32-bit wire sequence number, unwrapped by the
    /// receiver, disagreed with the stream offset the sender meant. Always 0
    /// unless the TCP model is broken; the tests assert it.
    pub integrity_errors: u64,
    /// The connection was aborted after too many retransmissions.
    pub aborted: bool,
    /// Why, when it was: the rule that gave up.
    pub abort_reason: Option<String>,
    /// HTTP only: pages completed and their mean response time.
    pub pages_completed: u64,
    pub mean_page_response_s: Option<f64>,
    pub final_cwnd_bytes: u64,
    pub final_srtt_s: Option<f64>,
    /// TCP flows: the behaviour profile that filled the keys left out.
    pub profile: Option<String>,
    /// TCP flows: what limited the sending TCP (see `tcp::limits`).
    pub limited: Option<Limited>,
    /// UDP cross-traffic flows (cbr, onoff) only: packets and IP bytes sent,
    /// received, lost to queues or errors. Their TCP fields stay zero.
    pub udp: Option<crate::app::udp::UdpStats>,
    /// QUIC flows only (`transport = "quic"`): what quinn counted. Absent
    /// from a TCP or UDP flow's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quic: Option<QuicStats>,
    /// In runs with PEPs only: when the client got its first data byte,
    /// from the flow's start (as the client sees it, split or not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_byte_s: Option<f64>,
}

/// A QUIC flow's own summary (`quic/`, docs/models/quic.md): quinn's
/// `ConnectionStats` of both connections and the handshake time.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct QuicStats {
    /// From the client's first datagram to its connection's `Connected`
    /// event (the handshake's 1 RTT plus serialisation).
    pub handshake_s: Option<f64>,
    /// UDP datagrams both connections sent.
    pub datagrams_sent: u64,
    /// Packets quinn declared lost (both connections); their frames are
    /// sent again in new packets, so this is QUIC's retransmission count.
    pub lost_packets: u64,
    /// Bytes of those packets.
    pub lost_bytes: u64,
    /// The server's congestion events (window reductions).
    pub congestion_events: u64,
    /// Probe timeouts that expired (both connections; RFC 9002 section
    /// 6.2, counted exactly: `quic/pto_count.rs`): QUIC's retransmission
    /// timeouts.
    pub ptos: u64,
    /// ACK frames the client sent (what `quic.ack_frequency` and
    /// `quic.max_ack_delay` change).
    pub client_acks: u64,
}

/// Shares of a sending TCP's time from establishment to completion (or
/// the end of the run) during which it was stopped by each limit; they add
/// up to one (all zero if it never got established).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Limited {
    pub cwnd: f64,
    pub rwnd: f64,
    pub app: f64,
    pub pacing: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Drops {
    /// Dropped on arrival because the queue was full.
    pub queue: u64,
    /// Lost to the error model (corrupted on the link).
    pub errors: u64,
    /// RED probabilistic early drops.
    pub red_early: u64,
    /// RED forced drops (average queue at or above max_th, or 2 max_th when
    /// gentle). RED's hard-limit overflows count in `queue`.
    pub red_forced: u64,
    /// Lost because the link was down: queued, being sent or on the wire
    /// when it went down, or offered while it was down.
    pub down: u64,
    /// Pushed out of a priority queue by a higher-priority arrival.
    pub pushed_out: u64,
    /// Drop-front: waiting packets dropped at the head for an arrival
    /// (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub head: u64,
    /// Dropped by CoDel's control law at dequeue (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub codel: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// What a queue that measures its packets' sojourn times (drop-front,
/// CoDel) reports: enqueue to the start of transmission, packets sent only;
/// percentiles to within 3.2% (`net/queue/sojourn.rs`), None with no packet.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSummary {
    pub dequeued: u64,
    pub sojourn_p50_s: Option<f64>,
    pub sojourn_p95_s: Option<f64>,
    pub sojourn_p99_s: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSummary {
    pub index: usize,
    pub a: String,
    pub b: String,
    /// "ab" (a -> b) or "ba" (b -> a).
    pub direction: String,
    pub from: String,
    pub to: String,
    /// The configured rate and delay (at the start of the run; scheduled
    /// `changes` may alter them).
    pub rate_bps: u64,
    pub delay_s: f64,
    pub packets_tx: u64,
    /// IP bytes accepted for transmission (including corrupted packets).
    /// A packet counts when the link accepts it, before it waits in the
    /// queue, so a run that stops early includes what was still queued.
    pub bytes_tx: u64,
    /// IP bytes that arrived intact at the far end.
    pub bytes_ok: u64,
    /// Fraction of the run's time the transmitter was busy (all framed bits
    /// sent / (rate x run time)); never above 1.
    pub utilization: f64,
    /// Intact IP bits received / the bits the link could carry in the run
    /// (rate x run time, or the rate schedule integrated over the time the
    /// link was up): the ADaLR thesis' "bits correctly transmitted over the
    /// satellite link".
    pub utilization_ok: f64,
    pub drops: Drops,
    /// Low-priority packets (dummy segments and their ACKs) among
    /// `packets_tx`, and those the queue dropped (among `drops.queue`,
    /// `drops.pushed_out` and RED's).
    pub low_priority_tx: u64,
    pub low_priority_dropped: u64,
    pub max_queue_packets: u64,
    /// Packets the queue marked CE instead of dropping them (`ecn = true`;
    /// absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub marks: u64,
    /// The time-averaged number of packets waiting over the run (a FIFO
    /// transmitter's; None for priority and ARQ links): what the XFWA
    /// paper's average queue samples every 100 ms.
    pub mean_queue_packets: Option<f64>,
    /// Packets held back and overtaken (reordering model, overtakable burst
    /// delay).
    pub reordered: u64,
    /// Packets delayed by a burst error model's extra delay.
    pub burst_delayed: u64,
    /// The link-layer ARQ's account of this direction's frames, if the link
    /// has one (`packets_tx` then counts every transmission, link ACKs
    /// included; the byte counters count IP bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arq: Option<ArqSummary>,
    /// The queue's own account, for disciplines that keep one (drop-front,
    /// CoDel); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSummary>,
}

/// What names a link direction in a summary: what the world knows of it
/// (the scenario's names, the configured rate and delay), not the direction.
#[derive(Clone, Debug)]
pub struct DirLabel {
    pub index: usize,
    pub a: String,
    pub b: String,
    pub direction: &'static str,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
}

/// One direction of an ARQ link: its frames, their fate at the far end,
/// and the link ACKs it sent for the other direction's frames.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ArqSummary {
    /// Frames sent for the first time.
    pub frames: u64,
    /// Retransmissions (found lost from an ACK or by the timer).
    pub retransmissions: u64,
    /// Losses found by the retransmission timer.
    pub timer_expiries: u64,
    /// Frames given up at the persistence limit.
    pub abandoned: u64,
    /// Link ACKs sent on this direction.
    pub acks: u64,
    /// Packets of a bypass class sent without ARQ.
    pub bypass: u64,
    /// Frames delivered to IP in order at the far end.
    pub delivered: u64,
    pub duplicates: u64,
    /// Frames the far end stopped waiting for (resequencing timeout).
    pub skipped: u64,
    /// skipped / frames: the loss IP sees.
    pub residual_loss: f64,
    /// Frames delivered later than their first copy would have arrived,
    /// and the mean and largest extra delay among them.
    pub delayed: u64,
    pub mean_extra_delay_s: f64,
    pub max_extra_delay_s: f64,
    /// Most frames held for resequencing at once.
    pub max_resequencing: u64,
    /// The retransmission and resequencing timeouts in force.
    pub timeout_s: f64,
    pub reseq_timeout_s: f64,
}

/// One row per (sample time, flow).
#[derive(Clone, Debug, Default)]
pub struct FlowSeries {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd_bytes: Vec<f64>,
    pub ssthresh_bytes: Vec<f64>,
    /// min(cwnd, peer's advertised window).
    pub eff_window_bytes: Vec<f64>,
    pub flight_bytes: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    /// Highest data byte offset the receiver has received (in order or not).
    pub rcv_high_bytes: Vec<f64>,
    /// Bytes delivered in order to the receiving application so far.
    pub delivered_bytes: Vec<f64>,
    /// Highest data byte offset the sender has sent.
    pub snd_max_bytes: Vec<f64>,
    /// Retransmission timeouts so far, both endpoints (the summary's
    /// `timeouts` as it stood at the sample; NaN for a QUIC flow).
    pub timeouts: Vec<f64>,
    /// Of those, the ones F-RTO found spurious so far (the summary's
    /// `spurious_rtos` at the sample; NaN for a QUIC flow).
    pub spurious_rtos: Vec<f64>,
}

/// One row per (sample time, link direction).
#[derive(Clone, Debug, Default)]
pub struct LinkSeries {
    pub time_s: Vec<f64>,
    /// Index into `Summary::links` (2 x link index + 0 for a->b, + 1 for b->a).
    pub link: Vec<u32>,
    pub queue_packets: Vec<f64>,
    pub queue_bytes: Vec<f64>,
    /// The rate in force (0 while the link is down).
    pub rate_bps: Vec<f64>,
    /// Cumulative IP bytes accepted for transmission, counted when a packet
    /// is accepted (queued or sent at once); minus `queue_bytes` it is what
    /// has started to leave.
    pub bytes_tx: Vec<f64>,
    /// RED's average queue in packets as of the last arrival (NaN when the
    /// queue is not RED).
    pub red_avg_packets: Vec<f64>,
}

/// One row per completed HTTP page.
#[derive(Clone, Debug, Default)]
pub struct PageTable {
    pub flow: Vec<u32>,
    pub page: Vec<u32>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub response_s: Vec<f64>,
}

/// One row per (topology step, traced pair) with a path, or with none
/// (`hops` 0, `rtt_s` NaN, `route` u32::MAX).
#[derive(Clone, Debug, Default)]
pub struct PathSeries {
    pub time_s: Vec<f64>,
    /// Index into `Summary::paths`.
    pub pair: Vec<u32>,
    pub rtt_s: Vec<f64>,
    pub hops: Vec<u32>,
    /// Index into the pair's `routes`.
    pub route: Vec<u32>,
}

/// Each split connection's buffer at every sampling tick (runs with PEPs
/// and `run.sample_interval`): bytes held towards the acceptor and towards
/// the opener.
#[derive(Clone, Debug, Default)]
pub struct PepSeries {
    pub time_s: Vec<f64>,
    /// Index into `Summary::peps`.
    pub pep: Vec<u32>,
    /// Index into that PEP's `connections`.
    pub connection: Vec<u32>,
    pub flow: Vec<u32>,
    pub to_acceptor_bytes: Vec<f64>,
    pub to_opener_bytes: Vec<f64>,
    /// The PEP's pool reserved at that instant.
    pub pool_used_bytes: Vec<f64>,
}

#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    pub summary: Summary,
    pub flow_series: FlowSeries,
    pub link_series: LinkSeries,
    pub pages: PageTable,
    pub path_series: PathSeries,
    /// Runs with PEPs and sampling only.
    pub pep_series: PepSeries,
    /// Wall-clock seconds spent recomputing routes (benchmarks; not in the
    /// summary, which is deterministic).
    pub routing_wall_s: f64,
}

impl RunOutput {
    /// The summary as one JSON object (deterministic: same run, same bytes,
    /// except `wall_s`).
    pub fn summary_json(&self) -> String {
        serde_json::to_string(&self.summary).expect("summary serialises")
    }
}
