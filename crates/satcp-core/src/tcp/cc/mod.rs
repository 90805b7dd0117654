//! Window controllers: how cwnd (and, for BBR, the pacing rate) follows the
//! ACK stream, what ssthresh becomes on a congestion signal, and what else a
//! controller may do to the sender. Loss detection and repair (recovery)
//! live in `tcp::recovery`; a variant is a recovery x controller pair.
//!
//! The contract is `WindowController`: every hook has a default that does
//! nothing (or what RFC 5681 does), so a controller writes only the hooks it
//! changes. The endpoint calls them at these points:
//! * the window: `on_ack` (every ACK that acknowledges or SACKs new data or
//!   is a duplicate, before loss recovery handles it: measurement; BBR sets
//!   cwnd and pacing here), `grow` (the recovery scheme lets the window grow,
//!   from `Endpoint::grow_window`), `ssthresh_after_loss` (loss found by
//!   duplicate ACKs or SACK; the scheme then sets cwnd from it),
//!   `on_recovery_exit`, `on_rto` (sets ssthresh and cwnd);
//! * beyond the window: `rwnd_boost` (bytes the sender may send beyond the
//!   peer's advertised window), `retx_limit` (retransmissions per send
//!   opportunity), `rto_offset` (added to a timer re-armed by an expiry),
//!   `partial_ack_cwnd` / `partial_ack_credit` / `recovery_exit_cwnd` (the
//!   window NewReno deflates to on a partial ACK, the segments a partial ACK
//!   lets SACK recovery send beyond cwnd - pipe, the window on the ACK that
//!   ends recovery), `loss_verdict` (each duplicate ACK, in the recovery
//!   scheme's sense, before the scheme acts on it: congestion, or corruption,
//!   which the endpoint repairs without touching the window; see
//!   `Endpoint::on_ack`);
//! * packets and timers of its own: `on_ack`, `ssthresh_after_loss`,
//!   `on_rto`, `on_timer`, `on_dummy_ack` and `on_data_sent` (each data
//!   segment sent) may push [`Action`]s (send a low-priority dummy segment,
//!   wake me at time t) into a buffer the endpoint reuses and carries out
//!   after the hook;
//! * losses one by one: `on_lost` (each segment the sender marks lost,
//!   asked only of a controller whose capabilities say `sees_losses`:
//!   BBRv3's per-packet loss-rate check, Linux's `skb_marked_lost`);
//! * the research option (RFC 6994): `research_option` gives the option to
//!   attach to each segment the endpoint sends after the handshake (data,
//!   ACKs, dummies and their ACKs), `on_research_option` sees the option of
//!   each arriving segment;
//! * [`Capabilities`]: the yes/no answers that hold for the controller's
//!   life, asked once when the endpoint is built (it paces itself, sets cwnd
//!   through recovery, needs delivery-rate samples, reads the pipe, hears of
//!   every segment sent, attaches research options, lets Reno's fast
//!   recovery inflate cwnd), so the others pay a cached bool.
//!
//! What a controller sees of an ACK is one `AckCtx`, built once by the
//! endpoint. Controllers are registered in one place, the `registry!` list
//! in this file: one line gives the `cc` name, the state and parameter
//! types, and the `variant` presets it provides. From it come `scenario::Controller`
//! (each controller's own parameter type), the closed enum `Cc` and its
//! forwarding `match`es (static dispatch: no virtual call on the hot path),
//! and the parser's names, keys and presets. A controller's parameters,
//! their defaults, keys and parsing live in its own file (`CcParams`).

pub mod adalr;
pub mod aimd;
pub mod bbr;
pub mod bbr3;
pub mod ceten;
pub mod cubic;
pub mod cubic_linux;
pub mod hybla;
pub mod hystart;
pub mod hystart_linux;
pub mod peach;
pub mod vegas;
pub mod westwood;

#[cfg(test)]
pub mod probe;

use crate::net::packet::{Kind, ResearchOption};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::scenario::Recovery;
use crate::sim::{Rng, Time};
use crate::tcp::delivery_rate::{LostSegment, RateSample};

/// Largest cwnd a controller grows to (bytes): far above any receive window
/// (at most 65535 x 2^14), so it never limits a sender, and low enough that
/// window arithmetic cannot overflow. Hybla's 2^rho growth reaches it on
/// very long paths.
pub const CWND_MAX: u64 = 1 << 48;

/// The window state a controller acts on (bytes; pacing in bit/s).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// Pacing rate in bit/s; 0 = no pacing (segments leave as the windows
    /// allow).
    pub pacing_bps: u64,
}

impl Window {
    pub fn new(cwnd: u64, ssthresh: u64, smss: u64) -> Self {
        Window { cwnd, ssthresh, smss, pacing_bps: 0 }
    }
}

/// What one ACK tells the controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckCtx {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: u64,
    /// A duplicate ACK in the recovery scheme's sense.
    pub dupack: bool,
    /// RTT sample from this ACK (Karn's rule applied), ns.
    pub rtt: Option<Time>,
    /// Smoothed RTT after this ACK (ns), if any sample exists.
    pub srtt: Option<f64>,
    /// Lowest RTT sample of the connection (the handshake included), ns.
    pub min_rtt: Option<Time>,
    /// snd_una after this ACK.
    pub una: u64,
    /// One past the highest sequence sent.
    pub snd_max: u64,
    /// FlightSize (snd_max - snd_una).
    pub flight: u64,
    /// The packets in flight (`Sender::pipe`): bytes sent and neither
    /// acknowledged nor SACKed, less those deemed lost (RFC 6675, RACK),
    /// plus retransmissions; without SACK, less the segments duplicate ACKs
    /// reported (Linux's Reno emulation of SACK); after a timeout, less
    /// what the go-back-N has not resent yet. Computed only for a
    /// controller whose capabilities say `reads_pipe`; 0 for the others.
    pub pipe: u64,
    /// In fast recovery or repairing after an RTO when the ACK arrived.
    pub recovering: bool,
    /// The sender's `recover` (0 until the first loss; see `Sender`).
    pub recover: u64,
    /// The peer's latest advertised window (bytes).
    pub peer_wnd: u64,
    /// The retransmission timeout after this ACK's RTT update (ns).
    pub rto: Time,
    /// Bytes delivered so far (delivery-rate sampling only; else 0).
    pub delivered: u64,
    /// Delivery-rate sample from this ACK (delivery-rate sampling only).
    pub rate: Option<RateSample>,
    /// Bytes marked lost so far (delivery-rate sampling only; `Sender::lost`).
    pub lost: u64,
    /// CE-marked bytes delivered so far (delivery-rate sampling only;
    /// Linux's `tp->delivered_ce`): the bytes ECE-carrying ACKs newly
    /// acknowledged or SACKed (`tcp/ecn.rs`). The ECN input BBRv3 reads.
    pub delivered_ce: u64,
    /// This ACK carried ECE, ECN being in use (the ECN input BBRv3 reads).
    pub ece: bool,
}

/// What a controller asks the endpoint to do beyond setting its window,
/// pushed into the buffer its hooks are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send a low-priority dummy segment (`Kind::Dummy`): a copy of data
    /// already sent, `[start, start + len)` in absolute offsets (trimmed to
    /// what has been sent and to one SMSS), or with `None` of the last data
    /// segment sent; `max_len` trims the copy further (TCP Peach's dummy
    /// size). It carries no new data, costs no cwnd and is not a
    /// retransmission; the receiver answers it with a `Kind::DummyAck`.
    Dummy { range: Option<(u64, u64)>, max_len: Option<u32> },
    /// Call `on_timer` at this time (not before now). A later request
    /// replaces one that has not fired yet.
    WakeAt(Time),
}

/// A controller's reading of a loss signalled by a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The recovery scheme handles the ACK as usual.
    Congestion,
    /// The segment was lost to corruption: the endpoint resends the first
    /// unacknowledged segment (with SACK only if pipe < cwnd) and leaves
    /// cwnd, ssthresh, snd_nxt and the recovery state as they are.
    Corruption,
    /// Treat this duplicate ACK as the DupThresh-th: fast retransmit now
    /// (Vegas's fine-grained timeout, ns-2's `vegas_expire`).
    RetransmitNow,
    /// Neither count nor act on this duplicate ACK: the loss it reports was
    /// already judged corruption and repaired (CETEN-R's one coin per loss
    /// event).
    Ignore,
}

/// The duplicate ACK a verdict is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DupAck {
    /// Duplicate ACKs in a row, this one included, if the scheme takes it.
    pub count: u32,
    /// This is the DupThresh-th outside fast recovery (the one that may
    /// start it).
    pub at_dupthresh: bool,
    /// The sender is in fast recovery.
    pub in_recovery: bool,
    /// When the segment at snd_una was last sent.
    pub head_sent_at: Option<Time>,
}

/// What a controller is built with besides its own parameters.
#[derive(Clone, Debug)]
pub struct Env {
    /// The flow's ABC limit L (`abc_limit`), segments.
    pub abc_limit: u32,
    /// The TCP clock tick (`clock_granularity`), ns.
    pub tick_ns: u64,
    /// The flow asked for pacing (`pacing`); a controller that paces itself
    /// (`Capabilities::paces`) may read it.
    pub pacing: bool,
    /// This endpoint's random stream for the controller (the run's, given
    /// once when the endpoint is built).
    pub rng: Rng,
    /// The duplicate-ACK threshold (`dupthresh`).
    pub dupthresh: u32,
}

/// A data segment the endpoint has just sent (`on_data_sent`).
#[derive(Clone, Copy, Debug)]
pub struct SendCtx {
    pub now: Time,
    /// Absolute offset of its first byte, and its payload bytes.
    pub start: u64,
    pub len: u64,
    /// A retransmission (it starts below snd_max).
    pub retx: bool,
    /// Smoothed RTT (ns), if any sample exists (the handshake's included).
    pub srtt: Option<f64>,
    /// The peer's latest advertised window (bytes).
    pub peer_wnd: u64,
}

/// A controller's parameters as a scenario gives them: its `tcp` keys
/// (accepted only with that controller) and how they are read, defaults
/// included.
pub(crate) trait CcParams: Sized {
    const KEYS: &'static [&'static str];
    /// Read the parameters from the flow's `tcp` table.
    fn parse(t: &Tbl, profile: Profile) -> Res<Self>;
}

/// The controller contract. Every hook has a default, so a controller
/// implements only what it changes; `Cc` dispatches statically.
pub(crate) trait WindowController {
    type Params: CcParams;

    fn new(p: &Self::Params, env: Env) -> Self;

    // ----- the window ------------------------------------------------------

    /// Every ACK that acknowledges or SACKs new data or is a duplicate,
    /// before loss recovery handles it.
    fn on_ack(&mut self, _w: &mut Window, _a: &AckCtx, _acts: &mut Vec<Action>) {}

    /// The recovery scheme lets the window grow on this ACK.
    fn grow(&mut self, _w: &mut Window, _a: &AckCtx) {}

    /// ssthresh after a loss is detected with `flight` bytes outstanding
    /// (default RFC 5681 Eq. 4: max(FlightSize / 2, 2 SMSS)).
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, _acts: &mut Vec<Action>) -> u64 {
        aimd::Aimd::ssthresh_after_loss(w, flight)
    }

    /// The ACK just processed ended fast recovery.
    fn on_recovery_exit(&mut self, _w: &mut Window) {}

    /// The retransmission timer expired with `flight` bytes outstanding;
    /// `first` is the first expiry for this segment. Sets ssthresh and cwnd
    /// (default RFC 5681: ssthresh reduced on the first expiry only, cwnd =
    /// 1 SMSS). `last` is the last ACK's context with `lost` counting what
    /// the timeout marks lost.
    fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, _last: &AckCtx, acts: &mut Vec<Action>) {
        if first {
            w.ssthresh = self.ssthresh_after_loss(w, flight, acts);
        }
        w.cwnd = w.smss;
    }

    // ----- sending, recovery and timers beyond the window ------------------

    /// Bytes the sender may send beyond the peer's advertised window
    /// `peer_wnd`, given snd_una, snd_max and `recover`.
    fn rwnd_boost(&self, _w: &Window, _una: u64, _max: u64, _recover: u64, _peer_wnd: u64) -> u64 {
        0
    }

    /// Most segments retransmitted per send opportunity (an ACK or a timer).
    fn retx_limit(&self) -> u32 {
        u32::MAX
    }

    /// Added to the retransmission timer re-armed by an expiry (ns).
    fn rto_offset(&self) -> Time {
        0
    }

    /// cwnd after a NewReno partial ACK of `acked` bytes; `deflated` is
    /// RFC 6582's (cwnd - acked, + SMSS if acked >= SMSS, at least SMSS).
    fn partial_ack_cwnd(&mut self, _w: &Window, _acked: u64, deflated: u64) -> u64 {
        deflated
    }

    /// Segments a partial ACK of `acked` bytes lets SACK recovery send
    /// beyond cwnd - pipe (until used, or recovery ends).
    fn partial_ack_credit(&mut self, _w: &Window, _acked: u64) -> u32 {
        0
    }

    /// cwnd on the ACK of `acked` bytes that ends NewReno or SACK recovery;
    /// `cwnd` is what the scheme sets.
    fn recovery_exit_cwnd(&mut self, _w: &Window, _acked: u64, cwnd: u64) -> u64 {
        cwnd
    }

    /// A duplicate ACK (in the recovery scheme's sense) signals a loss:
    /// congestion (the scheme acts) or corruption (see `Verdict`). `a` is
    /// this ACK (`a.pipe`), `w` the window before the scheme acts.
    fn loss_verdict(&mut self, _w: &Window, _a: &AckCtx, _d: DupAck) -> Verdict {
        Verdict::Congestion
    }

    /// The time asked for with `Action::WakeAt` has come.
    fn on_timer(&mut self, _w: &mut Window, _now: Time, _acts: &mut Vec<Action>) {}

    /// A `DummyAck` arrived (the only thing the sender does with it).
    fn on_dummy_ack(&mut self, _w: &mut Window, _now: Time, _acts: &mut Vec<Action>) {}

    /// A data segment (payload or FIN) has just been put on the wire (asked
    /// only of a controller whose capabilities say `sees_sends`).
    fn on_data_sent(&mut self, _w: &mut Window, _s: &SendCtx, _acts: &mut Vec<Action>) {}

    /// The sender has just marked this segment lost (asked only of a
    /// controller whose capabilities say `sees_losses`) at `now`;
    /// `delivered` is the delivery-rate sampler's count before the ACK
    /// being processed.
    fn on_lost(&mut self, _w: &mut Window, _l: &LostSegment, _now: Time, _delivered: u64) {}

    /// The research option to attach to a segment of this kind about to be
    /// sent (`Data`, `Ack`, `Dummy`, `DummyAck`), if any; asked only of a
    /// controller whose capabilities say `research_option`.
    fn research_option(&mut self, _kind: Kind) -> Option<ResearchOption> {
        None
    }

    /// An arriving segment of this kind carried a research option.
    fn on_research_option(&mut self, _r: &ResearchOption, _kind: Kind) {}

    // ----- what the endpoint keeps for it ----------------------------------

    /// What the controller does beyond the hooks' defaults (see
    /// [`Capabilities`]); asked once, when the endpoint is built.
    fn capabilities(&self) -> Capabilities {
        Capabilities::DEFAULT
    }

    /// cwnd when the connection opens, given the configured initial
    /// window `iw` (bytes).
    fn initial_cwnd(&mut self, iw: u64, _smss: u64) -> u64 {
        iw
    }

    /// The connection opened at `now` with cwnd already set; `rtt` is the
    /// handshake's RTT sample, if it gave one (Linux initialises its
    /// congestion control here, `tcp_init_congestion_control`).
    fn on_open(&mut self, _w: &mut Window, _now: Time, _rtt: Option<Time>) {}
}

/// What a controller does beyond its hooks' defaults: yes/no answers that
/// hold for its whole life, asked once when the endpoint is built, so that
/// a controller that says no costs a cached bool where it would cost a
/// dispatch or a scoreboard walk on every segment or ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// It sets the pacing rate itself (BBR; Hybla's packet spacing): the
    /// flow's own pacer stays out of the way.
    pub paces: bool,
    /// It sets cwnd on every ACK itself, recovery included (Linux's
    /// `cong_control`): PRR and the tail loss probe leave its window alone.
    pub sets_recovery_cwnd: bool,
    /// The sender keeps delivery-rate samples for it (`AckCtx::rate`).
    pub rate_samples: bool,
    /// Its hooks read `AckCtx::pipe` (RFC 6675's pipe costs a walk of the
    /// scoreboard on every ACK; the others get 0 there).
    pub reads_pipe: bool,
    /// It hears of every data segment sent (`on_data_sent`).
    pub sees_sends: bool,
    /// It hears of every segment marked lost (`on_lost`; needs
    /// `rate_samples`).
    pub sees_losses: bool,
    /// It attaches research options (`research_option`).
    pub research_option: bool,
    /// Each duplicate ACK in Reno or NewReno fast recovery inflates cwnd by
    /// one SMSS (RFC 5681 step 4; TCP Peach may turn it off).
    pub recovery_inflation: bool,
    /// A fast retransmit backs the RTO off as an expiry does (ns-2's Vegas:
    /// `reset_rtx_timer(1)` with its default backoff, where the other
    /// agents' `dupack_action` passes none).
    pub rto_backoff_at_fast_retransmit: bool,
}

impl Capabilities {
    /// The defaults: RFC 5681's inflation, nothing else.
    pub const DEFAULT: Capabilities = Capabilities {
        paces: false,
        sets_recovery_cwnd: false,
        rate_samples: false,
        reads_pipe: false,
        sees_sends: false,
        sees_losses: false,
        research_option: false,
        recovery_inflation: true,
        rto_backoff_at_fast_retransmit: false,
    };
}

/// A `variant` preset: a recovery scheme, the controller whose registry
/// line lists it, and the defaults it gives other `tcp` keys.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub recovery: Recovery,
    /// `initial_window` in segments; None = RFC 3390.
    pub initial_window: Option<u32>,
    pub daass: bool,
    pub limited_transmit: bool,
    pub accept_beyond_window: bool,
    /// `pacing` on by default.
    pub pacing: bool,
    /// Linux's SACK recovery by default: `rack`, `prr` and
    /// `rearm_rto_on_retransmit` on (not under the `ns2` profiles: ns-2's
    /// agents have none of them).
    pub linux_sack_recovery: bool,
    /// Defaults the preset gives its controller's own keys (key, string
    /// value), used when the flow leaves them out and runs that controller.
    pub cc_keys: &'static [(&'static str, &'static str)],
}

impl Preset {
    pub const fn new(name: &'static str, recovery: Recovery) -> Self {
        Preset {
            name,
            recovery,
            initial_window: None,
            daass: false,
            limited_transmit: false,
            accept_beyond_window: false,
            pacing: false,
            linux_sack_recovery: false,
            cc_keys: &[],
        }
    }

    pub const fn cc_keys(mut self, keys: &'static [(&'static str, &'static str)]) -> Self {
        self.cc_keys = keys;
        self
    }

    pub const fn pacing(mut self) -> Self {
        self.pacing = true;
        self
    }

    pub const fn linux_sack_recovery(mut self) -> Self {
        self.linux_sack_recovery = true;
        self
    }

    pub const fn iw(mut self, segments: u32) -> Self {
        self.initial_window = Some(segments);
        self
    }

    pub const fn daass(mut self) -> Self {
        self.daass = true;
        self
    }

    pub const fn limited_transmit(mut self) -> Self {
        self.limited_transmit = true;
        self
    }

    pub const fn accept_beyond_window(mut self) -> Self {
        self.accept_beyond_window = true;
        self
    }
}

/// One registered controller, as the scenario parser sees it.
pub(crate) struct Entry {
    /// Its `cc` name.
    pub name: &'static str,
    /// Its parameters' `tcp` keys.
    pub keys: &'static [&'static str],
    pub presets: &'static [Preset],
    /// Read its parameters.
    pub parse: fn(&Tbl, Profile) -> Res<Controller>,
}

/// The registry: from one line per controller (`cc` name => variant(state
/// type, parameter type), its presets), `scenario::Controller`, `Cc`,
/// `REGISTRY` and `dispatch!` (the forwarding `match` over `Cc`). `$d` is a
/// literal `$`, for the macro this one defines.
macro_rules! registry {
    ($d:tt $(
        $(#[doc = $doc:expr])*
        $(#[cfg($cfg:meta)])?
        $name:literal => $V:ident($T:ty, $P:ty), presets [$($preset:expr),* $(,)?];
    )*) => {
        /// Window controller and its parameters (each controller's own type,
        /// from its file in `tcp/cc/`), as a flow's `tcp.cc` or preset
        /// selects it.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Controller {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $V($P), )*
        }

        /// One endpoint's controller: a closed set dispatched by `match`.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( $(#[cfg($cfg)])? $V($T), )*
        }

        /// Every controller in registry order (the order of the parser's
        /// lists and messages).
        pub(crate) static REGISTRY: &[Entry] = &[
            $( $(#[cfg($cfg)])? Entry {
                name: $name,
                keys: <$P as CcParams>::KEYS,
                presets: &[$($preset),*],
                parse: |t, p| Ok(Controller::$V(<$P as CcParams>::parse(t, p)?)),
            }, )*
        ];

        impl Cc {
            pub fn new(c: &Controller, env: Env) -> Self {
                match c {
                    $( $(#[cfg($cfg)])? Controller::$V(p) => Cc::$V(<$T as WindowController>::new(p, env)), )*
                }
            }
        }

        /// `dispatch!(self, hook(args))`: call the hook of whichever
        /// controller `self` holds.
        macro_rules! dispatch {
            ($d cc:expr, $d hook:ident($d ($d arg:expr),*)) => {
                match $d cc {
                    $( $(#[cfg($cfg)])? Cc::$V(c) => <$T as WindowController>::$d hook(c $d (, $d arg)*), )*
                }
            };
        }
    };
}

registry! { $
    /// RFC 5681 slow start and congestion avoidance. Presets: the recovery
    /// schemes alone, and "enhanced", TRANSAT's "Enhanced TCP" (spec 001
    /// section 3.3): SACK + IW 4 + DAASS + Limited Transmit.
    "aimd" => Aimd(aimd::Aimd, aimd::AimdCfg), presets [
        Preset::new("newreno", Recovery::NewReno),
        Preset::new("sack", Recovery::Sack),
        Preset::new("tahoe", Recovery::Tahoe),
        Preset::new("reno", Recovery::Reno),
        Preset::new("fack", Recovery::Fack),
        Preset::new("enhanced", Recovery::Sack).iw(4).daass().limited_transmit(),
    ];
    /// Brakmo-Peterson Vegas as ns-2 implements it (with NewReno, as ns-2
    /// and Linux pair the satellite papers' delay- and rate-based
    /// controllers with Reno-style recovery).
    "vegas" => Vegas(vegas::Vegas, vegas::VegasCfg), presets [Preset::new("vegas", Recovery::NewReno)];
    /// Westwood+ (Grieco and Mascolo 2004).
    "westwood" => Westwood(westwood::Westwood, westwood::WestwoodCfg), presets [Preset::new("westwood", Recovery::NewReno)];
    /// Hybla (Caini and Firrincieli 2004).
    "hybla" => Hybla(hybla::Hybla, hybla::HyblaCfg), presets [Preset::new("hybla", Recovery::Sack).pacing().linux_sack_recovery()];
    /// CUBIC, RFC 9438 (with SACK, as deployed in Linux).
    "cubic" => Cubic(cubic::Cubic, cubic::CubicCfg), presets [Preset::new("cubic", Recovery::Sack)];
    /// BBR v1 (with SACK, as deployed in Linux).
    "bbr" => Bbr(bbr::Bbr, bbr::BbrCfg), presets [Preset::new("bbr", Recovery::Sack)];
    /// BBRv3 (Google's tcp_bbr v3, draft-ietf-ccwg-bbr; with SACK, as
    /// deployed in Linux).
    "bbr3" => Bbr3(bbr3::Bbr3, bbr3::Bbr3Cfg), presets [Preset::new("bbr3", Recovery::Sack)];
    /// TCP-ADaLR (Omueti 2007) on SACK or NewReno recovery, with the
    /// thesis' IW of 2 SMSS and a receiver that keeps data beyond its window.
    "adalr" => Adalr(adalr::Adalr, adalr::AdalrCfg), presets [
        Preset::new("adalr-sack", Recovery::Sack).iw(2).accept_beyond_window(),
        Preset::new("adalr-newreno", Recovery::NewReno).iw(2).accept_beyond_window(),
    ];
    /// TCP Peach (Akyildiz et al. 2001) and Modified Peach (Sarkar et al.,
    /// spec 003) on NewReno recovery, starting from one segment.
    "peach" => Peach(peach::Peach, peach::PeachCfg), presets [
        Preset::new("peach", Recovery::NewReno).iw(1),
        Preset::new("modified-peach", Recovery::NewReno).iw(1).cc_keys(&[("peach_latch", "recover")]),
    ];
    /// CETEN-R (Carroll 2004, spec 002): RFC 5681 growth, a loss judged
    /// corruption or congestion from the CETEN option's ratios, on Reno or
    /// NewReno recovery.
    "ceten" => Ceten(ceten::Ceten, ceten::CetenCfg), presets [
        Preset::new("ceten-reno", Recovery::Reno),
        Preset::new("ceten-newreno", Recovery::NewReno),
    ];
    /// A test-only controller exercising the hooks beyond the window.
    #[cfg(test)]
    "probe" => Probe(probe::Probe, probe::ProbeCfg), presets [];
}

impl Cc {
    /// What the controller does beyond the hooks' defaults.
    pub fn capabilities(&self) -> Capabilities {
        dispatch!(self, capabilities())
    }

    /// cwnd when the connection opens (the configured initial window
    /// `iw`, unless the controller says otherwise).
    pub fn on_open(&mut self, w: &mut Window, now: Time, rtt: Option<Time>) {
        dispatch!(self, on_open(w, now, rtt))
    }

    pub fn initial_cwnd(&mut self, iw: u64, smss: u64) -> u64 {
        dispatch!(self, initial_cwnd(iw, smss))
    }

    /// Every ACK, before loss recovery handles it.
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx, acts: &mut Vec<Action>) {
        dispatch!(self, on_ack(w, a, acts))
    }

    /// The recovery scheme lets the window grow on this ACK.
    #[inline]
    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        dispatch!(self, grow(w, a))
    }

    /// ssthresh after a loss is detected with `flight` bytes outstanding.
    #[inline]
    pub fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, acts: &mut Vec<Action>) -> u64 {
        dispatch!(self, ssthresh_after_loss(w, flight, acts))
    }

    /// The ACK just processed ended fast recovery.
    #[inline]
    pub fn on_recovery_exit(&mut self, w: &mut Window) {
        dispatch!(self, on_recovery_exit(w))
    }

    /// The retransmission timer expired (sets ssthresh and cwnd).
    pub fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, last: &AckCtx, acts: &mut Vec<Action>) {
        dispatch!(self, on_rto(w, flight, first, last, acts))
    }

    /// Bytes the sender may send beyond the peer's advertised window.
    #[inline]
    pub fn rwnd_boost(&self, w: &Window, una: u64, max: u64, recover: u64, peer_wnd: u64) -> u64 {
        dispatch!(self, rwnd_boost(w, una, max, recover, peer_wnd))
    }

    /// Most segments retransmitted per send opportunity.
    #[inline]
    pub fn retx_limit(&self) -> u32 {
        dispatch!(self, retx_limit())
    }

    /// Added to the retransmission timer re-armed by an expiry.
    pub fn rto_offset(&self) -> Time {
        dispatch!(self, rto_offset())
    }

    /// cwnd after a NewReno partial ACK (`deflated`: RFC 6582's).
    pub fn partial_ack_cwnd(&mut self, w: &Window, acked: u64, deflated: u64) -> u64 {
        dispatch!(self, partial_ack_cwnd(w, acked, deflated))
    }

    /// Segments a partial ACK lets SACK recovery send beyond cwnd - pipe.
    pub fn partial_ack_credit(&mut self, w: &Window, acked: u64) -> u32 {
        dispatch!(self, partial_ack_credit(w, acked))
    }

    /// cwnd on the ACK that ends NewReno or SACK recovery (`cwnd`: the
    /// scheme's).
    pub fn recovery_exit_cwnd(&mut self, w: &Window, acked: u64, cwnd: u64) -> u64 {
        dispatch!(self, recovery_exit_cwnd(w, acked, cwnd))
    }

    /// Congestion or corruption, for a duplicate ACK about to be acted on.
    #[inline]
    pub fn loss_verdict(&mut self, w: &Window, a: &AckCtx, d: DupAck) -> Verdict {
        dispatch!(self, loss_verdict(w, a, d))
    }

    /// The controller's own timer fired.
    pub fn on_timer(&mut self, w: &mut Window, now: Time, acts: &mut Vec<Action>) {
        dispatch!(self, on_timer(w, now, acts))
    }

    /// A `DummyAck` arrived.
    pub fn on_dummy_ack(&mut self, w: &mut Window, now: Time, acts: &mut Vec<Action>) {
        dispatch!(self, on_dummy_ack(w, now, acts))
    }

    /// A data segment has just been sent.
    pub fn on_data_sent(&mut self, w: &mut Window, s: &SendCtx, acts: &mut Vec<Action>) {
        dispatch!(self, on_data_sent(w, s, acts))
    }

    /// The sender has just marked this segment lost.
    pub fn on_lost(&mut self, w: &mut Window, l: &LostSegment, now: Time, delivered: u64) {
        dispatch!(self, on_lost(w, l, now, delivered))
    }

    /// The research option for a segment of this kind about to be sent.
    #[inline]
    pub fn research_option(&mut self, kind: Kind) -> Option<ResearchOption> {
        dispatch!(self, research_option(kind))
    }

    /// An arriving segment of this kind carried a research option.
    pub fn on_research_option(&mut self, r: &ResearchOption, kind: Kind) {
        dispatch!(self, on_research_option(r, kind))
    }
}

/// The registered controller called `name`.
pub(crate) fn entry(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.name == name)
}

/// The preset called `name` and its controller's `cc` name.
pub(crate) fn preset(name: &str) -> Option<(&'static Preset, &'static str)> {
    REGISTRY.iter().find_map(|e| e.presets.iter().find(|p| p.name == name).map(|p| (p, e.name)))
}
