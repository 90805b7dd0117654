//! Cache prefetch hints for data the run will read soon and that has gone
//! cold since it was written: a packet on a long link, a sender's record
//! of a segment sent a round trip ago. On a 100 Mb/s GEO link these loads
//! were a seventh of the run's time (`docs/performance.md`). A hint only:
//! no effect on results, and nothing on targets without one.

/// Prefetch the cache lines holding `v` (every line it touches).
#[inline(always)]
pub fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let a = v as *const T as *const i8;
        let n = std::mem::size_of::<T>();
        let mut off = 0;
        // SAFETY: a prefetch never faults; each address lies within `v`
        unsafe {
            while off < n {
                _mm_prefetch(a.add(off), _MM_HINT_T0);
                off += 64;
            }
            // the last line, when `v` straddles one more than n / 64 lines
            _mm_prefetch(a.add(n.saturating_sub(1)), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}
