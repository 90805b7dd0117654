//! Typed indices into the run's arenas, and the one place their layout is
//! written down: link `l`'s direction a->b is direction `2l`, b->a is
//! `2l + 1`; flow `f`'s server endpoint is `2f`, its client `2f + 1`. The
//! world, the router agents, captures and summaries go through these
//! instead of doing the arithmetic themselves. Each is a `u32` inside
//! (events and packets carry them), free to copy and compare.

/// Which end of a flow: the server sends the FTP file or HTTP objects,
/// the client opens the connection and receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Server,
    Client,
}

/// A flow: an index into the scenario's flows and the world's
/// applications.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

impl FlowId {
    pub fn new(index: usize) -> Self {
        FlowId(index as u32)
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Its endpoint on `side`.
    #[inline]
    pub fn endpoint(self, side: Side) -> EpId {
        EpId(2 * self.0 + (side == Side::Client) as u32)
    }

    pub fn server(self) -> EpId {
        self.endpoint(Side::Server)
    }

    pub fn client(self) -> EpId {
        self.endpoint(Side::Client)
    }
}

/// A TCP endpoint: an index into the world's endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EpId(pub u32);

impl EpId {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The flow it belongs to.
    #[inline]
    pub fn flow(self) -> FlowId {
        FlowId(self.0 / 2)
    }

    #[inline]
    pub fn side(self) -> Side {
        if self.0.is_multiple_of(2) {
            Side::Server
        } else {
            Side::Client
        }
    }

    /// The other end of its connection.
    #[inline]
    pub fn peer(self) -> EpId {
        EpId(self.0 ^ 1)
    }
}

/// A link direction: an index into the world's link directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DirId(pub u32);

impl DirId {
    /// Link `link`'s direction a->b (`side` 0) or b->a (1).
    #[inline]
    pub fn new(link: usize, side: usize) -> Self {
        debug_assert!(side < 2);
        DirId((2 * link + side) as u32)
    }

    /// Both directions of `link`, a->b first.
    #[inline]
    pub fn both(link: usize) -> [DirId; 2] {
        [DirId::new(link, 0), DirId::new(link, 1)]
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The link it belongs to.
    #[inline]
    pub fn link(self) -> usize {
        (self.0 / 2) as usize
    }

    /// 0 for a->b, 1 for b->a.
    #[inline]
    pub fn side(self) -> usize {
        (self.0 % 2) as usize
    }

    /// The same link's other direction.
    #[inline]
    pub fn reverse(self) -> DirId {
        DirId(self.0 ^ 1)
    }

    /// "ab" or "ba", as summaries name it.
    pub fn name(self) -> &'static str {
        if self.side() == 0 {
            "ab"
        } else {
            "ba"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the rest of the engine relies on, written out once.
    #[test]
    fn layouts_round_trip() {
        for f in [0u32, 1, 7, 1 << 20] {
            let flow = FlowId(f);
            let (s, c) = (flow.server(), flow.client());
            assert_eq!((s.0, c.0), (2 * f, 2 * f + 1));
            assert_eq!((s.flow(), c.flow()), (flow, flow));
            assert_eq!((s.side(), c.side()), (Side::Server, Side::Client));
            assert_eq!((s.peer(), c.peer()), (c, s));
            assert_eq!(flow.endpoint(Side::Client), c);
        }
        for l in [0usize, 3, 1 << 20] {
            let [ab, ba] = DirId::both(l);
            assert_eq!((ab.0, ba.0), (2 * l as u32, 2 * l as u32 + 1));
            assert_eq!((ab.link(), ba.link(), ab.side(), ba.side()), (l, l, 0, 1));
            assert_eq!((ab.reverse(), ba.reverse()), (ba, ab));
            assert_eq!((ab.name(), ba.name()), ("ab", "ba"));
        }
    }
}
