//! TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satell. Commun. Network. 22, 2004), two
//! ways (`hybla_style`).
//!
//! Hybla makes window growth per unit time independent of the RTT by
//! scaling Reno's increments with rho = RTT / RTT0 (RTT0 = `hybla_rtt0`,
//! 25 ms in the paper): slow start adds 2^rho - 1 segments per ACK of one
//! segment, congestion avoidance rho^2 SMSS^2 / cwnd per ACK; losses and
//! timeouts are Reno's.
//!
//! **`"paper"`** (the default under the `rfc` and `ns2` profiles): the paper
//! pairs these rules with SACK, timestamps, packet spacing and Hoe's
//! bandwidth estimate for the initial ssthresh, and so does the `hybla`
//! preset (SACK recovery, `pacing = true`, `hybla_ssthresh_estimate = true`).
//! Its SACK recovery is Linux's (RACK, PRR, the RTO restarted when the head
//! is resent; `Preset::linux_sack_recovery`, not under the `ns2` profiles):
//! the paced sender keeps a one-BDP queue full through the duplicate ACKs,
//! the queue drops fast retransmissions, and RFC 6675 alone finds none of
//! them lost but by the RTO (docs/models/hybla.md traces it).
//! Without that estimate a 2^rho slow start cannot stop before it floods the
//! bottleneck: at rho = 24 (600 ms) one ACK adds 16 million segments.
//! * Hoe's estimate (Hoe, "Improving the start-up behavior of a congestion
//!   control scheme for TCP", SIGCOMM 1996): packets sent back to back leave
//!   the bottleneck spaced by its service time, and so do their ACKs. Each
//!   ACK that acknowledges new data less than SRTT/4 after the previous one
//!   gives a sample acked bytes / gap; the largest of the first
//!   `ESTIMATE_SAMPLES` samples times the lowest RTT becomes ssthresh (at
//!   least 2 SMSS), if no loss has set one first. Choices where the paper
//!   is silent: the SRTT/4 bound (it leaves out gaps that contain a
//!   delayed-ACK timer or an idle period), three samples, the largest: a
//!   slow-start sender sends in small bursts, one per ACK, and a gap
//!   between two bursts makes a sample too low (the mean of three was a
//!   third of the bandwidth on a 10 Mb/s GEO path with delayed ACKs),
//!   while no sample can exceed the bottleneck's rate unless ACKs are
//!   compressed on the way back.
//! * Until the estimate exists slow start is Reno's (rho = 1): the 2^rho
//!   increments start once ssthresh can stop them.
//! * Packet spacing (with `pacing = true`, as the preset has it): Hybla
//!   paces itself at max(cwnd, FlightSize) / SRTT (the paper spreads a
//!   window evenly over a round trip), starting with the estimate: Hoe's
//!   method needs packets that leave back to back, so that their ACKs show
//!   the bottleneck's spacing and not the pacer's. The paper says only
//!   "window"; which window is the choice here, taken from Linux's
//!   `tcp_update_pacing_rate` (net/ipv4/tcp_input.c), whose rate is
//!   proportional to max(snd_cwnd, packets_out), packets_out being the
//!   segments sent and not cumulatively acknowledged: satcp's FlightSize
//!   (`AckCtx::flight`, snd_max - snd_una after the ACK, the same in
//!   `on_ack` and in `grow`). Why not cwnd alone: a loss event that cuts
//!   cwnd far below what is outstanding (PRR takes it to one segment when
//!   hundreds of a window's segments are lost) would let out one segment
//!   per SRTT through the whole recovery (one PEP study run crawled 85 s
//!   through a recovery the other seeds finish in 25 s, docs/reproduce-pep.md);
//!   with the larger of the two the spacing keeps the rate the outstanding
//!   window had, and cwnd (PRR) still decides how much is sent. Until a
//!   window reduction FlightSize never exceeds cwnd and the rate is cwnd /
//!   SRTT as before.
//!   No ratio: Linux paces its other controllers at 200% of that rate in
//!   slow start and 120% in congestion avoidance (`tcp_pacing_ss_ratio`,
//!   `tcp_pacing_ca_ratio`), headroom for a window that grows within the
//!   round trip; the paper's spacing is a window per round trip, 100%,
//!   kept. The rate is that of the window the ACK leaves (set again after
//!   the growth, as Linux's `tcp_update_pacing_rate` follows `cong_avoid`):
//!   after a timeout the first ACK opens cwnd from 1 SMSS to ssthresh, and
//!   a rate from 1 SMSS / SRTT held the next packet a whole SRTT (1.2 s
//!   idle after each timeout on the GEO path of `tests/hybla_geo.rs`).
//!   Slow start never takes cwnd beyond ssthresh (the rest of an ACK's
//!   increment is dropped, as Linux's `tcp_slow_start` does).
//! * rho = max(RTT / RTT0, 1) as a real number, RTT the lowest SRTT so far
//!   (`hybla_rtt = "min_srtt"`) or the current SRTT (`"srtt"`). The slow-start
//!   increment multiplies the bytes acknowledged as RFC 5681 counts them,
//!   min(acked, L x SMSS); fractions of a byte are carried between ACKs.
//!
//! **`"linux"`** (the default under the `linux` profile): Linux's
//! `tcp_hybla.c`, in segments and fixed point:
//! * rho_3ls = max(8 x SRTT / RTT0, 8) (rho in eighths, at least 1),
//!   rho = rho_3ls / 8, rho2_7ls = 2 x rho_3ls^2 (rho^2 in 1/128ths),
//!   recomputed only when SRTT reaches a new minimum;
//! * per ACK in slow start: 2^min(rho, 16) x 2^(frac/8) - 1 segments, in
//!   1/128ths from the table 128, 139, 152, 165, 181, 197, 215, 234; in
//!   congestion avoidance rho2_7ls / cwnd 1/128ths; whole segments are
//!   added, the 1/128ths carried (`snd_cwnd_cents`), and when an increment
//!   rounds to nothing a segment is added after cwnd such ACKs
//!   (`snd_cwnd_cnt`); slow start stops at ssthresh;
//! * per ACK, not per segment acknowledged (Linux's `cong_avoid` ignores
//!   `acked`);
//! * Reno's growth while recovering (Linux enables Hybla in the Open state
//!   only): `tcp_reno_cong_avoid`, slow start by every segment acknowledged
//!   (`abc_limit`, unlimited under the `linux` profile) and congestion
//!   avoidance by `tcp_cong_avoid_ai` (one SMSS per cwnd of bytes
//!   acknowledged, the remainder carried);
//! * cwnd at most 65,535 segments (`snd_cwnd_clamp`, set by `hybla_init`):
//!   slow start's 2^16 - 1 segments per ACK stop there;
//! * growth only while cwnd-limited (`tcp_is_cwnd_limited`): the endpoint's
//!   `cwnd_validation = "linux"`, on under the `linux` profile;
//! * not modelled: Linux's initial cwnd = rho segments (set when the
//!   connection is established; satcp's controllers are not asked then).

use super::{AckCtx, Action, Capabilities, CcParams, Env, Window, WindowController, CWND_MAX};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;

/// Which RTT Hybla's rho = RTT / RTT0 is computed from (`hybla_rtt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyblaRtt {
    /// The lowest smoothed RTT seen so far (what Linux does: rho is only
    /// recomputed when SRTT reaches a new minimum).
    MinSrtt,
    /// The current smoothed RTT (the paper's RTT, queueing included).
    Srtt,
}

/// `hybla_style`: the paper's Hybla or Linux's `tcp_hybla.c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyblaStyle {
    Paper,
    Linux,
}

/// Hybla's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyblaCfg {
    pub rtt0_ns: u64,
    pub rho_rtt: HyblaRtt,
    pub style: HyblaStyle,
    /// Hoe's initial-ssthresh estimate (paper style only).
    pub ssthresh_estimate: bool,
}

impl CcParams for HyblaCfg {
    const KEYS: &'static [&'static str] = &["hybla_rtt0", "hybla_rtt", "hybla_style", "hybla_ssthresh_estimate"];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let style = match t.choice("hybla_style", &["paper", "linux"])? {
            Some("linux") => HyblaStyle::Linux,
            Some(_) => HyblaStyle::Paper,
            None if profile == Profile::Linux => HyblaStyle::Linux,
            None => HyblaStyle::Paper,
        };
        let ssthresh_estimate = t.bool("hybla_ssthresh_estimate")?;
        if ssthresh_estimate == Some(true) && style == HyblaStyle::Linux {
            return Err(t.bad("hybla_ssthresh_estimate", "only with hybla_style = \"paper\" (Linux has no estimate)"));
        }
        Ok(HyblaCfg {
            rtt0_ns: t.duration_pos("hybla_rtt0")?.unwrap_or(25_000_000),
            rho_rtt: match t.choice("hybla_rtt", &["min_srtt", "srtt"])? {
                Some("srtt") => HyblaRtt::Srtt,
                _ => HyblaRtt::MinSrtt,
            },
            style,
            ssthresh_estimate: ssthresh_estimate.unwrap_or(style == HyblaStyle::Paper),
        })
    }
}

/// Samples averaged by Hoe's estimate.
pub const ESTIMATE_SAMPLES: u32 = 3;

/// `tcp_hybla.c`'s `snd_cwnd_clamp`, in segments (linux style).
pub const LINUX_CWND_CLAMP: u64 = 65_535;

/// Linux's 2^(i/8) x 128 for i = 0..7 (`hybla_fraction`).
const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

#[derive(Clone, Debug)]
pub struct Hybla {
    cfg: HyblaCfg,
    abc_limit: u32,
    /// Paper style with `pacing = true`: Hybla sets the pacing rate.
    spacing: bool,
    min_srtt: Option<f64>,
    /// Fraction of a byte carried between ACKs, in [0, 1) (paper style).
    carry: f64,
    /// Hoe's estimate: the last ACK of new data, and the samples so far.
    last_ack_at: Option<u64>,
    samples: u32,
    rate_max: f64,
    /// The estimate is done (set, or overtaken by a loss).
    estimated: bool,
    /// Linux style: rho in eighths and rho^2 in 1/128ths, the 1/128ths of a
    /// segment carried, and the count of ACKs whose increment was nothing.
    rho_3ls: u64,
    rho2_7ls: u64,
    cents: u64,
    cnt: u64,
    /// Linux style: `tcp_reno_cong_avoid`, the growth outside the Open state.
    reno: super::aimd::Aimd,
}

impl Hybla {
    pub fn new(cfg: HyblaCfg, abc_limit: u32, pacing: bool) -> Self {
        Hybla {
            cfg,
            abc_limit,
            spacing: pacing && cfg.style == HyblaStyle::Paper,
            min_srtt: None,
            carry: 0.0,
            last_ack_at: None,
            samples: 0,
            rate_max: 0.0,
            estimated: !cfg.ssthresh_estimate || cfg.style == HyblaStyle::Linux,
            rho_3ls: 8,
            rho2_7ls: 128,
            cents: 0,
            cnt: 0,
            reno: super::aimd::Aimd { abc_limit, carry: Some(0), per_byte: true },
        }
    }

    /// rho for this ACK (paper style).
    pub fn rho(&mut self, a: &AckCtx) -> f64 {
        let Some(srtt) = a.srtt else { return 1.0 };
        let rtt = match self.cfg.rho_rtt {
            HyblaRtt::Srtt => srtt,
            HyblaRtt::MinSrtt => {
                let m = self.min_srtt.map_or(srtt, |m| m.min(srtt));
                self.min_srtt = Some(m);
                m
            }
        };
        (rtt / self.cfg.rtt0_ns as f64).max(1.0)
    }

    /// Hoe's estimate from the ACK train (paper style, first slow start).
    fn estimate(&mut self, w: &mut Window, a: &AckCtx) {
        if self.estimated || a.acked == 0 || a.dupack {
            return;
        }
        if w.ssthresh < super::super::sender::SSTHRESH_INFINITE {
            self.estimated = true; // a loss came first
            return;
        }
        if let (Some(prev), Some(srtt)) = (self.last_ack_at, a.srtt) {
            let gap = a.now.saturating_sub(prev);
            if gap > 0 && (gap as f64) < srtt / 4.0 {
                self.rate_max = self.rate_max.max(a.acked as f64 * 1e9 / gap as f64);
                self.samples += 1;
            }
        }
        self.last_ack_at = Some(a.now);
        if self.samples >= ESTIMATE_SAMPLES {
            if let Some(rtt) = a.min_rtt {
                w.ssthresh = ((self.rate_max * rtt as f64 / 1e9) as u64).max(2 * w.smss);
                self.estimated = true;
            }
        }
    }

    fn grow_paper(&mut self, w: &mut Window, a: &AckCtx) {
        let rho = if self.estimated { self.rho(a) } else { 1.0 };
        let slow_start = w.cwnd < w.ssthresh;
        let inc = if slow_start {
            (rho.exp2() - 1.0) * a.acked.min(self.abc_limit as u64 * w.smss) as f64
        } else {
            rho * rho * (w.smss * w.smss) as f64 / w.cwnd as f64
        };
        let total = self.carry + inc.min(CWND_MAX as f64);
        let whole = total.floor();
        self.carry = total - whole;
        w.cwnd = (w.cwnd + whole as u64).min(CWND_MAX);
        if slow_start && w.cwnd > w.ssthresh {
            w.cwnd = w.ssthresh;
            self.carry = 0.0;
        }
    }

    /// Linux `hybla_recalc_param`, when SRTT reaches a new minimum.
    fn recalc_linux(&mut self, a: &AckCtx) {
        let Some(srtt) = a.srtt else { return };
        if self.min_srtt.is_some_and(|m| srtt >= m) {
            return;
        }
        self.min_srtt = Some(srtt);
        self.rho_3ls = ((8.0 * srtt / self.cfg.rtt0_ns as f64) as u64).max(8);
        self.rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
    }

    fn grow_linux(&mut self, w: &mut Window, a: &AckCtx) {
        self.recalc_linux(a);
        let smss = w.smss;
        let segs = (w.cwnd / smss).max(1);
        let slow_start = w.cwnd < w.ssthresh;
        let increment = if slow_start {
            let rho = self.rho_3ls >> 3;
            let frac = (self.rho_3ls - (rho << 3)) as usize;
            (1u64 << rho.min(16)) * FRACTIONS[frac] - 128
        } else {
            let inc = self.rho2_7ls / segs;
            if inc < 128 {
                self.cnt += 1;
            }
            inc
        };
        let mut add = increment >> 7;
        self.cents += increment % 128;
        while self.cents >= 128 {
            add += 1;
            self.cents -= 128;
            self.cnt = 0;
        }
        if increment == 0 && self.cnt >= segs {
            add += 1;
            self.cnt = 0;
        }
        w.cwnd = (w.cwnd + add * smss).min(CWND_MAX);
        if slow_start {
            w.cwnd = w.cwnd.min(w.ssthresh.max(smss));
        }
        w.cwnd = w.cwnd.min(LINUX_CWND_CLAMP * smss);
    }

    /// Packet spacing (paper style with `pacing = true`): max(cwnd,
    /// FlightSize) per SRTT (Linux's max(snd_cwnd, packets_out)), from
    /// Hoe's estimate on (before it Hoe's method needs packets that leave
    /// back to back).
    fn space(&self, w: &mut Window, a: &AckCtx) {
        if self.spacing {
            let window = w.cwnd.max(a.flight);
            w.pacing_bps = match (self.estimated, a.srtt) {
                (true, Some(srtt)) if srtt > 0.0 => ((window as f64 * 8e9 / srtt) as u64).max(1),
                _ => 0,
            };
        }
    }

    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        if a.acked == 0 {
            return;
        }
        match self.cfg.style {
            HyblaStyle::Paper => self.grow_paper(w, a),
            HyblaStyle::Linux if a.recovering => {
                self.reno.on_ack(w, a.acked);
                w.cwnd = w.cwnd.min(LINUX_CWND_CLAMP * w.smss);
            }
            HyblaStyle::Linux => self.grow_linux(w, a),
        }
    }
}

impl WindowController for Hybla {
    type Params = HyblaCfg;

    fn new(p: &HyblaCfg, env: Env) -> Self {
        Hybla::new(*p, env.abc_limit, env.pacing)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        self.estimate(w, a);
        self.space(w, a);
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { paces: self.spacing, ..Capabilities::DEFAULT }
    }

    /// The spacing follows the window this ACK leaves: `on_ack` comes
    /// before the growth, and a rate from the window before it holds the
    /// next packet for a whole SRTT after a timeout (cwnd 1 SMSS: one
    /// packet per SRTT, although the first ACK opens cwnd to ssthresh).
    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Hybla::grow(self, w, a);
        self.space(w, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: f64 = 1e6;
    const INF: u64 = crate::tcp::sender::SSTHRESH_INFINITE;

    fn cfg(rho_rtt: HyblaRtt, style: HyblaStyle, estimate: bool) -> HyblaCfg {
        HyblaCfg { rtt0_ns: 25_000_000, rho_rtt, style, ssthresh_estimate: estimate }
    }

    /// Paper style without the estimate: the bare rules.
    fn bare(rho_rtt: HyblaRtt) -> Hybla {
        Hybla::new(cfg(rho_rtt, HyblaStyle::Paper, false), 1, false)
    }

    fn ack(srtt_ms: f64) -> AckCtx {
        AckCtx { acked: 1000, srtt: Some(srtt_ms * MS), ..Default::default() }
    }

    #[test]
    fn rho_is_rtt_over_rtt0_at_least_one() {
        let mut h = bare(HyblaRtt::Srtt);
        assert_eq!(h.rho(&ack(250.0)), 10.0);
        assert_eq!(h.rho(&ack(60.0)), 2.4);
        assert_eq!(h.rho(&ack(10.0)), 1.0);
        assert_eq!(h.rho(&AckCtx::default()), 1.0);
        // min_srtt keeps the lowest SRTT: 600 then 300 then 450 ms
        let mut m = bare(HyblaRtt::MinSrtt);
        assert_eq!(m.rho(&ack(600.0)), 24.0);
        assert_eq!(m.rho(&ack(300.0)), 12.0);
        assert_eq!(m.rho(&ack(450.0)), 12.0);
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_segments_per_ack() {
        // rho = 10: each ACK of one 1000-byte segment adds 1023 segments
        let mut h = bare(HyblaRtt::Srtt);
        let mut w = Window::new(4000, INF, 1000);
        h.grow(&mut w, &ack(250.0));
        assert_eq!(w.cwnd, 4000 + 1_023_000);
        // rho = 2.4: 2^2.4 - 1 = 4.27803... segments = 4278.03 bytes; the
        // 0.03 byte is carried
        let mut h = bare(HyblaRtt::Srtt);
        let mut w = Window::new(4000, INF, 1000);
        h.grow(&mut w, &ack(60.0));
        assert_eq!(w.cwnd, 4000 + 4278);
        assert!((h.carry - (2f64.powf(2.4) - 1.0) * 1000.0 + 4278.0).abs() < 1e-9);
        // slow start stops at ssthresh
        let mut h = bare(HyblaRtt::Srtt);
        let mut w = Window::new(4000, 50_000, 1000);
        h.grow(&mut w, &ack(250.0));
        assert_eq!(w.cwnd, 50_000);
    }

    #[test]
    fn congestion_avoidance_rho_squared_with_exact_carry() {
        // rho = 10, SMSS 1000, cwnd 300000: 100 x 10^6 / cwnd per ACK
        // ACK 1: 333.333 -> +333 (carry .333)
        // ACK 2: 10^8 / 300333 = 332.960 + .333 = 333.294 -> +333
        // ACK 3: 10^8 / 300666 = 332.595 + .294 = 332.889 -> +332
        let mut h = bare(HyblaRtt::Srtt);
        let mut w = Window::new(300_000, 100_000, 1000);
        let mut exact = 0.0;
        for expect in [300_333u64, 300_666, 300_998] {
            exact += 1e8 / w.cwnd as f64;
            h.grow(&mut w, &ack(250.0));
            assert_eq!(w.cwnd, expect);
        }
        assert!(((w.cwnd - 300_000) as f64 + h.carry - exact).abs() < 1e-9);
    }

    #[test]
    fn huge_rho_saturates_at_the_cwnd_ceiling() {
        for srtt in [1400.0, 60_000.0] {
            let mut h = bare(HyblaRtt::Srtt);
            let mut w = Window::new(200, INF, 200);
            h.grow(&mut w, &AckCtx { acked: 200, srtt: Some(srtt * MS), ..Default::default() });
            assert_eq!(w.cwnd, CWND_MAX);
            assert!(h.carry.is_finite());
        }
    }

    #[test]
    fn rho_one_is_reno() {
        let mut h = bare(HyblaRtt::Srtt);
        let mut w = Window::new(2000, INF, 1000);
        h.grow(&mut w, &AckCtx { acked: 2000, srtt: Some(20.0 * MS), ..Default::default() });
        assert_eq!(w.cwnd, 3000);
    }

    /// Hoe's estimate by hand: SRTT 600 ms, lowest RTT 550 ms; ACKs of 2920
    /// bytes at 0, 2.4, 4.8 and 7.2 ms (10 Mb/s of 1500-byte packets, two
    /// per delayed ACK) give 1,216,667 B/s each; a gap of 200 ms (a delayed
    /// ACK's timer) is left out. ssthresh = 1,216,667 x 0.55 = 669,166
    /// bytes. Before it, slow start is Reno's; after it, 2^24 - 1 segments
    /// per ACK, stopped at ssthresh.
    #[test]
    fn hoe_estimate_sets_ssthresh_from_the_ack_train() {
        let mut h = Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Paper, true), 1, false);
        let mut w = Window::new(4380, INF, 1460);
        let at = |ms: f64| AckCtx {
            now: (ms * MS) as u64,
            acked: 2920,
            srtt: Some(600.0 * MS),
            min_rtt: Some(550_000_000),
            ..Default::default()
        };
        let mut acts = Vec::new();
        h.on_ack(&mut w, &at(0.0), &mut acts);
        h.grow(&mut w, &at(0.0));
        assert_eq!(w.cwnd, 4380 + 1460, "Reno's slow start before the estimate");
        h.on_ack(&mut w, &at(200.0), &mut acts); // a delayed ACK's gap: no sample
        assert_eq!(h.samples, 0);
        for t in [202.4, 204.8, 207.2] {
            h.on_ack(&mut w, &at(t), &mut acts);
        }
        let rate = 2920.0 / 0.0024;
        assert_eq!(w.ssthresh, (rate * 0.55) as u64);
        h.grow(&mut w, &at(207.2));
        assert_eq!(w.cwnd, w.ssthresh);
        // a loss before the estimate ends it: ssthresh stays the loss's
        let mut h = Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Paper, true), 1, false);
        let mut w = Window::new(4380, 8000, 1460);
        for t in [0.0, 2.4, 4.8, 7.2, 9.6] {
            h.on_ack(&mut w, &at(t), &mut acts);
        }
        assert_eq!(w.ssthresh, 8000);
    }

    /// Spacing follows the window the ACK leaves. After a timeout (cwnd 1
    /// SMSS of 1000 bytes, ssthresh 600,000, estimate done), one ACK at
    /// SRTT 1.2 s opens cwnd to ssthresh (2^24 - 1 segments, stopped
    /// there): the rate is 600,000 x 8 / 1.2 = 4 Mb/s, not the 6,666 b/s
    /// of the window before the growth (one packet per 1.2 s).
    #[test]
    fn spacing_follows_the_window_after_the_growth() {
        let mut h = Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Paper, true), 1, true);
        h.estimated = true;
        let mut w = Window::new(1000, 600_000, 1000);
        let a = ack(1200.0);
        let mut acts = Vec::new();
        h.on_ack(&mut w, &a, &mut acts);
        assert_eq!(w.pacing_bps, 6_666);
        WindowController::grow(&mut h, &mut w, &a);
        assert_eq!((w.cwnd, w.pacing_bps), (600_000, 4_000_000));
    }

    /// Spacing after a loss event that cut cwnd far below what is
    /// outstanding: cwnd 1 SMSS (1000 bytes, PRR after ~400 segments lost
    /// in one window), 400,000 bytes in flight, SRTT 0.8 s. The rate is
    /// max(cwnd, flight) x 8 / SRTT = 400,000 x 8 / 0.8 = 4 Mb/s (a
    /// segment every 2 ms), not 1000 x 8 / 0.8 = 10 kb/s (one per SRTT);
    /// the same after the growth (`grow` reads the same flight). With less
    /// in flight than cwnd (loss-free) it is cwnd's: 50,000 x 8 / 0.8.
    #[test]
    fn spacing_follows_the_flight_when_it_exceeds_cwnd() {
        let mut h = Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Paper, true), 1, true);
        h.estimated = true;
        let mut w = Window::new(1000, 2000, 1000);
        let a = AckCtx { flight: 400_000, recovering: true, ..ack(800.0) };
        let mut acts = Vec::new();
        h.on_ack(&mut w, &a, &mut acts);
        assert_eq!(w.pacing_bps, 4_000_000);
        WindowController::grow(&mut h, &mut w, &a);
        assert_eq!(w.pacing_bps, 4_000_000);
        let mut w = Window::new(50_000, 100_000, 1000);
        h.on_ack(&mut w, &AckCtx { flight: 30_000, ..ack(800.0) }, &mut acts);
        assert_eq!(w.pacing_bps, 500_000);
    }

    /// tcp_hybla.c by hand, SMSS 1000. SRTT 250 ms: rho_3ls = 80 (rho 10,
    /// fraction 0), slow-start increment 1024 x 128 - 128 = 130,944/128 =
    /// 1023 segments. SRTT 60 ms: rho_3ls = 19 (rho 2, fraction 3), 4 x 165
    /// less 128 = 532/128 = 4 segments with 20/128 carried. Congestion
    /// avoidance at rho_3ls 80: rho2_7ls = 12,800, cwnd 300 segments, 42/128
    /// per ACK, a segment every 4th ACK (168 >= 128), the rest carried.
    #[test]
    fn linux_style_fixed_point_by_hand() {
        let lin = || Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Linux, false), 1, false);
        let mut h = lin();
        let mut w = Window::new(4000, INF, 1000);
        h.grow(&mut w, &ack(250.0));
        assert_eq!((h.rho_3ls, h.rho2_7ls, w.cwnd), (80, 12_800, 4000 + 1_023_000));
        let mut h = lin();
        let mut w = Window::new(4000, INF, 1000);
        h.grow(&mut w, &ack(60.0));
        assert_eq!((h.rho_3ls, w.cwnd, h.cents), (19, 8000, 20));
        let mut h = lin();
        let mut w = Window::new(300_000, 100_000, 1000);
        let mut seen = Vec::new();
        for _ in 0..4 {
            h.grow(&mut w, &ack(250.0));
            seen.push(w.cwnd);
        }
        assert_eq!(seen, [300_000, 300_000, 300_000, 301_000]);
        assert_eq!(h.cents, 4 * 42 - 128);
        // slow start stops at ssthresh; recovery grows as Reno
        let mut h = lin();
        let mut w = Window::new(4000, 20_000, 1000);
        h.grow(&mut w, &ack(250.0));
        assert_eq!(w.cwnd, 20_000);
        let mut w = Window::new(4000, INF, 1000);
        h.grow(&mut w, &AckCtx { recovering: true, ..ack(250.0) });
        assert_eq!(w.cwnd, 5000);
        // SRTT 600 ms: rho = 24, 2^16 - 1 = 65,535 segments on one ACK,
        // stopped at snd_cwnd_clamp (65,535 segments)
        let mut h = lin();
        let mut w = Window::new(10_000, INF, 1000);
        h.grow(&mut w, &ack(600.0));
        assert_eq!(w.cwnd, 65_535_000);
    }

    /// Outside the Open state Linux grows as tcp_reno_cong_avoid: in slow
    /// start every segment acknowledged (a delayed ACK of two: +2 with
    /// abc_limit unlimited), in congestion avoidance tcp_cong_avoid_ai, in
    /// bytes as the `linux` profile's AIMD counts it (SMSS x acked / cwnd,
    /// the remainder carried): from cwnd 10,000 with SMSS 1000, ACKs of one
    /// segment add 100 (carry 0), 99 (carry 100), 98 (carry 598), ...:
    /// 10,958 after ten, about the one segment Reno adds per window.
    #[test]
    fn linux_style_grows_as_reno_outside_the_open_state() {
        let mut h = Hybla::new(cfg(HyblaRtt::MinSrtt, HyblaStyle::Linux, false), u32::MAX, false);
        let rec = |acked| AckCtx { recovering: true, acked, ..ack(600.0) };
        let mut w = Window::new(4000, 20_000, 1000);
        h.grow(&mut w, &rec(2000));
        assert_eq!(w.cwnd, 6000);
        let mut w = Window::new(10_000, 5_000, 1000);
        let mut seen = Vec::new();
        for _ in 0..10 {
            h.grow(&mut w, &rec(1000));
            seen.push(w.cwnd);
        }
        assert_eq!(seen[..3], [10_100, 10_199, 10_297]);
        assert_eq!(seen[9], 10_958);
    }
}
