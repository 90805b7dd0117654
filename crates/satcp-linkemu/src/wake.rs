//! When to stop sleeping before a packet's release time. A sleep (ppoll's
//! timeout) ends some time after it was asked to: tens of microseconds
//! with high-resolution timers, up to a whole timer tick (1-10 ms) on a
//! kernel whose timers run off the tick (a CI machine wrote packets 3.3 ms
//! late at the 99th percentile, one tick at HZ=300, even under real-time
//! scheduling). The guard learns how late sleeps end and sleeps only until
//! that much before the release; the rest is spent polling without
//! blocking (reads still served), so a packet goes out on time whatever
//! the timer's resolution, at the cost of a busy core on coarse-timer
//! machines and a few percent of one on others.

/// Nanoseconds.
pub type Ns = u64;

/// A running estimate of how late a sleep ends: the largest recent
/// overshoot, decaying by 1/64 a sleep (a one-off spike from preemption is
/// forgotten after a few hundred sleeps; a tick's worth seen on every
/// sleep keeps the estimate at a tick). Capped so that a long stall cannot
/// turn the emulator into a spinner for good.
#[derive(Clone, Copy, Debug)]
pub struct WakeGuard {
    est: Ns,
    cap: Ns,
}

impl WakeGuard {
    pub const CAP_NS: Ns = 20_000_000;

    pub fn new(initial: Ns) -> Self {
        WakeGuard { est: initial.min(Self::CAP_NS), cap: Self::CAP_NS }
    }

    /// The current estimate of a sleep's overshoot.
    pub fn estimate(&self) -> Ns {
        self.est
    }

    /// How long to sleep when the next release is `wait` from now: up to
    /// the estimate before it; 0 means poll without blocking.
    pub fn sleep_for(&self, wait: Ns) -> Ns {
        wait.saturating_sub(self.est)
    }

    /// A sleep asked for `asked` ended `overshoot` after it should have.
    pub fn observe(&mut self, overshoot: Ns) {
        self.est = overshoot.max(self.est - self.est / 64).min(self.cap);
    }
}

/// The timeout to give ppoll for a sleep of `sleep` from `now` on a
/// machine whose timers fire only at multiples of `quantum` (0: as asked).
/// Emulates a tick-driven kernel (`timer_quantum_ns=`) so that the guard
/// can be tested on a machine with high-resolution timers.
pub fn coarse_timeout(now: Ns, sleep: Ns, quantum: Ns) -> Ns {
    if quantum == 0 || sleep == 0 {
        return sleep; // a zero timeout returns at once on any kernel
    }
    let due = now + sleep;
    due.div_ceil(quantum) * quantum - now
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_until_the_estimate_before_the_release_then_polls() {
        let g = WakeGuard::new(100_000);
        assert_eq!(g.sleep_for(1_000_000), 900_000);
        assert_eq!(g.sleep_for(100_000), 0);
        assert_eq!(g.sleep_for(30_000), 0);
    }

    #[test]
    fn a_tick_seen_on_every_sleep_holds_the_estimate_at_a_tick() {
        // overshoots spread over a 3.33 ms tick, as a HZ=300 kernel gives
        let tick = 3_333_333u64;
        let mut g = WakeGuard::new(50_000);
        let mut x = 12345u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            g.observe((x >> 33) % tick);
        }
        assert!(g.estimate() > tick * 9 / 10 && g.estimate() < tick, "{}", g.estimate());
    }

    #[test]
    fn a_one_off_spike_is_forgotten_and_the_cap_holds() {
        let mut g = WakeGuard::new(50_000);
        g.observe(1_000_000_000);
        assert_eq!(g.estimate(), WakeGuard::CAP_NS);
        for _ in 0..1000 {
            g.observe(40_000);
        }
        assert!(g.estimate() < 100_000, "{}", g.estimate());
    }

    #[test]
    fn coarse_timers_end_sleeps_on_the_next_multiple_of_the_quantum() {
        assert_eq!(coarse_timeout(1_000, 500, 0), 500);
        assert_eq!(coarse_timeout(1_000, 500, 4_000), 3_000);
        assert_eq!(coarse_timeout(4_000, 4_000, 4_000), 4_000);
        assert_eq!(coarse_timeout(4_001, 1, 4_000), 3_999);
        assert_eq!(coarse_timeout(4_001, 0, 4_000), 0);
    }
}
