//! Turning what someone typed into a graph node: a case id, `kind:value` (the kind and the
//! value as people type them: `component:nccl`, `root:"uneven work"`, `symptom:stuck`), or a
//! bare value when only one kind has it (`nccl`, and `nccll` too).
//!
//! Values resolve through the taxonomy by the one resolver (`crate::text::resolve`: names, aliases,
//! word starts, near spellings), then through the values cases actually use (user libraries may
//! have values of their own); a bare value named exactly by one kind wins over near spellings
//! in others. What an inexact input was read as comes back as a note.
//! Errors: an unknown case id fails (exit 1) naming the nearest ids and values; a bad kind or
//! value is a usage error (exit 2) naming the nearest values; a value no case uses fails (exit 1).

use super::{Graph, NodeId, NodeKey, NodeKind};
use crate::{
    support::error::{Error, Result},
    taxonomy::FacetKind,
    taxonomy::{Taxonomy, normalize_term},
    text::one_line,
};

/// The node an input named, and what it was read as when that was not exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The node.
    pub id: NodeId,
    /// `read component 'nccll' as 'NCCL' (the nearest spelling)`, when the input was inexact.
    pub note: Option<String>,
}

impl Located {
    fn exact(id: NodeId) -> Located {
        Located { id, note: None }
    }
}

/// How similar a value must be spelled to be named in an error as a nearest value.
const NEAR_VALUE: f64 = 0.8;

impl Graph {
    /// The node `input` names (see the module docs).
    pub fn resolve(&self, taxonomy: &Taxonomy, input: &str) -> Result<Located> {
        let input = input.trim();
        if input.is_empty() {
            return Err(Error::Usage(
                "no node given: name a case id or kind:value (e.g. component:NCCL)".into(),
            ));
        }
        if let Some(id) = self.case_node(input) {
            return Ok(Located::exact(id));
        }
        // Case ids never contain ':', so anything with one is kind:value.
        if let Some((kind, value)) = input.split_once(':') {
            let kind = kind.parse::<FacetKind>().map_err(Error::Usage)?;
            return self.resolve_value(taxonomy, kind, unquote(value));
        }
        let mut exact: Vec<NodeId> = Vec::new();
        let mut inexact: Vec<Located> = Vec::new();
        for kind in FacetKind::ALL {
            match taxonomy.resolve(kind, input) {
                Ok(resolved) => {
                    let Some(id) = self.facet_node(kind, &resolved.value.name) else { continue };
                    match resolved.note(input) {
                        None => exact.push(id),
                        note => inexact.push(Located { id, note }),
                    }
                }
                Err(_) => exact.extend(self.own_value(kind, input)),
            }
        }
        exact.dedup();
        match (exact.as_slice(), inexact.as_slice()) {
            ([one], _) => Ok(Located::exact(*one)),
            ([], [one]) => Ok(one.clone()),
            ([], []) => Err(self.unknown(taxonomy, input)),
            (many, _) if !many.is_empty() => Err(self.several_kinds(input, many.iter().copied())),
            (_, many) => Err(self.several_kinds(input, many.iter().map(|l| l.id))),
        }
    }

    fn several_kinds(&self, input: &str, ids: impl Iterator<Item = NodeId>) -> Error {
        let keys: Vec<String> = ids.map(|n| self.node(n).key.to_string()).collect();
        Error::Usage(format!(
            "'{}' is a value of several kinds; say which: {}",
            one_line(input),
            keys.join(", ")
        ))
    }

    /// A value of `kind` no taxonomy has but a case uses, named exactly.
    fn own_value(&self, kind: FacetKind, input: &str) -> Option<NodeId> {
        let norm = normalize_term(input);
        self.values_of(kind).find(|&n| normalize_term(&self.node(n).label) == norm)
    }

    fn resolve_value(&self, taxonomy: &Taxonomy, kind: FacetKind, value: &str) -> Result<Located> {
        let by_taxonomy = taxonomy.resolve(kind, value);
        if let Ok(resolved) = &by_taxonomy {
            let name = &resolved.value.name;
            let id = self.facet_node(kind, name).ok_or_else(|| {
                Error::Failed(format!("no case has {} '{name}'", kind.label().to_lowercase()))
            })?;
            return Ok(Located { id, note: resolved.note(value) });
        }
        if let Some(id) = self.own_value(kind, value) {
            return Ok(Located::exact(id));
        }
        Err(Error::Usage(by_taxonomy.err().map(|e| e.to_string()).unwrap_or_default()))
    }

    /// The value nodes of `kind`.
    pub fn values_of(&self, kind: FacetKind) -> impl Iterator<Item = NodeId> + '_ {
        self.ids().filter(move |&n| self.node(n).kind() == NodeKind::Facet(kind))
    }

    fn unknown(&self, taxonomy: &Taxonomy, input: &str) -> Error {
        let mut near: Vec<(f64, &str)> = self
            .ids()
            .filter_map(|n| match &self.node(n).key {
                NodeKey::Case(id) => Some((strsim::jaro_winkler(id, input), id.as_str())),
                NodeKey::Facet(..) => None,
            })
            .filter(|(s, _)| *s > 0.6)
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let mut values: Vec<(f64, String)> = FacetKind::ALL
            .into_iter()
            .flat_map(|kind| {
                taxonomy.nearest(kind, input, 1).into_iter().filter_map(move |v| {
                    let score = crate::text::resolve::similarity(input, &v.name, &v.aliases);
                    (score >= NEAR_VALUE && self.facet_node(kind, &v.name).is_some())
                        .then(|| (score, NodeKey::Facet(kind, v.name.clone()).to_string()))
                })
            })
            .collect();
        values.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let mut msg = format!("no case or facet value '{}'", one_line(input));
        if !values.is_empty() {
            let named: Vec<&str> = values.iter().take(3).map(|(_, v)| v.as_str()).collect();
            msg.push_str(&format!("; nearest values: {}", named.join(", ")));
        }
        if !near.is_empty() {
            let ids: Vec<&str> = near.iter().take(3).map(|(_, id)| *id).collect();
            msg.push_str(&format!("; nearest case ids: {}", ids.join(", ")));
        }
        msg.push_str("; name a value as kind:value (e.g. component:NCCL)");
        Error::Failed(msg)
    }
}

/// `value` without one pair of surrounding double quotes (`root:"uneven work"`).
fn unquote(value: &str) -> &str {
    let value = value.trim();
    value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::super::{
        Graph,
        tests::{case, small},
    };
    use crate::{taxonomy::FacetKind, taxonomy::Taxonomy};

    const TAXONOMY: &str = r#"
[[root_cause]]
name = "Uneven work"
description = "d"
aliases = ["imbalance"]
[[root_cause]]
name = "Hardware fault"
description = "d"
[[component]]
name = "GPU"
description = "d"
aliases = ["accelerator"]
[[component]]
name = "NCCL"
description = "d"
aliases = ["all-reduce"]
[[component]]
name = "DNS"
description = "d"
[[symptom]]
name = "Hang"
description = "d"
aliases = ["stuck", "hung"]
[[symptom]]
name = "Crash"
description = "d"
[[symptom]]
name = "GPU"
description = "a symptom with a component's name, to test ambiguity"
"#;

    fn setup() -> (Graph, Taxonomy) {
        let (t, diags) = Taxonomy::parse("t.toml", TAXONOMY);
        assert!(diags.is_empty(), "{diags:?}");
        let mut cases = small();
        cases.push(case("e", &[(FacetKind::Symptom, "GPU"), (FacetKind::Component, "Own value")]));
        (Graph::build(&cases), t)
    }

    #[test]
    fn what_people_type_resolves() {
        let (g, t) = setup();
        for (input, want) in [
            ("a", "a"),
            ("  b ", "b"),
            ("component:nccl", "component:NCCL"),
            ("comp:all-reduce", "component:NCCL"),
            ("symptom:stuck", "symptom:Hang"),
            ("root:\"uneven work\"", "root_cause:Uneven work"),
            ("root_cause:imbalance", "root_cause:Uneven work"),
            ("hung", "symptom:Hang"),
            ("NCCL", "component:NCCL"),
            ("component:own value", "component:Own value"),
            ("own value", "component:Own value"),
        ] {
            let found = g.resolve(&t, input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(g.node(found.id).key.to_string(), want, "{input}");
            assert_eq!(found.note, None, "{input} is exact");
        }
    }

    #[test]
    fn near_spellings_resolve_like_filters_and_say_what_they_were_read_as() {
        let (g, t) = setup();
        for (input, want, note) in [
            ("nccll", "component:NCCL", "read component 'nccll' as 'NCCL' (the nearest spelling)"),
            ("component:nccll", "component:NCCL", "read component 'nccll' as 'NCCL' (the nearest spelling)"),
            ("symptom:stuk", "symptom:Hang", "read symptom 'stuk' as 'Hang' (the nearest spelling)"),
        ] {
            let found = g.resolve(&t, input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(g.node(found.id).key.to_string(), want, "{input}");
            assert_eq!(found.note.as_deref(), Some(note), "{input}");
        }
        let err = g.resolve(&t, "ncclx-hang").unwrap_err().to_string();
        assert!(err.contains("nearest values: component:NCCL"), "{err}");
    }

    #[test]
    fn bad_input_gets_a_clear_error_and_the_right_exit_code() {
        let (g, t) = setup();
        for (input, code, start) in [
            ("", 2, "no node given"),
            ("zz", 1, "no case or facet value 'zz'"),
            ("component:flux capacitor", 2, "unknown component 'flux capacitor'"),
            ("component:DNS", 1, "no case has component 'DNS'"),
            ("GPU", 2, "'GPU' is a value of several kinds; say which: component:GPU, symptom:GPU"),
            ("colour:red", 2, "unknown facet kind 'colour'"),
            ("x\u{1b}[2J", 1, "no case or facet value 'x\u{241b}[2J'"),
        ] {
            let err = g.resolve(&t, input).unwrap_err();
            assert_eq!(err.exit_code(), code, "{input}: {err}");
            assert!(err.to_string().starts_with(start), "{input}: {err}");
        }
    }
}
