//! `incidex graph` through the built binary, over the small fixture library in
//! tests/fixtures/graph (six cases, one with a title full of syntax characters).

use std::{
    collections::HashSet,
    io::Write,
    process::{Command, Output, Stdio},
};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/graph");

fn incidex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .args(["--no-bundled", "--data", FIXTURE])
        .args(args)
        .env("COLUMNS", "100")
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .expect("the binary runs")
}

fn stdout(args: &[&str]) -> String {
    let out = incidex(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn text_lists_the_neighbourhood_and_explains_the_related_cases() {
    assert_eq!(
        stdout(&["graph", "2024-05-alpha-nccl-hang"]),
        "\
Alpha: NCCL all-reduce hung at the epoch-end checkpoint
2024-05-alpha-nccl-hang · 5 facet values

At 1 hop: 5 nodes
  Root cause
    Uneven work across ranks (3 cases)
  Component
    Checkpointing (2 cases)
    NCCL (4 cases)
  Symptom
    Hang (4 cases)
  Contributing factor
    No preflight check (3 cases)

Related cases (by shared facet values, rarer ones weighing more)
   1. Zeta: a fine-tune on 16 GPUs hung for three hours at the end-of-epoch checkpoint
      2022-01-zeta-ten-values
      shares Checkpointing (component), Uneven work across ranks (root cause), No preflight check
      (contributing factor), NCCL (component), Hang (symptom)
   2. Gamma: uneven shards made half the ranks wait
      2024-03-gamma-uneven-loader
      shares Uneven work across ranks (root cause), No preflight check (contributing factor)
   3. Epsilon: a title with \"quotes\", <b>tags</b>, [brackets] {braces} | pipes; #hash \\ backslash a…
      2023-06-epsilon-quotes
      shares NCCL (component), Hang (symptom)
   4. Beta: NCCL timeouts after an RDMA link flapped
      2024-04-beta-nccl-timeout
      shares NCCL (component), Hang (symptom)
"
    );
}

#[test]
fn nodes_resolve_by_kind_value_alias_and_bare_name() {
    for node in ["component:NCCL", "component:all-reduce", "comp:nccl", "nccl", "all-reduce"] {
        let text = stdout(&["graph", node]);
        assert!(text.starts_with("NCCL\ncomponent:NCCL · 4 cases\n"), "{node}: {text}");
    }
    let text = stdout(&["graph", "symptom:stuck"]);
    assert!(text.starts_with("Hang\nsymptom:Hang · 4 cases\n"), "{text}");
}

#[test]
fn json_has_nodes_with_kinds_and_edges_between_them() {
    let out = stdout(&["graph", "root:imbalance", "--depth", "2", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["center"], "root_cause:Uneven work across ranks");
    assert_eq!(v["depth"], 2);
    let nodes = v["nodes"].as_array().unwrap();
    let ids: HashSet<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), nodes.len(), "ids are unique");
    for n in nodes {
        let kind = n["kind"].as_str().unwrap();
        assert!(["case", "root_cause", "component", "symptom", "contributing_factor"].contains(&kind), "{n}");
        assert!(n["label"].as_str().is_some_and(|l| !l.is_empty()), "{n}");
    }
    let cases: Vec<&str> =
        nodes.iter().filter(|n| n["distance"] == 1).map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(cases, ["2024-05-alpha-nccl-hang", "2024-03-gamma-uneven-loader", "2022-01-zeta-ten-values"]);
    for e in v["edges"].as_array().unwrap() {
        assert!(
            ids.contains(e["source"].as_str().unwrap()) && ids.contains(e["target"].as_str().unwrap()),
            "{e}"
        );
    }
    assert_eq!(
        v["related"][0]["id"], "contributing_factor:No preflight check",
        "it is on the same three cases"
    );
    assert_eq!(stdout(&["graph", "root:imbalance", "--depth", "2", "--json"]), out);
}

/// Renders `dot` with Graphviz; CI installs it (.ci/run), so a missing `dot` fails the test.
fn render_with_graphviz(source: &str) -> String {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Graphviz `dot` is installed (apt-get install graphviz)");
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "dot failed: {}\n{source}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "dot warned: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn dot_renders_with_graphviz_even_with_hostile_titles() {
    for (node, depth) in
        [("2023-06-epsilon-quotes", "3"), ("component:NCCL", "2"), ("2023-11-delta-gpu-xid", "0")]
    {
        let source = stdout(&["graph", node, "--depth", depth, "--format", "dot"]);
        let svg = render_with_graphviz(&source);
        let hood: serde_json::Value =
            serde_json::from_str(&stdout(&["graph", node, "--depth", depth, "--json"])).unwrap();
        let nodes = hood["nodes"].as_array().unwrap().len();
        let edges = hood["edges"].as_array().unwrap().len();
        assert_eq!(svg.matches("class=\"node\"").count(), nodes, "{node}: every node is drawn");
        assert_eq!(svg.matches("class=\"edge\"").count(), edges, "{node}: every edge is drawn");
    }
}

/// A strict reader for the Mermaid this program writes: the header, node statements
/// (`nI["label"]:::class` or `nI(["label"]):::class`), links (`nI --- nJ`) between declared
/// nodes, class definitions and the centre's style. Labels may hold no quote, bracket, brace,
/// pipe, angle bracket, backtick, `#` outside an entity code, or `;` outside one.
fn check_mermaid(text: &str) -> Result<(usize, usize), String> {
    let mut lines = text.lines();
    if lines.next() != Some("flowchart LR") {
        return Err("no `flowchart LR` header".into());
    }
    let mut declared = HashSet::new();
    let mut links = 0;
    for line in lines {
        let stmt = line.strip_prefix("  ").ok_or_else(|| format!("not indented: {line}"))?;
        if let Some((a, b)) = stmt.split_once(" --- ") {
            for end in [a, b] {
                if !declared.contains(end) {
                    return Err(format!("link to undeclared node: {line}"));
                }
            }
            links += 1;
        } else if stmt.starts_with("classDef ") || stmt == "style n0 stroke-width:3px" {
        } else {
            let (node, class) = stmt.rsplit_once(":::").ok_or_else(|| format!("no class: {line}"))?;
            if !["rootCause", "component", "symptom", "factor", "case"].contains(&class) {
                return Err(format!("unknown class: {line}"));
            }
            let open = node.find(['[', '(']).ok_or_else(|| format!("no shape: {line}"))?;
            let (id, shape) = node.split_at(open);
            if !(id.starts_with('n') && id.len() > 1 && id[1..].bytes().all(|b| b.is_ascii_digit())) {
                return Err(format!("bad id: {line}"));
            }
            let label = shape
                .strip_prefix("[\"")
                .and_then(|s| s.strip_suffix("\"]"))
                .or_else(|| shape.strip_prefix("([\"").and_then(|s| s.strip_suffix("\"])")))
                .ok_or_else(|| format!("bad shape: {line}"))?;
            // Take out the entity codes; what is left must be plain.
            let mut plain = String::new();
            let mut rest = label;
            while let Some(i) = rest.find('#') {
                plain.push_str(&rest[..i]);
                let end = rest[i..].find(';').ok_or_else(|| format!("unterminated entity: {line}"))?;
                if !rest[i + 1..i + end].bytes().all(|b| b.is_ascii_digit()) || end < 2 {
                    return Err(format!("bad entity: {line}"));
                }
                rest = &rest[i + end + 1..];
            }
            plain.push_str(rest);
            if let Some(c) = plain.chars().find(|c| "\"[]{}()|<>`;#".contains(*c) && !"()".contains(*c)) {
                return Err(format!("raw {c:?} in a label: {line}"));
            }
            declared.insert(id);
        }
    }
    Ok((declared.len(), links))
}

#[test]
fn mermaid_is_valid_flowchart_syntax_even_with_hostile_titles() {
    for (node, depth) in [("2023-06-epsilon-quotes", "3"), ("nccl", "2")] {
        let text = stdout(&["graph", node, "--depth", depth, "--format", "mermaid"]);
        let hood: serde_json::Value =
            serde_json::from_str(&stdout(&["graph", node, "--depth", depth, "--json"])).unwrap();
        let (nodes, links) = check_mermaid(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(nodes, hood["nodes"].as_array().unwrap().len());
        assert_eq!(links, hood["edges"].as_array().unwrap().len());
    }
    // The reader is strict enough to catch a label that breaks out.
    assert!(check_mermaid("flowchart LR\n  n0[\"a\"b\"]:::case\n").is_err());
    assert!(check_mermaid("flowchart LR\n  n0[\"a]b\"]:::case\n").is_err());
    assert!(check_mermaid("flowchart LR\n  n0[\"a\"]:::case\n  n0 --- n1\n").is_err());
}

#[test]
fn bad_nodes_are_one_clear_line_with_the_right_exit_code() {
    for (args, code, message) in [
        (&["graph", "no-such-case"][..], 1, "incidex: no case or facet value 'no-such-case'"),
        (&["graph", "colour:red"][..], 2, "incidex: unknown facet kind 'colour'"),
        (&["graph", "component:flux capacitor"][..], 2, "incidex: unknown component 'flux capacitor'"),
        (
            &["graph", "2024-05-alpha-nccl-hang", "--depth", "7"][..],
            2,
            "error: invalid value '7' for '--depth",
        ),
    ] {
        let out = incidex(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_fixture_library_is_valid() {
    let out = Command::new(env!("CARGO_BIN_EXE_incidex")).args(["check", FIXTURE]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
