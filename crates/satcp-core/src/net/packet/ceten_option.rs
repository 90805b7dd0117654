//! The CETEN option (Carroll's thesis, section 1.2 of spec 002): what a
//! CETEN-R sender puts in every segment and routers update in passing,
//! carried as a research option (RFC 6994, experiment `EXID`) of 32 bytes:
//! the status flag, the EWMA gain alpha, and the forward and backward
//! survival and congestion ratios.
//!
//! The ratios travel as IEEE-754 single-precision bits (the thesis' code
//! declares doubles; a single carries an estimate in [0, 1] to 6 digits,
//! and seven 32-bit words are all a 32-byte option holds). Whether the 32
//! bytes count on the wire is the flow's `options_on_wire`.

use super::{ResearchOption, MAX_RESEARCH_WORDS};

/// The experiment id (RFC 6994) satcp uses for the CETEN option.
pub const EXID: u16 = 0xCE7E;
/// The option's length (the thesis' `TCPC_SEG_CETEN_SIZE`).
pub const WIRE_LEN: u8 = 32;

/// The option's fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ceten {
    /// 1 = CETEN enabled (the thesis' `ceten_value`).
    pub status: u32,
    pub alpha: f32,
    pub fwd_survival: f32,
    pub bwd_survival: f32,
    pub fwd_congestion: f32,
    pub bwd_congestion: f32,
}

impl Ceten {
    pub fn to_option(self) -> ResearchOption {
        let mut words = [0u32; MAX_RESEARCH_WORDS];
        words[..6].copy_from_slice(&[
            self.status,
            self.alpha.to_bits(),
            self.fwd_survival.to_bits(),
            self.bwd_survival.to_bits(),
            self.fwd_congestion.to_bits(),
            self.bwd_congestion.to_bits(),
        ]);
        ResearchOption { exid: EXID, wire_len: WIRE_LEN, words }
    }

    /// The CETEN fields of a research option, if it is one.
    pub fn from_option(r: &ResearchOption) -> Option<Self> {
        (r.exid == EXID).then(|| Ceten {
            status: r.words[0],
            alpha: f32::from_bits(r.words[1]),
            fwd_survival: f32::from_bits(r.words[2]),
            bwd_survival: f32::from_bits(r.words[3]),
            fwd_congestion: f32::from_bits(r.words[4]),
            bwd_congestion: f32::from_bits(r.words[5]),
        })
    }

    /// The data words, for `TcpHeader::update_research`.
    pub fn words(self) -> [u32; 6] {
        let o = self.to_option();
        let mut w = [0; 6];
        w.copy_from_slice(&o.words[..6]);
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_foreign_options() {
        let c = Ceten { status: 1, alpha: 0.1, fwd_survival: 0.955, bwd_survival: 1.0, fwd_congestion: 0.0, bwd_congestion: 0.25 };
        assert_eq!(Ceten::from_option(&c.to_option()), Some(c));
        let other = ResearchOption { exid: 0xF0F0, ..c.to_option() };
        assert_eq!(Ceten::from_option(&other), None);
    }
}
