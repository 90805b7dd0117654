//! satcp-linkemu: a user-space link emulator between two TUN devices, for
//! `satcp.crosscheck_linux` (this kernel has no netem). It creates TUN
//! devices `a` and `b` (IPv4, no packet information), prints `ready`, and
//! moves each packet read from one to the other through a `link::Dir`
//! (rate, delay, drop-tail queue, packet errors). On SIGINT or SIGTERM it
//! prints one JSON line of statistics per direction, including how late
//! each packet was written against the time the model gave it, and exits.
//!
//!   satcp-linkemu a=tunA b=tunB rate_ab=10000000 rate_ba=2000000
//!       delay_ab_ns=250000000 delay_ba_ns=250000000 limit_ab=100
//!       limit_ba=1000 per_ab=0 per_ba=0 seed=1
//!
//! A direction may be several hops in series (`link::Chain`): each key
//! then lists one value per hop, comma-separated, first hop first
//! (`rate_ab=100000000,10000000 delay_ab_ns=1000000,300000000
//! limit_ab=1000,500`); a key with one value gives it to every hop.
//!
//! Traces (`traces.rs`, the files and rules of satcp's `capacity_trace`,
//! `delay_trace` and `loss_trace`): `capacity_ab=bw.txt` (Mahimahi
//! delivery opportunities, in place of the rate), `delay_trace_ab=d.txt`
//! with `delay_interval_ab_ns=10000000` and `delay_order_ab=overtake` (the
//! default) or `in_order`, `loss_trace_ab=l.txt` with
//! `loss_interval_ab_ns=1000000000`; one value, or one per hop (`-` for
//! none). Trace time 0 is when the emulator prints `ready`. A falling delay
//! lets packets overtake on the direction's last hop only (a hop before it
//! passes packets on in order).
//!
//! Timing: ppoll with nanosecond timeouts and the thread's timer slack set
//! to 1 ns, on CLOCK_MONOTONIC, ending each sleep early by how late sleeps
//! have been ending (`wake::WakeGuard`) and polling without blocking for
//! the rest. `timer_quantum_ns=N` makes sleeps end only on multiples of N,
//! as on a tick-driven kernel, to test that. The statistics line reports
//! the clock's resolution and the guard's last estimate.

mod link;
mod traces;
mod wake;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use link::{Chain, Dir, DirCfg, Ns};
use wake::{coarse_timeout, WakeGuard};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn now() -> Ns {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Open a TUN device called `name` (IFF_TUN | IFF_NO_PI), non-blocking.
fn open_tun(name: &str) -> std::io::Result<i32> {
    const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
    let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut ifr = [0u8; 40];
    let n = name.len().min(15);
    ifr[..n].copy_from_slice(&name.as_bytes()[..n]);
    let flags: i16 = 0x0001 | 0x1000; // IFF_TUN | IFF_NO_PI
    ifr[16..18].copy_from_slice(&flags.to_ne_bytes());
    if unsafe { libc::ioctl(fd, TUNSETIFF as _, ifr.as_mut_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

struct Lateness(Vec<u64>);

impl Lateness {
    fn summary(&mut self) -> String {
        self.0.sort_unstable();
        let q = |f: f64| self.0.get(((self.0.len() as f64 - 1.0) * f) as usize).copied().unwrap_or(0) as f64 / 1e3;
        format!("\"late_p50_us\": {:.1}, \"late_p99_us\": {:.1}, \"late_max_us\": {:.1}", q(0.5), q(0.99), q(1.0))
    }
}

fn main() {
    let args: HashMap<String, String> = std::env::args()
        .skip(1)
        .filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let get = |k: &str, d: &str| args.get(k).cloned().unwrap_or_else(|| d.to_string());
    let nums = |k: &str, d: &str| -> Vec<f64> {
        get(k, d)
            .split(',')
            .map(|v| {
                v.parse().unwrap_or_else(|_| {
                    eprintln!("error: {k}={}: expected a number, or one per hop separated by commas", get(k, d));
                    std::process::exit(2)
                })
            })
            .collect()
    };
    let num = |k: &str, d: &str| nums(k, d)[0];
    // a direction's hops: as many as its longest list; a single value
    // serves every hop
    let chain = |dir: &str, seed: u64| -> Chain {
        let keys = [format!("rate_{dir}"), format!("delay_{dir}_ns"), format!("limit_{dir}"), format!("per_{dir}")];
        let defaults = ["10000000", "0", "1000", "0"];
        let lists: Vec<Vec<f64>> = keys.iter().zip(defaults).map(|(k, d)| nums(k, d)).collect();
        let n = lists.iter().map(Vec::len).max().unwrap_or(1);
        if let Some(k) = keys.iter().zip(&lists).find(|(_, l)| l.len() != 1 && l.len() != n).map(|(k, _)| k) {
            eprintln!("error: {k}: one value, or one per hop ({n})");
            std::process::exit(2)
        }
        let at = |l: &Vec<f64>, i: usize| if l.len() == 1 { l[0] } else { l[i] };
        let hops = (0..n)
            .map(|i| {
                let cfg = DirCfg { rate_bps: at(&lists[0], i) as u64, delay_ns: at(&lists[1], i) as u64, limit: at(&lists[2], i) as usize, per: at(&lists[3], i) };
                Dir::new(cfg, seed.wrapping_add(i as u64 * 0x51_7CC1_B727_220A))
            })
            .collect();
        Chain { hops }
    };
    // trace keys: one path (or -) for every hop, or one per hop
    let paths = |k: &str, n: usize| -> Vec<Option<String>> {
        let v: Vec<Option<String>> = get(k, "-").split(',').map(|p| (p != "-" && !p.is_empty()).then(|| p.to_string())).collect();
        match v.len() {
            1 => vec![v[0].clone(); n],
            m if m == n => v,
            _ => {
                eprintln!("error: {k}: one value, or one per hop ({n})");
                std::process::exit(2)
            }
        }
    };
    let fail = |e: String| -> ! {
        eprintln!("error: {e}");
        std::process::exit(2)
    };
    let base = now();
    let traced = |chain: &mut Chain, dir: &str, seed: u64| {
        let n = chain.hops.len();
        let (caps, delays, losses) = (paths(&format!("capacity_{dir}"), n), paths(&format!("delay_trace_{dir}"), n), paths(&format!("loss_trace_{dir}"), n));
        let delay_interval = nums(&format!("delay_interval_{dir}_ns"), "10000000");
        let loss_interval = nums(&format!("loss_interval_{dir}_ns"), "1000000000");
        let order = get(&format!("delay_order_{dir}"), "overtake");
        if order != "overtake" && order != "in_order" {
            fail(format!("delay_order_{dir}={order}: overtake or in_order"));
        }
        for i in 0..n {
            if caps[i].is_none() && delays[i].is_none() && losses[i].is_none() {
                continue;
            }
            let at = |l: &Vec<f64>| if l.len() == 1 { l[0] } else { l.get(i).copied().unwrap_or(l[0]) } as u64;
            let (di, li) = (at(&delay_interval), at(&loss_interval));
            if di == 0 || li == 0 {
                fail(format!("delay_interval_{dir}_ns and loss_interval_{dir}_ns: > 0"));
            }
            let t = traces::HopTraces {
                base,
                capacity: caps[i].as_deref().map(|p| traces::capacity(p).unwrap_or_else(|e| fail(e))),
                delay: delays[i].as_deref().map(|p| traces::delays(p, di).unwrap_or_else(|e| fail(e))),
                overtake: order == "overtake" && i == n - 1,
                loss: losses[i].as_deref().map(|p| traces::losses(p, li).unwrap_or_else(|e| fail(e))),
            };
            let old = std::mem::replace(&mut chain.hops[i], Dir::new(Default::default(), 0));
            chain.hops[i] = Dir::with_traces(old.cfg(), seed.wrapping_add(i as u64 * 0x51_7CC1_B727_220A), t);
        }
    };
    let seed = num("seed", "1") as u64;
    let quantum = num("timer_quantum_ns", "0") as u64;
    let (name_a, name_b) = (get("a", "satcpA"), get("b", "satcpB"));
    let (fa, fb) = match (open_tun(&name_a), open_tun(&name_b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: cannot create TUN devices {name_a}, {name_b}: {e} (needs root and /dev/net/tun)");
            std::process::exit(3)
        }
    };
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    // ab: read from a, written to b; ba the reverse
    let mut dirs = [chain("ab", seed), chain("ba", seed.wrapping_mul(0x9E37_79B9_7F4A_7C15))];
    traced(&mut dirs[0], "ab", seed);
    traced(&mut dirs[1], "ba", seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let fds = [(fa, fb), (fb, fa)];
    let mut late = [Lateness(Vec::new()), Lateness(Vec::new())];
    println!("ready");
    let mut buf = vec![0u8; 65_536];
    let mut guard = WakeGuard::new(50_000);
    while !STOP.load(Ordering::SeqCst) {
        let t = now();
        for (i, d) in dirs.iter_mut().enumerate() {
            while let Some(p) = d.due(t) {
                unsafe { libc::write(fds[i].1, p.bytes.as_ptr() as *const _, p.bytes.len()) };
                late[i].0.push(now().saturating_sub(p.release));
            }
        }
        let next = dirs.iter().filter_map(|d| d.next_release()).min();
        let mut pfd = [
            libc::pollfd { fd: fa, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: fb, events: libc::POLLIN, revents: 0 },
        ];
        let wait = next.map(|n| n.saturating_sub(now())).unwrap_or(100_000_000);
        let sleep = if next.is_some() { guard.sleep_for(wait) } else { wait };
        let asked = now();
        let timeout = coarse_timeout(asked, sleep, quantum);
        let ts = libc::timespec { tv_sec: (timeout / 1_000_000_000) as _, tv_nsec: (timeout % 1_000_000_000) as _ };
        let r = unsafe { libc::ppoll(pfd.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        if r == 0 && sleep > 0 {
            guard.observe(now().saturating_sub(asked + sleep));
        }
        if r <= 0 {
            continue;
        }
        for (i, p) in pfd.iter().enumerate() {
            if p.revents & libc::POLLIN == 0 {
                continue;
            }
            loop {
                let n = unsafe { libc::read(fds[i].0, buf.as_mut_ptr() as *mut _, buf.len()) };
                if n <= 0 {
                    break;
                }
                dirs[i].offer(now(), buf[..n as usize].to_vec());
            }
        }
    }
    let mut res = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut res) };
    let res_ns = res.tv_sec as u64 * 1_000_000_000 + res.tv_nsec as u64;
    for (i, name) in ["ab", "ba"].iter().enumerate() {
        let s = dirs[i].stats();
        let per_hop: Vec<String> = dirs[i].hops.iter().map(|h| h.stats.drops_queue.to_string()).collect();
        println!(
            "{{\"dir\": \"{name}\", \"accepted\": {}, \"delivered\": {}, \"drops_queue\": {}, \"drops_errors\": {}, \"hop_drops_queue\": [{}], {}, \"clock_res_ns\": {res_ns}, \"wake_guard_us\": {:.1}}}",
            s.accepted,
            s.delivered,
            s.drops_queue,
            s.drops_errors,
            per_hop.join(", "),
            late[i].summary(),
            guard.estimate() as f64 / 1e3
        );
    }
}
