//! Loss recovery: how duplicate and partial ACKs are read and which segments
//! are resent. Each scheme is an `impl Endpoint` block in its own file; the
//! endpoint dispatches on `TcpCfg::recovery`.
//!
//! Options that change recovery for every scheme have their own files too:
//! Limited Transmit (`limited_transmit`) and F-RTO (`frto`); SACK
//! recovery's RACK (`rack`), PRR (`prr`) and tail loss probe with RACK's
//! reordering timer (`tlp`).
//!
//! State: where recovery stands is one [`Phase`] (Linux's `ca_state`), which
//! also counts the run of duplicate ACKs; what a scheme keeps for itself is
//! its variant of [`Scheme`], defined in its file. `recover` (RFC 6582
//! "recover", RFC 6675 RecoveryPoint) stays on the sender: the RTO sets it,
//! controllers read it, and every scheme uses it.
//!
//! Duplicate ACKs: the endpoint decides whether an ACK is a duplicate in the
//! scheme's sense (for SACK and FACK, one that SACKs new data), asks the
//! window controller's `loss_verdict` about it, counts it in the phase, and
//! only then hands it to the scheme (see `Endpoint::on_ack`).
//!
//! The schemes return from their new-ACK hook whether the retransmission
//! timer should be restarted (RFC 6298 5.3), because NewReno's "impatient"
//! rule restarts it only on the first partial ACK (RFC 6582 3.2 step 3).

mod fack;
pub mod frto;
mod limited_transmit;
mod newreno;
pub mod prr;
pub mod rack;
mod reno;
pub mod tlp;
mod sack;
mod tahoe;

use crate::scenario::{Recovery, SackPipe};

/// Where loss recovery stands (as Linux's `ca_state`), with the duplicate
/// ACKs in a row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Nothing amiss.
    #[default]
    Open,
    /// This many duplicate ACKs in a row (at least one), no repair yet.
    Disorder(u32),
    /// Fast recovery (the SACK and FACK recoveries included), until the
    /// cumulative ACK reaches `recover` (Reno: until the next ACK of new
    /// data). The duplicate ACKs keep being counted; no scheme reads them
    /// here.
    Recovery(u32),
    /// Go-back-N after a retransmission timeout or Tahoe's fast retransmit,
    /// until the cumulative ACK reaches `recover`; with the duplicate ACKs
    /// in a row since the last ACK of new data.
    Loss(u32),
}

impl Phase {
    /// Duplicate ACKs in a row.
    #[inline]
    pub fn dupacks(self) -> u32 {
        match self {
            Phase::Open => 0,
            Phase::Disorder(n) | Phase::Recovery(n) | Phase::Loss(n) => n,
        }
    }

    #[inline]
    pub fn in_recovery(self) -> bool {
        matches!(self, Phase::Recovery(_))
    }

    /// One more duplicate ACK.
    pub(crate) fn count_dupack(&mut self) {
        *self = match *self {
            Phase::Open => Phase::Disorder(1),
            Phase::Disorder(n) => Phase::Disorder(n + 1),
            Phase::Recovery(n) => Phase::Recovery(n + 1),
            Phase::Loss(n) => Phase::Loss(n + 1),
        };
    }

    /// An ACK of new data outside fast recovery ends the run of duplicates.
    pub(crate) fn end_dupacks(&mut self) {
        *self = match *self {
            Phase::Open | Phase::Disorder(_) => Phase::Open,
            Phase::Loss(_) => Phase::Loss(0),
            Phase::Recovery(n) => Phase::Recovery(n),
        };
    }

    /// Fast recovery begins.
    pub(crate) fn enter_recovery(&mut self) {
        *self = Phase::Recovery(self.dupacks());
    }
}

/// What each recovery scheme keeps for itself (its type is in its file).
#[derive(Clone, Copy, Debug)]
pub enum Scheme {
    NewReno(newreno::NewRenoState),
    Reno,
    Tahoe,
    Sack(sack::SackState),
    Fack(fack::FackState),
}

impl Scheme {
    pub fn new(r: Recovery) -> Self {
        Self::with_sack_pipe(r, SackPipe::Rfc6675)
    }

    /// SACK recovery counts its pipe as `sack_pipe` says.
    pub fn with_sack_pipe(r: Recovery, pipe: SackPipe) -> Self {
        match r {
            Recovery::NewReno => Scheme::NewReno(Default::default()),
            Recovery::Reno => Scheme::Reno,
            Recovery::Tahoe => Scheme::Tahoe,
            Recovery::Sack => Scheme::Sack(sack::SackState { ns2: pipe == SackPipe::Ns2, ..Default::default() }),
            Recovery::Fack => Scheme::Fack(Default::default()),
        }
    }

    /// RFC 6675 HighRxt (an exclusive end: how far the SACK-based schemes
    /// have retransmitted), which pipe counts from snd_una; 0 for the
    /// schemes that keep none (every use clamps it to snd_una).
    #[inline]
    pub fn high_rxt(&self) -> u64 {
        match self {
            Scheme::Sack(sack::SackState { high_rxt, .. }) | Scheme::Fack(fack::FackState { high_rxt, .. }) => *high_rxt,
            Scheme::NewReno(_) | Scheme::Reno | Scheme::Tahoe => 0,
        }
    }

    /// SACK recovery with ns-2 Sack1's counted pipe.
    pub fn sack_pipe_ns2(&self) -> bool {
        matches!(self, Scheme::Sack(sack::SackState { ns2: true, .. }))
    }

    /// Set HighRxt (nothing for the schemes that keep none).
    /// ns-2's FACK: a timeout kept recovery and its go-back-N has not
    /// caught up with snd.max yet.
    pub(crate) fn fack_resending(&self) -> bool {
        matches!(self, Scheme::Fack(fack::FackState { resending: true, .. }))
    }

    pub(crate) fn set_fack_resending(&mut self, on: bool) {
        if let Scheme::Fack(s) = self {
            s.resending = on;
        }
    }

    pub(crate) fn set_high_rxt(&mut self, x: u64) {
        match self {
            Scheme::Sack(s) => s.high_rxt = x,
            Scheme::Fack(s) => s.high_rxt = x,
            Scheme::NewReno(_) | Scheme::Reno | Scheme::Tahoe => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_counts_duplicates_and_keeps_them_through_recovery() {
        let mut p = Phase::Open;
        p.count_dupack();
        p.count_dupack();
        assert_eq!((p, p.dupacks(), p.in_recovery()), (Phase::Disorder(2), 2, false));
        p.end_dupacks();
        assert_eq!(p, Phase::Open);
        for _ in 0..3 {
            p.count_dupack();
        }
        p.enter_recovery();
        assert_eq!((p, p.in_recovery()), (Phase::Recovery(3), true));
        // an ACK of new data in recovery is the scheme's business
        p.end_dupacks();
        p.count_dupack();
        assert_eq!(p, Phase::Recovery(4));
        // after a timeout the run restarts from zero and stays in Loss
        let mut l = Phase::Loss(0);
        l.count_dupack();
        assert_eq!((l.dupacks(), l.in_recovery()), (1, false));
        l.end_dupacks();
        assert_eq!(l, Phase::Loss(0));
    }

    #[test]
    fn high_rxt_belongs_to_the_sack_based_schemes() {
        for r in [Recovery::Sack, Recovery::Fack] {
            let mut s = Scheme::new(r);
            s.set_high_rxt(7);
            assert_eq!(s.high_rxt(), 7);
        }
        for r in [Recovery::NewReno, Recovery::Reno, Recovery::Tahoe] {
            let mut s = Scheme::new(r);
            s.set_high_rxt(7);
            assert_eq!(s.high_rxt(), 0);
        }
    }
}
