//! A sweep's replications parsed from their cell's template
//! (`parse_json_reseeded`) are the scenarios their own texts parse to.

mod common;

use satcp_core::scenario::*;

const MARK: i64 = 9_214_696_036_846_106_498; // a placeholder seed, as the sweep's

/// The scenario file at `rel` (from the repository root) as a sweep's cell
/// template: JSON with the placeholder in `run.seed`.
fn template_of(rel: &str) -> String {
    let text = std::fs::read_to_string(common::repo_root().join(rel)).unwrap();
    let mut v: toml::Value = toml::from_str(&text).unwrap();
    v.as_table_mut().unwrap().entry("run").or_insert(toml::Value::Table(Default::default()))
        .as_table_mut().unwrap().insert("seed".into(), toml::Value::Integer(MARK));
    serde_json::to_string(&v).unwrap()
}

fn scenario_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_scenario_file_reseeded_is_its_own_parse() {
    let mut files = Vec::new();
    scenario_files(&common::repo_root().join("scenarios"), &mut files);
    let (mut checked, mut multihop) = (0, 0);
    let mut cache = ReseedCache::default();
    for f in files {
        let mut v: toml::Value = toml::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let t = v.as_table_mut().unwrap();
        let run = t.entry("run").or_insert(toml::Value::Table(Default::default()));
        run.as_table_mut().unwrap().insert("seed".into(), toml::Value::Integer(MARK));
        let has_multihop = t.contains_key("multihop");
        let Ok(template) = serde_json::to_string(&v) else { continue };
        let token = format!("\"seed\":{MARK}");
        if template.matches(&token).count() != 1 {
            continue;
        }
        for seed in [1u64, 2, 99_991] {
            let own = parse_json_in(&template.replace(&token, &format!("\"seed\":{seed}")), &[], None);
            let reseeded = parse_json_reseeded(&template, seed, &mut cache);
            match (own, reseeded) {
                (Ok(a), Ok(b)) => assert!(a == b, "{}: seed {seed}", f.display()),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{}: {:?} against {:?}", f.display(), a.err(), b.err()),
            }
            // a parse the seed shaped is not kept
            assert!(!(has_multihop && cache.holds(&template)), "{}", f.display());
        }
        if !has_multihop && parse_json_in(&template, &[], None).is_ok() {
            assert!(cache.holds(&template), "{}", f.display());
        }
        checked += 1;
        multihop += has_multihop as usize;
    }
    assert!(checked >= 20 && multihop >= 1, "{checked} files, {multihop} with [multihop]");
}

#[test]
fn a_multihop_template_is_parsed_for_each_seed() {
    // its flows' start jitter comes from the seed at parse time: two seeds,
    // two scenarios, neither kept
    let template = template_of("scenarios/xfwa/equal_rtts.toml");
    let mut cache = ReseedCache::default();
    let a = parse_json_reseeded(&template, 1, &mut cache).unwrap();
    assert!(!cache.holds(&template));
    let b = parse_json_reseeded(&template, 2, &mut cache).unwrap();
    assert!(a.flows.iter().zip(&b.flows).any(|(x, y)| x != y), "the seed changes the flows");
}

#[test]
fn a_seed_past_the_range_is_refused_whether_the_parse_is_kept_or_not() {
    let template = template_of("scenarios/geo_bent_pipe.toml");
    let mut cache = ReseedCache::default();
    for _ in 0..2 {
        let e = parse_json_reseeded(&template, u64::MAX, &mut cache).unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("run.seed", "18446744073709551615"));
        parse_json_reseeded(&template, 7, &mut cache).unwrap();
        assert!(cache.holds(&template));
    }
}
