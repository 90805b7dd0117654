//! Event queue ordered by (time, insertion sequence).
//!
//! Two events at the same nanosecond run in the order they were scheduled, so
//! a run never depends on heap internals. Entries are small `Copy` values; the
//! heap's storage is reused, so steady state allocates nothing.

use super::Time;

/// What happens. Payloads are arena indices, never pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The first packet in flight on link direction `dir` reaches the far
    /// end. Each direction keeps its packets in arrival order and has at most
    /// one such entry queued (for its head), which keeps the heap small.
    Arrive { dir: u32 },
    /// A TCP endpoint's timer.
    Timer { ep: u32, kind: TimerKind },
    /// Application `app` has something scheduled (start, next page).
    App { app: u32 },
    /// Record one row of every time series.
    Sample,
    /// The run's stop time.
    Stop,
    /// A packet held back on link direction `dir` (reordering, overtakable
    /// burst delay) arrives: one entry per such packet, in time order.
    ArriveLate { dir: u32 },
    /// The transmitter of link direction `dir`, one that holds packets
    /// (priority queue), finishes sending its current packet.
    TxDone { dir: u32 },
    /// The first item (frame, bypass packet or link ACK) on the air of ARQ
    /// link direction `dir` reaches the far end (one entry per busy
    /// direction, as for `Arrive`).
    ArqArrive { dir: u32 },
    /// The ARQ timer of direction `dir` (its sender's retransmission timer
    /// and the resequencing timer of the receiver beside it).
    ArqTimer { dir: u32 },
    /// Link `link`'s next scheduled change (rate, delay, down, up) happens.
    /// All of them are queued when the run is built, so at any instant a
    /// change comes before the packets that meet it.
    LinkChange { link: u32 },
    /// A constellation's topology step: positions, visibility, attachments
    /// and link delays are brought up to date (`world/leo.rs`).
    Topology,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Rto,
    DelayedAck,
    /// The pacing gap before the next segment may leave has passed.
    Pace,
    /// The window controller's own timer (`tcp::cc::Action::WakeAt`).
    Cc,
    /// RACK's reordering timer or the tail loss probe
    /// (`tcp/recovery/tlp.rs`), which share one slot as in Linux.
    RackTlp,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    ev: Event,
}

impl Entry {
    #[inline]
    fn key(&self) -> (Time, u64) {
        (self.time, self.seq)
    }
}

/// A binary min-heap on (time, seq). Hand-written rather than
/// `BinaryHeap<Reverse<..>>` so the comparison is one tuple compare and the
/// hole-based sift moves each entry once.
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    next_seq: u64,
    popped: u64,
    /// The tie-break number of the entry popped last.
    last_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of entries taken off the queue so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    pub fn push(&mut self, time: Time, ev: Event) {
        let seq = self.reserve_seq();
        self.push_seq(time, seq, ev);
    }

    /// The tie-break number the next push would get, taken now: an entry
    /// pushed later with it is ordered among equal times as if it had been
    /// pushed now (a lazy timer's place is where it was last set).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// The tie-break number of the entry popped last.
    #[inline]
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Push with a tie-break number from [`EventQueue::reserve_seq`].
    pub fn push_seq(&mut self, time: Time, seq: u64, ev: Event) {
        let e = Entry { time, seq, ev };
        self.heap.push(e);
        // sift up on a local slice: its pointer and length stay in registers
        let heap = &mut self.heap[..];
        let mut i = heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if heap[p].key() <= e.key() {
                break;
            }
            heap[i] = heap[p];
            i = p;
        }
        heap[i] = e;
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| e.time)
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        self.popped += 1;
        let top = self.heap[0];
        self.last_seq = top.seq;
        let last = self.heap.pop().unwrap();
        let n = n - 1;
        if n > 0 {
            let mut i = 0;
            loop {
                let l = 2 * i + 1;
                if l >= n {
                    break;
                }
                let r = l + 1;
                let c = if r < n && self.heap[r].key() < self.heap[l].key() { r } else { l };
                if last.key() <= self.heap[c].key() {
                    break;
                }
                self.heap[i] = self.heap[c];
                i = c;
            }
            self.heap[i] = last;
        }
        Some((top.time, top.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        for app in 0..100u32 {
            q.push(5, Event::App { app });
        }
        q.push(1, Event::Sample);
        assert_eq!(q.pop(), Some((1, Event::Sample)));
        for app in 0..100u32 {
            assert_eq!(q.pop(), Some((5, Event::App { app })));
        }
        assert_eq!(q.pop(), None);
        assert_eq!(q.popped(), 101);
    }

    #[test]
    fn pops_in_time_order_for_random_pushes() {
        let mut q = EventQueue::new();
        let mut rng = crate::sim::Rng::new(7, 1);
        let mut times = Vec::new();
        for i in 0..5000u32 {
            let t = rng.next_u64() % 1000;
            times.push((t, i));
            q.push(t, Event::App { app: i });
            // interleave pops to exercise sift-down on partial heaps
            if i % 7 == 0 {
                let (t0, Event::App { app }) = q.pop().unwrap() else { panic!() };
                times.retain(|&(t, a)| !(t == t0 && a == app));
                assert!(times.iter().all(|&(t, a)| (t, a) > (t0, app)));
            }
        }
        let mut last = (0, 0);
        while let Some((t, Event::App { app })) = q.pop() {
            assert!((t, app) >= last);
            last = (t, app);
        }
    }
}
