//! How Linux opens its receive window (the `linux` profile's receiver,
//! and `rwnd = "auto"` in any profile): `tcp_input.c` (`tcp_grow_window`,
//! `tcp_rcv_space_adjust`, `tcp_rcv_rtt_update`, `tcp_incr_quickack`,
//! `__tcp_ack_snd_check`), as the 6.18 kernel of the cross-check runs it
//! (docs/validation-linux.md shows its ACKs and windows in captures).
//!
//! Four quantities, in window bytes (Linux keeps the buffer in memory
//! bytes and converts with `scaling_ratio`; only the initial buffer and
//! the cap are given in memory here, the rest cancels):
//! * the advertised window's bound `rcv_ssthresh` (`window`): it starts at
//!   the initial window and, for every in-order segment of 128 bytes or
//!   more, grows by max(2 x MSS, 2 x the segment) while there is room
//!   under the clamp and the free buffer; each time it grows the next ACK
//!   goes at once (`icsk_ack.quick |= 1`);
//! * the clamp (`window_clamp`), which Dynamic Right-Sizing raises once
//!   per receiver round trip, when the application has read more than in
//!   the round trip before (`rcvq_space`): to twice what it read plus 16
//!   segments, plus twice that again times the growth since the round
//!   trip before (`tcp_rcv_space_adjust`'s "4x factor": a slow start that
//!   doubles its rate gets about six times what it read), never above the
//!   cap (`tcp_rmem[2]`); a buffer the application set (`SO_RCVBUF`) is
//!   locked: the clamp stays at it;
//! * the receiver's round trip (`rcv_rtt_est`), which times Right-Sizing:
//!   with timestamps, the time since the receiver sent the ACK a data
//!   segment echoes, in whole ticks of the 1 ms clock (one sample per
//!   echo, none of zero ticks), followed up by an eighth and down at once;
//!   without them, the time a window's worth of data takes to arrive,
//!   taken only when lower. No Right-Sizing before the first sample;
//! * the quick-ACK credit: 16 ACKs sent at once when the first data
//!   arrives (`TCP_MAX_QUICKACKS`; the initial window allows 27) and
//!   again after a gap longer than the retransmission timeout; each ACK
//!   spends one.
//!
//! So while a slow start's rate doubles, the window grows in steps a
//! round trip apart and each step is used up within the round: the
//! segments that open it are ACKed one by one, the rest one ACK per two
//! segments. That mixture is what decides whether CUBIC's HyStart sees an
//! ACK train (ACKs at most 2 ms apart for half a round trip): on the
//! cross-check's 10 Mb/s path, one ACK per segment is 1.2 ms, one per two
//! is 2.4 ms. Where in a round the step falls decides it: the echo-based
//! round trip is the time from the receiver's ACK to the data it released,
//! which puts every step on the first segments of a round as the kernel
//! does; the handshake's RTT, used before, is a little longer than that
//! (it includes the first segment's serialisation), and the step slid a
//! segment later every round until the train broke at its start.
//!
//! Choices:
//! * The application reads as data arrives (the cross-check's receiver
//!   reads in a loop), so Right-Sizing runs after each in-order segment
//!   and the buffer holds nothing but out-of-order data.
//! * The timestamp clock starts at 0 with the simulation (Linux adds a
//!   random offset per connection, which cancels in the differences).
//! * The memory-to-window ratio is 158/256: what the kernel's
//!   `scaling_ratio` measured for 1,448-byte segments through the
//!   cross-check's TUN devices (its 131,072-byte initial buffer offered
//!   80,896 bytes); drivers differ.
//! * Right-Sizing's formula is 6.12's (Debian's `linux-source-6.12`), not
//!   the twice-what-it-read of the `tcp_rcvbuf_grow` posted for 6.16: the
//!   cross-check's 6.18 kernel raised its clamp to 5.4-6.4 times what it
//!   had read in the round trip before, step after step (116,736 to
//!   4,446,208 bytes over 30 MB at 10 Mb/s, 300 ms one way;
//!   docs/validation-linux.md), which 6.12's formula gives and the other
//!   does not.

use crate::sim::Time;

/// Window bytes a byte of receive buffer holds (Linux's `scaling_ratio`,
/// see the module doc).
pub const WINDOW_RATIO: (u64, u64) = (158, 256);
/// Linux's initial receive buffer (`tcp_rmem[1]`).
pub const INITIAL_BUFFER: u64 = 131_072;
/// Linux's largest autotuned buffer (`tcp_rmem[2]`, 32 MiB since 6.17).
pub const MAX_BUFFER: u64 = 32 << 20;
/// Quick ACKs at the connection's first data (`TCP_MAX_QUICKACKS`).
const MAX_QUICKACKS: u32 = 16;
/// Segments shorter than this open no window (`tcp_event_data_recv`).
const GROW_MIN_LEN: u64 = 128;
/// The receiver's first guess of the segment size (`TCP_MSS_DEFAULT`).
const DEFAULT_RCV_MSS: u64 = 536;
/// A tick of the timestamp clock (`TCP_TS_HZ` = 1000).
pub const TS_TICK: Time = 1_000_000;

/// The timestamp clock's reading at `now` (ticks of [`TS_TICK`]).
pub fn ts_clock(now: Time) -> u32 {
    (now / TS_TICK) as u32
}

/// The window a buffer of `bytes` offers.
pub fn window_of(bytes: u64) -> u64 {
    bytes * WINDOW_RATIO.0 / WINDOW_RATIO.1
}

/// Linux's receive window and its quick-ACK credit.
#[derive(Clone, Debug)]
pub struct LinuxWindow {
    /// The advertised window's bound (`rcv_ssthresh`).
    pub window: u64,
    /// The most the window may grow to now (`window_clamp`).
    clamp: u64,
    /// The most the clamp grows to (`tcp_rmem[2]`'s window).
    cap: u64,
    /// The application set the buffer: no Right-Sizing.
    locked: bool,
    /// Bytes read in the last measured round trip (`rcvq_space.space`),
    /// and where the current measurement began (bytes read, time).
    space: u64,
    space_from: u64,
    space_since: Option<Time>,
    /// The receiver's round trip (`rcv_rtt_est`).
    rtt: ReceiverRtt,
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u32,
    /// When the last data segment arrived (`icsk_ack.lrcvtime`); None
    /// before the first.
    last_data: Option<Time>,
    /// The segment size it expects (`advmss`).
    mss: u64,
    /// The largest segment seen so far (`icsk_ack.rcv_mss`, from 536).
    rcv_mss: u64,
}

impl LinuxWindow {
    /// An autotuned window whose buffer grows up to `cap_window` window
    /// bytes; `mss` is the segment size it expects.
    pub fn autotuned(cap_window: u64, mss: u64) -> Self {
        let initial = window_of(INITIAL_BUFFER).min(cap_window);
        LinuxWindow {
            window: initial,
            clamp: initial,
            cap: cap_window,
            locked: false,
            space: (10 * mss).min(initial),
            space_from: 0,
            space_since: None,
            rtt: ReceiverRtt::default(),
            quick: 0,
            last_data: None,
            mss,
            rcv_mss: DEFAULT_RCV_MSS.min(mss),
        }
    }

    /// A buffer the application set (`SO_RCVBUF`): the window opens from
    /// the initial window up to `window` bytes, with no Right-Sizing.
    pub fn locked(window: u64, mss: u64) -> Self {
        let initial = window_of(INITIAL_BUFFER).min(window);
        LinuxWindow { clamp: window, cap: window, locked: true, ..Self::autotuned(window, mss) }.with_window(initial)
    }

    fn with_window(mut self, w: u64) -> Self {
        self.window = w;
        self
    }

    /// The most the window opens to.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The most the window may grow to now (`window_clamp`).
    pub fn clamp(&self) -> u64 {
        self.clamp
    }

    /// The receiver's round-trip estimate (`rcv_rtt_est`); None before
    /// the first sample.
    pub fn rtt(&self) -> Option<Time> {
        self.rtt.get()
    }

    /// The connection is established at `now`: the first measurement of
    /// what the application reads begins (`tcp_init_buffer_space`).
    pub fn established(&mut self, now: Time, read: u64) {
        self.space_since = Some(now);
        self.space_from = read;
    }

    /// A data segment of `len` bytes arrived at `now`, echoing `tsecr`
    /// (the timestamp option's echo, in the receiver's own clock ticks, if
    /// the option is on; `now_tick` is that clock now), and `rto` is the
    /// receiver's retransmission timeout: the timestamps' round-trip
    /// sample (`tcp_rcv_rtt_measure_ts`), and quick ACKs at the first data
    /// or after a silence longer than the RTO (`tcp_event_data_recv`).
    pub fn on_data(&mut self, now: Time, len: u64, ts: Option<(u32, u32)>, rto: Time) {
        if let Some((now_tick, tsecr)) = ts {
            self.rtt.timestamp_sample(now_tick, tsecr, len >= self.rcv_mss);
        }
        self.rcv_mss = self.rcv_mss.max(len.min(self.mss));
        match self.last_data {
            None => self.incr_quickack(),
            Some(t) if now - t > rto => self.incr_quickack(),
            _ => {}
        }
        self.last_data = Some(now);
    }

    fn incr_quickack(&mut self) {
        let q = ((self.window / (2 * self.mss)) as u32).clamp(2, MAX_QUICKACKS);
        self.quick = self.quick.max(q);
    }

    /// An in-order segment of `len` bytes arrived while `held` bytes wait
    /// out of order (`tcp_grow_window`): the window grows if there is room
    /// (under the clamp and in the buffer's free part), and the next ACK
    /// goes at once. Returns whether it grew.
    pub fn grow(&mut self, len: u64, held: u64) -> bool {
        if len < GROW_MIN_LEN {
            return false;
        }
        let room = self.clamp.min(self.clamp.saturating_sub(held)).saturating_sub(self.window);
        if room == 0 {
            return false;
        }
        self.window += room.min((2 * self.mss).max(2 * len));
        self.quick |= 1;
        true
    }

    /// In-order data up to `rcv_nxt` has arrived and the application has
    /// read all of it (`read` bytes in all) at `now`: the window's round
    /// trip sample (`tcp_rcv_rtt_measure`), then Right-Sizing once a
    /// receiver round trip (`tcp_rcv_space_adjust`).
    pub fn read(&mut self, now: Time, rcv_nxt: u64, read: u64) {
        self.rtt.window_sample(now, rcv_nxt, self.window);
        let (Some(since), Some(rtt)) = (self.space_since, self.rtt.get()) else { return };
        if now - since < rtt {
            return;
        }
        let copied = read - self.space_from;
        if copied > self.space {
            self.right_size(copied);
            self.space = copied;
        }
        self.space_from = read;
        self.space_since = Some(now);
    }

    /// Right-Sizing on a round trip that read `copied` bytes, more than the
    /// `space` the round trip before read: twice it plus 16 segments, plus
    /// twice that times the relative growth, up to the cap; the clamp never
    /// shrinks.
    fn right_size(&mut self, copied: u64) {
        if self.locked {
            return;
        }
        let base = 2 * copied + 16 * self.mss;
        let grow = base * (copied - self.space) / self.space.max(1);
        self.clamp = self.clamp.max((base + 2 * grow).min(self.cap));
    }

    /// Whether the next ACK goes at once (`tcp_in_quickack_mode`).
    pub fn quickack(&self) -> bool {
        self.quick > 0
    }

    /// An ACK of new data was sent (`tcp_dec_quickack_mode`).
    pub fn ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
    }
}

/// The round trip as Linux's receiver estimates it (`rcv_rtt_est`), for
/// Right-Sizing: from the timestamps, the time since it sent the ACK a
/// data segment echoes (in whole clock ticks), smoothed by 1/8 on the way
/// up and taken at once on the way down; without them, the time a window
/// of data takes to arrive, lowest only (`tcp_rcv_rtt_update`).
#[derive(Clone, Debug, Default)]
struct ReceiverRtt {
    /// Eight times the estimate, in ns (`rtt_us` keeps it so); 0 = none.
    est8: u64,
    /// The echo the last timestamp sample came from (one sample per echo).
    last_tsecr: Option<u32>,
    /// The window measurement: the byte that ends it and when it began.
    window_from: Option<(u64, Time)>,
}

impl ReceiverRtt {
    fn get(&self) -> Option<Time> {
        (self.est8 > 0).then_some(self.est8 / 8)
    }

    fn update(&mut self, sample: Time, window_based: bool) {
        let m = sample * 8;
        if self.est8 == 0 || m < self.est8 {
            self.est8 = m;
        } else if !window_based {
            self.est8 = self.est8 - self.est8 / 8 + sample;
        }
    }

    /// A data segment echoing `tsecr` arrived when the clock read
    /// `now_tick`; `full` if it was a full-sized segment (only those give
    /// samples). A zero-tick sample is none.
    fn timestamp_sample(&mut self, now_tick: u32, tsecr: u32, full: bool) {
        if self.last_tsecr == Some(tsecr) {
            return;
        }
        self.last_tsecr = Some(tsecr);
        let ticks = now_tick.wrapping_sub(tsecr);
        if full && ticks > 0 && ticks < i32::MAX as u32 {
            self.update(ticks as u64 * TS_TICK, false);
        }
    }

    /// In-order data up to `rcv_nxt` at `now`, the window `window`.
    fn window_sample(&mut self, now: Time, rcv_nxt: u64, window: u64) {
        if let Some((end, since)) = self.window_from {
            if rcv_nxt < end {
                return;
            }
            self.update((now - since).max(1), true);
        }
        self.window_from = Some((rcv_nxt + window, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Time = 1_000_000;
    const RTO: Time = 1000 * MS;

    /// The window opens per segment up to the clamp (the initial buffer's
    /// 80,896 bytes); Right-Sizing waits for a round-trip sample, then
    /// raises the clamp once a receiver round trip, by what was read.
    #[test]
    fn the_window_opens_per_segment_up_to_a_clamp_that_right_sizing_raises() {
        let mss = 1448;
        let mut w = LinuxWindow::autotuned(window_of(MAX_BUFFER), mss);
        assert_eq!((w.window, w.clamp, w.space), (80_896, 80_896, 14_480));
        w.established(0, 0);
        // at the clamp already: no room
        assert!(!w.grow(mss, 0));
        // no round-trip sample yet: no measurement, however long
        w.read(500 * MS, 1, 10 * mss);
        assert_eq!((w.space_from, w.rtt()), (0, None));
        // a segment echoing tick 0 at tick 100: 100 ms; the read measures
        // 10 segments, no more than the first guess (10): no growth
        w.on_data(600 * MS, mss, Some((100, 0)), RTO);
        assert_eq!(w.rtt(), Some(100 * MS));
        w.read(600 * MS, 1, 10 * mss);
        assert_eq!((w.space, w.clamp, w.space_from), (14_480, 80_896, 10 * mss));
        // half a round trip later: not measured yet
        w.read(650 * MS, 1, 20 * mss);
        assert_eq!(w.space_from, 10 * mss);
        // a round trip read 20 segments, twice the first measurement's 10:
        // 2 x 28,960 + 16 x 1,448 = 81,088, grown by twice that x (28,960 -
        // 14,480) / 14,480
        w.read(700 * MS, 1, 30 * mss);
        assert_eq!((w.space, w.clamp), (28_960, 3 * 81_088));
        // the next round trip 40 segments: 2 x 57,920 + 23,168 = 139,008, x 3
        w.read(800 * MS, 1, 70 * mss);
        assert_eq!((w.space, w.clamp), (57_920, 3 * 139_008));
        // 336,128 bytes of room: 116 openings of 2,896, the last of 192
        let grew = (0..118).filter(|_| w.grow(mss, 0)).count();
        assert_eq!((grew, w.window), (117, 417_024));
        // a round trip that read less leaves the clamp and the measure
        w.read(900 * MS, 1, 80 * mss);
        assert_eq!((w.space, w.clamp), (57_920, 417_024));
        // the cap stops it: a round trip of 100 MB
        w.read(1000 * MS, 1, 100 << 20);
        assert_eq!(w.clamp, window_of(MAX_BUFFER));
        // out-of-order data held takes room in the buffer
        let free = w.clamp - w.window;
        assert!(!w.grow(mss, free), "held data fills the room");
        assert!(w.grow(mss, free - 100));
        assert_eq!(w.clamp - w.window, free - 100);
        // a locked buffer's clamp never moves
        let mut l = LinuxWindow::locked(1 << 20, mss);
        l.established(0, 0);
        l.on_data(100 * MS, mss, Some((100, 0)), RTO);
        l.read(200 * MS, 1, 1 << 30);
        assert_eq!(l.clamp, 1 << 20);
    }

    /// The timestamps' round trip: one sample per echo, from full-sized
    /// segments, none of zero ticks; up by an eighth of the difference,
    /// down at once.
    #[test]
    fn the_receiver_s_round_trip_follows_the_echoes_up_slowly_and_down_at_once() {
        let mss = 1448;
        let mut w = LinuxWindow::autotuned(1 << 20, mss);
        w.on_data(0, mss, Some((500, 500)), RTO);
        assert_eq!(w.rtt(), None, "a zero-tick sample is none");
        w.on_data(0, 100, Some((600, 400)), RTO);
        assert_eq!(w.rtt(), None, "shorter than the segments seen: no sample");
        w.on_data(0, mss, Some((600, 500)), RTO);
        assert_eq!(w.rtt(), Some(100 * MS));
        // up: 8 x 100 - 100 + 180 = 880 -> 110 ms
        w.on_data(0, mss, Some((780, 600)), RTO);
        assert_eq!(w.rtt(), Some(110 * MS));
        // the same echo again gives nothing
        w.on_data(0, mss, Some((900, 600)), RTO);
        assert_eq!(w.rtt(), Some(110 * MS));
        // down at once
        w.on_data(0, mss, Some((990, 900)), RTO);
        assert_eq!(w.rtt(), Some(90 * MS));
        // without timestamps: the time a window's worth takes to arrive,
        // and only if lower
        let mut r = ReceiverRtt::default();
        r.window_sample(0, 1, 10_000);
        r.window_sample(50 * MS, 5_000, 10_000);
        assert_eq!(r.get(), None, "the window's end not reached");
        r.window_sample(80 * MS, 10_001, 10_000);
        assert_eq!(r.get(), Some(80 * MS));
        r.window_sample(300 * MS, 20_001, 10_000);
        assert_eq!(r.get(), Some(80 * MS), "higher: ignored");
        r.window_sample(330 * MS, 30_001, 10_000);
        assert_eq!(r.get(), Some(30 * MS));
    }

    /// Sixteen quick ACKs at the first data, one more each time the
    /// window opens (only when none is left: `quick |= 1`), sixteen again
    /// after a silence longer than the RTO.
    #[test]
    fn quick_acks_come_at_the_start_when_the_window_opens_and_after_a_silence() {
        let mss = 1448;
        let mut w = LinuxWindow::locked(1 << 20, mss);
        assert_eq!(w.window, 80_896);
        w.on_data(0, mss, None, RTO);
        for _ in 0..16 {
            assert!(w.quickack());
            w.ack_sent();
        }
        assert!(!w.quickack());
        assert!(w.grow(mss, 0), "a locked buffer opens up to its size");
        assert!(w.quickack());
        w.ack_sent();
        w.on_data(500 * MS, mss, None, RTO);
        assert!(!w.quickack(), "no silence");
        w.on_data(1600 * MS, mss, None, RTO);
        assert!(w.quickack());
    }
}
