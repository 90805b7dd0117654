//! Forward error correction on a link-layer frame: a Reed-Solomon code
//! RS(n, k) over bytes (GF(256) symbols), as satellite links use (DVB-S's
//! outer code is RS(204, 188); CCSDS's RS(255, 223)).
//!
//! A frame of L bytes is sent as ceil(L / k) codewords of n bytes, so it
//! takes n/k times the capacity (rounded up to whole codewords). A codeword
//! is decoded unless more than t = floor((n - k) / 2) of its n bytes are in
//! error; the frame is lost when any codeword fails. With independent bit
//! errors at rate BER a byte is in error with p = 1 - (1 - BER)^8 and
//!
//!   P(codeword fails) = sum_{i > t} C(n, i) p^i (1 - p)^(n - i)
//!   residual PER      = 1 - (1 - P(codeword fails))^ceil(L / k).
//!
//! Choices: bit errors are independent (a burst channel's FEC gain cannot
//! be computed this way, so on any other error model the scenario gives
//! `repair`, the fraction of corrupted frames FEC repairs); erasures and
//! decoder failures that go undetected are not modelled (an RS decoder that
//! fails is assumed to say so, and the frame is discarded); on a `ber`
//! channel with a fixed `bits` per packet (the ADaLR thesis' reading) the
//! code still sees the frame's real length, since FEC works on its bytes.

/// An RS(n, k) code, and optionally the fraction of corrupted frames it
/// repairs on a channel whose errors are not independent bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FecCfg {
    pub n: u32,
    pub k: u32,
    pub repair: Option<f64>,
}

impl FecCfg {
    /// Bytes on the air for a frame of `bytes`: whole codewords.
    pub fn coded_bytes(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.k) * self.n
    }

    /// Correctable byte errors per codeword.
    pub fn t(&self) -> u32 {
        (self.n - self.k) / 2
    }

    /// Probability that one codeword fails to decode at this bit error rate.
    pub fn codeword_failure(&self, ber: f64) -> f64 {
        if ber <= 0.0 {
            return 0.0;
        }
        let p = -(8.0 * (-ber).ln_1p()).exp_m1(); // 1 - (1 - ber)^8
        if p >= 1.0 {
            return 1.0;
        }
        let (n, t) = (self.n as f64, self.t());
        // the tail from i = t + 1, each term from the one before
        let ln_q = (-p).ln_1p();
        let mut ln_c = 0.0; // ln C(n, i)
        for i in 0..=t {
            ln_c += ((n - i as f64) / (i as f64 + 1.0)).ln();
        }
        let i0 = (t + 1) as f64;
        let mut term = (ln_c + i0 * p.ln() + (n - i0) * ln_q).exp();
        let mut sum = 0.0;
        for i in (t + 1)..=self.n {
            sum += term;
            let i = i as f64;
            term *= (n - i) / (i + 1.0) * p / (1.0 - p);
            if term < sum * 1e-17 {
                break;
            }
        }
        sum.min(1.0)
    }

    /// Residual probability that a frame of `bytes` is lost after decoding.
    pub fn residual_per(&self, ber: f64, bytes: u32) -> f64 {
        let words = bytes.div_ceil(self.k) as f64;
        -(words * (-self.codeword_failure(ber)).ln_1p()).exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs(n: u32, k: u32) -> FecCfg {
        FecCfg { n, k, repair: None }
    }

    #[test]
    fn coded_size_is_whole_codewords() {
        let c = rs(255, 223);
        assert_eq!(c.t(), 16);
        assert_eq!(c.coded_bytes(223), 255);
        assert_eq!(c.coded_bytes(224), 510);
        assert_eq!(c.coded_bytes(1008), 5 * 255);
    }

    #[test]
    fn codeword_failure_matches_a_direct_binomial_sum() {
        // RS(15, 11), t = 2, at byte error rate p: 1 - sum_{i<=2} C(15,i) p^i q^(15-i)
        let c = rs(15, 11);
        for ber in [1e-4, 1e-3, 1e-2] {
            let p: f64 = 1.0 - (1.0 - ber as f64).powi(8);
            let q = 1.0 - p;
            let ok = q.powi(15) + 15.0 * p * q.powi(14) + 105.0 * p * p * q.powi(13);
            let want = 1.0 - ok;
            let got = c.codeword_failure(ber);
            assert!((got - want).abs() <= 1e-9 * want.max(1e-300) + 1e-15, "ber {ber}: {got} vs {want}");
        }
        assert_eq!(c.codeword_failure(0.0), 0.0);
        assert_eq!(c.codeword_failure(1.0), 1.0);
    }

    #[test]
    fn fec_turns_a_high_raw_per_into_a_small_residual() {
        // 1000-byte frames at BER 1e-4: raw PER 1 - (1-1e-4)^8000 = 55%;
        // RS(255, 223) corrects 16 byte errors of 255 (expected 0.2): the
        // residual is far below 1e-9
        let raw = 1.0 - (1.0f64 - 1e-4).powi(8000);
        assert!((raw - 0.5507).abs() < 1e-3);
        let res = rs(255, 223).residual_per(1e-4, 1000);
        assert!(res > 0.0 && res < 1e-9, "{res}");
        // at BER 1e-2 (p = 7.7% of bytes, 19.6 expected per codeword) it fails
        assert!(rs(255, 223).residual_per(1e-2, 1000) > 0.5);
        // residual grows with frame length (more codewords)
        assert!(rs(255, 223).residual_per(2e-3, 2000) > rs(255, 223).residual_per(2e-3, 200));
    }
}
