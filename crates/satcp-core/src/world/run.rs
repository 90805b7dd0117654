//! The event loop: pop the next event, hand it to the model it is for, and
//! stop at the stop time, when every finite flow is done (unless
//! `run.end = "stop"`), or when an observer says so.

use super::World;
use crate::net::link;
use crate::sim::{Event, Time};
use crate::tcp::Ctx;

/// From this many link directions on, the run loop prefetches the next
/// event's packet and direction (`World::prefetch_next`). Below it the next
/// event is mostly on a direction just used, whose data is still in cache,
/// and the hint only costs instructions (+3% on a GEO dumbbell); on a
/// 1,584-satellite shell (~6,400 directions) it took the run to 0.59-0.69
/// of its time (`docs/performance.md`). A round figure between the two,
/// not tuned.
const PREFETCH_AHEAD_DIRS: usize = 64;

impl World {
    pub fn run(&mut self) {
        self.run_observed(u64::MAX, &mut |_| true);
    }

    /// [`World::run`], calling `observe(simulated time)` every `every`
    /// events (for progress displays). When `observe` returns false the run
    /// stops there and ends by "interrupted" (for good: what it had offered
    /// ahead of time to the hops after relay nodes is rewound from their
    /// summaries, `world/cut_through.rs`).
    pub fn run_observed(&mut self, every: u64, observe: &mut dyn FnMut(Time) -> bool) {
        self.plan_cut_through(every != u64::MAX);
        // `run.end = "stop"`: finite flows being done does not end the run
        let has_finite = self.finite_left > 0 && !self.scn.run.to_stop;
        let mut countdown = every.max(1);
        while let Some((t, ev)) = self.q.peek() {
            debug_assert!(t >= self.now, "time went back from {} to {t}", self.now);
            // an arrival takes its entry off with its direction's next one
            if !matches!(ev, Event::Arrive { .. }) {
                self.q.pop();
                self.prefetch_next();
            }
            self.now = t;
            countdown -= 1;
            if countdown == 0 {
                countdown = every.max(1);
                if !observe(t) {
                    if matches!(ev, Event::Arrive { .. }) {
                        self.q.pop(); // taken off and not handled, as any other
                    }
                    self.rewind_cuts(t, self.q.last_seq());
                    self.ended_by = "interrupted";
                    return;
                }
            }
            match ev {
                Event::Arm { dir } => {
                    if let Some(at) = self.dirs[dir as usize].arm_late() {
                        self.q.push(at, Event::ArriveLate { dir });
                    } else if let Some((at, id)) = self.dirs[dir as usize].arm() {
                        self.schedule_arrival(at, dir, id);
                    }
                }
                Event::Arrive { dir } => {
                    let d = &mut self.dirs[dir as usize];
                    let (pkt, next) = d.pop_arrival();
                    let node = d.to;
                    match next {
                        Some((at, id)) => {
                            self.pkts.prefetch(id); // used at this direction's next arrival
                            self.head_ids[dir as usize] = id;
                            self.q.replace_top(at, Event::Arrive { dir })
                        }
                        None => self.q.pop(),
                    };
                    let mut p = self.pkts.remove(pkt);
                    let doomed = d.pop_doomed(p.ip_bytes, p.corrupted());
                    self.prefetch_next();
                    if doomed {
                        // on a moving link when it went down
                        self.lose(&p);
                    } else if p.corrupted() {
                        // seen by the node's agents, then discarded
                        self.agents.corrupted(t, dir, &p);
                        self.lose(&p);
                    } else {
                        self.arrive(dir, node, &mut p);
                    }
                }
                Event::Timer { ep, kind } => {
                    let mut ctx = Ctx { now: t, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
                    self.eps[ep as usize].on_timer(&mut ctx, kind);
                    #[cfg(debug_assertions)]
                    self.eps[ep as usize].check_invariants();
                    self.settle();
                }
                Event::App { app } => {
                    self.apps[app as usize].on_wakeup(t, &mut self.actions);
                    self.apply_actions(crate::ids::FlowId(app));
                    self.settle();
                }
                Event::Sample => {
                    self.sample();
                    if let Some(iv) = self.scn.run.sample_interval_ns {
                        self.q.push(t + iv, Event::Sample);
                    }
                }
                Event::Stop => {
                    self.ended_by = "stop";
                    return;
                }
                Event::ArriveLate { dir } => {
                    let d = &mut self.dirs[dir as usize];
                    let (pkt, node) = (d.pop_late(), d.to);
                    let mut p = self.pkts.remove(pkt);
                    self.arrive(dir, node, &mut p);
                }
                Event::Link { dir, what } => {
                    let mut ctx = link_ctx!(self);
                    link::link_event(&mut self.dirs, dir, what, &mut ctx);
                    self.flush_link_out();
                }
                Event::LinkChange { link } => self.link_change(link as usize),
                Event::Topology => self.topology_step(),
                Event::Quic { ep } => {
                    let ep = crate::ids::EpId(ep);
                    let mut ctx = Ctx { now: t, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
                    self.quic[ep.flow().index()].as_deref_mut().expect("a QUIC flow").on_timer(&mut ctx, ep);
                    self.settle();
                }
            }
            if has_finite && self.finite_left == 0 {
                // every finite flow is done: finished, or some gave up
                self.rewind_cuts(self.now, self.q.last_seq());
                self.ended_by = if self.flows.iter().any(|f| f.aborted) { "aborted" } else { "completed" };
                return;
            }
        }
        self.ended_by = "idle";
    }

    /// The event after the one being handled is likely the heap's top now:
    /// if it is an arrival, start loading its packet and its direction,
    /// cold on a network of thousands of links (a hint only: whatever comes
    /// first, nothing changes but the time). On a few links they stay warm
    /// and the hint would only cost instructions (3% on a GEO dumbbell).
    #[inline(always)]
    pub(super) fn prefetch_next(&self) {
        if self.dirs.len() < PREFETCH_AHEAD_DIRS {
            return;
        }
        if let Some((_, Event::Arrive { dir })) = self.q.peek() {
            self.pkts.prefetch(self.head_ids[dir as usize]);
            self.dirs[dir as usize].prefetch_arrival();
        }
    }
}
