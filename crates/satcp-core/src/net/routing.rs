//! Shortest-path routing over any topology.
//!
//! Path cost is the sum of one-way propagation delays of the link directions
//! used; ties break on hop count, then on the lower link-direction index, so
//! routes never depend on hash order. Computed at the start of a run and
//! again whenever a link goes down, comes back or changes its delay
//! (Dijkstra from every destination over reversed edges, over the
//! directions that are up), stored as a dense next-hop table:
//! `next[node][dst]` = link direction to take, or [`NO_ROUTE`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

/// `dirs[i]` = (from, to, delay_ns, up) of link direction i; directions
/// that are down carry nothing.
pub fn compute(n_nodes: usize, dirs: &[(u32, u32, u64, bool)]) -> Routes {
    let mut next = vec![NO_ROUTE; n_nodes * n_nodes];
    // incoming edges per node: (from, dir index)
    let mut incoming: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_nodes];
    for (i, &(from, to, _, up)) in dirs.iter().enumerate() {
        if up {
            incoming[to as usize].push((from, i as u32));
        }
    }
    for dst in 0..n_nodes {
        // cost from each node to dst: (delay, hops, first dir index)
        let mut best: Vec<Option<(u64, u32, u32)>> = vec![None; n_nodes];
        let mut heap = BinaryHeap::new();
        best[dst] = Some((0, 0, NO_ROUTE));
        heap.push(Reverse((0u64, 0u32, NO_ROUTE, dst as u32)));
        while let Some(Reverse((d, h, first, u))) = heap.pop() {
            if best[u as usize] != Some((d, h, first)) {
                continue;
            }
            for &(from, di) in &incoming[u as usize] {
                let cand = (d + dirs[di as usize].2, h + 1, di);
                let better = match best[from as usize] {
                    None => true,
                    Some(cur) => cand < cur,
                };
                if better && from as usize != dst {
                    best[from as usize] = Some(cand);
                    heap.push(Reverse((cand.0, cand.1, cand.2, from)));
                }
            }
        }
        for node in 0..n_nodes {
            if node != dst {
                if let Some((_, _, first)) = best[node] {
                    next[node * n_nodes + dst] = first;
                }
            }
        }
    }
    Routes { n: n_nodes, next }
}

impl Routes {
    #[inline]
    pub fn next_dir(&self, node: u32, dst: u32) -> u32 {
        self.next[node as usize * self.n + dst as usize]
    }

    /// Link directions from `src` to `dst`, or None if unreachable.
    pub fn path(&self, src: u32, dst: u32, dirs: &[(u32, u32, u64, bool)]) -> Option<Vec<u32>> {
        let mut out = vec![];
        let mut at = src;
        while at != dst {
            let d = self.next_dir(at, dst);
            if d == NO_ROUTE || out.len() > self.n {
                return None;
            }
            out.push(d);
            at = dirs[d as usize].1;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplex(links: &[(u32, u32, u64)]) -> Vec<(u32, u32, u64, bool)> {
        links.iter().flat_map(|&(a, b, d)| [(a, b, d, true), (b, a, d, true)]).collect()
    }

    #[test]
    fn chain_routes_both_ways() {
        let dirs = duplex(&[(0, 1, 5), (1, 2, 250)]);
        let r = compute(3, &dirs);
        assert_eq!(r.path(0, 2, &dirs), Some(vec![0, 2]));
        assert_eq!(r.path(2, 0, &dirs), Some(vec![3, 1]));
    }

    #[test]
    fn lower_delay_path_wins_over_fewer_hops() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each
        let dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        let r = compute(4, &dirs);
        assert_eq!(r.path(0, 3, &dirs), Some(vec![2, 4, 6]));
    }

    #[test]
    fn equal_cost_tie_breaks_deterministically_on_hops_then_index() {
        let dirs = duplex(&[(0, 1, 10), (1, 3, 10), (0, 2, 10), (2, 3, 10), (0, 3, 20)]);
        let r = compute(4, &dirs);
        // direct link has 1 hop at the same delay
        assert_eq!(r.path(0, 3, &dirs), Some(vec![8]));
    }

    #[test]
    fn a_link_down_reroutes_or_leaves_no_route() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each; the short path's middle link down
        let mut dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        dirs[4].3 = false;
        dirs[5].3 = false;
        let r = compute(4, &dirs);
        assert_eq!(r.path(0, 3, &dirs), Some(vec![0]));
        assert_eq!(r.path(1, 2, &dirs), Some(vec![3, 0, 7]), "around through 0 and 3");
        dirs[0].3 = false;
        dirs[1].3 = false;
        let r = compute(4, &dirs);
        assert_eq!(r.next_dir(0, 3), NO_ROUTE);
        assert_eq!(r.path(2, 3, &dirs), Some(vec![6]));
    }

    #[test]
    fn unreachable_is_none() {
        let dirs = duplex(&[(0, 1, 1), (2, 3, 1)]);
        let r = compute(4, &dirs);
        assert_eq!(r.path(0, 3, &dirs), None);
    }
}
