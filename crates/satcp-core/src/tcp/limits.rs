//! What stops a sender, measured after every attempt to send: the time
//! spent limited by the congestion window, the receive window, the
//! application and pacing (the four shares a flow reports as `limited`),
//! and the state congestion-window validation needs.
//!
//! The shares are like Linux's `tcp_info` chrono times (busy,
//! rwnd-limited, sndbuf-limited) with the application and pacing split out:
//! * `rwnd`: the next segment does not fit the peer's window;
//! * `pacing`: it fits, but the pacing timer holds it;
//! * `app`: the application has given nothing more to send and no loss is
//!   being repaired (the tail of a transfer, waiting for its last ACKs, is
//!   application time, as is an HTTP server waiting for a request);
//! * `cwnd`: anything else with data to send (the congestion window or the
//!   recovery scheme's pipe is full, maximum burst, a retransmission limit).
//!
//! Time is counted from the connection's establishment to its completion
//! (or the end of the run), so the four shares add up to one.
//!
//! Congestion-window validation (`cwnd_validation = "linux"`) is Linux's
//! `tcp_is_cwnd_limited` (include/net/tcp.h) with `tcp_cwnd_validate`'s
//! bookkeeping (net/ipv4/tcp_output.c): after each attempt the sender notes
//! whether cwnd stopped it; once per window of data (until snd_una passes
//! the snd_nxt of the last note) the flag and the largest flight are
//! latched; the window may grow while the flag is set or, in slow start,
//! while cwnd is below twice the largest flight. A sender held by pacing
//! counts as limited by cwnd: window pacing spreads cwnd over the round
//! trip, so the window is in use (Linux gets the same effect by pacing at
//! 1.2 x cwnd / SRTT, which lets the in-flight count reach cwnd). RFC 7661 instead lets cwnd
//! grow while pipeACK >= cwnd/2 and shrinks it after a non-validated period
//! of five minutes; Linux's rule is the one deployed stacks run, so satcp
//! implements it (in bytes rather than packets).

use crate::sim::Time;

/// Why the sender stopped, in the order the shares are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Cwnd = 0,
    Rwnd = 1,
    App = 2,
    Pacing = 3,
}

#[derive(Clone, Debug, Default)]
pub struct SendLimits {
    /// Nanoseconds spent in each `Limit`.
    pub ns: [u64; 4],
    current: Option<Limit>,
    since: Time,
    done: bool,
    /// cwnd stopped the sender during the current window (Linux
    /// `is_cwnd_limited`).
    cwnd_limited: bool,
    /// Largest flight (bytes) in the current window (`max_packets_out`).
    max_flight: u64,
    /// The window ends when snd_una reaches this (`cwnd_usage_seq`).
    usage_end: u64,
}

impl SendLimits {
    /// The sender stopped for `why` at `now` with `flight` bytes
    /// outstanding, snd_una `una` and snd_nxt `nxt`.
    pub fn note(&mut self, now: Time, why: Limit, flight: u64, una: u64, nxt: u64) {
        if self.done {
            return;
        }
        if self.current != Some(why) {
            if let Some(c) = self.current {
                self.ns[c as usize] += now - self.since;
            }
            self.current = Some(why);
            self.since = now;
        }
        // a window-paced sender spreads its window over the round trip: held
        // by the pacer, it is using its window (Linux paces at 1.2 x cwnd /
        // SRTT in congestion avoidance so that its in-flight count reaches
        // cwnd; satcp counts the pacer's hold directly)
        let by_cwnd = matches!(why, Limit::Cwnd | Limit::Pacing);
        if una >= self.usage_end || by_cwnd || (!self.cwnd_limited && flight > self.max_flight) {
            self.cwnd_limited = by_cwnd;
            self.max_flight = flight;
            self.usage_end = nxt;
        }
    }

    /// Whether `note(_, Limit::App, 0, una, nxt)` would change nothing:
    /// already application-limited with nothing in flight and the usage
    /// window at `nxt` (or counting has stopped).
    pub fn settled_app(&self, una: u64, nxt: u64) -> bool {
        self.done
            || (self.current == Some(Limit::App)
                && !self.cwnd_limited
                && self.max_flight == 0
                && self.usage_end == nxt
                && una >= nxt)
    }

    /// Stop counting (the connection completed, or the run ends).
    pub fn finish(&mut self, now: Time) {
        if !self.done {
            if let Some(c) = self.current {
                self.ns[c as usize] += now - self.since;
            }
            self.done = true;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: whether the window may grow now.
    pub fn cwnd_may_grow(&self, cwnd: u64, in_slow_start: bool) -> bool {
        self.cwnd_limited || (in_slow_start && cwnd < 2 * self.max_flight)
    }

    /// The shares of the counted time, in `Limit` order (zeros if none).
    pub fn shares(&self) -> [f64; 4] {
        let total: u64 = self.ns.iter().sum();
        if total == 0 {
            return [0.0; 4];
        }
        self.ns.map(|x| x as f64 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_goes_to_the_limit_in_force() {
        let mut l = SendLimits::default();
        l.note(0, Limit::Cwnd, 10, 0, 10);
        l.note(30, Limit::Cwnd, 10, 0, 10);
        l.note(40, Limit::Rwnd, 10, 0, 10);
        l.note(70, Limit::App, 0, 10, 10);
        l.finish(100);
        l.note(200, Limit::Pacing, 0, 10, 10);
        l.finish(300);
        assert_eq!(l.ns, [40, 30, 30, 0]);
        assert_eq!(l.shares(), [0.4, 0.3, 0.3, 0.0]);
    }

    #[test]
    fn growth_needs_a_full_window_or_slow_start_below_twice_the_flight() {
        let mut l = SendLimits::default();
        // stopped by the receive window with 10 kB out: no growth in CA,
        // growth in slow start only below 20 kB
        l.note(0, Limit::Rwnd, 10_000, 0, 10_000);
        assert!(!l.cwnd_may_grow(15_000, false));
        assert!(l.cwnd_may_grow(15_000, true));
        assert!(!l.cwnd_may_grow(20_000, true));
        // cwnd stops it: the flag holds for the rest of that window even if
        // the application runs dry
        l.note(1, Limit::Cwnd, 12_000, 0, 12_000);
        l.note(2, Limit::App, 12_000, 5_000, 12_000);
        assert!(l.cwnd_may_grow(50_000, false));
        // a new window (snd_una past 12,000) re-latches from the new note
        l.note(3, Limit::App, 0, 12_000, 12_000);
        assert!(!l.cwnd_may_grow(50_000, false));
    }

    #[test]
    fn settled_app_means_a_further_app_note_changes_nothing() {
        let mut l = SendLimits::default();
        assert!(!l.settled_app(0, 0)); // nothing noted yet
        l.note(0, Limit::Cwnd, 5_000, 0, 5_000);
        assert!(!l.settled_app(5_000, 5_000));
        l.note(10, Limit::App, 0, 5_000, 5_000);
        assert!(l.settled_app(5_000, 5_000));
        assert!(!l.settled_app(5_000, 6_000)); // new data sent since
        let before = format!("{l:?}");
        l.note(20, Limit::App, 0, 5_000, 5_000);
        assert_eq!(format!("{l:?}"), before);
        // App with data still in flight is not settled
        let mut m = SendLimits::default();
        m.note(0, Limit::App, 3_000, 0, 3_000);
        assert!(!m.settled_app(0, 3_000));
        m.finish(5);
        assert!(m.settled_app(0, 3_000));
    }
}
