//! Shortest-path routing over any topology.
//!
//! Path cost is the sum of one-way propagation delays of the link directions
//! used; ties break on hop count, then on the lower link-direction index, so
//! routes never depend on hash order. Computed at the start of a run and
//! again whenever a link goes down, comes back or changes its delay (a
//! constellation's links change at every topology step): Dijkstra from each
//! destination over reversed edges, over the directions that are up. Again
//! only for the destinations a change can reach: those in the connected
//! component of a changed direction (a static network in the same run as a
//! constellation keeps its trees).
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
    /// The directions the routes were computed over: an update compares
    /// against them to find what changed.
    edges: Vec<Edge>,
    /// Trees built so far (a count for tests and profiles).
    pub trees_built: u64,
}

/// (from, to, delay_ns, up) of one link direction.
pub type Edge = (u32, u32, u64, bool);

/// `dirs[i]` = (from, to, delay_ns, up) of link direction i; directions
/// that are down carry nothing. `dsts`: the destinations to route to;
/// `relay[node]`: whether a path may pass through it (every node if empty).
pub fn compute(n_nodes: usize, dirs: &[Edge], dsts: &[u32], relay: &[bool]) -> Routes {
    let mut col = vec![NO_ROUTE; n_nodes];
    let mut m = 0u32;
    for &d in dsts {
        if col[d as usize] == NO_ROUTE {
            col[d as usize] = m;
            m += 1;
        }
    }
    let mut r = Routes { n: n_nodes, col, next: vec![NO_ROUTE; n_nodes * m as usize], edges: dirs.to_vec(), trees_built: 0 };
    let all: Vec<u32> = (0..n_nodes as u32).filter(|&d| r.col[d as usize] != NO_ROUTE).collect();
    r.build_trees(&all, relay);
    r
}

/// Incoming edges per node, (from, dir index), in CSR form, over the
/// directions that are up.
struct Incoming {
    start: Vec<u32>,
    edges: Vec<(u32, u32)>,
}

impl Incoming {
    fn new(n_nodes: usize, dirs: &[Edge]) -> Self {
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
        let mut edges = vec![(0u32, 0u32); start[n_nodes] as usize];
        for (i, &(from, to, _, up)) in dirs.iter().enumerate() {
            if up {
                edges[fill[to as usize] as usize] = (from, i as u32);
                fill[to as usize] += 1;
            }
        }
        Incoming { start, edges }
    }

    fn of(&self, node: u32) -> &[(u32, u32)] {
        &self.edges[self.start[node as usize] as usize..self.start[node as usize + 1] as usize]
    }
}

/// Connected components over every direction, up or down (a direction that
/// is down now may come back), as a root per node.
fn components(n_nodes: usize, dirs: &[Edge]) -> Vec<u32> {
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let mut parent: Vec<u32> = (0..n_nodes as u32).collect();
    for &(a, b, _, _) in dirs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    (0..n_nodes as u32).map(|x| root(&mut parent, x)).collect()
}

impl Routes {
    /// Routes again after the link directions changed (delays, up or down,
    /// directions appended; the nodes and destinations stay). Only the
    /// destinations whose connected component holds a changed direction get
    /// a new tree: no path towards the others can use a direction outside
    /// their component, so their trees stand. A constellation changes every
    /// 100 ms; a static network in the same run then costs nothing.
    pub fn update(&mut self, dirs: &[Edge], relay: &[bool]) {
        let comp = components(self.n, dirs);
        let mut touched = vec![false; self.n];
        for (i, e) in dirs.iter().enumerate() {
            if self.edges.get(i) != Some(e) {
                touched[comp[e.0 as usize] as usize] = true;
            }
        }
        let stale: Vec<u32> = (0..self.n as u32)
            .filter(|&d| self.col[d as usize] != NO_ROUTE && touched[comp[d as usize] as usize])
            .collect();
        self.edges.clear();
        self.edges.extend_from_slice(dirs);
        if !stale.is_empty() {
            self.build_trees(&stale, relay);
        }
    }

    /// Dijkstra from each of `dsts` over reversed edges; fills their columns.
    fn build_trees(&mut self, dsts: &[u32], relay: &[bool]) {
        let n_nodes = self.n;
        let dirs = &self.edges;
        let incoming = Incoming::new(n_nodes, dirs);
        // cost from each node to dst: (delay, hops, first dir index)
        let mut best: Vec<(u64, u32, u32)> = vec![(u64::MAX, 0, 0); n_nodes];
        let mut heap = BinaryHeap::new();
        for &dst in dsts {
            let c = self.col[dst as usize];
            let dst = dst as usize;
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
                for &(from, di) in incoming.of(u) {
                    let cand = (d + dirs[di as usize].2, h + 1, di);
                    if cand < best[from as usize] && from as usize != dst {
                        best[from as usize] = cand;
                        heap.push(Reverse((cand.0, cand.1, cand.2, from)));
                    }
                }
            }
            let column = &mut self.next[c as usize * n_nodes..(c as usize + 1) * n_nodes];
            for (node, b) in best.iter().enumerate() {
                column[node] = if node != dst && b.0 != u64::MAX { b.2 } else { NO_ROUTE };
            }
            self.trees_built += 1;
        }
    }

    #[inline]
    pub fn next_dir(&self, node: u32, dst: u32) -> u32 {
        match self.col[dst as usize] {
            NO_ROUTE => NO_ROUTE,
            c => self.next[c as usize * self.n + node as usize],
        }
    }

    /// The directions the routes stand on (as of the last update).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Link directions from `src` to `dst`, or None if unreachable.
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let mut out = vec![];
        let mut at = src;
        while at != dst {
            let d = self.next_dir(at, dst);
            if d == NO_ROUTE || out.len() > self.n {
                return None;
            }
            out.push(d);
            at = self.edges[d as usize].1;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplex(links: &[(u32, u32, u64)]) -> Vec<Edge> {
        links.iter().flat_map(|&(a, b, d)| [(a, b, d, true), (b, a, d, true)]).collect()
    }

    #[test]
    fn chain_routes_both_ways() {
        let dirs = duplex(&[(0, 1, 5), (1, 2, 250)]);
        let r = compute(3, &dirs, &[0, 1, 2], &[]);
        assert_eq!(r.path(0, 2), Some(vec![0, 2]));
        assert_eq!(r.path(2, 0), Some(vec![3, 1]));
    }

    #[test]
    fn lower_delay_path_wins_over_fewer_hops() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each
        let dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3), Some(vec![2, 4, 6]));
    }

    #[test]
    fn equal_cost_tie_breaks_deterministically_on_hops_then_index() {
        let dirs = duplex(&[(0, 1, 10), (1, 3, 10), (0, 2, 10), (2, 3, 10), (0, 3, 20)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        // direct link has 1 hop at the same delay
        assert_eq!(r.path(0, 3), Some(vec![8]));
    }

    #[test]
    fn a_link_down_reroutes_or_leaves_no_route() {
        // 0-3 direct at 100; 0-1-2-3 at 10 each; the short path's middle link down
        let mut dirs = duplex(&[(0, 3, 100), (0, 1, 10), (1, 2, 10), (2, 3, 10)]);
        dirs[4].3 = false;
        dirs[5].3 = false;
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3), Some(vec![0]));
        assert_eq!(r.path(1, 2), Some(vec![3, 0, 7]), "around through 0 and 3");
        dirs[0].3 = false;
        dirs[1].3 = false;
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.next_dir(0, 3), NO_ROUTE);
        assert_eq!(r.path(2, 3), Some(vec![6]));
    }

    #[test]
    fn unreachable_is_none() {
        let dirs = duplex(&[(0, 1, 1), (2, 3, 1)]);
        let r = compute(4, &dirs, &[0, 1, 2, 3], &[]);
        assert_eq!(r.path(0, 3), None);
    }

    #[test]
    fn only_destinations_get_trees() {
        let dirs = duplex(&[(0, 1, 1), (1, 2, 1)]);
        let r = compute(3, &dirs, &[2], &[]);
        assert_eq!(r.path(0, 2), Some(vec![0, 2]));
        assert_eq!(r.next_dir(2, 0), NO_ROUTE, "0 is no destination");
    }

    #[test]
    fn a_node_that_may_not_relay_ends_paths_only() {
        // 0-1 at 1 through the station 1 to 2 at 1; or 0-3-2 at 10 each
        let dirs = duplex(&[(0, 1, 1), (1, 2, 1), (0, 3, 10), (3, 2, 10)]);
        let relay = [true, false, true, true];
        let r = compute(4, &dirs, &[1, 2], &relay);
        assert_eq!(r.path(0, 2), Some(vec![4, 6]), "around the station");
        assert_eq!(r.path(0, 1), Some(vec![0]), "to the station itself");
        assert_eq!(r.path(1, 2), Some(vec![2]), "from the station itself");
        let r = compute(4, &dirs, &[2], &[]);
        assert_eq!(r.path(0, 2), Some(vec![0, 2]), "through it when it relays");
    }

    #[test]
    fn an_update_rebuilds_only_the_component_that_changed() {
        // two islands: 0-1-2 and 3-4; destinations in both
        let mut dirs = duplex(&[(0, 1, 10), (1, 2, 10), (3, 4, 10)]);
        let mut r = compute(5, &dirs, &[0, 2, 3, 4], &[]);
        assert_eq!(r.trees_built, 4);
        r.update(&dirs, &[]);
        assert_eq!(r.trees_built, 4, "nothing changed, nothing rebuilt");
        dirs[4].2 = 20; // 3->4 slower
        r.update(&dirs, &[]);
        assert_eq!(r.trees_built, 6, "only 3 and 4 again");
        // a new direction joining the islands makes them one
        dirs.extend(duplex(&[(2, 3, 1)]));
        r.update(&dirs, &[]);
        assert_eq!(r.trees_built, 10);
        assert_eq!(r.path(0, 4), Some(vec![0, 2, 6, 4]));
        // down is a change too; the component still counts its edge
        dirs[6].3 = false;
        r.update(&dirs, &[]);
        assert_eq!(r.trees_built, 14);
        assert_eq!(r.path(2, 4), None);
    }

    /// A splitmix64 stream: deterministic random graphs without a crate.
    fn rng(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn updates_equal_a_fresh_computation_on_random_changes() {
        let mut st = 7u64;
        for _case in 0..200 {
            let n = 2 + (rng(&mut st) % 14) as usize;
            let links: Vec<(u32, u32, u64)> = (0..rng(&mut st) % 20)
                .map(|_| ((rng(&mut st) % n as u64) as u32, (rng(&mut st) % n as u64) as u32, 1 + rng(&mut st) % 4))
                .filter(|l| l.0 != l.1)
                .collect();
            let mut dirs = duplex(&links);
            let dsts: Vec<u32> = (0..n as u32).filter(|_| rng(&mut st) % 2 == 0).collect();
            let relay: Vec<bool> = if rng(&mut st) % 2 == 0 { vec![] } else { (0..n).map(|_| rng(&mut st) % 4 != 0).collect() };
            let mut r = compute(n, &dirs, &dsts, &relay);
            for _step in 0..10 {
                for d in dirs.iter_mut() {
                    match rng(&mut st) % 10 {
                        0 => d.3 = !d.3,
                        1 => d.2 = 1 + rng(&mut st) % 4,
                        _ => {}
                    }
                }
                if rng(&mut st) % 3 == 0 {
                    let (a, b) = ((rng(&mut st) % n as u64) as u32, (rng(&mut st) % n as u64) as u32);
                    if a != b {
                        dirs.extend(duplex(&[(a, b, 1 + rng(&mut st) % 4)]));
                    }
                }
                r.update(&dirs, &relay);
                let fresh = compute(n, &dirs, &dsts, &relay);
                for a in 0..n as u32 {
                    for &b in &dsts {
                        assert_eq!(r.next_dir(a, b), fresh.next_dir(a, b), "n {n} {a}->{b}");
                    }
                }
            }
        }
    }
}
