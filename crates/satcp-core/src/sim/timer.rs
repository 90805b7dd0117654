//! A restartable timer with lazy cancellation.
//!
//! TCP restarts its RTO and delayed-ACK timers far more often than they fire.
//! Instead of removing queue entries, a timer keeps its deadline and the time
//! of the one queue entry it counts as live; an entry that pops at any other
//! time, or after the timer was stopped or moved later, is ignored (moving
//! later re-queues once, when the live entry pops).

use super::{Event, EventQueue, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    deadline: Option<Time>,
    queued: Option<Time>,
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
        match self.queued {
            Some(t) if t <= at => {}
            _ => {
                q.push(at, ev);
                self.queued = Some(at);
            }
        }
    }

    pub fn stop(&mut self) {
        self.deadline = None;
    }

    /// Called when one of this timer's queue entries pops at `now`. Returns
    /// true if the timer fires now (and it is then stopped).
    pub fn on_pop(&mut self, now: Time, q: &mut EventQueue, ev: Event) -> bool {
        if self.queued != Some(now) {
            return false; // a superseded entry
        }
        self.queued = None;
        match self.deadline {
            None => false,
            Some(d) if d > now => {
                q.push(d, ev);
                self.queued = Some(d);
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

    fn drive(t: &mut Timer, q: &mut EventQueue) -> Vec<Time> {
        let mut fired = vec![];
        while let Some((now, ev)) = q.pop() {
            if t.on_pop(now, q, ev) {
                fired.push(now);
            }
        }
        fired
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
}
