//! Inter-satellite link layouts.
//!
//! * +Grid (the default, as Hypatia and most constellation studies use):
//!   each satellite links to the next in its plane (wrapping) and to the
//!   same slot of the next plane; the last plane links to the first
//!   ("across the seam") for a Walker delta shell, and for a Walker star
//!   only if asked (`cross_seam`), its planes there counter-rotating. Each
//!   pair once, lower index first, in index order.
//! * An explicit list of index pairs may replace the layout.

use super::walker::{WalkerKind, WalkerShell};

/// The +Grid pairs of `w` (satellite indices, a < b).
pub fn plus_grid(w: &WalkerShell, cross_seam: bool) -> Vec<(u32, u32)> {
    let (p_n, s_n) = (w.planes, w.per_plane);
    let mut out = Vec::with_capacity(2 * w.satellites() as usize);
    let wrap_planes = w.kind == WalkerKind::Delta || cross_seam;
    for p in 0..p_n {
        for s in 0..s_n {
            let k = p * s_n + s;
            if s_n > 1 {
                out.push(order(k, p * s_n + (s + 1) % s_n));
            }
            if p + 1 < p_n {
                out.push(order(k, (p + 1) * s_n + s));
            } else if wrap_planes && p_n > 1 {
                out.push(order(k, s));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn order(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(kind: WalkerKind, planes: u32, per_plane: u32) -> WalkerShell {
        WalkerShell { kind, planes, per_plane, altitude_km: 550.0, inclination_deg: 53.0, phasing: 1 }
    }

    #[test]
    fn plus_grid_gives_four_links_a_satellite() {
        // Starlink shell: 1584 satellites, each of degree 4: 3168 links
        let w = shell(WalkerKind::Delta, 72, 22);
        let g = plus_grid(&w, false);
        assert_eq!(g.len(), 3168);
        let mut degree = vec![0u32; 1584];
        for &(a, b) in &g {
            assert!(a < b);
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        assert!(degree.iter().all(|&d| d == 4));
        // satellite 0: slot 1 and 21 of its plane, slot 0 of planes 1 and 71
        let n0: Vec<u32> = g.iter().filter_map(|&(a, b)| (a == 0).then_some(b).or((b == 0).then_some(a))).collect();
        assert_eq!(n0, vec![1, 21, 22, 71 * 22]);
    }

    #[test]
    fn a_star_shell_has_a_seam() {
        // 6 planes of 11: intra-plane 66, inter-plane 5 x 11 without the seam
        let w = shell(WalkerKind::Star, 6, 11);
        assert_eq!(plus_grid(&w, false).len(), 66 + 55);
        assert_eq!(plus_grid(&w, true).len(), 66 + 66);
    }
}
