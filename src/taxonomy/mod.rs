//! The taxonomy: the facet values cases are tagged with, their descriptions, the aliases people
//! type and the log signatures people paste — and resolving a word to a value.
//!
//! A taxonomy file has one array of tables per kind (`[[root_cause]]`, `[[component]]`,
//! `[[symptom]]`, `[[contributing_factor]]`), each entry with `name`, `description`, `aliases`
//! and `signatures`. A user library's `taxonomy.toml` extends the bundled one: new names add
//! values, a name that exists already adds its aliases and signatures to it.
//!
//! Resolution here goes through the one resolver, [`crate::text::resolve`] (for `component:nccl`,
//! `--component NCCL`, graph nodes and the picker); finding values
//! in free text (a sentence, a log line, a postmortem) is [`matcher`]'s job. The four kinds of
//! facet are [`facet`]'s.
//!
//! The vocabulary is the model's lower half: it may use the ground ([`crate::text`],
//! [`crate::support`]) and nothing else; the cases are built on it, never the other way round.

pub mod facet;
pub mod matcher;

pub use facet::FacetKind;

use rustc_hash::FxHashMap;

use crate::{
    support::diag::Diagnostic,
    support::toml_fields::{Ctx, Fields},
    text::resolve::{Candidate, How, Miss},
};

/// One facet value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FacetValue {
    /// Its kind.
    pub kind: FacetKind,
    /// Its canonical name, as cases use it.
    pub name: String,
    /// One line: what it covers.
    pub description: String,
    /// Words people type for it.
    pub aliases: Vec<String>,
    /// Log-line fragments people paste that point at it.
    pub signatures: Vec<String>,
    /// The file that defined it.
    #[serde(skip)]
    pub defined_in: String,
}

impl FacetValue {
    /// The name, every alias and every signature: all the phrases that mean this value.
    pub fn phrases(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(self.aliases.iter().map(String::as_str))
            .chain(self.signatures.iter().map(String::as_str))
    }
}

/// Why a word did not resolve to one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// The kind asked for.
    pub kind: FacetKind,
    /// What was typed.
    pub input: String,
    /// The closest valid values, best first; when `ambiguous`, the values it could be.
    pub nearest: Vec<String>,
    /// Words of several values start with the input.
    pub ambiguous: bool,
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = self.kind.label().to_lowercase();
        let input = crate::text::one_line(&self.input);
        if self.ambiguous {
            write!(f, "{kind} '{input}' is ambiguous")?;
        } else {
            write!(f, "unknown {kind} '{input}'")?;
        }
        f.write_str(&nearest_suffix(&self.nearest))?;
        Ok(())
    }
}

/// `; nearest: 'a', 'b'` for the end of an error message, or nothing when `nearest` is empty:
/// the one spelling of "did you mean" in every message that names near values.
pub fn nearest_suffix(nearest: &[String]) -> String {
    if nearest.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = nearest.iter().map(|v| format!("'{v}'")).collect();
    format!("; nearest: {}", quoted.join(", "))
}

/// All facet values, in file order per kind.
#[derive(Debug, Clone, Default)]
pub struct Taxonomy {
    values: Vec<FacetValue>,
    /// (kind, normalised name or alias) -> index into `values`.
    terms: FxHashMap<(FacetKind, String), usize>,
}

/// Lowercase, with `-`, `_` and runs of white space folded to one space: the form in which
/// names and aliases are compared (the resolver's own).
pub use crate::text::resolve::normalize as normalize_term;

impl Taxonomy {
    /// Parse a taxonomy file. Problems are returned with the values that could be read.
    pub fn parse(path: &str, text: &str) -> (Taxonomy, Vec<Diagnostic>) {
        Taxonomy::parse_extending(path, text, &Taxonomy::default())
    }

    /// Parse a taxonomy file that extends `base`: an entry naming a value of `base` may leave
    /// out its description (it only adds aliases and signatures).
    pub fn parse_extending(path: &str, text: &str, base: &Taxonomy) -> (Taxonomy, Vec<Diagnostic>) {
        let mut ctx = Ctx::new(path, text);
        let mut taxonomy = Taxonomy::default();
        if let Some(doc) = ctx.parse_document(text) {
            let mut top = Fields::new(doc.get_ref(), doc.span(), "taxonomy");
            for kind in FacetKind::ALL {
                for (table, span) in top.tables(&mut ctx, kind.key(), false) {
                    let mut fields = Fields::new(table, span.clone(), "taxonomy value");
                    let name = fields.required_str(&mut ctx, "name");
                    let description = fields.str(&mut ctx, "description");
                    let aliases = fields.str_list(&mut ctx, "aliases", false, false).unwrap_or_default();
                    let signatures =
                        fields.str_list(&mut ctx, "signatures", false, false).unwrap_or_default();
                    fields.finish(&mut ctx);
                    let Some(name) = name else { continue };
                    let value = FacetValue {
                        kind,
                        name: name.value.trim().to_string(),
                        description: description.map(|d| d.value).unwrap_or_default(),
                        aliases: aliases.into_iter().map(|a| a.value).collect(),
                        signatures: signatures.into_iter().map(|s| s.value).collect(),
                        defined_in: path.to_string(),
                    };
                    if value.description.is_empty()
                        && taxonomy.get(kind, &value.name).is_none()
                        && base.get(kind, &value.name).is_none()
                    {
                        ctx.error(
                            span.start,
                            format!("taxonomy value '{}' needs a `description`", value.name),
                        );
                    }
                    if taxonomy.get(kind, &value.name).is_some() {
                        ctx.error(name.offset, format!("{} '{}' is defined twice", kind.label(), value.name));
                    }
                    taxonomy.add(value);
                }
            }
            top.finish(&mut ctx);
        }
        (taxonomy, ctx.diagnostics)
    }

    /// Add a value, or merge its aliases and signatures into the value of the same name.
    pub fn add(&mut self, value: FacetValue) {
        let index = match self
            .get(value.kind, &value.name)
            .and_then(|v| self.values.iter().position(|x| std::ptr::eq(x, v)))
        {
            Some(i) => {
                let existing = &mut self.values[i];
                if existing.description.is_empty() {
                    existing.description = value.description;
                }
                for a in value.aliases {
                    if !existing.aliases.contains(&a) {
                        existing.aliases.push(a);
                    }
                }
                for s in value.signatures {
                    if !existing.signatures.contains(&s) {
                        existing.signatures.push(s);
                    }
                }
                i
            }
            None => {
                self.values.push(value);
                self.values.len() - 1
            }
        };
        let v = &self.values[index];
        let terms: Vec<String> =
            std::iter::once(&v.name).chain(&v.aliases).map(|t| normalize_term(t)).collect();
        let kind = v.kind;
        let name = terms[0].clone();
        for term in terms {
            // The first value to claim an alias keeps it; a name always wins over an alias.
            let is_name = term == name;
            let entry = self.terms.entry((kind, term)).or_insert(index);
            if is_name {
                *entry = index;
            }
        }
    }

    /// Extend this taxonomy with another (a user library's).
    pub fn extend(&mut self, other: Taxonomy) {
        for value in other.values {
            self.add(value);
        }
    }

    /// Every value.
    pub fn values(&self) -> &[FacetValue] {
        &self.values
    }

    /// Every log signature of every value (the fragments the log reader weighs as failures).
    pub fn signatures(&self) -> impl Iterator<Item = &str> {
        self.values.iter().flat_map(|v| v.signatures.iter().map(String::as_str))
    }

    /// The values of one kind, in file order.
    pub fn values_of(&self, kind: FacetKind) -> impl Iterator<Item = &FacetValue> {
        self.values.iter().filter(move |v| v.kind == kind)
    }

    /// The value of `kind` with exactly this name (compared normalised).
    pub fn get(&self, kind: FacetKind, name: &str) -> Option<&FacetValue> {
        let norm = normalize_term(name);
        // A name always holds its own term (see `add`), so the term table answers in one
        // lookup what a scan of every value would.
        self.terms
            .get(&(kind, norm.clone()))
            .map(|&i| &self.values[i])
            .filter(|v| normalize_term(&v.name) == norm)
    }

    /// The value of `kind` whose name or alias is exactly `term` (compared normalised).
    pub fn lookup(&self, kind: FacetKind, term: &str) -> Option<&FacetValue> {
        self.terms.get(&(kind, normalize_term(term))).map(|&i| &self.values[i])
    }

    /// Resolve what someone typed to one value of `kind` through the one resolver
    /// ([`crate::text::resolve`]): a name or alias, else the only value with a word starting so, else
    /// a near spelling that stands out. The answer says how, for a note when it was not exact.
    pub fn resolve(&self, kind: FacetKind, input: &str) -> Result<Resolved<'_>, Unresolved> {
        // A name or alias is one lookup in the term table; the resolver's scan is for the rest.
        if let Some(value) = self.lookup(kind, input) {
            let how =
                if normalize_term(&value.name) == normalize_term(input) { How::Name } else { How::Alias };
            return Ok(Resolved { value, how });
        }
        let values: Vec<&FacetValue> = self.values_of(kind).collect();
        let candidates: Vec<Candidate<'_>> =
            values.iter().map(|v| Candidate { name: &v.name, aliases: &v.aliases }).collect();
        match crate::text::resolve::resolve(input, &candidates) {
            Ok(found) => Ok(Resolved { value: values[found.index], how: found.how }),
            Err(miss) => Err(Unresolved {
                kind,
                input: input.to_string(),
                ambiguous: matches!(miss, Miss::Ambiguous(_)),
                nearest: miss.candidates().iter().map(|&i| values[i].name.clone()).collect(),
            }),
        }
    }

    /// The `n` values of `kind` whose names or aliases are spelled most like `input`.
    pub fn nearest(&self, kind: FacetKind, input: &str, n: usize) -> Vec<&FacetValue> {
        let values: Vec<&FacetValue> = self.values_of(kind).collect();
        let candidates: Vec<Candidate<'_>> =
            values.iter().map(|v| Candidate { name: &v.name, aliases: &v.aliases }).collect();
        crate::text::resolve::nearest(input, &candidates, n).into_iter().map(|i| values[i]).collect()
    }
}

/// A value resolved from what someone typed, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved<'a> {
    /// The value.
    pub value: &'a FacetValue,
    /// How the input reached it.
    pub how: How,
}

impl Resolved<'_> {
    /// What to tell the user when the input was not the value's name or alias:
    /// `read component 'nccll' as 'NCCL' (the nearest spelling)`; `None` when it was.
    pub fn note(&self, input: &str) -> Option<String> {
        inexact_note(self.value.kind.label(), input, &self.value.name, self.how)
    }
}

/// The one wording of "this is what your word was read as", for every resolved value that was
/// not named exactly (facet values and organizations alike).
pub fn inexact_note(what: &str, input: &str, resolved: &str, how: How) -> Option<String> {
    (!how.is_exact()).then(|| {
        format!(
            "read {} '{}' as '{resolved}' ({})",
            what.to_lowercase(),
            crate::text::one_line(input.trim()),
            how.reason()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
[[component]]
name = "Training data loader"
description = "The input pipeline."
aliases = ["dataloader", "data loader", "DataLoader workers"]
signatures = ["DataLoader worker (pid"]

[[component]]
name = "NCCL"
description = "Collectives."
aliases = ["all-reduce", "collective"]

[[symptom]]
name = "Hang"
description = "No progress."
aliases = ["hung", "stuck", "frozen"]
"#;

    fn small() -> Taxonomy {
        let (t, diags) = Taxonomy::parse("taxonomy.toml", SMALL);
        assert!(diags.is_empty(), "{diags:?}");
        t
    }

    #[test]
    fn names_and_aliases_resolve_case_insensitively() {
        let t = small();
        for (kind, input, want) in [
            (FacetKind::Component, "nccl", "NCCL"),
            (FacetKind::Component, "DataLoader", "Training data loader"),
            (FacetKind::Component, "data-loader", "Training data loader"),
            (FacetKind::Component, "training data loader", "Training data loader"),
            (FacetKind::Component, "all_reduce", "NCCL"),
            (FacetKind::Symptom, "STUCK", "Hang"),
            (FacetKind::Component, "train", "Training data loader"),
            (FacetKind::Component, "dataloadr", "Training data loader"),
        ] {
            assert_eq!(t.resolve(kind, input).map(|r| r.value.name.as_str()), Ok(want), "{input}");
        }
    }

    #[test]
    fn only_inexact_resolutions_carry_a_note() {
        let t = small();
        for (input, note) in [
            ("nccl", None),
            ("hung", None),
            ("nccll", Some("read component 'nccll' as 'NCCL' (the nearest spelling)")),
            (
                "train",
                Some(
                    "read component 'train' as 'Training data loader' (the only one with a word starting so)",
                ),
            ),
        ] {
            let kind = if input == "hung" { FacetKind::Symptom } else { FacetKind::Component };
            let resolved = t.resolve(kind, input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(resolved.note(input).as_deref(), note, "{input}");
        }
    }

    #[test]
    fn unknown_values_name_the_nearest() {
        let t = small();
        let err = t.resolve(FacetKind::Component, "nccx overheating").unwrap_err();
        assert_eq!(err.nearest.len(), 2);
        assert!(err.to_string().starts_with("unknown component 'nccx overheating'; nearest: "));
        assert!(t.resolve(FacetKind::Symptom, "").is_err());
    }

    #[test]
    fn extending_merges_aliases_and_adds_values() {
        let mut t = small();
        let (user, diags) = Taxonomy::parse_extending(
            "team/taxonomy.toml",
            "[[component]]\nname = \"NCCL\"\naliases = [\"rccl\"]\n\n[[component]]\nname = \"Feature store\"\ndescription = \"Ours.\"\n",
            &t,
        );
        assert!(diags.is_empty(), "{diags:?}");
        t.extend(user);
        assert_eq!(t.resolve(FacetKind::Component, "RCCL").unwrap().value.name, "NCCL");
        assert_eq!(
            t.resolve(FacetKind::Component, "feature store").unwrap().value.defined_in,
            "team/taxonomy.toml"
        );
        assert_eq!(t.values_of(FacetKind::Component).count(), 3);
    }

    #[test]
    fn bad_taxonomy_entries_are_reported_with_positions() {
        let (_, diags) =
            Taxonomy::parse("t.toml", "[[component]]\nnam = \"x\"\n\n[[colour]]\nname = \"y\"\n");
        let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|d| d.starts_with("t.toml:1:1: error: taxonomy value is missing required field `name`")),
            "{text:?}"
        );
        assert!(text.iter().any(|d| d.starts_with("t.toml:2:1: error: unknown key `nam`")), "{text:?}");
        assert!(text.iter().any(|d| d.contains("unknown key `colour`")), "{text:?}");
    }

    #[test]
    fn normalisation_folds_separators() {
        assert_eq!(normalize_term("  Data_Loader-Workers  "), "data loader workers");
    }
}
