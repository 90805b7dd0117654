//! Limited Transmit, RFC 3042 (and RFC 5681 section 3.2 step 1).
//!
//! On each of the first DupThresh - 1 duplicate ACKs, outside loss recovery,
//! the sender may send one new segment beyond cwnd, if the receiver's window
//! allows; cwnd itself is unchanged, so at most DupThresh - 1 segments above
//! cwnd are outstanding ("FlightSize <= cwnd + 2 SMSS" for DupThresh = 3).
//! Only new data is sent this way, unless `limited_transmit_style = "ns2"`:
//! ns-2's `send_one()` sends whatever `t_seqno_` points at, which after a
//! timeout is a go-back-N resend (the check is in `Endpoint::fill_windows`).
//! ns-2's FACK agent has no Limited Transmit at all (`fack.rs`). The
//! segments are left out of FlightSize
//! when the following fast retransmit computes ssthresh (RFC 5681: "MUST NOT
//! be included"); `Sender::lt_bytes` carries them until the cumulative ACK
//! moves. Applies to every recovery scheme; for SACK and FACK a duplicate
//! ACK is one that SACKs new data (RFC 6675 section 2), as they count them.

use crate::tcp::Endpoint;

impl Endpoint {
    /// Bytes beyond cwnd that Limited Transmit allows for new data now.
    pub(crate) fn limited_transmit_room(&self) -> u64 {
        let s = &self.snd;
        if !self.cfg.limited_transmit || s.phase.in_recovery() {
            return 0;
        }
        let dupacks = s.phase.dupacks();
        if dupacks == 0 || dupacks >= self.cfg.dupthresh {
            return 0;
        }
        dupacks as u64 * s.smss()
    }
}
