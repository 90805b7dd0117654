//! The bytes of a QUIC flow's datagrams while they cross the network. A
//! packet in the world carries no bytes (`Packet` stays 96 bytes), only
//! the datagram's id; the bytes wait here until the packet arrives, and go
//! to quinn as they were stored (one copy per datagram, at the send).
//!
//! Ids are handed out in sequence, so the table is a queue of slots from
//! the oldest id still held: taking a datagram empties its slot, and empty
//! slots at the front are dropped. A datagram lost in the network leaves
//! its slot full; once more than `HELD_BEFORE_FORGETTING` slots are held,
//! full ones at the front older than `FORGET_NS` are forgotten (a memory
//! bound only: nothing takes five minutes to cross a network).

use std::collections::VecDeque;

use bytes::BytesMut;

use crate::sim::Time;

/// Datagram bytes still held this long after they were sent are forgotten.
const FORGET_NS: Time = 300_000_000_000;
/// Forgetting starts once this many slots are held.
const HELD_BEFORE_FORGETTING: usize = 4096;

#[derive(Default)]
pub struct Wire {
    /// The id of the front slot.
    first: u64,
    slots: VecDeque<Option<(Time, BytesMut)>>,
}

impl Wire {
    /// Hold a datagram sent at `now`; its id.
    pub fn put(&mut self, now: Time, bytes: BytesMut) -> u64 {
        let id = self.first + self.slots.len() as u64;
        self.slots.push_back(Some((now, bytes)));
        if self.slots.len() > HELD_BEFORE_FORGETTING {
            while let Some(Some((at, _))) = self.slots.front() {
                if at + FORGET_NS > now {
                    break;
                }
                self.pop();
            }
            self.trim();
        }
        id
    }

    /// The bytes of datagram `id`, once (None if taken or forgotten).
    pub fn take(&mut self, id: u64) -> Option<BytesMut> {
        let k = usize::try_from(id.checked_sub(self.first)?).ok()?;
        let bytes = self.slots.get_mut(k)?.take().map(|(_, b)| b);
        self.trim();
        bytes
    }

    fn pop(&mut self) {
        self.slots.pop_front();
        self.first += 1;
    }

    /// Drop the empty slots at the front.
    fn trim(&mut self) {
        while let Some(None) = self.slots.front() {
            self.pop();
        }
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: u8) -> BytesMut {
        BytesMut::from(&[x][..])
    }

    #[test]
    fn each_datagram_is_taken_once_in_any_order_and_the_front_shrinks() {
        let mut w = Wire::default();
        let ids: Vec<u64> = (0..4).map(|k| w.put(k, b(k as u8))).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(w.take(2).as_deref(), Some(&[2u8][..]));
        assert_eq!(w.take(2), None);
        assert_eq!(w.held(), 4, "a hole in the middle stays");
        assert_eq!(w.take(0).as_deref(), Some(&[0u8][..]));
        assert_eq!(w.held(), 3, "the front's empty slot went");
        assert_eq!(w.take(1).as_deref(), Some(&[1u8][..]));
        assert_eq!(w.held(), 1, "and the hole behind it");
        assert_eq!(w.take(0), None);
        assert_eq!(w.take(9), None);
        assert_eq!(w.put(5, b(4)), 4);
    }

    #[test]
    fn lost_datagrams_are_forgotten_only_when_old_and_many() {
        let mut w = Wire::default();
        w.put(0, b(0)); // lost in the network: never taken
        for k in 1..=HELD_BEFORE_FORGETTING as u64 {
            let id = w.put(k, b(1));
            assert_eq!(w.take(id).as_deref(), Some(&[1u8][..]));
        }
        assert_eq!(w.held(), HELD_BEFORE_FORGETTING + 1, "the lost one holds the queue");
        for _ in 0..HELD_BEFORE_FORGETTING {
            w.put(FORGET_NS - 1, b(2));
        }
        assert_eq!(w.take(0).as_deref(), Some(&[0u8][..]), "not forgotten before FORGET_NS");
        let mut w = Wire::default();
        w.put(0, b(0));
        for k in 0..=HELD_BEFORE_FORGETTING as u64 {
            w.put(FORGET_NS + k, b(2));
        }
        assert_eq!(w.take(0), None, "forgotten once old with more than the bound held");
        assert_eq!(w.take(1).as_deref(), Some(&[2u8][..]));
    }
}
