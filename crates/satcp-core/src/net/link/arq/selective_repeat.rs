//! A selective-repeat ARQ for one satellite hop: the real link-layer
//! protocol that TRANSAT's S-LACP (spec 001 section 1) describes and the
//! paper only approximated (a residual PER and a fixed extra delay during
//! bursts). These are the two state machines; `net/link/arq/mod.rs` puts them
//! on a link direction's transmitter.
//!
//! * **Sender** (one per direction): each IP packet of an ARQ class becomes
//!   a frame with a link sequence number (`lseq`); every transmission of a
//!   frame gets a fresh transmission number (`txn`), as QUIC numbers its
//!   packets, so an acknowledgement says exactly which transmissions got
//!   through. At most `window` frames are outstanding.
//! * **Receiver** (at the far end): delivers frames to IP in lseq order
//!   through a resequencing buffer, discards duplicates, and answers with a
//!   link ACK on the reverse direction: the next lseq it expects
//!   (cumulative), up to `ack_blocks` ranges of lseqs it holds beyond it
//!   (the lowest first), and the largest txn it has received. ACKs are
//!   coalesced: while one waits for the reverse transmitter, later frames
//!   only update what it will say (it is built when it starts).
//! * **Loss detection**: the hop is a FIFO, so a frame whose last
//!   transmission is older than the largest txn received and that the ACK
//!   does not report (within the range the ACK covers) was lost: it is
//!   retransmitted at once. A retransmission timer (`timeout` after the end
//!   of a frame's last transmission) catches lost tails and lost ACKs.
//!   Retransmissions go before new frames and take link capacity.
//! * **Persistence**: a frame is transmitted at most 1 + `persistence`
//!   times; when its last copy is found lost the sender abandons it (the
//!   packet is lost to IP; counted).
//! * **Skipping what the sender gave up**: every frame carries the sender's
//!   floor (the lowest lseq it may still send); the receiver delivers past
//!   any hole below it at once. When no frame follows to carry it, a
//!   resequencing timeout skips a hole whose successor has waited
//!   `reseq_timeout` (by default (persistence + 1) x timeout: longer than
//!   the sender can keep trying); a copy that arrives after its frame was
//!   skipped is discarded as old.
//!
//! Choices where S-LACP is silent (it is "still to be defined" in the
//! paper): sequence numbers are not wrapped (u64); an ACK is sent for every
//! frame received, duplicates included, unless one is already waiting; ACKs
//! are never retransmitted (the next one carries the same information);
//! link ACKs have a fixed size (`ack_size`, 40 bytes by default) whatever
//! the number of ranges they carry.

use std::collections::{BTreeMap, VecDeque};

use crate::net::Packet;
use crate::sim::Time;

/// Default number of retransmissions before a frame is abandoned: the
/// paper's "tries to retransmit a lost packet at most three times" (section
/// 4, its +3 RTT case).
pub const DEFAULT_PERSISTENCE: u32 = 3;
pub const DEFAULT_WINDOW: u32 = 1024;
pub const DEFAULT_HEADER_BYTES: u32 = 8;
pub const DEFAULT_ACK_BYTES: u32 = 40;
pub const DEFAULT_ACK_BLOCKS: u32 = 8;
/// Most ranges an ACK can carry.
pub const MAX_ACK_BLOCKS: usize = 8;

/// The protocol's parameters, resolved (the scenario's `arq` table with its
/// defaults filled in from the link).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArqParams {
    pub persistence: u32,
    pub window: u32,
    pub timeout_ns: u64,
    pub reseq_timeout_ns: u64,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub ack_blocks: usize,
}

/// What a link ACK says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkAck {
    /// The next lseq the receiver expects: everything below is delivered
    /// (or skipped).
    pub cum: u64,
    /// Ranges [start, end) held beyond `cum`, lowest first.
    pub blocks: [(u64, u64); MAX_ACK_BLOCKS],
    pub n_blocks: u8,
    /// The largest transmission number received (0: none yet).
    pub largest_txn: u64,
}

impl LinkAck {
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n_blocks as usize]
    }

    /// The lseq below which this ACK tells the whole truth: the end of its
    /// last range (or `cum`).
    pub fn covered_to(&self) -> u64 {
        self.blocks().last().map_or(self.cum, |b| b.1)
    }
}

/// A frame of the sender's window.
#[derive(Clone, Copy, Debug)]
struct Outstanding {
    pkt: Packet,
    /// Transmissions so far.
    tx_count: u32,
    /// The number of its last transmission.
    last_txn: u64,
    /// When its first copy would have arrived had nothing been lost.
    nominal: Time,
    /// Reported held by the receiver.
    sacked: bool,
    /// Waiting in the retransmission queue.
    queued: bool,
    /// Given up (persistence exhausted) or acknowledged: awaiting removal.
    done: bool,
}

/// A frame as it goes on the air.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub lseq: u64,
    /// The sender's floor when it was sent: it will never send a frame
    /// below it again.
    pub floor: u64,
    pub txn: u64,
    pub nominal: Time,
    pub pkt: Packet,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub frames: u64,
    pub retransmissions: u64,
    pub by_timer: u64,
    pub abandoned: u64,
}

/// The sending half.
pub struct ArqSender {
    p: ArqParams,
    /// lseq of `win[0]`.
    base: u64,
    win: VecDeque<Outstanding>,
    /// lseqs to retransmit, in the order found lost.
    retx: VecDeque<u64>,
    next_txn: u64,
    /// (deadline, lseq, txn) of each transmission, in transmission order:
    /// deadlines grow with it, so the earliest live one is at the front.
    deadlines: VecDeque<(Time, u64, u64)>,
    pub stats: SenderStats,
}

impl ArqSender {
    pub fn new(p: ArqParams) -> Self {
        ArqSender { p, base: 0, win: VecDeque::new(), retx: VecDeque::new(), next_txn: 1, deadlines: VecDeque::new(), stats: SenderStats::default() }
    }

    /// Room for a new frame.
    pub fn can_send_new(&self) -> bool {
        (self.win.len() as u64) < self.p.window as u64
    }

    #[cfg(test)]
    pub fn has_retx(&self) -> bool {
        !self.retx.is_empty()
    }

    /// Frames not yet acknowledged or abandoned.
    /// Frames in the window (outstanding or done, not yet slid past).
    pub fn in_window(&self) -> usize {
        self.win.len()
    }

    #[cfg(test)]
    pub fn outstanding(&self) -> usize {
        self.win.iter().filter(|o| !o.done).count()
    }

    fn slot(&mut self, lseq: u64) -> Option<&mut Outstanding> {
        let i = lseq.checked_sub(self.base)? as usize;
        self.win.get_mut(i)
    }

    /// Transmit a new frame carrying `pkt`, its first copy due at `nominal`
    /// if nothing goes wrong.
    pub fn send_new(&mut self, pkt: Packet, nominal: Time) -> Frame {
        let lseq = self.base + self.win.len() as u64;
        let txn = self.take_txn();
        self.win.push_back(Outstanding { pkt, tx_count: 1, last_txn: txn, nominal, sacked: false, queued: false, done: false });
        self.stats.frames += 1;
        Frame { lseq, floor: self.base, txn, nominal, pkt }
    }

    /// Transmit the next frame of the retransmission queue, if any still
    /// needs it.
    pub fn send_retx(&mut self) -> Option<Frame> {
        while let Some(lseq) = self.retx.pop_front() {
            let (floor, txn) = (self.base, self.next_txn);
            let Some(o) = self.slot(lseq) else { continue };
            o.queued = false;
            if o.done || o.sacked {
                continue;
            }
            o.tx_count += 1;
            o.last_txn = txn;
            let f = Frame { lseq, floor, txn, nominal: o.nominal, pkt: o.pkt };
            self.next_txn += 1;
            self.stats.retransmissions += 1;
            return Some(f);
        }
        None
    }

    fn take_txn(&mut self) -> u64 {
        self.next_txn += 1;
        self.next_txn - 1
    }

    /// The transmission of `f` ended at `end`: its timer runs from now.
    pub fn sent(&mut self, f: &Frame, end: Time) {
        self.deadlines.push_back((end + self.p.timeout_ns, f.lseq, f.txn));
    }

    /// The earliest live retransmission deadline.
    pub fn next_deadline(&mut self) -> Option<Time> {
        while let Some(&(t, lseq, txn)) = self.deadlines.front() {
            let live = match lseq.checked_sub(self.base).and_then(|i| self.win.get(i as usize)) {
                Some(o) => !o.done && !o.sacked && !o.queued && o.last_txn == txn,
                None => false,
            };
            if live {
                return Some(t);
            }
            self.deadlines.pop_front();
        }
        None
    }

    /// The retransmission timer at `now`: every frame whose deadline has
    /// passed is lost. Abandoned packets go to `abandoned`.
    pub fn on_timer(&mut self, now: Time, abandoned: &mut Vec<Packet>) {
        while let Some(t) = self.next_deadline() {
            if t > now {
                break;
            }
            let (_, lseq, _) = self.deadlines.pop_front().unwrap();
            self.stats.by_timer += 1;
            self.lost(lseq, abandoned);
        }
        self.trim();
    }

    /// A link ACK arrived. Frames it shows lost are queued for
    /// retransmission or, out of persistence, abandoned into `abandoned`.
    pub fn on_ack(&mut self, ack: &LinkAck, abandoned: &mut Vec<Packet>) {
        // what it says beyond the frames sent cannot be (a corrupted or
        // forged ACK): it is read within the window
        let end = self.base + self.win.len() as u64;
        // cumulative: delivered or skipped by the receiver
        while self.base < ack.cum.min(end) {
            self.win.pop_front();
            self.base += 1;
        }
        for &(s, e) in ack.blocks() {
            for lseq in s.max(self.base)..e.min(end) {
                if let Some(o) = self.slot(lseq) {
                    o.sacked = true;
                }
            }
        }
        // a transmission older than one that got through, not reported held
        // within the range the ACK covers: lost on the FIFO hop
        let top = ack.covered_to();
        let n = (top.saturating_sub(self.base) as usize).min(self.win.len());
        for i in 0..n {
            let o = &self.win[i];
            if !o.done && !o.sacked && !o.queued && o.last_txn < ack.largest_txn {
                self.lost(self.base + i as u64, abandoned);
            }
        }
        self.trim();
    }

    /// Frame `lseq`'s last copy is lost: resend it, or give it up.
    fn lost(&mut self, lseq: u64, abandoned: &mut Vec<Packet>) {
        let persistence = self.p.persistence;
        let Some(o) = self.slot(lseq) else { return };
        if o.tx_count > persistence {
            o.done = true;
            abandoned.push(o.pkt);
            self.stats.abandoned += 1;
        } else {
            o.queued = true;
            self.retx.push_back(lseq);
        }
    }

    /// Drop finished frames (abandoned, or held by the receiver) from the
    /// front of the window.
    fn trim(&mut self) {
        while self.win.front().is_some_and(|o| o.done || o.sacked) {
            self.win.pop_front();
            self.base += 1;
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    /// Frames delivered to IP.
    pub delivered: u64,
    /// Copies of frames already delivered or skipped.
    pub duplicates: u64,
    /// Frames never delivered: skipped below the sender's floor or by the
    /// resequencing timeout.
    pub skipped: u64,
    /// Delivered later than their first copy would have arrived.
    pub delayed: u64,
    /// Sum and maximum of that extra delay.
    pub extra_delay_ns: u64,
    pub max_extra_delay_ns: u64,
    pub max_buffered: u64,
    /// Frames no correct sender sends (a floor above the frame, or a frame
    /// beyond the window above the floor), ignored.
    pub invalid: u64,
}

/// The receiving half.
pub struct ArqReceiver {
    reseq_timeout_ns: u64,
    expected: u64,
    /// Frames held beyond `expected`: the packet, its nominal arrival and
    /// when it arrived.
    buf: BTreeMap<u64, (Packet, Time, Time)>,
    largest_txn: u64,
    /// Received something since the last ACK was built.
    pub ack_due: bool,
    ack_blocks: usize,
    window: u64,
    pub stats: ReceiverStats,
}

impl ArqReceiver {
    pub fn new(p: &ArqParams) -> Self {
        ArqReceiver {
            reseq_timeout_ns: p.reseq_timeout_ns,
            expected: 0,
            buf: BTreeMap::new(),
            largest_txn: 0,
            ack_due: false,
            ack_blocks: p.ack_blocks,
            window: p.window as u64,
            stats: ReceiverStats::default(),
        }
    }

    /// Frames held for resequencing.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// A frame arrived intact at `now`; packets now in order go to `out`.
    pub fn on_frame(&mut self, now: Time, f: &Frame, out: &mut Vec<Packet>) {
        // a correct sender's frame is at or above its floor and within its
        // window of it (or of what was expected)
        if f.floor > f.lseq || f.lseq >= f.floor.max(self.expected).saturating_add(self.window) {
            self.stats.invalid += 1;
            return;
        }
        self.largest_txn = self.largest_txn.max(f.txn);
        self.ack_due = true;
        if f.lseq < self.expected || self.buf.contains_key(&f.lseq) {
            // delivered already, or skipped (a copy that came too late)
            self.stats.duplicates += 1;
            return;
        }
        if f.lseq == self.expected && self.buf.is_empty() {
            // in order with nothing held: the common case, no buffering
            self.deliver(now, f.pkt, f.nominal, out);
            self.expected += 1;
            return;
        }
        self.buf.insert(f.lseq, (f.pkt, f.nominal, now));
        self.stats.max_buffered = self.stats.max_buffered.max(self.buf.len() as u64);
        if f.floor > self.expected {
            // the sender gave up everything missing below its floor
            self.skip_to(now, f.floor, out);
        }
        self.release(now, out);
    }

    /// Stop waiting for the frames missing below `lseq`; deliver the ones
    /// held there (in time proportional to what is held, not to the gap).
    fn skip_to(&mut self, now: Time, lseq: u64, out: &mut Vec<Packet>) {
        if lseq <= self.expected {
            return;
        }
        let mut held = 0;
        while let Some(e) = self.buf.first_entry() {
            if *e.key() >= lseq {
                break;
            }
            let (p, nominal, _) = e.remove();
            self.deliver(now, p, nominal, out);
            held += 1;
        }
        self.stats.skipped += lseq - self.expected - held;
        self.expected = lseq;
    }

    /// Deliver what is in order.
    fn release(&mut self, now: Time, out: &mut Vec<Packet>) {
        while let Some((p, nominal, _)) = self.buf.remove(&self.expected) {
            self.deliver(now, p, nominal, out);
            self.expected += 1;
        }
    }

    fn deliver(&mut self, now: Time, p: Packet, nominal: Time, out: &mut Vec<Packet>) {
        self.stats.delivered += 1;
        let extra = now.saturating_sub(nominal);
        if extra > 0 {
            self.stats.delayed += 1;
            self.stats.extra_delay_ns += extra;
            self.stats.max_extra_delay_ns = self.stats.max_extra_delay_ns.max(extra);
        }
        out.push(p);
    }

    /// When the head-of-line hole will be skipped: its successor's arrival
    /// plus the resequencing timeout.
    pub fn deadline(&self) -> Option<Time> {
        self.buf.values().next().map(|&(_, _, at)| at + self.reseq_timeout_ns)
    }

    /// The resequencing timer at `now`: skip every head-of-line hole whose
    /// successor has waited the timeout, delivering what follows in order.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        while let Some((&first, &(_, _, at))) = self.buf.iter().next() {
            if at + self.reseq_timeout_ns > now {
                break;
            }
            self.skip_to(now, first, out);
            self.release(now, out);
        }
    }

    /// The ACK to send now (clears `ack_due`).
    pub fn build_ack(&mut self) -> LinkAck {
        self.ack_due = false;
        let mut ack = LinkAck { cum: self.expected, blocks: [(0, 0); MAX_ACK_BLOCKS], n_blocks: 0, largest_txn: self.largest_txn };
        let mut n = 0usize;
        for &lseq in self.buf.keys() {
            if n > 0 && ack.blocks[n - 1].1 == lseq {
                ack.blocks[n - 1].1 += 1;
            } else if n == self.ack_blocks {
                break;
            } else {
                ack.blocks[n] = (lseq, lseq + 1);
                n += 1;
            }
        }
        ack.n_blocks = n as u8;
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn params() -> ArqParams {
        ArqParams { persistence: 2, window: 8, timeout_ns: 100 * MS, reseq_timeout_ns: 400 * MS, header_bytes: 8, ack_bytes: 40, ack_blocks: 4 }
    }

    fn pkt(i: u32) -> Packet {
        Packet::udp(0, 1, 0, 100 + i)
    }

    fn ids(v: &[Packet]) -> Vec<u32> {
        v.iter().map(|p| p.ip_bytes - 100).collect()
    }

    #[test]
    fn receiver_resequences_and_acks_what_it_holds() {
        let mut rx = ArqReceiver::new(&params());
        let mut s = ArqSender::new(params());
        let frames: Vec<Frame> = (0..6).map(|i| s.send_new(pkt(i), 0)).collect();
        let mut out = vec![];
        // 0 arrives, 1 and 3 lost, 2, 4, 5 arrive
        for i in [0, 2, 4, 5] {
            rx.on_frame(10, &frames[i], &mut out);
        }
        assert_eq!(ids(&out), vec![0], "held behind the hole at 1");
        assert_eq!(rx.buffered(), 3);
        let ack = rx.build_ack();
        assert_eq!((ack.cum, ack.blocks(), ack.largest_txn), (1, &[(2, 3), (4, 6)][..], 6));
        assert!(!rx.ack_due);
        // duplicates are discarded and counted
        rx.on_frame(11, &frames[2], &mut out);
        rx.on_frame(11, &frames[0], &mut out);
        assert_eq!(rx.stats.duplicates, 2);
        // the sender learns 1 and 3 are lost and resends them first
        let mut gone = vec![];
        s.on_ack(&ack, &mut gone);
        assert!(gone.is_empty());
        let r1 = s.send_retx().unwrap();
        let r3 = s.send_retx().unwrap();
        assert_eq!((r1.lseq, r3.lseq, r1.txn, r3.txn), (1, 3, 7, 8), "fresh transmission numbers");
        assert!(s.send_retx().is_none());
        rx.on_frame(20, &r3, &mut out);
        assert_eq!(ids(&out), vec![0]);
        rx.on_frame(21, &r1, &mut out);
        assert_eq!(ids(&out), vec![0, 1, 2, 3, 4, 5], "in order, each once");
        assert_eq!(rx.buffered(), 0);
        assert_eq!(rx.deadline(), None);
        assert_eq!((rx.stats.delivered, rx.stats.delayed, rx.stats.max_extra_delay_ns), (6, 6, 21));
    }

    #[test]
    fn ack_blocks_are_the_lowest_ranges_and_loss_is_judged_only_below_them() {
        let mut p = params();
        p.ack_blocks = 2;
        p.window = 32;
        let mut s = ArqSender::new(p);
        let mut rx = ArqReceiver::new(&p);
        let frames: Vec<Frame> = (0..10).map(|i| s.send_new(pkt(i), 0)).collect();
        let mut out = vec![];
        // received: 1, 3, 5, 7..9 (holes 0, 2, 4, 6)
        for i in [1, 3, 5, 7, 8, 9] {
            rx.on_frame(0, &frames[i], &mut out);
        }
        let ack = rx.build_ack();
        assert_eq!(ack.blocks(), &[(1, 2), (3, 4)]);
        assert_eq!(ack.covered_to(), 4);
        let mut gone = vec![];
        s.on_ack(&ack, &mut gone);
        // 0 and 2 are known lost; 4 and 6 lie beyond what the ACK covers
        let mut resent = vec![];
        while let Some(f) = s.send_retx() {
            resent.push(f.lseq);
        }
        assert_eq!(resent, vec![0, 2]);
    }

    #[test]
    fn persistence_limit_abandons_a_frame_after_one_plus_persistence_copies() {
        let mut s = ArqSender::new(params()); // persistence 2: three copies
        let f = s.send_new(pkt(0), 0);
        s.sent(&f, 10 * MS);
        let mut gone = vec![];
        assert_eq!(s.next_deadline(), Some(110 * MS));
        s.on_timer(109 * MS, &mut gone);
        assert!(!s.has_retx(), "not before the deadline");
        s.on_timer(110 * MS, &mut gone);
        let f2 = s.send_retx().unwrap();
        s.sent(&f2, 120 * MS);
        assert_eq!(s.next_deadline(), Some(220 * MS), "the old deadline is stale");
        s.on_timer(220 * MS, &mut gone);
        let f3 = s.send_retx().unwrap();
        s.sent(&f3, 230 * MS);
        assert!(gone.is_empty());
        s.on_timer(330 * MS, &mut gone);
        assert_eq!(ids(&gone), vec![0], "the third copy lost: given up");
        assert!(!s.has_retx());
        assert_eq!(s.outstanding(), 0);
        assert_eq!(s.next_deadline(), None);
        assert_eq!((s.stats.frames, s.stats.retransmissions, s.stats.by_timer, s.stats.abandoned), (1, 2, 3, 1));
        assert!(s.can_send_new());
    }

    #[test]
    fn window_limits_outstanding_frames_and_reopens_on_ack() {
        let mut s = ArqSender::new(params());
        let mut rx = ArqReceiver::new(&params());
        let mut out = vec![];
        for i in 0..8 {
            let f = s.send_new(pkt(i), 0);
            if i != 0 {
                rx.on_frame(0, &f, &mut out);
            }
        }
        assert!(!s.can_send_new());
        // 1..8 held: they leave the window only when 0 is through
        s.on_ack(&rx.build_ack(), &mut vec![]);
        assert!(!s.can_send_new(), "frame 0 still blocks the window");
        let r = s.send_retx().unwrap();
        rx.on_frame(0, &r, &mut out);
        s.on_ack(&rx.build_ack(), &mut vec![]);
        assert!(s.can_send_new());
        assert_eq!(s.outstanding(), 0);
        assert_eq!(ids(&out), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn receiver_skips_a_hole_after_the_resequencing_timeout() {
        let mut rx = ArqReceiver::new(&params()); // 400 ms
        let mut s = ArqSender::new(params());
        let f: Vec<Frame> = (0..4).map(|i| s.send_new(pkt(i), 0)).collect();
        let mut out = vec![];
        rx.on_frame(5 * MS, &f[1], &mut out);
        rx.on_frame(6 * MS, &f[3], &mut out);
        assert_eq!(rx.deadline(), Some(405 * MS));
        rx.on_timer(404 * MS, &mut out);
        assert!(out.is_empty());
        // skip 0, deliver 1; a new hole (2) holds 3 from now
        rx.on_timer(405 * MS, &mut out);
        assert_eq!(ids(&out), vec![1]);
        assert_eq!(rx.deadline(), Some(406 * MS), "3 has waited since 6 ms");
        rx.on_timer(406 * MS, &mut out);
        assert_eq!(ids(&out), vec![1, 3]);
        assert_eq!(rx.stats.skipped, 2);
        assert_eq!(rx.build_ack().cum, 4);
        // a late copy of 0 is not delivered twice
        rx.on_frame(900 * MS, &f[0], &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn a_frame_carries_the_senders_floor_so_the_receiver_skips_what_was_given_up_at_once() {
        let mut p = params();
        p.persistence = 0;
        let mut s = ArqSender::new(p);
        let mut rx = ArqReceiver::new(&p);
        let mut out = vec![];
        let f0 = s.send_new(pkt(0), 0);
        let f1 = s.send_new(pkt(1), 0);
        assert_eq!((f0.floor, f1.floor), (0, 0));
        rx.on_frame(MS, &f1, &mut out); // 0 was lost
        assert!(out.is_empty());
        let mut gone = vec![];
        s.on_ack(&rx.build_ack(), &mut gone);
        assert_eq!(ids(&gone), vec![0], "persistence 0: given up when found lost");
        let f2 = s.send_new(pkt(2), 0);
        assert_eq!(f2.floor, 2, "0 given up and 1 held by the receiver");
        rx.on_frame(2 * MS, &f2, &mut out);
        assert_eq!(ids(&out), vec![1, 2], "no resequencing timeout needed");
        assert_eq!(rx.stats.skipped, 1);
        assert_eq!(rx.deadline(), None);
    }
}
