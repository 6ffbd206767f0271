//! Turning what someone typed into a graph node: a case id, `kind:value` (the kind and the
//! value as people type them: `component:nccl`, `root:"uneven work"`, `symptom:stuck`), or a
//! bare value name or alias when only one kind has it (`nccl`).
//!
//! Values resolve through the taxonomy's names and aliases (fuzzily, as filters do), then
//! through the values cases actually use (user libraries may have values of their own).
//! Errors: an unknown case id fails (exit 1) naming the nearest ids; a bad kind or value is a
//! usage error (exit 2) naming the nearest values; a value no case uses fails (exit 1).

use super::{Graph, NodeId, NodeKey, NodeKind};
use crate::{
    corpus::FacetKind,
    error::{Error, Result},
    taxonomy::{Taxonomy, normalize_term},
    text::one_line,
};

impl Graph {
    /// The node `input` names (see the module docs).
    pub fn resolve(&self, taxonomy: &Taxonomy, input: &str) -> Result<NodeId> {
        let input = input.trim();
        if input.is_empty() {
            return Err(Error::Usage(
                "no node given: name a case id or kind:value (e.g. component:NCCL)".into(),
            ));
        }
        if let Some(id) = self.case_node(input) {
            return Ok(id);
        }
        // Case ids never contain ':', so anything with one is kind:value.
        if let Some((kind, value)) = input.split_once(':') {
            let kind = kind.parse::<FacetKind>().map_err(Error::Usage)?;
            return self.resolve_value(taxonomy, kind, unquote(value));
        }
        let mut found: Vec<NodeId> = FacetKind::ALL
            .into_iter()
            .filter_map(|kind| {
                let name = taxonomy.lookup(kind, input).map(|v| v.name.clone()).or_else(|| {
                    self.values_of(kind)
                        .find(|&n| normalize_term(&self.node(n).label) == normalize_term(input))
                        .map(|n| self.node(n).label.clone())
                })?;
                self.facet_node(kind, &name)
            })
            .collect();
        found.dedup();
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(self.unknown(input)),
            many => {
                let keys: Vec<String> = many.iter().map(|&n| self.node(n).key.to_string()).collect();
                Err(Error::Usage(format!(
                    "'{}' is a value of several kinds; say which: {}",
                    one_line(input),
                    keys.join(", ")
                )))
            }
        }
    }

    fn resolve_value(&self, taxonomy: &Taxonomy, kind: FacetKind, value: &str) -> Result<NodeId> {
        let by_taxonomy = taxonomy.resolve(kind, value);
        if let Ok(v) = &by_taxonomy {
            return self.facet_node(kind, &v.name).ok_or_else(|| {
                Error::Failed(format!("no case has {} '{}'", kind.label().to_lowercase(), v.name))
            });
        }
        let norm = normalize_term(value);
        if let Some(id) = self.values_of(kind).find(|&n| normalize_term(&self.node(n).label) == norm) {
            return Ok(id);
        }
        Err(Error::Usage(by_taxonomy.err().map(|e| e.to_string()).unwrap_or_default()))
    }

    /// The value nodes of `kind`.
    pub fn values_of(&self, kind: FacetKind) -> impl Iterator<Item = NodeId> + '_ {
        self.ids().filter(move |&n| self.node(n).kind() == NodeKind::Facet(kind))
    }

    fn unknown(&self, input: &str) -> Error {
        let mut near: Vec<(f64, &str)> = self
            .ids()
            .filter_map(|n| match &self.node(n).key {
                NodeKey::Case(id) => Some((strsim::jaro_winkler(id, input), id.as_str())),
                NodeKey::Facet(..) => None,
            })
            .filter(|(s, _)| *s > 0.6)
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let mut msg = format!("no case or facet value '{}'", one_line(input));
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
    use crate::{corpus::FacetKind, taxonomy::Taxonomy};

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
            let id = g.resolve(&t, input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(g.node(id).key.to_string(), want, "{input}");
        }
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
