//! `incidex doctor FILE...` (preflight) through the built binary: golden text, JSON and SARIF
//! for fifteen job specs written the way teams write them, each as a bad and a good variant
//! (tests/fixtures/preflight/{bad,good}); the SARIF validated against the SARIF 2.1.0 schema;
//! the exit codes and `--fail-on`; suppressions in the file, on the command line and in the
//! config file, counted; and the inputs that must not stop the others being checked: malformed
//! YAML, a 10 MB manifest, CRLF line endings, a file that is no job spec, a directory, stdin.

mod golden_support;

use std::{
    io::Write,
    path::Path,
    process::{Command, Stdio},
};

use golden_support::{golden, stable_json, stable_text};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/preflight");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/preflight");
const SPECS: &[&str] = &[
    "train-pyxis.sbatch",
    "pytorchjob.yaml",
    "jobset.yaml",
    "mpijob.yaml",
    "vllm-deployment.yaml",
    "node-agents.yaml",
    "docker-run.sh",
    "train.env",
    "raycluster.yaml",
    "leaderworkerset.yaml",
    "apptainer.sbatch",
    "kubectl-get.yaml",
    "launch.sh",
    "sglang-statefulset.yaml",
    "deepspeed.sbatch",
];

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run `incidex doctor ARGS` in the fixtures directory, with no config of the user's.
fn doctor_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>, config: Option<&Path>) -> Run {
    let home = tempfile::tempdir().unwrap();
    let config_home = config.map_or_else(|| home.path().join("config"), Path::to_path_buf);
    let mut child = Command::new(env!("CARGO_BIN_EXE_incidex"))
        .arg("doctor")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", config_home)
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn doctor(args: &[&str]) -> Run {
    doctor_in(Path::new(FIXTURES), args, None, None)
}

fn stable_sarif(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let driver = &mut v["runs"][0]["tool"]["driver"];
    driver["version"] = "VERSION".into();
    for r in driver["rules"].as_array_mut().unwrap() {
        r["help"]["text"] = "HELP".into();
    }
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

fn sarif_validator() -> (boon::Schemas, boon::SchemaIndex) {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V7);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let index = compiler.compile(path, &mut schemas).expect("the SARIF schema compiles");
    (schemas, index)
}

fn assert_valid_sarif(name: &str, text: &str) {
    let (schemas, index) = sarif_validator();
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    if let Err(e) = schemas.validate(&doc, index) {
        panic!("{name}: not valid SARIF 2.1.0:\n{e}");
    }
}

#[test]
fn every_spec_matches_its_golden_text_json_and_sarif_in_both_variants() {
    for variant in ["bad", "good"] {
        for spec in SPECS {
            let file = format!("{variant}/{spec}");
            let text = doctor(&[&file, "--all"]);
            assert!(text.stderr.is_empty(), "{file}: {}", text.stderr);
            golden(GOLDEN, &format!("{variant}/{spec}.txt"), &stable_text(&text.stdout));
            let json = doctor(&[&file, "--json"]);
            golden(GOLDEN, &format!("{variant}/{spec}.json"), &stable_json(&json.stdout));
            let sarif = doctor(&[&file, "--format", "sarif"]);
            assert_valid_sarif(&file, &sarif.stdout);
            golden(GOLDEN, &format!("{variant}/{spec}.sarif"), &stable_sarif(&sarif.stdout));
        }
    }
}

#[test]
fn bad_variants_have_findings_and_good_ones_have_none() {
    for spec in SPECS {
        let bad = doctor(&[&format!("bad/{spec}"), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&bad.stdout).unwrap();
        let found = v["findings"].as_array().unwrap();
        assert!(found.iter().any(|f| f["severity"] != "info"), "bad/{spec}: no crit or warn finding");
        for f in found {
            assert!(!f["cases"].as_array().unwrap().is_empty(), "bad/{spec}: {} cites no case", f["check"]);
            assert!(f["cases"][0]["title"].is_string(), "bad/{spec}: a case without its title");
            assert!(
                f["evidence"][0]["line"].as_u64().is_some_and(|l| l > 0),
                "bad/{spec}: evidence without a line"
            );
            assert!(!f["action"].as_str().unwrap().is_empty(), "bad/{spec}: no fix");
        }
        let good = doctor(&[&format!("good/{spec}"), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&good.stdout).unwrap();
        assert_eq!(v["findings"].as_array().unwrap().len(), 0, "good/{spec}: {}", good.stdout);
        assert_eq!(good.code, 0, "good/{spec}");
    }
}

#[test]
fn the_checks_cover_at_least_twenty_five_rules_each_citing_cases() {
    let list = doctor_in(Path::new(FIXTURES), &["--list", "--json"], None, None);
    let v: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    let rules: Vec<&serde_json::Value> =
        v.as_array().unwrap().iter().filter(|r| r["preflight"] == true).collect();
    assert!(rules.len() >= 25, "{} preflight rules", rules.len());
    for r in rules {
        assert!(!r["cases"].as_array().unwrap().is_empty(), "{} cites no case", r["id"]);
    }
}

#[test]
fn fail_on_sets_the_exit_status_as_on_the_node() {
    // bad/train-pyxis.sbatch has crit findings; bad/docker-run.sh warn at worst.
    assert_eq!(doctor(&["bad/train-pyxis.sbatch"]).code, 3);
    assert_eq!(doctor(&["bad/docker-run.sh"]).code, 0);
    assert_eq!(doctor(&["bad/docker-run.sh", "--fail-on", "warn"]).code, 3);
    assert_eq!(doctor(&["good/docker-run.sh", "--fail-on", "info"]).code, 0);
    let usage = doctor(&["good/docker-run.sh", "--fail-on", "bogus"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert_eq!(doctor(&["good/docker-run.sh", "--json", "--format", "sarif"]).code, 2);
    assert_eq!(doctor(&["good/docker-run.sh", "--only", "no.such.rule"]).code, 2);
}

#[test]
fn suppressions_silence_one_rule_for_one_file_and_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let bad = std::fs::read_to_string(Path::new(FIXTURES).join("bad/docker-run.sh")).unwrap();
    let marked = format!("# incidex: ignore shm.size — the launcher adds --ipc=host\n{bad}");
    std::fs::write(dir.path().join("run.sh"), &marked).unwrap();
    std::fs::write(dir.path().join("other.sh"), &bad).unwrap();
    let out = doctor_in(dir.path(), &["run.sh", "other.sh", "--json"], None, None);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let shm: Vec<&serde_json::Value> =
        v["findings"].as_array().unwrap().iter().filter(|f| f["check"] == "shm.size").collect();
    assert_eq!(shm.len(), 1, "only other.sh keeps its shm.size finding");
    assert_eq!(shm[0]["file"], "other.sh");
    assert_eq!(v["summary"]["suppressed"], 1);
    assert_eq!(v["suppressed"][0]["reason"], "the launcher adds --ipc=host");
    assert_eq!(v["suppressed"][0]["by"], "run.sh:1");
    let text = doctor_in(dir.path(), &["run.sh"], None, None);
    assert!(
        text.stdout.contains("1 suppressed") && text.stdout.contains("SUPPRESSED (1)"),
        "{}",
        text.stdout
    );
    // A suppressed crit no longer fails the gate.
    let sarif = doctor_in(dir.path(), &["run.sh", "--format", "sarif"], None, None);
    assert_valid_sarif("run.sh", &sarif.stdout);
    assert!(sarif.stdout.contains("\"inSource\""), "{}", sarif.stdout);
    // On the command line, by glob.
    let flag =
        doctor_in(dir.path(), &["run.sh", "other.sh", "--json", "--ignore", "shm.size:other.*"], None, None);
    let v: serde_json::Value = serde_json::from_str(&flag.stdout).unwrap();
    assert_eq!(v["summary"]["suppressed"], 2, "{}", flag.stdout);
    // In the config file.
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("incidex")).unwrap();
    std::fs::write(
        config.path().join("incidex/config.toml"),
        "[[ignore]]\nrule = \"ulimit.memlock\"\npaths = \"*.sh\"\nreason = \"our runtime lifts memlock\"\n",
    )
    .unwrap();
    let cfg = doctor_in(dir.path(), &["other.sh", "--json"], None, Some(config.path()));
    let v: serde_json::Value = serde_json::from_str(&cfg.stdout).unwrap();
    assert!(
        v["findings"].as_array().unwrap().iter().all(|f| f["check"] != "ulimit.memlock"),
        "{}",
        cfg.stdout
    );
    assert_eq!(v["suppressed"][0]["reason"], "our runtime lifts memlock");
    assert_eq!(doctor_in(dir.path(), &["other.sh", "--ignore", "shm.sise"], None, None).code, 2);
}

#[test]
fn a_bad_file_is_named_with_its_place_and_the_others_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("broken.yaml"),
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    image: [x\n",
    )
    .unwrap();
    std::fs::write(d.join("notes.txt"), "Meeting notes: the job ran fine.\n").unwrap();
    std::fs::write(d.join("binary.sh"), b"\x7fELF\x00\x01").unwrap();
    let crlf = std::fs::read_to_string(Path::new(FIXTURES).join("bad/train-pyxis.sbatch"))
        .unwrap()
        .replace('\n', "\r\n");
    std::fs::write(d.join("crlf.sbatch"), &crlf).unwrap();
    let out = doctor_in(
        d,
        &["broken.yaml", "notes.txt", "binary.sh", "crlf.sbatch", "missing.yaml", "--json"],
        None,
        None,
    );
    assert_eq!(out.code, 3, "the CRLF script still has its crit findings: {}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 5);
    let broken = &files[0]["problems"][0];
    // The unclosed `[` of line 6 is found where the text ends (line 7).
    let line = broken["line"].as_u64().unwrap();
    assert!((6..=7).contains(&line) && broken["severity"] == "error", "{broken}");
    assert!(
        out.stderr.contains(&format!("broken.yaml:{line}:")),
        "path:line:column on stderr: {}",
        out.stderr
    );
    assert!(files[1]["problems"][0]["message"].as_str().unwrap().contains("neither"), "{}", files[1]);
    assert!(files[2]["problems"][0]["message"].as_str().unwrap().contains("binary"), "{}", files[2]);
    assert!(files[4]["problems"][0]["message"].as_str().unwrap().contains("cannot read"), "{}", files[4]);
    // CRLF: the same findings at the same lines as the LF original, and no \r in any evidence.
    let lf = doctor(&["bad/train-pyxis.sbatch", "--json"]);
    let lf: serde_json::Value = serde_json::from_str(&lf.stdout).unwrap();
    let lines = |v: &serde_json::Value, file: &str| -> Vec<(String, u64)> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["file"] == file)
            .map(|f| (f["check"].as_str().unwrap().to_string(), f["evidence"][0]["line"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(lines(&v, "crlf.sbatch"), lines(&lf, "bad/train-pyxis.sbatch"));
    assert!(!out.stdout.contains("\\r"), "a carriage return reached the evidence");
    // With only bad files, the exit status says the check failed.
    assert_eq!(doctor_in(d, &["broken.yaml", "notes.txt"], None, None).code, 1);
}

#[test]
fn a_ten_megabyte_manifest_is_checked_whole() {
    let dir = tempfile::tempdir().unwrap();
    let pod = std::fs::read_to_string(Path::new(FIXTURES).join("bad/jobset.yaml")).unwrap();
    let mut big = String::new();
    while big.len() < 10 << 20 {
        big.push_str(&pod);
        big.push_str("---\n");
    }
    std::fs::write(dir.path().join("big.yaml"), &big).unwrap();
    let started = std::time::Instant::now();
    let out = doctor_in(dir.path(), &["big.yaml", "--json", "--only", "image.unpinned"], None, None);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let docs = big.matches("kind: JobSet").count();
    assert_eq!(v["findings"].as_array().unwrap().len(), docs, "one finding per document");
    assert!(started.elapsed().as_secs() < 60, "took {:?}", started.elapsed());
}

#[test]
fn a_directory_is_walked_for_job_specs_and_stdin_is_read() {
    let out = doctor_in(Path::new(FIXTURES), &["good", "--json"], None, None);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let paths: Vec<&str> =
        v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    // train.env and the scripts by extension; manifests by extension.
    assert_eq!(paths.len(), SPECS.len(), "{paths:?}");
    assert!(paths.iter().all(|p| p.starts_with("good/")), "{paths:?}");
    let piped = doctor_in(
        Path::new(FIXTURES),
        &["-", "--json"],
        Some(b"docker run --gpus all img:1.0 python x.py\n"),
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&piped.stdout).unwrap();
    assert_eq!(v["files"][0]["kind"], "command-line");
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["check"] == "shm.size"));
}

#[test]
fn the_sarif_validator_rejects_what_is_not_sarif() {
    // The schema test above proves something only if a wrong document fails it.
    let (schemas, index) = sarif_validator();
    let wrong: serde_json::Value = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": "x" } }, "results": [{ "level": "fatal", "message": { "text": "m" } }] }] });
    assert!(schemas.validate(&wrong, index).is_err());
}

#[test]
fn escape_sequences_in_a_job_spec_reach_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"evil\\e]52;c;aGk=\\a\\e[2J\"\nspec:\n  containers:\n  - name: \"c\\u202e\\e[31m\"\n    image: \"img:latest\\e[H\"\n    env:\n    - name: GLOO_SOCKET_IFNAME\n      value: \"^eth\\e[1A\"\n    resources:\n      limits:\n        nvidia.com/gpu: 8\n# incidex: ignore k8s.grace.period — \u{1b}[2Jwiped\n";
    std::fs::write(dir.path().join("evil.yaml"), pod).unwrap();
    for format in ["text", "json", "sarif"] {
        let out = doctor_in(dir.path(), &["evil.yaml", "--format", format], None, None);
        assert_eq!(out.code, 3, "{format}: the crit GLOO finding is still found: {}", out.stderr);
        for (name, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
                "{format} {name}: {text:?}"
            );
        }
    }
}
