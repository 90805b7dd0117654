//! The validated, typed form of a scenario: what the engine consumes.
//!
//! Every value here has already been checked by `scenario::parse`; the engine
//! never re-validates and never clamps. Units live in the field names
//! (`_ns`, `_bps`, `_bytes`). Node references are indices into `nodes`.

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub run: RunCfg,
    pub nodes: Vec<NodeCfg>,
    pub links: Vec<LinkCfg>,
    pub flows: Vec<FlowCfg>,
    /// Packet captures to write (none by default).
    pub captures: Vec<CaptureCfg>,
    /// Router agents on nodes' forwarding paths (none by default).
    pub agents: Vec<AgentCfg>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunCfg {
    pub seed: u64,
    /// Hard stop. A run also ends as soon as every finite flow has completed
    /// (and, if `stop_ns` is None, there must be at least one finite flow).
    pub stop_ns: Option<u64>,
    /// Time-series sampling interval; None = no time series recorded.
    pub sample_interval_ns: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeCfg {
    pub name: String,
}

/// A full-duplex point-to-point link between nodes `a` and `b`.
/// `dirs[0]` is the a->b direction, `dirs[1]` the b->a direction.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    pub a: usize,
    pub b: usize,
    pub dirs: [LinkDirCfg; 2],
    /// Scheduled changes, in increasing time.
    pub changes: Vec<LinkChange>,
}

/// What changes on a link at one instant (None = unchanged).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkChange {
    pub at_ns: u64,
    /// Some(false): the link goes down (both directions): everything queued
    /// or in flight on it is lost, and it accepts nothing until it comes
    /// back up. Some(true): it comes back up.
    pub up: Option<bool>,
    /// [a->b, b->a]: new rate and propagation delay.
    pub dirs: [DirChange; 2],
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirChange {
    pub rate_bps: Option<u64>,
    pub delay_ns: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkDirCfg {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueCfg,
    pub errors: ErrorCfg,
    /// Link-layer framing bytes added to every packet for serialisation
    /// (e.g. 2 for PPP as ns-3 models it). Does not count against the queue
    /// limit in bytes, which counts IP bytes.
    pub overhead_bytes: u32,
    /// Optional reordering: some packets take longer to propagate.
    pub reorder: Option<ReorderCfg>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueCfg {
    /// Drop-tail FIFO. `limit` counts packets (or IP bytes) waiting, not the
    /// one being transmitted (ns-2 semantics).
    DropTail { limit: QueueLimit },
    /// Random Early Detection (Floyd & Jacobson 1993) as ns-2 implements it;
    /// see `net/red.rs`.
    Red(RedCfg),
    /// Two-class strict priority with push-out: low-priority packets (dummy
    /// segments and their ACKs) are sent last and dropped first; see
    /// `net/priority.rs`. Served by the transmitter that holds packets.
    Priority { limit: QueueLimit },
}

/// RED parameters as written; `None` means ns-2's automatic setting, which
/// depends on the link direction's rate and delay (`net::red::RedParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedCfg {
    /// Hard limit on packets waiting (ns-2 `limit_`); None = unlimited.
    pub limit_packets: Option<u32>,
    /// Minimum threshold in packets (ns-2 `thresh_`; None = `thresh_ 0`).
    pub min_th: Option<f64>,
    /// Maximum threshold in packets (ns-2 `maxthresh_`; None = 3 x min_th).
    pub max_th: Option<f64>,
    /// Drop probability at max_th (ns-2 1/`linterm_`).
    pub max_p: f64,
    /// EWMA weight (ns-2 `q_weight_`; None = `q_weight_ -1`, from rate and delay).
    pub w_q: Option<f64>,
    /// Drop probability rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// Uniformised inter-drop spacing with "wait" (ns-2 `wait_`).
    pub wait: bool,
    /// Average packet size in bytes for the idle-time decay and byte mode.
    pub mean_pktsize: u32,
    /// ns-2 `bytes_`: drop probability scaled by packet size / mean_pktsize.
    pub byte_mode: bool,
    /// ns-2 `targetdelay_`, used by the automatic min_th.
    pub target_delay_ns: u64,
}

/// Out-of-order delivery: a packet is held back `extra_delay_ns` with
/// probability `probability` after its (unchanged) serialisation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReorderCfg {
    pub probability: f64,
    pub extra_delay_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Unlimited,
    Packets(u32),
    Bytes(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ErrorCfg {
    None,
    /// Every packet is lost independently with this probability, in [0, 1).
    Per(f64),
    /// Independent bit errors; a packet with any bit error is lost.
    /// PER = 1 - (1 - ber)^bits, with `bits` = 8 x IP bytes of the packet
    /// (`fixed_bits` None) or a fixed number for every packet (the ADaLR
    /// thesis' Eq. 7.1 uses 12,000 bits).
    Ber { ber: f64, fixed_bits: Option<u32> },
    /// TRANSAT/DSN two-state burst channel (`net/dsn_burst.rs`).
    DsnBurst(DsnBurstCfg),
    /// Gilbert-Elliott two-state channel (`net/gilbert_elliott.rs`).
    GilbertElliott(GilbertElliottCfg),
    /// Error intervals read from a file (`net/error_trace.rs`).
    Trace(ErrorTraceCfg),
}

/// The instant at which a time-driven error model looks at the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClock {
    /// When the packet's transmission starts (ns-2's `lossmodel`, placed
    /// between the queue and the link).
    TxStart,
    /// When the packet has arrived at the far end (ns-2's `link-lossmodel`).
    Arrival,
}

/// How an exponential draw is kept within [min, max].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounding {
    /// The exponential density restricted to [min, max] (redrawn by inversion).
    Truncate,
    /// min(max(x, min), max): atoms at the bounds.
    Clamp,
}

/// An exponential with mean `mean_ns` (before bounding) kept in [min, max].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundedExp {
    pub mean_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub bounding: Bounding,
}

/// Where a burst's successor is measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapFrom {
    /// Gap = burst start to next burst start (the paper's "inter-arrival").
    Start,
    /// Gap = burst end to next burst start.
    End,
}

/// Packets that survive a burst are delayed (TRANSAT's S-LACP model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayOrder {
    /// Later packets wait behind a delayed one (link-layer in-order delivery).
    InOrder,
    /// Later packets may overtake a delayed one (ns-2 delay change).
    Overtake,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsnBurstCfg {
    pub burst: BoundedExp,
    pub gap: BoundedExp,
    pub gap_from: GapFrom,
    pub per_burst: f64,
    pub per_good: f64,
    pub clock: ErrorClock,
    /// Extra delay of packets sent in a burst and not lost (0 = none).
    pub burst_delay_ns: u64,
    pub burst_delay_order: DelayOrder,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GeTransitions {
    /// Markov chain stepped once per packet: P(good->bad), P(bad->good).
    PerPacket { p_gb: f64, p_bg: f64 },
    /// Exponential sojourn times with these means (time-driven).
    Time { mean_good_ns: u64, mean_bad_ns: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeInitial {
    Good,
    Bad,
    /// Drawn from the chain's stationary distribution.
    Stationary,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottCfg {
    pub transitions: GeTransitions,
    pub per_good: f64,
    pub per_bad: f64,
    pub initial: GeInitial,
    pub clock: ErrorClock,
}

/// One error interval [start, end) with its PER.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorInterval {
    pub start_ns: u64,
    pub end_ns: u64,
    pub per: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ErrorTraceCfg {
    /// The file as written in the scenario (for reports).
    pub file: String,
    /// Sorted, non-overlapping.
    pub intervals: std::sync::Arc<[ErrorInterval]>,
    pub clock: ErrorClock,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowCfg {
    pub name: String,
    /// The node that sends the bulk data (the server).
    pub src: usize,
    /// The node that receives it (the client).
    pub dst: usize,
    pub tcp: TcpCfg,
    pub app: AppCfg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 6582 NewReno fast retransmit / fast recovery.
    NewReno,
    /// RFC 6675 SACK-based loss recovery (scoreboard and pipe).
    Sack,
    /// Fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// RFC 5681 fast recovery, left on the first ACK of new data.
    Reno,
    /// Forward acknowledgement (Mathis and Mahdavi 1996).
    Fack,
}

/// Window controller and its parameters (see `tcp::cc` and docs/models/).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Controller {
    /// RFC 5681 slow start and congestion avoidance.
    Aimd,
    /// Brakmo-Peterson Vegas as ns-2 implements it; thresholds in segments.
    Vegas { alpha: u32, beta: u32, gamma: u32 },
    /// Westwood+ (Grieco and Mascolo 2004); `filter_gain` is the weight of
    /// the previous estimate in the low-pass filter.
    Westwood { filter_gain: f64 },
    /// Hybla (Caini and Firrincieli 2004).
    Hybla { rtt0_ns: u64, rho_rtt: HyblaRtt },
    /// CUBIC, RFC 9438; `hystart` = RFC 9406 HyStart++ in slow start.
    Cubic { c: f64, beta: f64, fast_convergence: bool, hystart: bool },
    /// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00).
    Bbr { cwnd_gain: f64, probe_rtt_interval_ns: u64, probe_rtt_duration_ns: u64 },
    /// TCP-ADaLR (Omueti 2007), with the readings of the thesis' open points.
    Adalr(AdalrCfg),
}

/// TCP-ADaLR's parameters and the reading chosen for each of the thesis'
/// open points (spec 000 section 6; `tcp/cc/adalr.rs` explains each).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdalrCfg {
    /// "RTT deviation gain" of Algorithm 5.3 (Table 7.4's 0.25).
    pub rtt_dev_gain: f64,
    /// rho at and above which the adaptive increases apply (15 = 250 ms).
    pub rho_break: f64,
    pub initial_rho: AdalrInitialRho,
    pub rho_source: AdalrRhoSource,
    pub rwnd_boost: AdalrRwndBoost,
    /// Algorithm 5.3's "flightsize > rwnd: do nothing" compares with the
    /// advertised window (true) or with the increased one (false).
    pub boost_check_advertised: bool,
    pub increments: AdalrIncrements,
    pub ca_gate: AdalrCaGate,
    pub fr_guard: AdalrFrGuard,
    /// cwnd == ssthresh counts as slow start (true) or congestion
    /// avoidance (false).
    pub equal_is_slow_start: bool,
    /// Added to the retransmission timer re-armed by an expiry.
    pub rto_offset_ns: u64,
    /// Most segments retransmitted per send opportunity; None = no limit.
    pub retx_limit: Option<u32>,
}

/// rho before the connection's first Karn-valid data RTT sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AdalrInitialRho {
    /// From the handshake's RTT sample (OPNET's RTT update runs on it too).
    Handshake,
    Fixed(f64),
}

/// What Eq. 5.1's sampleRTT is taken to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrRhoSource {
    /// The raw sample, exact.
    Sample,
    /// The raw sample measured in ticks of the TCP clock
    /// (`clock_granularity`): rounded up to a whole number of ticks.
    SampleTicks,
    /// The RTO the same update computes (at least `min_rto`).
    Rto,
}

/// How Algorithm 5.3's "rwnd += boost" persists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrRwndBoost {
    /// Added to the latest advertised window at each send opportunity.
    Once,
    /// Added on every ACK that meets Algorithm 5.3's conditions to an
    /// extra window that the advertisements do not reset.
    Cumulative,
}

/// Whether sqrt(rho)/4 and sqrt(rho)/2 are used as they are or rounded to
/// whole segments ("integral multiples of the SMSS").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrIncrements {
    Fractional,
    Whole,
}

/// Which congestion-avoidance ACKs get the sqrt(rho)/2 increase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrCaGate {
    /// Algorithm 5.2 as printed: whenever flightsize < rwnd/2 (any rho).
    Literal,
    /// Only when rho >= rho_break (the stated intent of section 5.1).
    Rho,
}

/// Which ACK Algorithm 5.4's "cwnd - acked + 2 SMSS" applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrFrGuard {
    /// Partial ACKs during fast recovery (the prose's reading).
    Partial,
    /// The ACK that ends fast recovery (the printed guard snd_una >
    /// snd_recover).
    Full,
}

/// Which RTT Hybla's rho = RTT / RTT0 is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyblaRtt {
    /// The lowest smoothed RTT seen so far (what Linux does: rho is only
    /// recomputed when SRTT reaches a new minimum).
    MinSrtt,
    /// The current smoothed RTT (the paper's RTT, queueing included).
    Srtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    Segments(u32),
    /// RFC 3390: min(4*MSS, max(2*MSS, 4380 bytes)).
    Rfc3390,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// A sample from every ACK that newly acknowledges a segment that was
    /// never retransmitted (what timestamps or per-segment send times give).
    EveryAck,
    /// One timed segment per round trip (the classic BSD timer).
    OnePerRtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAckCwnd {
    /// RFC 6582 step 3 option 1: min(ssthresh, max(FlightSize, SMSS) + SMSS).
    FlightSize,
    /// RFC 6582 step 3 option 2: cwnd = ssthresh.
    Ssthresh,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpCfg {
    /// The preset name as written (for reports): "newreno", "sack".
    pub variant: String,
    pub recovery: Recovery,
    pub controller: Controller,
    /// SACK-permitted is offered on the SYN and SACK blocks are generated.
    pub sack: bool,
    /// Payload bytes per full-size segment.
    pub mss: u32,
    pub initial_window: InitialWindow,
    /// Receive buffer: the window the receiver advertises, in bytes.
    pub rwnd_bytes: u64,
    pub window_scaling: bool,
    /// None = "arbitrarily high" (RFC 5681).
    pub initial_ssthresh_bytes: Option<u64>,
    pub delayed_ack: bool,
    pub delayed_ack_timeout_ns: u64,
    /// ACK at least every this many full-size segments (RFC 1122/5681: 2).
    pub delayed_ack_segments: u32,
    pub dupthresh: u32,
    pub min_rto_ns: u64,
    pub max_rto_ns: u64,
    pub initial_rto_ns: u64,
    /// G in RFC 6298's RTO = SRTT + max(G, 4*RTTVAR).
    pub clock_granularity_ns: u64,
    pub rtt_sampling: RttSampling,
    pub full_ack_cwnd: FullAckCwnd,
    /// Appropriate Byte Counting limit L in slow start, in segments
    /// (RFC 3465; 1 = RFC 5681's cwnd += min(N, SMSS)).
    pub abc_limit: u32,
    /// Initial sequence number of each direction (wire value, mod 2^32).
    pub iss: u32,
    /// Number of data retransmissions of one segment after which the
    /// connection is aborted (OPNET "retransmission threshold").
    /// None = never abort.
    pub max_retransmissions: Option<u32>,
    /// RFC 6675 NextSeg() rule 4: one "rescue" retransmission of the highest
    /// unSACKed segment per recovery. Optional in the RFC; off by default, as
    /// in ns-2's Sack1, ns-3 and Linux (which has tail loss probes instead).
    pub rescue_retransmission: bool,
    /// Restart the retransmission timer whenever the segment at snd_una is
    /// retransmitted (fast retransmit, partial-ACK retransmissions), as
    /// Linux does. RFC 6298 restarts it only on ACKs of new data (5.3), so
    /// off by default; with an RTO floor under two RTTs the RFC rule lets
    /// the timer fire before a fast retransmission's ACK can return.
    pub rearm_rto_on_retransmit: bool,
    /// DAASS (RFC 2760 "delayed ACKs after slow start", as TRANSAT used it):
    /// the receiver ACKs each of the first `daass_segments` data segments at
    /// once, then delays ACKs as usual. None = off.
    pub daass_segments: Option<u32>,
    /// RFC 3042 Limited Transmit: a new segment on each of the first
    /// DupThresh - 1 duplicate ACKs.
    pub limited_transmit: bool,
    /// ns-2 `maxburst_`: at most this many segments sent in response to one
    /// event (ACK, timer, application write). None = unlimited.
    pub max_burst: Option<u32>,
    /// RFC 5682 F-RTO spurious retransmission timeout detection (the
    /// SACK-enhanced version when SACK is in use).
    pub frto: bool,
    /// FACK "overdamping" (ns-2 `ss-div4_`): a loss found in slow start
    /// halves the window twice.
    pub fack_overdamping: bool,
    /// FACK "rampdown" (ns-2 `rampdown_`): cwnd falls to ssthresh gradually,
    /// one segment sent per two ACKs, instead of at once.
    pub fack_rampdown: bool,
    /// Which NewReno partial ACKs restart the retransmission timer (RFC 6582
    /// section 4).
    pub partial_ack_timer: PartialAckTimer,
    /// Pace window-based controllers at ratio x cwnd / SRTT (Linux's
    /// pacing: 2 in slow start, 1.2 in congestion avoidance). BBR always
    /// paces at its own rate.
    pub pacing: bool,
    /// The receiver keeps in-sequence and out-of-order data beyond the
    /// right edge it advertised instead of trimming it (RFC 793 trims). TCP-ADaLR's
    /// receive-window increase relies on it (spec 000 ambiguity 14).
    pub accept_beyond_window: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// Only the first partial ACK of a recovery ("impatient"): a long run of
    /// losses ends in a timeout and go-back-N.
    Impatient,
    /// Every partial ACK ("slow but steady", what ns-2's NewReno does): one
    /// hole repaired per RTT, however many there are.
    SlowButSteady,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AppCfg {
    Ftp(FtpCfg),
    Http(HttpCfg),
    /// UDP constant bit rate source (`app/cbr.rs`).
    Cbr(CbrCfg),
    /// UDP on/off source (`app/onoff.rs`).
    OnOff(OnOffCfg),
}

/// Which instant ends a transfer's response time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseEnd {
    /// The last byte of the file is delivered to the receiving application.
    LastByte,
    /// The connection's FIN exchange has completed (both FINs acknowledged),
    /// as the ADaLR thesis counts FTP download response time.
    Fin,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FtpCfg {
    pub start_ns: u64,
    /// None = send for ever.
    pub size_bytes: Option<u64>,
    /// 0: the server opens the connection and pushes the file (ns-2/ns-3
    /// bulk send). >0: the client opens it and sends a request of this many
    /// bytes; the server answers with the file once the request has arrived.
    pub request_bytes: u64,
    pub response_end: ResponseEnd,
}

/// HTTP/1.1 page model (ADaLR thesis Table 7.3, 3GPP2 1xEV-DV): one
/// persistent connection opened by the client; per page a main object, then
/// `embedded_objects` embedded objects; a new page every `page_interval_ns`.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpCfg {
    pub start_ns: u64,
    pub page_interval_ns: u64,
    /// None = pages until the run stops.
    pub pages: Option<u32>,
    pub main_object_bytes: u64,
    pub embedded_objects: u32,
    pub embedded_object_bytes: u64,
    pub request_bytes: u64,
    /// Send all embedded-object requests at once (pipelining) instead of
    /// one after another.
    pub pipelining: bool,
    /// Time from `start` (the client opens the connection) to the first
    /// page; 0 = the first request is written at once and waits for the
    /// handshake, so its response time includes the connection set-up.
    pub first_page_ns: u64,
}

/// Which instant a captured packet is stamped with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureTime {
    /// The first bit leaves the transmitter (after any queueing), as a
    /// sniffer on the wire sees it.
    Transmit,
    /// The link direction accepts the packet into its queue (the moment the
    /// node hands it over).
    Accept,
}

/// A pcap file recording the packets a link direction accepts for
/// transmission (see `net::capture`).
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureCfg {
    pub link: usize,
    /// [a->b, b->a]: which directions go into this file.
    pub dirs: [bool; 2],
    /// Output path, relative to the working directory of the process.
    pub file: String,
    /// Bytes kept of each frame (headers first; the payload is zeros).
    pub snaplen: u32,
    pub timestamp: CaptureTime,
}

/// ns-2 `Application/Traffic/CBR`: packets of `packet_bytes` (IP bytes on
/// the wire) every packet_bytes x 8 / rate seconds from `start_ns`.
#[derive(Clone, Debug, PartialEq)]
pub struct CbrCfg {
    pub rate_bps: u64,
    /// IP packet size (20 B IP + 8 B UDP + payload).
    pub packet_bytes: u32,
    pub start_ns: u64,
    /// No packet is sent at or after this time; None = until the run ends.
    pub stop_ns: Option<u64>,
    /// ns-2 `random_`: each interval is jittered uniformly by +-half of it.
    pub jitter: bool,
    /// ns-2 `maxpkts_`: stop after this many packets.
    pub max_packets: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnOffDist {
    /// ns-2 `Application/Traffic/Exponential`.
    Exponential,
    /// ns-2 `Application/Traffic/Pareto` with this shape (> 1).
    Pareto { shape: f64 },
}

/// ns-2 Exponential/Pareto on/off source: bursts at the peak rate whose
/// length in packets and whose idle times follow `dist`.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffCfg {
    pub dist: OnOffDist,
    /// Sending rate during a burst.
    pub peak_rate_bps: u64,
    pub packet_bytes: u32,
    pub mean_on_ns: u64,
    pub mean_off_ns: u64,
    pub start_ns: u64,
    pub stop_ns: Option<u64>,
}

/// A router agent attached to a node: it sees every packet the node sends
/// or forwards (on one interface, or on all), and packets that arrive
/// corrupted before they are discarded (see `router/`).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentCfg {
    pub node: usize,
    /// Only the interface on this link (index into `links`); None = every
    /// interface of the node.
    pub link: Option<usize>,
    pub kind: AgentKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AgentKind {
    /// Lowers the receive window advertised in passing TCP segments to at
    /// most `bytes` (never raises it), in the window scale each connection
    /// negotiated in its SYNs.
    RwndClamp { bytes: u64 },
    /// Counts what passes (packets and bytes by kind) and what arrives
    /// corrupted, per interface.
    Monitor,
}
