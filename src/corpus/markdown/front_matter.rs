//! A postmortem's optional `+++` TOML front matter: finding it, and reading its keys with the
//! same positioned reader as case files, with what it declared (and so what is not inferred).

use crate::taxonomy::FacetKind;
use crate::{
    corpus::{
        model::{Facets, Impact},
        parse::{FacetPolicy, read_facets, read_impact, read_sources},
    },
    support::toml_fields::{Ctx, Fields, Text},
    taxonomy::Taxonomy,
};

/// The keys postmortem front matter may have.
pub(super) const FRONT_MATTER_KEYS: &str = "id, title, date, organization, scale, root_causes, components, symptom_tags, \
contributing_factors, sources, impact (the rest of the report goes in `##` sections)";

/// Where the front matter is: the TOML's byte range and where the body starts.
#[derive(Debug, PartialEq)]
pub(super) enum FrontMatter {
    None { body: usize },
    Toml { toml: std::ops::Range<usize>, body: usize },
    Yaml { body: usize },
    Unclosed,
}

pub(super) fn front_matter(text: &str) -> FrontMatter {
    let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let rest = &text[start..];
    let first = rest.lines().next().unwrap_or_default().trim_end();
    let fence = match first {
        "+++" => "+++",
        "---" => "---",
        _ => return FrontMatter::None { body: start },
    };
    let open_end = start + rest.find('\n').map_or(rest.len(), |i| i + 1);
    let mut at = open_end;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        if text[at..line_end].trim_end() == fence {
            return if fence == "+++" {
                FrontMatter::Toml { toml: open_end..at, body: line_end }
            } else {
                FrontMatter::Yaml { body: line_end }
            };
        }
        at = line_end;
    }
    if fence == "+++" { FrontMatter::Unclosed } else { FrontMatter::None { body: start } }
}

/// What the front matter says.
#[derive(Debug, Default)]
pub(super) struct Declared {
    pub(super) id: Option<Text>,
    pub(super) title: Option<Text>,
    pub(super) date: Option<Text>,
    pub(super) organization: Option<Text>,
    pub(super) scale: Option<Text>,
    pub(super) facets: Facets,
    pub(super) sources: Vec<crate::corpus::model::Source>,
    pub(super) impact: Option<Impact>,
    /// Whether each facet kind's key is present (by `FacetKind::index`), even as an empty list.
    pub(super) given: [bool; 4],
    /// Where the front matter starts, for problems about a key it lacks.
    pub(super) offset: Option<usize>,
}

pub(super) fn read_front_matter<'a>(
    ctx: &mut Ctx<'a>,
    text: &'a str,
    toml: std::ops::Range<usize>,
    taxonomy: &Taxonomy,
    policy: FacetPolicy,
) -> Declared {
    ctx.base = toml.start;
    let mut declared = Declared { offset: Some(toml.start), ..Declared::default() };
    if let Some(doc) = ctx.parse_document(&text[toml.clone()]) {
        let mut fields = Fields::new(doc.get_ref(), doc.span(), "front matter");
        declared.id = fields.str(ctx, "id");
        declared.title = fields.str(ctx, "title");
        declared.date = fields.str_or_date(ctx, "date");
        declared.organization = fields.str(ctx, "organization");
        declared.scale = fields.str(ctx, "scale");
        for kind in FacetKind::ALL {
            declared.given[kind.index()] = doc.get_ref().contains_key(kind.case_field());
        }
        declared.facets = read_facets(ctx, &mut fields, taxonomy, policy, false);
        declared.sources = read_sources(ctx, &mut fields, false);
        declared.impact = read_impact(ctx, &mut fields);
        let before = ctx.diagnostics.len();
        fields.finish(ctx);
        if let Some(first) =
            ctx.diagnostics[before..].iter_mut().find(|d| d.message.starts_with("unknown key"))
        {
            first.message.push_str(&format!("; front matter has: {FRONT_MATTER_KEYS}"));
        }
        // Offsets from here on are the file's own, not the front matter's.
        for text in [&mut declared.id, &mut declared.title, &mut declared.date, &mut declared.organization]
            .into_iter()
            .flatten()
        {
            text.offset += toml.start;
        }
    }
    ctx.base = 0;
    declared
}
