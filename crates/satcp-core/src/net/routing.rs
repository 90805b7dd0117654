//! Shortest-path routing over any topology.
//!
//! Path cost is the sum of one-way propagation delays of the link directions
//! used; ties break on hop count, then on the lower link-direction index, so
//! routes never depend on hash order. Computed at the start of a run and
//! again whenever a link goes down, comes back or changes its delay (a
//! constellation's links change at every topology step): Dijkstra from each
//! destination over reversed edges, over the directions that are up.
//!
//! Only the nodes packets are addressed to need a tree (the ends of flows,
//! and of traced paths): a constellation has over a thousand satellites and
//! a few stations with traffic, and a dense all-pairs table over them every
//! 100 ms would cost a thousand times more than the trees that are used.
//! `next` holds one column per destination: `next[col * n + node]` = the
//! link direction `node` takes towards that destination, or [`NO_ROUTE`].
//!
//! Nodes that may not relay (ground stations, unless a scenario allows it)
//! end paths but never sit inside one: the search does not go on through
//! them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    /// For each node, its column in `next`, or NO_ROUTE if it is no
    /// destination.
    col: Vec<u32>,
    next: Vec<u32>,
}

/// `dirs[i]` = (from, to, delay_ns, up) of link direction i; directions
/// that are down carry nothing. `dsts`: the destinations to route to;
/// `relay[node]`: whether a path may pass through it (every node if empty).
pub fn compute(n_nodes: usize, dirs: &[(u32, u32, u64, bool)], dsts: &[u32], relay: &[bool]) -> Routes {
    let mut col = vec![NO_ROUTE; n_nodes];
    let mut m = 0u32;
    for &d in dsts {
        if col[d as usize] == NO_ROUTE {
            col[d as usize] = m;
            m += 1;
        }
    }
    let mut next = vec![NO_ROUTE; n_nodes * m as usize];
    // incoming edges per node: (from, dir index), in CSR form
    let mut start = vec![0u32; n_nodes + 1];
    for &(_, to, _, up) in dirs {
        if up {
            start[to as usize + 1] += 1;
        }
    }
    for i in 0..n_nodes {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut incoming = vec![(0u32, 0u32); start[n_nodes] as usize];
    for (i, &(from, to, _, up)) in dirs.iter().enumerate() {
        if up {
            incoming[fill[to as usize] as usize] = (from, i as u32);
            fill[to as usize] += 1;
        }
    }
    // cost from each node to dst: (delay, hops, first dir index)
    let mut best: Vec<(u64, u32, u32)> = vec![(u64::MAX, 0, 0); n_nodes];
    let mut heap = BinaryHeap::new();
    for (dst, &c) in col.iter().enumerate() {
        if c == NO_ROUTE {
            continue;
        }
        best.fill((u64::MAX, 0, 0));
        best[dst] = (0, 0, NO_ROUTE);
        heap.push(Reverse((0u64, 0u32, NO_ROUTE, dst as u32)));
        while let Some(Reverse((d, h, first, u))) = heap.pop() {
            if best[u as usize] != (d, h, first) {
                continue;
            }
            if u as usize != dst && !relay.is_empty() && !relay[u as usize] {
                continue; // an end, never a hop
            }
            for &(from, di) in &incoming[start[u as usize] as usize..start[u as usize + 1] as usize] {
                let cand = (d + dirs[di as usize].2, h + 1, di);
                if cand < best[from as usize] && from as usize != dst {
                    best[from as usize] = cand;
                    heap.push(Reverse((cand.0, cand.1, cand.2, from)));
                }
            }
        }
        let column = &mut next[c as usize * n_nodes..(c as usize + 1) * n_nodes];
        for (node, b) in best.iter().enumerate() {
            if node != dst && b.0 != u64::MAX {
                column[node] = b.2;
            }
        }
    }
    Routes { n: n_nodes, col, next }
}

impl Routes {
    #[inline]
    pub fn next_dir(&self, node: u32, dst: u32) -> u32 {
        match self.col[dst as usize] {
            NO_ROUTE => NO_ROUTE,
            c => self.next[c as usize * self.n + node as usize],
        }
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
        let r = compute(3, &dirs, &[0, 1, 2], &[]);
        assert_eq!(r.path(0, 2, &dirs), Some(vec![0, 2]));
        assert_eq!(r.path(2, 0, &dirs), Some(vec![3, 1]));
    }

    #[test]
    fn lower_delay_path_wins_over_fewer_hops() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each
        let dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3, &dirs), Some(vec![2, 4, 6]));
    }

    #[test]
    fn equal_cost_tie_breaks_deterministically_on_hops_then_index() {
        let dirs = duplex(&[(0, 1, 10), (1, 3, 10), (0, 2, 10), (2, 3, 10), (0, 3, 20)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        // direct link has 1 hop at the same delay
        assert_eq!(r.path(0, 3, &dirs), Some(vec![8]));
    }

    #[test]
    fn a_link_down_reroutes_or_leaves_no_route() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each; the short path's middle link down
        let mut dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        dirs[4].3 = false;
        dirs[5].3 = false;
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3, &dirs), Some(vec![0]));
        assert_eq!(r.path(1, 2, &dirs), Some(vec![3, 0, 7]), "around through 0 and 3");
        dirs[0].3 = false;
        dirs[1].3 = false;
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.next_dir(0, 3), NO_ROUTE);
        assert_eq!(r.path(2, 3, &dirs), Some(vec![6]));
    }

    #[test]
    fn unreachable_is_none() {
        let dirs = duplex(&[(0, 1, 1), (2, 3, 1)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3, &dirs), None);
    }

    #[test]
    fn only_destinations_get_trees() {
        let dirs = duplex(&[(0, 1, 1), (1, 2, 1)]);
        let r = compute(3, &dirs, &[2], &[]);
        assert_eq!(r.path(0, 2, &dirs), Some(vec![0, 2]));
        assert_eq!(r.next_dir(2, 0), NO_ROUTE, "0 is no destination");
    }

    #[test]
    fn a_node_that_may_not_relay_ends_paths_only() {
        // 0-1 at 1 through the station 1 to 2 at 1; or 0-3-2 at 10 each
        let dirs = duplex(&[(0, 1, 1), (1, 2, 1), (0, 3, 10), (3, 2, 10)]);
        let relay = [true, false, true, true];
        let r = compute(4, &dirs, &[1, 2], &relay);
        assert_eq!(r.path(0, 2, &dirs), Some(vec![4, 6]), "around the station");
        assert_eq!(r.path(0, 1, &dirs), Some(vec![0]), "to the station itself");
        assert_eq!(r.path(1, 2, &dirs), Some(vec![2]), "from the station itself");
        let r = compute(4, &dirs, &[2], &[]);
        assert_eq!(r.path(0, 2, &dirs), Some(vec![0, 2]), "through it when it relays");
    }
}
