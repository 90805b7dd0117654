//! TCP's side of Explicit Congestion Notification (RFC 3168 section 6.1):
//! negotiation, the receiver's echo and the sender's once-per-window
//! reduction (`tcp.ecn`). The endpoint calls these at its segment input and
//! output; the queues that mark are in `net/queue/` (`ecn = true`).
//!
//! * Negotiation (6.1.1): an endpoint with `ecn = "on"` sends an ECN-setup
//!   SYN (ECE and CWR); the responder answers with an ECN-setup SYN-ACK (ECE
//!   without CWR) if its own setting is `on` or `accept`, and ECN is then in
//!   use for the connection on both ends. Any other SYN-ACK leaves it off.
//!   With `handshake = false` (ns-2's one-way agents, no SYNs) both ends
//!   share the flow's setting: ECN is in use iff it is `on` (an `accept`
//!   responder would never see an ECN-setup SYN from an initiator that
//!   only accepts).
//! * The sender (6.1.2, 6.1.4, 6.1.5): new data segments are sent ECT(0);
//!   retransmissions, pure ACKs, SYNs, FIN-only segments, window probes'
//!   repeats (they are retransmissions of the byte already sent) and
//!   dummy segments are Not-ECT (Linux `tcp_ecn_send`: a segment with
//!   payload that is not a retransmission). On an ACK carrying ECE (not a
//!   SYN) it reduces as for a loss, through the controller's
//!   `ssthresh_after_loss` (the hook a fast retransmit uses: ssthresh from
//!   the controller, cwnd = min(cwnd, ssthresh)), does not retransmit, and
//!   sets CWR on the next new data segment. At most once per window: not
//!   again until snd_una passes the snd_max of the last reduction (the ACK
//!   that reaches it acknowledges data sent before the reduction, which
//!   the receiver may still be echoing ECE for: the first segment that can
//!   take snd_una beyond it is the one carrying CWR), and not
//!   while loss recovery (fast recovery, or the go-back-N after a timeout:
//!   snd_una below `recover`) is under way, since that recovery already
//!   reduced the window for the same window of data (Linux enters CWR only
//!   from the Open and Disorder states, `tcp_try_to_open`).
//! * The receiver (6.1.3): a CE-marked data segment sets ECE on every
//!   segment it sends until a segment arrives with CWR. As Linux
//!   (`tcp_ack` calls `tcp_ecn_accept_cwr` before `tcp_data_queue` calls
//!   `__tcp_ecn_check_ce`), a segment's CWR is read before its CE, so a
//!   CE-marked segment that carries CWR starts a new echo. Linux ACKs at
//!   once when CE first arrives (`tcp_enter_quickack_mode` on the change
//!   to `TCP_ECN_DEMAND_CWR`) and when data arrives with CWR
//!   (`ICSK_ACK_NOW`): both are followed. Linux's quick ACK on a Not-ECT
//!   segment after ECT was seen (a probable retransmission) is not.
//! * Delivered CE (BBRv3's input): bytes newly acknowledged or SACKed by an
//!   ACK that carries ECE count as delivered CE, as Linux's
//!   `tcp_count_delivered` adds a whole ACK's delivered segments to
//!   `delivered_ce` when it carries ECE (bytes here, segments there).

/// `tcp.ecn`: what an endpoint does about ECN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnSetting {
    /// Never (RFC 3168 off; Linux `tcp_ecn = 0`).
    #[default]
    Off,
    /// Accept ECN when the peer asks, never ask (Linux `tcp_ecn = 2`, the
    /// kernel default; the `linux` profile's when `tcp.ecn` is unset).
    Accept,
    /// Ask for ECN when connecting, and accept it (Linux `tcp_ecn = 1`;
    /// `tcp.ecn = true`).
    On,
}

impl EcnSetting {
    /// It sends an ECN-setup SYN when it connects.
    pub fn asks(self) -> bool {
        self == EcnSetting::On
    }

    /// It answers an ECN-setup SYN with an ECN-setup SYN-ACK.
    pub fn accepts(self) -> bool {
        self != EcnSetting::Off
    }
}

/// One endpoint's ECN state (both halves: it sends and receives).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnState {
    /// ECN is in use on this connection.
    pub ok: bool,
    /// Receiver: a CE mark arrived and no CWR since; ECE on every segment.
    pub echo: bool,
    /// Sender: a reduction happened; the next new data segment carries CWR.
    pub cwr_owed: bool,
    /// Sender: snd_max at the last reduction; no other until snd_una
    /// passes it.
    pub reduced_until: u64,
    /// Sender: reductions made for ECE.
    pub reductions: u64,
}

impl EcnState {
    /// A data segment arrived (`cwr`: it carries CWR; `ce`: it is marked
    /// CE; `payload`: it has data). Returns whether to ACK at once.
    pub fn on_data(&mut self, cwr: bool, ce: bool, payload: bool) -> bool {
        if !self.ok {
            return false;
        }
        let mut now = false;
        if cwr {
            self.echo = false;
            now = payload;
        }
        if ce && !self.echo {
            self.echo = true;
            now = true;
        }
        now
    }

    /// An ACK with ECE arrived with snd_una at `una` (after the ACK) and
    /// `recover` the end of the last loss recovery; `in_loss_recovery`: the
    /// recovery scheme is repairing a loss. Whether to reduce now.
    pub fn may_reduce(&self, una: u64, recover: u64, in_loss_recovery: bool) -> bool {
        self.ok && !in_loss_recovery && una >= recover && una > self.reduced_until
    }

    /// The sender reduced at snd_max `max`.
    pub fn reduced(&mut self, max: u64) {
        self.reduced_until = max;
        self.cwr_owed = true;
        self.reductions += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_ask_and_accept_as_linux_tcp_ecn() {
        assert!(!EcnSetting::Off.asks() && !EcnSetting::Off.accepts());
        assert!(!EcnSetting::Accept.asks() && EcnSetting::Accept.accepts());
        assert!(EcnSetting::On.asks() && EcnSetting::On.accepts());
    }

    /// Hand-worked echo: CE sets it (ACK now), more CE keeps it (no extra
    /// immediate ACK), CWR clears it (ACK now for data), CE with CWR starts
    /// a new echo.
    #[test]
    fn receiver_echoes_from_ce_until_cwr() {
        let mut e = EcnState { ok: true, ..Default::default() };
        assert!(!e.on_data(false, false, true));
        assert!(!e.echo);
        assert!(e.on_data(false, true, true), "the first CE is ACKed at once");
        assert!(e.echo);
        assert!(!e.on_data(false, true, true));
        assert!(!e.on_data(false, false, true));
        assert!(e.echo, "echoed until CWR");
        assert!(e.on_data(true, false, true), "CWR on data is ACKed at once");
        assert!(!e.echo);
        assert!(e.on_data(true, true, true));
        assert!(e.echo, "CWR is read before CE");
        let mut off = EcnState::default();
        assert!(!off.on_data(false, true, true));
        assert!(!off.echo, "without ECN in use, CE means nothing");
    }

    #[test]
    fn sender_reduces_once_per_window() {
        let mut e = EcnState { ok: true, ..Default::default() };
        assert!(e.may_reduce(1000, 0, false));
        e.reduced(5000);
        assert!(e.cwr_owed);
        assert!(!e.may_reduce(4999, 0, false), "ECE within the reduced window");
        assert!(!e.may_reduce(5000, 0, false), "ECE on the ACK of the last byte sent before the reduction");
        assert!(e.may_reduce(5001, 0, false), "snd_una passed the window of the reduction");
        assert!(!e.may_reduce(6000, 7000, false), "loss recovery reduced for this window");
        assert!(!e.may_reduce(8000, 7000, true));
        assert!(!EcnState::default().may_reduce(1000, 0, false));
        assert_eq!(e.reductions, 1);
    }
}
