//! A run of 10^8 events, its memory checked: memory grows with flows and
//! queued packets, not with simulated time. The same 50-flow GEO network
//! for about 10^7 events, half of 10^8, and 10^8 (820, 4100 and 8200
//! simulated seconds: the gateway is cut through, `world/cut_through.rs`,
//! so a second takes half the events it did): the peak of the bytes the
//! heap holds may grow by at most 15% from the first to the last and by 5%
//! over the second half (it saturates: measured 2.04, 2.21 and 2.29 MB; a
//! longer run meets a rarer queue maximum and a buffer doubles once more),
//! and stays under 8 MB. Counted by an
//! allocator that wraps the system's (exact and the same on every machine,
//! where the resident set of a process that ran something before depends
//! on the allocator's reuse).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use satcp_core::scenario::parse_toml;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let n = NOW.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(n, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        NOW.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The heap's peak (bytes) while `f` runs, over what it held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - base)
}

fn network(stop_s: u64) -> String {
    let mut s = format!(
        "[run]\nstop = \"{stop_s}s\"\n[nodes]\nservers = {{}}\ngw = {{}}\nclients = {{}}\n[[links]]\na = \"servers\"\nb = \"gw\"\nrate = \"1Gbps\"\ndelay = \"2ms\"\n[[links]]\na = \"gw\"\nb = \"clients\"\nrate = \"100Mbps\"\ndelay = \"250ms\"\nqueue_ab = {{ kind = \"droptail\", packets = 1000 }}\n"
    );
    for i in 0..50 {
        let v = if i % 2 == 0 { "sack" } else { "newreno" };
        s += &format!("[[flows]]\nsrc = \"servers\"\ndst = \"clients\"\ntcp = {{ variant = \"{v}\", rwnd = \"4MiB\" }}\napp = {{ kind = \"ftp\", start = \"{}ms\" }}\n", 20 * i);
    }
    s
}

#[test]
fn a_hundred_million_events_in_the_memory_of_ten_million() {
    let (short, short_peak) = peak_of(|| satcp_core::run(&parse_toml(&network(820), &[]).unwrap()));
    let (_, half_peak) = peak_of(|| satcp_core::run(&parse_toml(&network(4100), &[]).unwrap()));
    let (long, long_peak) = peak_of(|| satcp_core::run(&parse_toml(&network(8200), &[]).unwrap()));
    assert!(short.summary.events > 9_000_000, "{}", short.summary.events);
    assert!(long.summary.events >= 100_000_000, "{}", long.summary.events);
    assert!(
        long_peak as f64 <= short_peak as f64 * 1.15 && long_peak as f64 <= half_peak as f64 * 1.05,
        "heap peak {short_peak} bytes over {} events, {half_peak} over half of {1}, {long_peak} over {1}",
        short.summary.events,
        long.summary.events
    );
    // and the peak is what 50 flows and a 1000-packet queue need, not more
    assert!(long_peak < 8 << 20, "{long_peak} bytes");
}
