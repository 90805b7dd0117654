//! Sequence numbers: 64-bit absolute offsets inside an endpoint, 32-bit
//! modular values on the wire.
//!
//! Absolute offset 0 is the SYN, data byte k (0-based) is k + 1, and the FIN
//! follows the last data byte. The wire value is `iss + offset (mod 2^32)`.
//! A received wire value is unwrapped to the absolute offset nearest to a
//! reference the endpoint already holds (rcv_nxt or snd_una), which is correct
//! as long as the two are within 2^31 of each other, as TCP itself assumes.
//! Transfers larger than 4 GiB therefore wrap on the wire and work.

#[inline]
pub fn wire(iss: u32, abs: u64) -> u32 {
    iss.wrapping_add(abs as u32)
}

#[inline]
pub fn unwrap(iss: u32, reference: u64, w: u32) -> u64 {
    let d = w.wrapping_sub(wire(iss, reference)) as i32 as i64;
    (reference as i64).saturating_add(d).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wraps_at_the_32_bit_edge() {
        let iss = u32::MAX - 10;
        assert_eq!(wire(iss, 0), u32::MAX - 10);
        assert_eq!(wire(iss, 11), 0);
        assert_eq!(unwrap(iss, 5, 0), 11);
        assert_eq!(unwrap(iss, 20, wire(iss, 3)), 3);
    }

    #[test]
    fn beyond_4_gib() {
        let iss = 12345;
        let big = 5 * (1u64 << 32) + 777;
        let w = wire(iss, big);
        assert_eq!(unwrap(iss, big - 1_000_000, w), big);
        assert_eq!(unwrap(iss, big + 1_000_000, w), big);
    }

    proptest! {
        #[test]
        fn unwrap_inverts_wire_near_reference(iss: u32, abs in 0u64..(1u64 << 40), delta in -(1i64 << 30)..(1i64 << 30)) {
            let reference = (abs as i64 + delta).max(0) as u64;
            prop_assert_eq!(unwrap(iss, reference, wire(iss, abs)), abs);
        }
    }
}
