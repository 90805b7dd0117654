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

pub const NO_ROUTE: u32 = u32::MAX;

#[derive(Clone)]
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
    /// Scratch reused from one computation to the next (no allocation
    /// per topology step).
    scratch: Scratch,
}

#[derive(Default, Clone)]
struct Scratch {
    incoming: Incoming,
    frontier: Frontier,
    /// Per node: (delay, hops, first direction) towards the destination.
    best: Vec<(u64, u32, u32)>,
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
    let mut r = Routes { n: n_nodes, col, next: vec![NO_ROUTE; n_nodes * m as usize], edges: dirs.to_vec(), trees_built: 0, scratch: Scratch::default() };
    let all: Vec<u32> = (0..n_nodes as u32).filter(|&d| r.col[d as usize] != NO_ROUTE).collect();
    r.build_trees(&all, relay);
    r
}

/// Incoming edges per node in CSR form, over the directions that are up,
/// each with its delay (read beside the edge, not from the direction
/// table). Rebuilt in place at each computation.
#[derive(Default, Clone)]
struct Incoming {
    start: Vec<u32>,
    edges: Vec<In>,
}

/// One incoming direction: its tail, its index and its delay.
#[derive(Clone, Copy, Default)]
struct In {
    from: u32,
    dir: u32,
    delay: u64,
}

impl Incoming {
    fn rebuild(&mut self, n_nodes: usize, dirs: &[Edge]) {
        let start = &mut self.start;
        start.clear();
        start.resize(n_nodes + 2, 0);
        // counts at [to + 2], prefix sums leave each node's first slot at
        // [to + 1], which the fill then advances to its end
        for &(_, to, _, up) in dirs {
            if up {
                start[to as usize + 2] += 1;
            }
        }
        for i in 2..n_nodes + 2 {
            start[i] += start[i - 1];
        }
        self.edges.clear();
        self.edges.resize(start[n_nodes + 1] as usize, In::default());
        for (i, &(from, to, delay, up)) in dirs.iter().enumerate() {
            if up {
                let slot = &mut start[to as usize + 1];
                self.edges[*slot as usize] = In { from, dir: i as u32, delay };
                *slot += 1;
            }
        }
        start.truncate(n_nodes + 1);
    }

    #[inline]
    fn of(&self, node: u32) -> &[In] {
        &self.edges[self.start[node as usize] as usize..self.start[node as usize + 1] as usize]
    }
}

/// A node's cost towards the destination: delay, then hops, then the
/// index of its first direction (`hops_first` = hops << 32 | first, so
/// that one comparison orders both), then the node (the order in which
/// equal costs leave the frontier).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    delay: u64,
    hops_first: u64,
    node: u32,
}

const NOT_QUEUED: u32 = u32::MAX;

/// Dijkstra's frontier: a 4-ary min-heap holding each node at most once,
/// with its position for a decrease of its key (no stale entries, so
/// fewer and cheaper operations than a heap of every candidate). It pops
/// the nodes in the order of their keys, as a heap of candidates that
/// skipped the stale ones would. Its buffers are reused tree after tree.
#[derive(Default, Clone)]
struct Frontier {
    items: Vec<Key>,
    pos: Vec<u32>,
}

impl Frontier {
    fn reset(&mut self, n_nodes: usize) {
        self.items.clear();
        self.pos.clear();
        self.pos.resize(n_nodes, NOT_QUEUED);
    }

    /// Queue `k.node` with key `k`, or lower its key to `k`.
    #[inline]
    fn push_or_lower(&mut self, k: Key) {
        let i = match self.pos[k.node as usize] {
            NOT_QUEUED => {
                self.items.push(k);
                self.items.len() - 1
            }
            i => i as usize,
        };
        self.sift_up(i, k);
    }

    #[inline]
    fn pop(&mut self) -> Option<Key> {
        let top = *self.items.first()?;
        let last = self.items.pop().expect("not empty");
        self.pos[top.node as usize] = NOT_QUEUED;
        if !self.items.is_empty() {
            self.sift_down(last);
        }
        Some(top)
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, k: Key) {
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = self.items[parent];
            if p <= k {
                break;
            }
            self.items[i] = p;
            self.pos[p.node as usize] = i as u32;
            i = parent;
        }
        self.items[i] = k;
        self.pos[k.node as usize] = i as u32;
    }

    /// Place `k` from the root down.
    #[inline]
    fn sift_down(&mut self, k: Key) {
        let n = self.items.len();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let mut m = first;
            for c in first + 1..(first + 4).min(n) {
                if self.items[c] < self.items[m] {
                    m = c;
                }
            }
            let child = self.items[m];
            if child >= k {
                break;
            }
            self.items[i] = child;
            self.pos[child.node as usize] = i as u32;
            i = m;
        }
        self.items[i] = k;
        self.pos[k.node as usize] = i as u32;
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
        let Scratch { incoming, frontier, best } = &mut self.scratch;
        incoming.rebuild(n_nodes, &self.edges);
        best.resize(n_nodes, (u64::MAX, 0, 0));
        for &dst in dsts {
            let c = self.col[dst as usize];
            best.fill((u64::MAX, 0, 0));
            best[dst as usize] = (0, 0, NO_ROUTE);
            frontier.reset(n_nodes);
            frontier.push_or_lower(Key { delay: 0, hops_first: NO_ROUTE as u64, node: dst });
            while let Some(Key { delay: d, hops_first, node: u }) = frontier.pop() {
                if u != dst && !relay.is_empty() && !relay[u as usize] {
                    continue; // an end, never a hop
                }
                let h = (hops_first >> 32) as u32;
                for e in incoming.of(u) {
                    let cand = (d + e.delay, h + 1, e.dir);
                    if cand < best[e.from as usize] && e.from != dst {
                        best[e.from as usize] = cand;
                        frontier.push_or_lower(Key { delay: cand.0, hops_first: (cand.1 as u64) << 32 | cand.2 as u64, node: e.from });
                    }
                }
            }
            let column = &mut self.next[c as usize * n_nodes..(c as usize + 1) * n_nodes];
            for (node, b) in best.iter().enumerate() {
                column[node] = if node != dst as usize && b.0 != u64::MAX { b.2 } else { NO_ROUTE };
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

    /// The trees against a plain Bellman-Ford over the same costs (delay,
    /// then hops, then the first direction's index), on random graphs with
    /// equal delays (ties), directions down and nodes that may not relay.
    #[test]
    fn trees_equal_bellman_ford_on_random_graphs() {
        let mut st = 11u64;
        for _case in 0..300 {
            let n = 2 + (rng(&mut st) % 30) as usize;
            let mut dirs: Vec<Edge> = Vec::new();
            for _ in 0..rng(&mut st) % 80 {
                let (a, b) = ((rng(&mut st) % n as u64) as u32, (rng(&mut st) % n as u64) as u32);
                if a != b {
                    dirs.push((a, b, rng(&mut st) % 3, rng(&mut st) % 5 != 0));
                }
            }
            let relay: Vec<bool> = if rng(&mut st) % 2 == 0 { vec![] } else { (0..n).map(|_| rng(&mut st) % 3 != 0).collect() };
            let dsts: Vec<u32> = (0..n as u32).filter(|_| rng(&mut st) % 3 == 0).collect();
            let r = compute(n, &dirs, &dsts, &relay);
            for &dst in &dsts {
                let mut best = vec![(u64::MAX, 0u32, NO_ROUTE); n];
                best[dst as usize] = (0, 0, NO_ROUTE);
                for _ in 0..n {
                    for (i, &(v, w, delay, up)) in dirs.iter().enumerate() {
                        let through = w == dst || relay.is_empty() || relay[w as usize];
                        if !up || !through || v == dst || best[w as usize].0 == u64::MAX {
                            continue;
                        }
                        let cand = (best[w as usize].0 + delay, best[w as usize].1 + 1, i as u32);
                        if cand < best[v as usize] {
                            best[v as usize] = cand;
                        }
                    }
                }
                for v in 0..n as u32 {
                    assert_eq!(r.next_dir(v, dst), best[v as usize].2, "n {n}: {v} -> {dst}");
                }
            }
        }
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
