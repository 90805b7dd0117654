"""satcp.stats against hand-worked values (stated in each test)."""

import math

import numpy as np
import pandas as pd
import pytest

from satcp import stats


def test_t_interval_of_1_2_3_4():
    # mean 2.5, s = sqrt(5/3) = 1.290994, sem = s/2 = 0.645497;
    # t(0.975; 3) = 3.182446 -> half width 2.054260;
    # t(0.95; 3) = 2.353363 -> half width 1.519090.
    mean, lo, hi = stats.t_interval([1, 2, 3, 4], 0.95)
    assert mean == 2.5
    assert lo == pytest.approx(2.5 - 2.054260, abs=1e-6)
    assert hi == pytest.approx(2.5 + 2.054260, abs=1e-6)
    _, lo90, hi90 = stats.t_interval([1, 2, 3, 4], 0.90)
    assert (hi90 - lo90) / 2 == pytest.approx(1.519090, abs=1e-6)


def test_ceten_r_table_4_interval():
    # CETEN-R Table 4, 50 ms, BER 1e-7, Off: mean 808558, sd 6171, n = 5,
    # 90% CI (802674, 814441): 808558 -+ 2.131847 * 6171 / sqrt(5)
    # = 808558 -+ 5883.38 (the thesis rounds the standard error to 2760).
    lo, hi = stats.t_interval_from_moments(808558, 6171, 5, 0.90)
    assert abs(lo - 802674) < 1 and abs(hi - 814441) < 1


def test_single_observation_has_no_interval():
    mean, lo, hi = stats.t_interval([7.0], 0.95)
    assert mean == 7.0 and math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError, match="confidence level"):
        stats.t_interval([1, 2], 95)


def test_describe_per_cell():
    df = pd.DataFrame({"v": ["a"] * 4 + ["b"] * 3, "x": [1, 2, 3, 4, 10, 20, np.nan]})
    d = stats.describe(df, "v", "x", level=0.95).set_index("v")
    a = d.loc["a"]
    assert (a["n"], a["mean"], a["median"], a["q1"], a["q3"], a["min"], a["max"]) == (4, 2.5, 2.5, 1.75, 3.25, 1, 4)
    assert a["ci_half"] == pytest.approx(2.054260, abs=1e-6)
    b = d.loc["b"]
    # the NaN is missing, not a zero: n = 2, mean 15, s = 7.0711,
    # half = t(0.975; 1) * 7.0711 / sqrt(2) = 12.7062 * 5 = 63.531
    assert (b["n"], b["n_missing"], b["mean"]) == (2, 1, 15.0)
    assert b["ci_half"] == pytest.approx(63.531024, abs=1e-5)


def test_improvement_follows_the_thesis_sign_convention():
    # ADaLR Table 7.5: SACK 463.5 s, ADaLR SACK 333.4 s -> 28.07% shorter.
    assert stats.improvement(463.5, 333.4, lower_is_better=True) == pytest.approx(28.069, abs=1e-3)
    # CETEN-R 5.2: Off 45304 bps, On 111455 bps -> +146.0%.
    assert stats.improvement(45304, 111455, lower_is_better=False) == pytest.approx(146.016, abs=1e-3)
    assert stats.improvement(100, 110, lower_is_better=True) == pytest.approx(-10.0)


def test_compare_cells_and_overlap():
    df = pd.DataFrame({
        "v": ["old"] * 4 + ["new"] * 4,
        "ber": [1e-6, 1e-6, 1e-5, 1e-5] * 2,
        "completion_s": [10, 12, 100, 110, 5, 7, 99, 112],
    })
    c = stats.compare(df, "v", "old", "new", "completion_s", by="ber").set_index("ber")
    # 1e-6: old mean 11, new 6 -> (11 - 6) / 11 = 45.45%; 1e-5: 105 vs 105.5 -> -0.476%
    assert c.loc[1e-6, "improvement_pct"] == pytest.approx(45.4545, abs=1e-3)
    assert c.loc[1e-5, "improvement_pct"] == pytest.approx(-0.47619, abs=1e-4)
    assert c.loc[1e-5, "ci_overlap"]
    with pytest.raises(ValueError, match="lower is better"):
        stats.compare(df.rename(columns={"completion_s": "zz"}), "v", "old", "new", "zz")


def test_paired_difference_by_replication():
    # pairs (base, new): (10, 12), (11, 14), (12, 13) -> diffs 2, 3, 1:
    # mean 2, s = 1, sem = 0.57735, t(0.95; 2) = 2.919986 -> 90% CI 2 -+ 1.685854
    df = pd.DataFrame({"v": ["b"] * 3 + ["n"] * 3, "replication": [0, 1, 2] * 2, "g": [10, 11, 12, 12, 14, 13]})
    p = stats.paired_difference(df, "v", "b", "n", "g", level=0.90).iloc[0]
    assert (p["n"], p["mean_diff"], p["std"]) == (3, 2.0, 1.0)
    assert p["ci_low"] == pytest.approx(2 - 1.685854, abs=1e-6)
    assert p["significant"]


def test_anova_two_by_two_by_hand():
    # A x B, 2 replications per cell:
    #   A1B1: 1, 3   A1B2: 5, 7   A2B1: 2, 4   A2B2: 10, 12
    # grand mean 5.5; A effects -+1.5 -> SSA = 8 * 1.5^2 = 18;
    # B effects -+3 -> SSB = 72; interaction effects +-1 -> SSAB = 8;
    # within-cell deviations +-1 -> SSE = 8; SST = 106 = 348 - 8 * 5.5^2.
    # MSE = 8 / 4 = 2: F_A = 9, F_B = 36, F_AB = 4 on (1, 4) df.
    df = pd.DataFrame({
        "x.a": ["1", "1", "1", "1", "2", "2", "2", "2"],
        "x.b": ["1", "1", "2", "2", "1", "1", "2", "2"],
        "y": [1, 3, 5, 7, 2, 4, 10, 12],
    })
    t = stats.anova(df, ["x.a", "x.b"], "y").set_index("component")
    assert t.loc["y", "ss"] == pytest.approx(348) and t.loc["y", "df"] == 8
    assert t.loc["ybar", "ss"] == pytest.approx(242)
    assert t.loc["y - ybar", "ss"] == pytest.approx(106) and t.loc["y - ybar", "df"] == 7
    assert t.loc["a", "ss"] == pytest.approx(18) and t.loc["a", "F"] == pytest.approx(9)
    assert t.loc["b", "ss"] == pytest.approx(72) and t.loc["b", "F"] == pytest.approx(36)
    assert t.loc["a x b", "ss"] == pytest.approx(8) and t.loc["a x b", "F"] == pytest.approx(4)
    assert t.loc["Errors", "ss"] == pytest.approx(8) and t.loc["Errors", "df"] == 4
    assert t.loc["Main Effects", "ss"] == pytest.approx(90) and t.loc["Main Effects", "df"] == 2
    assert t.loc["b", "pct_variation"] == pytest.approx(72 / 106 * 100)
    # F(1, 4) = t(4)^2: P(F > 9) = P(|t_4| > 3) = 0.039942
    assert t.loc["a", "p"] == pytest.approx(0.039942, abs=1e-6)
    # main effects only: the interaction goes into the error term (SSE 16, df 5)
    m = stats.anova(df, ["x.a", "x.b"], "y", max_order=1).set_index("component")
    assert m.loc["Errors", "ss"] == pytest.approx(16) and m.loc["Errors", "df"] == 5
    assert "a x b" not in m.index


def test_anova_rejects_a_constant_factor():
    df = pd.DataFrame({"x.a": ["1", "1"], "y": [1.0, 2.0]})
    with pytest.raises(ValueError, match="single level"):
        stats.anova(df, ["x.a"], "y")


def test_fairness_indices_reproduce_adalr_table_7_13():
    # Tables 7.11 / 7.12 (bytes/s) -> Table 7.13: Jain 0.95105 / 0.86503,
    # max-min 0.56773 / 0.33881 (spec 000, 5.5).
    adalr = [283404.6, 281750.6, 268984.6, 195099.8, 175343.8, 160897.4]
    newreno = [322418.0, 300629.1, 263129.2, 158601.5, 129560.8, 109239.5]
    assert stats.jain_index(adalr) == pytest.approx(0.95105, abs=5e-6)
    assert stats.max_min_fairness(adalr) == pytest.approx(0.56773, abs=5e-6)
    assert stats.jain_index(newreno) == pytest.approx(0.86503, abs=5e-6)
    assert stats.max_min_fairness(newreno) == pytest.approx(0.33881, abs=5e-6)
    assert stats.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)


def test_fairness_per_cell_over_runs():
    # cell A: runs with flows (1, 1) and (1, 3): Jain 1 and 16 / (2 * 10) = 0.8
    df = pd.DataFrame({
        "v": ["A"] * 4,
        "key": ["r1", "r1", "r2", "r2"],
        "throughput_bps": [1, 1, 1, 3],
    })
    f = stats.fairness(df, "v").iloc[0]
    assert (f["n"], f["flows"]) == (2, 2)
    assert f["jain_mean"] == pytest.approx(0.9)
    assert f["max_min_mean"] == pytest.approx((1 + 1 / 3) / 2)


def test_factor_columns_are_the_dotted_ones():
    df = pd.DataFrame(columns=["key", "replication", "flows.d.tcp.variant", "links.1.errors_ab.ber", "goodput_bps"])
    assert stats.factor_columns(df) == ["flows.d.tcp.variant", "links.1.errors_ab.ber"]


def test_anova_balanced_three_factor_partition():
    # invariant: in a balanced full factorial the term sums of squares and
    # the error add up to SST, and each group row is the sum of its terms
    rng = np.random.default_rng(5)
    rows = []
    for a in ("r", "n"):
        for b in (50, 320):
            for c in (1e-7, 1e-6, 1e-5):
                for _ in range(4):
                    rows.append({"x.a": a, "x.b": b, "x.c": c,
                                 "y": (a == "r") * 3 + b / 100 + np.log10(c) * 2 + rng.normal()})
    t = stats.anova(pd.DataFrame(rows), ["x.a", "x.b", "x.c"], "y")
    terms = t[t["kind"] == "term"]
    sst = t.loc[t["component"] == "y - ybar", "ss"].item()
    err = t.loc[t["component"] == "Errors", "ss"].item()
    assert terms["ss"].sum() + err == pytest.approx(sst)
    assert terms["df"].sum() + t.loc[t["component"] == "Errors", "df"].item() == 47
    groups = t[t["kind"] == "group"].set_index("order")
    assert list(groups["component"]) == ["Main Effects", "First-Order Interactions", "Second-Order Interactions"]
    for order, g in groups.iterrows():
        assert g["ss"] == pytest.approx(terms[terms["order"] == order]["ss"].sum())
    assert t.loc[t["component"] == "c", "df"].item() == 2
    assert t.loc[t["component"] == "a x b x c", "df"].item() == 2
    # the shares of variation of the groups and the error make 100%
    assert groups["pct_variation"].sum() + t.loc[t["component"] == "Errors", "pct_variation"].item() == pytest.approx(100)
