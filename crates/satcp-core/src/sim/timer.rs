//! A restartable timer with lazy cancellation.
//!
//! TCP restarts its RTO and delayed-ACK timers far more often than they fire.
//! Instead of removing queue entries, a timer keeps its deadline and the one
//! queue entry it counts as live (time and tie-break number); an entry that
//! pops as any other, or after the timer was stopped or moved later, is
//! ignored (moving later re-queues once, when the live entry pops).
//!
//! Ties: each (re)start takes its tie-break number from the queue at once
//! and a re-queued entry keeps it, so among events at the same instant the
//! timer fires where an eagerly rescheduled one would: after the events
//! scheduled before its last restart and before those scheduled after it.
//! ns-2 and ns-3 order equal times by insertion and reschedule a timer on
//! every restart; a delayed-ACK timer that expires at the instant the next
//! segment arrives fires first if it was set first (seen in the ns-2
//! cross-check of TRANSAT's bursts: with the re-queue's number, the segment
//! won and two ACKs became one).

use super::{Event, EventQueue, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    deadline: Option<Time>,
    /// The tie-break number of the last (re)start.
    seq: u64,
    /// The live queue entry: (time, tie-break number).
    queued: Option<(Time, u64)>,
}

impl Timer {
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_running(&self) -> bool {
        self.deadline.is_some()
    }

    /// (Re)start the timer to fire at `at`.
    pub fn set(&mut self, at: Time, q: &mut EventQueue, ev: Event) {
        self.deadline = Some(at);
        self.seq = q.reserve_seq();
        match self.queued {
            // an earlier entry will re-queue it when it pops
            Some((t, _)) if t < at => {}
            _ => {
                q.push_seq(at, self.seq, ev);
                self.queued = Some((at, self.seq));
            }
        }
    }

    pub fn stop(&mut self) {
        self.deadline = None;
    }

    /// Called when one of this timer's queue entries pops at `now` (the
    /// queue's `last_seq` identifies it). Returns true if the timer fires
    /// now (and it is then stopped).
    pub fn on_pop(&mut self, now: Time, q: &mut EventQueue, ev: Event) -> bool {
        if self.queued != Some((now, q.last_seq())) {
            return false; // a superseded entry
        }
        self.queued = None;
        match self.deadline {
            None => false,
            Some(d) if d > now => {
                q.push_seq(d, self.seq, ev);
                self.queued = Some((d, self.seq));
                false
            }
            Some(_) => {
                self.deadline = None;
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::queue::TimerKind;

    const EV: Event = Event::Timer { ep: 0, kind: TimerKind::Rto };

    /// Pop everything: the timer's firings and any other event, in order.
    fn order(t: &mut Timer, q: &mut EventQueue) -> Vec<(Time, &'static str)> {
        let mut out = vec![];
        while let Some((now, ev)) = q.pop() {
            match ev {
                Event::Timer { .. } => {
                    if t.on_pop(now, q, ev) {
                        out.push((now, "timer"));
                    }
                }
                _ => out.push((now, "other")),
            }
        }
        out
    }

    /// The times the timer fires.
    fn drive(t: &mut Timer, q: &mut EventQueue) -> Vec<Time> {
        order(t, q).into_iter().map(|(at, _)| at).collect()
    }

    #[test]
    fn restart_later_fires_once_at_last_deadline() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(100, &mut q, EV);
        t.set(150, &mut q, EV);
        t.set(300, &mut q, EV);
        assert_eq!(q.len(), 1, "moving later must not queue new entries");
        assert_eq!(drive(&mut t, &mut q), vec![300]);
    }

    #[test]
    fn restart_earlier_fires_at_earlier_only() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(300, &mut q, EV);
        t.set(100, &mut q, EV);
        assert_eq!(drive(&mut t, &mut q), vec![100]);
    }

    #[test]
    fn stopped_timer_never_fires_and_can_be_rearmed() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(100, &mut q, EV);
        t.stop();
        assert_eq!(drive(&mut t, &mut q), Vec::<Time>::new());
        t.set(500, &mut q, EV);
        assert_eq!(drive(&mut t, &mut q), vec![500]);
    }

    #[test]
    fn earlier_then_back_to_the_same_later_time_fires_once() {
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(300, &mut q, EV);
        t.set(100, &mut q, EV);
        t.set(300, &mut q, EV);
        assert_eq!(drive(&mut t, &mut q), vec![300]);
    }

    #[test]
    fn a_timer_keeps_the_place_among_ties_of_its_last_restart() {
        // restarted later before the other event is scheduled: it fires first
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(150, &mut q, EV);
        t.set(200, &mut q, EV);
        q.push(200, Event::Sample);
        assert_eq!(order(&mut t, &mut q), vec![(200, "timer"), (200, "other")]);
        // restarted after it: the other event first, as an eager reschedule
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(150, &mut q, EV);
        q.push(200, Event::Sample);
        t.set(200, &mut q, EV);
        assert_eq!(order(&mut t, &mut q), vec![(200, "other"), (200, "timer")]);
        // restarted to the very time of its live entry: a new place too
        let mut q = EventQueue::new();
        let mut t = Timer::default();
        t.set(200, &mut q, EV);
        q.push(200, Event::Sample);
        t.set(200, &mut q, EV);
        assert_eq!(order(&mut t, &mut q), vec![(200, "other"), (200, "timer")]);
    }
}
