//! Proportional Rate Reduction (RFC 6937) as Linux runs it in SACK
//! recovery (`prr = true`, the `linux` profile; `tcp_cwnd_reduction` in
//! `tcp_input.c`). RFC 6675 sets cwnd = ssthresh at once and then sends
//! nothing until the pipe has drained below it, then everything at once
//! when losses have emptied it; PRR spreads the reduction over the round
//! trip of the recovery instead.
//!
//! On every ACK of the recovery that delivers data (newly acknowledged or
//! SACKed; an ACK that delivers nothing changes nothing), in segments:
//! * prr_delivered += delivered;
//! * pipe > ssthresh (proportional part): sndcnt = ceil(ssthresh x
//!   prr_delivered / prior_cwnd) - prr_out;
//! * else (slow-start reduction bound, PRR-SSRB): sndcnt = min(ssthresh -
//!   pipe, max(prr_delivered - prr_out, delivered) + 1), the + 1 only when
//!   the ACK advanced snd_una and marked nothing newly lost (Linux's reading
//!   of RFC 6937bis; RFC 6937 adds one MSS always);
//! * sndcnt is at least 1 while nothing has been sent (the fast retransmit);
//! * cwnd = pipe + sndcnt.
//! Every segment sent in the recovery, retransmission or new data, adds to
//! prr_out. When recovery ends cwnd = ssthresh (`tcp_end_cwnd_reduction`).
//!
//! Choices (Linux's where RFC 6937 differs):
//! * RecoverFS is Linux's `prior_cwnd`, cwnd when recovery began, not the
//!   RFC's snd.nxt - snd.una.
//! * Counted in whole segments as Linux counts packets (a partial segment
//!   counts as one), so the ceiling lets the first ACKs send a segment each
//!   as the kernel does; satcp's byte-valued cwnd is then (pipe + sndcnt)
//!   segments.
//! * "Newly lost" is the lost boundary (RFC 6675 IsLost or RACK) moving
//!   on this ACK.
//! * A controller that sets cwnd on every ACK itself (BBR, Linux's
//!   `cong_control`) is left alone, as Linux skips PRR for it.
//! * Only SACK recovery runs it. Without SACK the `linux` profile keeps
//!   NewReno's inflation with retransmissions held to the pipe
//!   (`newreno_within_cwnd`), which matches the kernel's completion times
//!   (`docs/validation-linux.md`).

/// PRR's state for one recovery, in segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// cwnd when recovery began (RecoverFS).
    prior_cwnd: u64,
    /// Delivered since recovery began.
    delivered: u64,
    /// Sent since recovery began.
    out: u64,
}

/// What one ACK told PRR, in segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrAck {
    /// Newly acknowledged or SACKed.
    pub delivered: u64,
    /// The ACK moved snd_una.
    pub una_advanced: bool,
    /// The ACK marked data newly lost.
    pub newly_lost: bool,
}

impl Prr {
    /// Recovery begins with a window of `prior_cwnd` segments.
    pub fn start(prior_cwnd: u64) -> Self {
        Prr { prior_cwnd: prior_cwnd.max(1), delivered: 0, out: 0 }
    }

    /// `segs` segments were sent.
    pub fn sent(&mut self, segs: u64) {
        self.out += segs;
    }

    /// The segments this ACK lets the sender send beyond `pipe`, given
    /// `ssthresh` (all in segments); None if it delivered nothing (cwnd
    /// stays as it is).
    pub fn sndcnt(&mut self, ack: PrrAck, ssthresh: u64, pipe: u64) -> Option<u64> {
        if ack.delivered == 0 {
            return None;
        }
        self.delivered += ack.delivered;
        let cnt = if pipe > ssthresh {
            (ssthresh * self.delivered).div_ceil(self.prior_cwnd).saturating_sub(self.out)
        } else {
            let bonus = (ack.una_advanced && !ack.newly_lost) as u64;
            (self.delivered.saturating_sub(self.out).max(ack.delivered) + bonus).min(ssthresh - pipe)
        };
        Some(cnt.max((self.out == 0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(delivered: u64) -> PrrAck {
        PrrAck { delivered, una_advanced: false, newly_lost: false }
    }

    /// cwnd 20, ssthresh 14 (CUBIC's 0.7), one segment lost, each ACK
    /// delivering one. While the pipe is above ssthresh the k-th ACK sends
    /// ceil(14 k / 20) - prr_out: 1, 1, 1, 0, 1, 1, 0, ... (the ceiling
    /// front-loads it, as Linux's packet counts do); once the pipe reaches
    /// ssthresh the reduction bound keeps it there. After one round trip
    /// the pipe is ssthresh, reached without a pause of half a window.
    #[test]
    fn proportional_part_sends_ssthresh_over_prior_cwnd() {
        let mut p = Prr::start(20);
        let mut sent = Vec::new();
        let mut pipe = 19; // 20 out, the lost one no longer counted
        for _ in 0..20 {
            pipe -= 1; // this ACK's segment left the network
            let n = p.sndcnt(ack(1), 14, pipe).unwrap();
            p.sent(n);
            pipe += n;
            sent.push(n);
        }
        assert_eq!(&sent[..7], &[1, 1, 1, 0, 1, 1, 0]);
        assert_eq!(sent[..14].iter().sum::<u64>(), 10);
        assert_eq!(pipe, 14);
    }

    /// Heavy loss: the pipe (10) is already far below ssthresh (70).
    /// RFC 6675 would send 60 segments at once; PRR-SSRB sends what each
    /// ACK delivered plus one when it advanced snd_una and marked nothing
    /// newly lost (pipe + 1 per ACK), and only what was delivered when it
    /// marked a new loss (packet conservation). The bound ssthresh - pipe
    /// caps it near the end.
    #[test]
    fn reduction_bound_grows_one_segment_per_ack() {
        let mut p = Prr::start(100);
        p.sent(1); // the fast retransmit
        let mut pipe = 10;
        let up = PrrAck { delivered: 2, una_advanced: true, newly_lost: false };
        for k in 0..5 {
            pipe -= 2;
            let n = p.sndcnt(up, 70, pipe).unwrap();
            // the first: max(2 - 1, 2) + 1
            assert_eq!(n, 3, "ACK {k}");
            p.sent(n);
            pipe += n;
        }
        assert_eq!(pipe, 15);
        let lost = PrrAck { newly_lost: true, ..up };
        pipe -= 2;
        assert_eq!(p.sndcnt(lost, 70, pipe), Some(2));
        p.sent(2);
        // near ssthresh: at most ssthresh - pipe
        assert_eq!(p.sndcnt(up, 16, 15), Some(1));
    }

    #[test]
    fn nothing_delivered_changes_nothing_and_first_ack_forces_the_retransmit() {
        let mut p = Prr::start(10);
        assert_eq!(p.sndcnt(ack(0), 7, 9), None);
        // ceil(7 x 1 / 10) = 1 anyway; with ssthresh 0 the floor of one holds
        let mut q = Prr::start(10);
        assert_eq!(q.sndcnt(ack(1), 0, 9), Some(1));
        q.sent(1);
        assert_eq!(q.sndcnt(ack(1), 0, 9), Some(0));
    }
}
