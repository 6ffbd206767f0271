//! A YAML document as a small tree that keeps where each node starts, built from the parser's
//! events (never from a loader that expands aliases: a few lines of anchors must not turn into
//! gigabytes). Kubernetes manifests need nothing more: mappings with string keys, sequences and
//! scalars, each with its line and column, and the path that leads to it
//! (`spec.template.spec.volumes[0]`).

use saphyr_parser::{Event, Parser, ScanError};

/// How deep a document may nest before it is refused (real manifests stay under 20).
pub const MAX_DEPTH: usize = 128;

/// One node of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its line, from 1.
    pub line: usize,
    /// Its column, from 1.
    pub column: usize,
    /// What it holds.
    pub value: Value,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar, as written (`null`, `true`, `8` and `"8"` all stay text).
    Scalar(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in the document's order; keys that are not scalars are left out.
    Map(Vec<(String, Node)>),
    /// An alias (`*name`): not followed.
    Alias,
}

impl Node {
    /// The value under `key`, when this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The node at a dotted path of keys (`spec.template.spec`).
    pub fn at(&self, path: &str) -> Option<&Node> {
        path.split('.').try_fold(self, |node, key| node.get(key))
    }

    /// The scalar text, when this is a scalar.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar at `path`, if there is one.
    pub fn str_at(&self, path: &str) -> Option<&str> {
        self.at(path).and_then(Node::str)
    }

    /// The items, when this is a sequence (none otherwise).
    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(items) => items,
            _ => &[],
        }
    }

    /// The entries, when this is a mapping (none otherwise).
    pub fn entries(&self) -> &[(String, Node)] {
        match &self.value {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    /// Whether the scalar is YAML's true (`true`, `True`, `TRUE`).
    pub fn is_true(&self) -> bool {
        self.str().is_some_and(|s| s.eq_ignore_ascii_case("true"))
    }
}

/// A document that could not be read: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// The parser's words.
    pub message: String,
}

impl From<ScanError> for YamlError {
    fn from(e: ScanError) -> Self {
        YamlError { line: e.marker().line(), column: e.marker().col() + 1, message: e.info().to_string() }
    }
}

enum Open {
    Seq(Node),
    Map(Node, Option<String>),
}

/// Parse every document of a stream. An error ends the stream; the documents before it are
/// kept, since a manifest file is often many documents of which one is broken.
pub fn parse(text: &str) -> (Vec<Node>, Option<YamlError>) {
    let mut docs = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<Node> = None;
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(e) => e,
            Err(e) => return (docs, Some(e.into())),
        };
        let (line, column) = (span.start.line(), span.start.col() + 1);
        let done = match event {
            Event::DocumentStart(_) => {
                root = None;
                None
            }
            Event::DocumentEnd => {
                if let Some(node) = root.take() {
                    docs.push(node);
                }
                None
            }
            Event::Scalar(value, ..) => Some(Node { line, column, value: Value::Scalar(value.into_owned()) }),
            Event::Alias(_) => Some(Node { line, column, value: Value::Alias }),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    let message = format!("nested more than {MAX_DEPTH} levels deep");
                    return (docs, Some(YamlError { line, column, message }));
                }
                let node = |value| Node { line, column, value };
                stack.push(match event {
                    Event::SequenceStart(..) => Open::Seq(node(Value::Seq(Vec::new()))),
                    _ => Open::Map(node(Value::Map(Vec::new())), None),
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => stack.pop().map(|open| match open {
                Open::Seq(n) | Open::Map(n, _) => n,
            }),
            Event::StreamStart | Event::StreamEnd | Event::Nothing => None,
        };
        let Some(node) = done else { continue };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Open::Seq(parent)) => {
                if let Value::Seq(items) = &mut parent.value {
                    items.push(node);
                }
            }
            Some(Open::Map(parent, key)) => match key.take() {
                None => {
                    // A key; a key that is not a scalar keeps its place with an empty name, so
                    // that its value is not taken for the next key.
                    *key = Some(node.str().map(str::to_string).unwrap_or_default());
                }
                Some(k) => {
                    if let Value::Map(entries) = &mut parent.value
                        && !k.is_empty()
                    {
                        entries.push((k, node));
                    }
                }
            },
        }
    }
    (docs, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_keep_their_positions_and_paths_lead_to_nodes() {
        let text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    image: x:1\n---\nkind: Service\n";
        let (docs, err) = parse(text);
        assert!(err.is_none());
        assert_eq!(docs.len(), 2);
        let c = &docs[0].at("spec.containers").unwrap().items()[0];
        assert_eq!((c.line, c.column), (5, 5));
        assert_eq!(c.str_at("image"), Some("x:1"));
        assert_eq!(docs[0].at("spec.containers").unwrap().items()[0].get("image").unwrap().line, 6);
        assert_eq!(docs[1].str_at("kind"), Some("Service"));
    }

    #[test]
    fn a_broken_document_names_its_line_and_keeps_those_before_it() {
        let (docs, err) = parse("kind: Pod\n---\nkind: [unclosed\n");
        assert_eq!(docs.len(), 1);
        let err = err.expect("an error");
        assert!(err.line >= 3, "{err:?}");
    }

    #[test]
    fn aliases_are_not_expanded_and_deep_nesting_is_refused() {
        let laughs = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\n";
        let (docs, err) = parse(laughs);
        assert!(err.is_none());
        assert_eq!(docs[0].get("c").unwrap().items()[0].value, Value::Alias);
        let deep = "[".repeat(MAX_DEPTH + 5);
        let (_, err) = parse(&deep);
        assert!(err.unwrap().message.contains("nested"));
    }
}
