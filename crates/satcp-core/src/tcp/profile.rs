//! Behaviour profiles (`tcp.profile`): named sets of defaults for the
//! general `tcp` keys, so that a flow that leaves a key out gets what the
//! stack it is compared with would do. Explicit keys always win; a
//! `variant` preset's own defaults (e.g. `enhanced`'s IW 4) come before the
//! profile's. The sources of each value are in `docs/models/profiles.md`.
//!
//! * `rfc`: the IETF reading (RFC 5681, 6298, 6582, 6675, 7661) with a
//!   receive window large enough not to limit a GEO path.
//! * `linux`: Linux 6.x's defaults as far as satcp models them (CUBIC, IW 10,
//!   200 ms RTO floor added to SRTT, quick-ACKs at the start, 40 ms delayed
//!   ACK, F-RTO, receive-window autotuning, `tcp_is_cwnd_limited`, RACK
//!   with its reordering timer, PRR, the tail loss probe).
//! * `ns2`: ns-2.35's one-way agents with their stock `ns-default.tcl`
//!   values (1000-byte packets, window_ 20, windowInit_ 2, minrto_ 0.2,
//!   rtxcur_init_ 3, tcpTick_ 0.01, one timed segment per RTT).
//! * `ns2-2003`: the ns-2 of the early 2000s (TRANSAT, Peach): windowInit_ 1,
//!   1 s minimum RTO, 6 s initial RTO, tcpTick_ 0.1, and no SYN (ns-2.35's
//!   `syn_ true` models one).
//!
//! The profile sets defaults only: everything it implies can be written out
//! as keys, and a scenario that writes them all out behaves the same under
//! any profile.

use crate::scenario::model::{FullAckCwnd, PartialAckTimer, RttSampling};

/// `tcp.profile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Rfc,
    Linux,
    Ns2,
    Ns2_2003,
}

/// The names `tcp.profile` accepts, in `Profile` order.
pub const PROFILE_NAMES: &[&str] = &["rfc", "linux", "ns2", "ns2-2003"];

impl Profile {
    pub fn named(name: &str) -> Option<Profile> {
        Some(match name {
            "rfc" => Profile::Rfc,
            "linux" => Profile::Linux,
            "ns2" => Profile::Ns2,
            "ns2-2003" => Profile::Ns2_2003,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        PROFILE_NAMES[self as usize]
    }

    pub fn defaults(self) -> &'static Defaults {
        match self {
            Profile::Rfc => &RFC,
            Profile::Linux => &LINUX,
            Profile::Ns2 => &NS2,
            Profile::Ns2_2003 => &NS2_2003,
        }
    }
}

/// The receive window a profile gives when `rwnd` is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwndDefault {
    /// A fixed receive buffer of this many bytes.
    Fixed(u64),
    /// Linux-style autotuning (`rwnd = "auto"`): see `tcp::receiver`.
    Auto,
    /// This many segments of `mss` bytes (ns-2's `window_`, in packets).
    Segments(u64),
}

/// When the congestion window may grow (`cwnd_validation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndValidation {
    /// Grows on every ACK the recovery scheme lets it grow on, whether or
    /// not the window was in use (ns-2, and satcp before profiles).
    Off,
    /// Linux `tcp_is_cwnd_limited`: grows only when the flow was limited by
    /// cwnd: in slow start while cwnd < 2 x the most segments in flight in
    /// the last window, else when the window was full (the sender was
    /// stopped by cwnd) since the last ACK that grew it.
    Linux,
}

/// What a loss response halves (`ssthresh_basis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// FlightSize, Limited Transmit segments left out (RFC 5681 Eq. 4); a
    /// retransmission timeout that repeats for the same segment keeps
    /// ssthresh (RFC 5681 section 3.1).
    Flight,
    /// ns-2's `slowdown()`: the usable window min(cwnd, rwnd) in whole
    /// segments (`window()`, a Reno sender's inflation included), at every
    /// loss response, each repeated timeout included: after a timeout cwnd
    /// is one segment, so a second one sets ssthresh to its floor of two.
    Window,
    /// The congestion window alone, not bounded by the receiver's window
    /// (RFC 2001's "half the current window" read as cwnd/2; what the
    /// CETEN-R thesis' OPNET TCP does, docs/models/ceten-r.md): with
    /// `cwnd_validation = "off"` a window-limited sender's cwnd has grown
    /// past the receiver's window, and halving it may leave the sender as
    /// fast as before. A repeated timeout keeps ssthresh, as under Flight.
    Cwnd,
    /// The pipe: FlightSize less what SACK blocks, or without SACK the
    /// duplicate ACKs, say has left the network (ns-3's `BytesInFlight`,
    /// which it halves at a fast retransmit and at a timeout); a repeated
    /// timeout keeps ssthresh, as under `Flight`. Under `Flight`, a timeout
    /// during a long NewReno repair halves everything sent, the data the
    /// receiver holds above the holes included, and can set ssthresh above
    /// the repair's own.
    Pipe,
}

/// When a new fast retransmit is allowed (`recover_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoverRule {
    /// Once the cumulative ACK reaches `recover` (RFC 6582 section 3.2).
    At,
    /// Once it has passed `recover` (ns-2's `bugFix_`).
    Beyond,
}

/// How the RTT is estimated and the RTO computed (`rto_estimator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoEstimator {
    /// RFC 6298 in real numbers, with the clock granularity G.
    Rfc6298,
    /// ns-2's integer estimator in `tcpTick_` units (`tcp/rtt.rs`).
    Ns2,
    /// Linux's `tcp_rtt_estimator` (`tcp/rtt.rs`).
    Linux,
}

/// How SACK recovery estimates the data in the network (`sack_pipe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackPipe {
    /// RFC 6675 SetPipe() over the scoreboard.
    Rfc6675,
    /// ns-2 Sack1's `pipe_` counter (Fall and Floyd 1996): see
    /// `tcp/recovery/sack.rs`.
    Ns2,
}

/// Default values of the general `tcp` keys (see `scenario/parse/tcp.rs`
/// for what each key does).
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub variant: &'static str,
    /// Segments; None = RFC 3390.
    pub initial_window: Option<u32>,
    pub mss: u32,
    pub rwnd: RwndDefault,
    pub delayed_ack: bool,
    pub delayed_ack_timeout_ns: u64,
    /// The receiver ACKs each of its first N data segments at once (Linux's
    /// quick-ACK mode at the start of a connection; the DAASS mechanism).
    pub quickack_segments: Option<u32>,
    pub min_rto_ns: u64,
    pub max_rto_ns: u64,
    pub initial_rto_ns: u64,
    pub clock_granularity_ns: u64,
    pub rtt_sampling: RttSampling,
    pub full_ack_cwnd: FullAckCwnd,
    /// Slow start's byte-counting limit L, segments per ACK.
    pub abc_limit: u32,
    pub rearm_rto_on_retransmit: bool,
    pub limited_transmit: bool,
    pub frto: bool,
    pub partial_ack_timer: PartialAckTimer,
    pub cwnd_validation: CwndValidation,
    /// Open with a SYN exchange (ns-2's one-way agents have none).
    pub handshake: bool,
    /// Close with a FIN (ns-2's one-way agents send none: the transfer ends
    /// with its last data packet, ACKed like any other).
    pub fin: bool,
    /// The loss-recovery and timer rules (RFC or ns-2's).
    pub rules: LossRules,
    /// RACK time-based loss detection in SACK recovery (RFC 8985).
    pub rack: bool,
    /// Proportional Rate Reduction in SACK recovery (RFC 6937, Linux's
    /// `tcp_cwnd_reduction`); RFC 6675 sets cwnd = ssthresh at once.
    pub prr: bool,
    /// The tail loss probe in SACK recovery (RFC 8985 section 7).
    pub tlp: bool,
    /// NewReno's partial-ACK retransmissions wait for room in cwnd, counted
    /// as Linux counts packets in flight without SACK.
    pub newreno_within_cwnd: bool,
    /// RFC 7323 timestamps on every segment.
    pub timestamps: bool,
    /// Delivery-rate samples are marked application-limited only when the
    /// application writes with nothing unsent (Linux's
    /// `tcp_rate_check_app_limited` in `tcp_sendmsg`), not whenever the
    /// sender runs out of data (the draft's reading).
    pub app_limited_on_write: bool,
    /// NewReno's partial ACK deflates the inflated window by what it
    /// acknowledged (RFC 6582); without, the inflation is dropped whole and
    /// cwnd is ssthresh (the ns-2 of 2003, `partial_window_deflation_ 0`).
    pub partial_window_deflation: bool,
    /// Out-of-order data takes room in the receive buffer, so the right
    /// edge advances only by what the buffer frees (`ooo_takes_buffer`;
    /// Linux's receiver, see `tcp::receiver`).
    pub ooo_takes_buffer: bool,
    /// TCP options take bytes on the wire.
    pub options_on_wire: bool,
}

/// The rules a profile takes from the RFCs or from ns-2's agents, each
/// its own `tcp` key (see `docs/models/profiles.md`).
#[derive(Clone, Copy, Debug)]
pub struct LossRules {
    pub ssthresh_basis: SsthreshBasis,
    pub recover_rule: RecoverRule,
    pub rto_estimator: RtoEstimator,
    /// A fast retransmit restarts the retransmission timer (ns-2's
    /// `reset_rtx_timer` in every agent's `dupack_action`).
    pub rearm_rto_on_fast_retransmit: bool,
    pub sack_pipe: SackPipe,
    /// A retransmission timeout clears the SACK scoreboard and SACK blocks
    /// are ignored until its repair is over (ns-2's `ClearScoreBoard` and
    /// `timeout_`); RFC 6675 5.1 keeps it.
    pub rto_clears_sack: bool,
    /// FACK recovery as ns-2's Agent/TCP/Fack does it (`fack_style =
    /// "ns2"`): cwnd restarts at one segment and slow-starts back during the
    /// recovery (`slowdown(CLOSE_CWND_RESTART)`, `opencwnd()` on every ACK),
    /// and every ACK restarts the retransmission timer (`oldack()`).
    pub fack_ns2: bool,
    /// Limited Transmit sends the segment at snd.nxt whatever it is, a
    /// go-back-N retransmission included (ns-2's `send_one()` sends
    /// `t_seqno_`); RFC 3042 sends new data only.
    pub lt_resends: bool,
    /// The ACK that ends Reno or NewReno recovery also opens cwnd, as any
    /// new ACK does (ns-2's `recv_newack_helper` calls `opencwnd()` after
    /// clearing `dupwnd_`; its Sack1 does not); RFC 5681 and 6582 set cwnd
    /// and stop.
    pub exit_opens_cwnd: bool,
    /// A receiver delays the ACK of a copy of its highest in-order segment
    /// as it would new in-order data: ns-2's DelAck sink delays whenever no
    /// timer runs and the segment equals the highest in-order one
    /// (`tcp-sink.cc`), so a go-back-N's first duplicate is not ACKed at
    /// once; RFC 5681 4.2 ACKs a duplicate at once.
    pub delay_duplicate_ack: bool,
}

/// The RFC readings (the `rfc` and `linux` profiles).
pub const RFC_RULES: LossRules = LossRules {
    ssthresh_basis: SsthreshBasis::Flight,
    recover_rule: RecoverRule::At,
    rto_estimator: RtoEstimator::Rfc6298,
    rearm_rto_on_fast_retransmit: false,
    sack_pipe: SackPipe::Rfc6675,
    rto_clears_sack: false,
    exit_opens_cwnd: false,
    delay_duplicate_ack: false,
    fack_ns2: false,
    lt_resends: false,
};

/// ns-2.35's agents (the `ns2` profiles).
pub const NS2_RULES: LossRules = LossRules {
    // slowdown(CLOSE_SSTHRESH_HALF): ssthresh_ = window() / 2
    ssthresh_basis: SsthreshBasis::Window,
    // bugFix_ 1: dupack_action() needs highest_ack_ > recover_
    recover_rule: RecoverRule::Beyond,
    rto_estimator: RtoEstimator::Ns2,
    rearm_rto_on_fast_retransmit: true,
    sack_pipe: SackPipe::Ns2,
    rto_clears_sack: true,
    exit_opens_cwnd: true,
    delay_duplicate_ack: true,
    fack_ns2: true,
    lt_resends: true,
};

/// 64 MiB: a bandwidth-delay product of about 850 Mb/s over a 600 ms GEO
/// round trip, so a default window never limits a typical satellite path.
const RFC_RWND: u64 = 64 << 20;

pub static RFC: Defaults = Defaults {
    variant: "newreno",
    initial_window: None,
    mss: 1460,
    rwnd: RwndDefault::Fixed(RFC_RWND),
    delayed_ack: true,
    delayed_ack_timeout_ns: 200_000_000,
    quickack_segments: None,
    min_rto_ns: 1_000_000_000,
    max_rto_ns: 60_000_000_000,
    initial_rto_ns: 1_000_000_000,
    clock_granularity_ns: 1_000_000,
    rtt_sampling: RttSampling::EveryAck,
    full_ack_cwnd: FullAckCwnd::FlightSize,
    abc_limit: 1,
    rearm_rto_on_retransmit: false,
    limited_transmit: false,
    frto: false,
    partial_ack_timer: PartialAckTimer::Impatient,
    cwnd_validation: CwndValidation::Linux,
    handshake: true,
    fin: true,
    rules: RFC_RULES,
    rack: false,
    prr: false,
    tlp: false,
    newreno_within_cwnd: false,
    timestamps: false,
    app_limited_on_write: false,
    options_on_wire: true,
    partial_window_deflation: true,
    ooo_takes_buffer: false,
};

pub static LINUX: Defaults = Defaults {
    variant: "cubic",
    initial_window: Some(10),
    // 1460 less the 12 bytes of the timestamp option Linux sends by default
    mss: 1448,
    rwnd: RwndDefault::Auto,
    delayed_ack: true,
    delayed_ack_timeout_ns: 40_000_000,
    quickack_segments: Some(16),
    min_rto_ns: 200_000_000,
    max_rto_ns: 120_000_000_000,
    initial_rto_ns: 1_000_000_000,
    // Linux's estimator (rules below) keeps RTTVAR at rto_min or more;
    // G is what rto_estimator = "rfc6298" would add instead
    clock_granularity_ns: 200_000_000,
    rtt_sampling: RttSampling::EveryAck,
    full_ack_cwnd: FullAckCwnd::Ssthresh,
    // tcp_slow_start adds every segment an ACK newly acknowledges (no L):
    // with delayed ACKs the window still doubles per round trip
    abc_limit: u32::MAX,
    rearm_rto_on_retransmit: true,
    limited_transmit: true,
    frto: true,
    partial_ack_timer: PartialAckTimer::SlowButSteady,
    cwnd_validation: CwndValidation::Linux,
    handshake: true,
    fin: true,
    rules: LossRules { rto_estimator: RtoEstimator::Linux, ..RFC_RULES },
    // tcp_recovery = 1 (RACK) since 4.18
    rack: true,
    // PRR since 3.2, tcp_cwnd_reduction
    prr: true,
    // tcp_early_retrans = 3 (TLP) since 3.10
    tlp: true,
    // tcp_xmit_retransmit_queue stops at tcp_packets_in_flight >= cwnd
    newreno_within_cwnd: true,
    // net.ipv4.tcp_timestamps = 1
    timestamps: true,
    app_limited_on_write: true,
    options_on_wire: true,
    partial_window_deflation: true,
    // the kernel's window is the buffer's free space (tcp_select_window),
    // which out-of-order skbs take
    ooo_takes_buffer: true,
};

pub static NS2: Defaults = Defaults {
    variant: "newreno",
    initial_window: Some(2),
    mss: 1000,
    rwnd: RwndDefault::Segments(20),
    delayed_ack: false,
    delayed_ack_timeout_ns: 100_000_000,
    quickack_segments: None,
    min_rto_ns: 200_000_000,
    max_rto_ns: 60_000_000_000,
    initial_rto_ns: 3_000_000_000,
    clock_granularity_ns: 10_000_000,
    rtt_sampling: RttSampling::OnePerRtt,
    full_ack_cwnd: FullAckCwnd::Ssthresh,
    // ns-2 opens cwnd_ by one packet per ACK in slow start
    abc_limit: 1,
    rearm_rto_on_retransmit: false,
    // singledup_ 1 (ns-default.tcl, since 2001): a new packet on each of
    // the first two duplicate ACKs
    limited_transmit: true,
    frto: false,
    // newreno_changes1_ 1: only the first partial ACK restarts the timer
    partial_ack_timer: PartialAckTimer::Impatient,
    cwnd_validation: CwndValidation::Off,
    // syn_ true (ns-2.35): the agent's first packet is a 40-byte SYN and
    // data waits for its ACK, one round trip as with a SYN exchange
    handshake: true,
    // the one-way agents never close: no FIN
    fin: false,
    rules: NS2_RULES,
    rack: false,
    prr: false,
    tlp: false,
    newreno_within_cwnd: false,
    timestamps: false,
    app_limited_on_write: false,
    // packetSize_ + tcpip_base_hdr_size_ for every packet, 40-byte ACKs and
    // SYNs: ns-2 counts no option bytes
    options_on_wire: false,
    // partial_window_deflation_ 1 (the default since 2.27)
    partial_window_deflation: true,
    // ns-2's sinks advertise no window (the sender's window_ stands for it)
    ooo_takes_buffer: false,
};

pub static NS2_2003: Defaults = Defaults {
    // before syn_ the one-way agents sent data at once
    handshake: false,
    initial_window: Some(1),
    min_rto_ns: 1_000_000_000,
    initial_rto_ns: 6_000_000_000,
    clock_granularity_ns: 100_000_000,
    // newreno_changes1_ 0 (its default until 2.27): every partial ACK
    // restarts the timer
    partial_ack_timer: PartialAckTimer::SlowButSteady,
    // partial_window_deflation_ 0: a partial ACK drops dupwnd_ whole
    partial_window_deflation: false,
    ..NS2
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &n in PROFILE_NAMES {
            assert_eq!(Profile::named(n).map(Profile::name), Some(n));
        }
        assert_eq!(Profile::named("bsd"), None);
    }
}
