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
    /// The first unarmed packet on link direction `dir` may now have its
    /// arrival scheduled (`LinkDir::push_unarmed`): the instant a relay
    /// cut through would have offered it (`world/cut_through.rs`).
    Arm { dir: u32 },
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
    /// An event the link protocol of direction `dir` scheduled for itself
    /// (`net/link/protocol.rs`): `what` is the protocol's own code (the
    /// holding transmitter's end of a transmission; the ARQ's, an arrival
    /// on its air, its timer), so a new protocol adds no event kind.
    Link { dir: u32, what: u8 },
    /// Link `link`'s next scheduled change (rate, delay, down, up) happens.
    /// All of them are queued when the run is built, so at any instant a
    /// change comes before the packets that meet it.
    LinkChange { link: u32 },
    /// A constellation's topology step: positions, visibility, attachments
    /// and link delays are brought up to date (`world/leo.rs`).
    Topology,
    /// A QUIC endpoint's next timeout (`quic/`): the connection's
    /// `poll_timeout`, whatever timer it is.
    Quic { ep: u32 },
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

    /// [`Entry::key`] as one number: the same order, compared at once.
    #[inline]
    fn key128(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
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

    /// The tie-break number the next push will get (not taken): entries
    /// pushed so far have smaller ones, entries pushed later not.
    #[inline]
    pub fn next_seq(&self) -> u64 {
        self.next_seq
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

    /// The next entry, left in the queue.
    #[inline]
    pub fn peek(&self) -> Option<(Time, Event)> {
        self.heap.first().map(|e| (e.time, e.ev))
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap[0];
        let last = self.heap.pop().unwrap();
        if n > 1 {
            self.sift_down_from_root(last);
        }
        self.took(top)
    }

    /// [`EventQueue::pop`] followed by [`EventQueue::push`]`(time, ev)`, in
    /// one sift: the new entry takes the root's place and goes down. A link
    /// direction whose packet arrives schedules its next arrival at once, a
    /// little later, so this is the engine's most common step, and the new
    /// entry rarely goes far. The order of later pops is the same as with
    /// the pop and the push (the new entry gets the same tie-break number).
    pub fn replace_top(&mut self, time: Time, ev: Event) -> Option<(Time, Event)> {
        let top = *self.heap.first()?;
        let seq = self.reserve_seq();
        self.sift_down_from_root(Entry { time, seq, ev });
        self.took(top)
    }

    #[inline]
    fn took(&mut self, top: Entry) -> Option<(Time, Event)> {
        self.popped += 1;
        self.last_seq = top.seq;
        Some((top.time, top.ev))
    }

    /// Put `e` at the root's place (which is free) and move it down past
    /// smaller children.
    #[inline]
    fn sift_down_from_root(&mut self, e: Entry) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            // the smaller child chosen without a branch: in a large heap
            // (a constellation's thousands of entries) which child is
            // smaller is a coin toss the predictor loses at every level
            let c = if r < n { l + (heap[r].key128() < heap[l].key128()) as usize } else { l };
            if e.key128() <= heap[c].key128() {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = e;
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
    fn replace_top_is_pop_then_push() {
        // the same random operations on two queues, one replacing the top
        // where the other pops and pushes: the same pops, the same numbers
        let mut a = EventQueue::new();
        let mut b = EventQueue::new();
        let mut rng = crate::sim::Rng::new(11, 1);
        let mut now = 0;
        for i in 0..20_000u32 {
            let t = now + rng.next_u64() % 500;
            match rng.next_u64() % 3 {
                0 => {
                    a.push(t, Event::App { app: i });
                    b.push(t, Event::App { app: i });
                }
                1 => {
                    let x = a.pop();
                    assert_eq!(x, b.pop());
                    assert_eq!(a.last_seq(), b.last_seq());
                    now = x.map_or(now, |(t, _)| t);
                }
                _ => {
                    let x = a.pop().inspect(|_| a.push(t, Event::Arrive { dir: i }));
                    let y = b.replace_top(t, Event::Arrive { dir: i });
                    assert_eq!(x, y);
                    assert_eq!(a.last_seq(), b.last_seq());
                    assert_eq!(a.popped(), b.popped());
                    now = x.map_or(now, |(t, _)| t);
                }
            }
            assert_eq!(a.peek(), b.peek());
        }
        while let Some(x) = a.pop() {
            assert_eq!(Some(x), b.pop());
        }
        assert!(b.is_empty());
    }

    #[test]
    fn the_key_as_one_number_orders_as_the_pair() {
        let mut rng = crate::sim::Rng::new(11, 1);
        let ev = Event::Sample;
        let edge = [0, 1, u64::MAX - 1, u64::MAX, 1 << 63, (1 << 63) - 1];
        for i in 0..20_000 {
            // edge values and random ones, equal times half of the time
            let pick = |rng: &mut crate::sim::Rng| if i % 3 == 0 { edge[(rng.next_u64() % 6) as usize] } else { rng.next_u64() };
            let (ta, sa, sb) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
            let tb = if i % 2 == 0 { ta } else { pick(&mut rng) };
            let a = Entry { time: ta, seq: sa, ev };
            let b = Entry { time: tb, seq: sb, ev };
            assert_eq!(a.key128().cmp(&b.key128()), a.key().cmp(&b.key()), "{:?} {:?}", a.key(), b.key());
        }
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
