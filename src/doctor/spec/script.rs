//! Batch scripts, shell scripts, env files and launch command lines, read into a [`Job`]: the
//! `#SBATCH` options, what is exported, and each command with its words (continuation lines
//! joined, quotes removed), with the line it starts on. A `docker run` line is a unit of its
//! own: the container's environment is its `-e` options, not the script's exports.
//!
//! This is a reader of the shapes job scripts take, not a shell: it does not expand variables,
//! follow functions or run anything.

use super::job::{Backing, Command, Directive, Job, Loc, Located, Mount, Setting, Unit, option_in};

/// A line with the line number it starts on; continuation lines joined.
struct Logical {
    line: usize,
    text: String,
}

/// The physical lines with their numbers (from 1): a line ends at `\n`, `\r\n` or a lone `\r`.
pub fn physical_lines(text: &str) -> Vec<(usize, &str)> {
    let (bytes, mut out) = (text.as_bytes(), Vec::new());
    let (mut line, mut start, mut i) = (1, 0, 0);
    while i < bytes.len() {
        if matches!(bytes[i], b'\n' | b'\r') {
            out.push((line, &text[start..i]));
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            line += 1;
            start = i + 1;
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push((line, &text[start..]));
    }
    out
}

/// The logical lines: physical lines joined where one ends with `\` (not in a comment).
fn logical_lines(text: &str) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut current: Option<Logical> = None;
    for (line, raw) in physical_lines(text) {
        let (body, continues) = match raw.strip_suffix('\\') {
            Some(body) if !raw.trim_start().starts_with('#') => (body, true),
            _ => (raw, false),
        };
        match current.as_mut() {
            Some(c) => {
                c.text.push(' ');
                c.text.push_str(body.trim());
            }
            None => current = Some(Logical { line, text: body.trim().to_string() }),
        }
        if !continues {
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

/// Split into words as a shell would (quotes removed); unbalanced quotes fall back to spaces.
fn words(text: &str) -> Vec<String> {
    let text = strip_comment(text);
    shell_words::split(text).unwrap_or_else(|_| text.split_whitespace().map(str::to_string).collect())
}

/// The text before a `#` that starts a comment (one at the start of a word, outside quotes).
fn strip_comment(text: &str) -> &str {
    let (mut single, mut double, mut prev) = (false, false, ' ');
    for (i, c) in text.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => return &text[..i],
            _ => {}
        }
        prev = c;
    }
    text
}

/// Whether `word` is `NAME=value` with a valid variable name.
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (k, v) = word.split_once('=')?;
    let ok = !k.is_empty()
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then_some((k, v))
}

const SEPARATORS: &[&str] = &["&&", "||", ";", "|", "&", "then", "do", "else", "{", "}", "(", ")"];
const PREFIXES: &[&str] = &["exec", "time", "nohup", "sudo", "command", "builtin", "stdbuf"];

/// The simple commands of one logical line.
fn simple_commands(words: Vec<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    for mut w in words {
        let ends = w.len() > 1 && (w.ends_with(';') || w.ends_with('&')) && !w.ends_with("\\;");
        if ends {
            w.pop();
        }
        if SEPARATORS.contains(&w.as_str()) {
            out.push(std::mem::take(&mut current));
        } else {
            current.push(w);
        }
        if ends {
            out.push(std::mem::take(&mut current));
        }
    }
    out.push(current);
    out.retain(|c: &Vec<String>| !c.is_empty());
    out
}

/// Read a batch script, a shell script or a command line.
pub fn read_script(text: &str, name: &str) -> Job {
    let mut job = Job::default();
    let mut script = Unit { name: name.to_string(), loc: Loc::line(1), ..Unit::default() };
    let mut dockers = Vec::new();
    for logical in logical_lines(text) {
        let t = logical.text.as_str();
        if let Some(rest) = t.strip_prefix("#SBATCH") {
            if rest.starts_with(char::is_whitespace) {
                directives(rest, &logical, &mut job);
            }
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        for words in simple_commands(words(t)) {
            command(words, &logical, &mut script, &mut dockers);
        }
    }
    gpus_from_slurm(&job, &mut script);
    script.rdma |= script.var("NCCL_IB_HCA").is_some();
    if let Some(first) = script.commands.first().map(|c| (c.loc.clone(), c.text.clone())) {
        script.text = first.1;
        script.loc = first.0;
    }
    job.units.push(script);
    job.units.extend(dockers);
    job
}

fn directives(rest: &str, logical: &Logical, job: &mut Job) {
    for w in words(rest) {
        let (name, value) = match w.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n.to_string(), Some(v.to_string())),
            _ if w.starts_with('-') => {
                // A short option with its value attached (`-N2`), or a flag.
                if !w.starts_with("--") && w.len() > 2 {
                    (w[..2].to_string(), Some(w[2..].to_string()))
                } else {
                    (w.clone(), None)
                }
            }
            _ => {
                // The value of the option before it (`--nodes 2`).
                if let Some(last) =
                    job.sbatch.last_mut().filter(|d| d.value.is_none() && d.loc.line == logical.line)
                {
                    last.value = Some(w);
                }
                continue;
            }
        };
        job.sbatch.push(Directive { name, value, loc: Loc::line(logical.line), text: logical.text.clone() });
    }
}

fn command(mut words: Vec<String>, logical: &Logical, script: &mut Unit, dockers: &mut Vec<Unit>) {
    let loc = Loc::line(logical.line);
    let set = |script: &mut Unit, k: &str, v: &str| {
        script.env.push(Setting {
            key: k.into(),
            value: v.into(),
            loc: loc.clone(),
            text: logical.text.clone(),
        });
    };
    while words.first().is_some_and(|w| PREFIXES.contains(&w.as_str())) {
        words.remove(0);
    }
    if words.first().is_some_and(|w| w == "export" || w == "declare" || w == "local" || w == "readonly") {
        for w in &words[1..] {
            if let Some((k, v)) = assignment(w) {
                set(script, k, v);
            }
        }
        return;
    }
    if words.first().is_some_and(|w| w == "env") {
        words.remove(0);
        while words.first().is_some_and(|w| w.starts_with('-')) {
            words.remove(0);
        }
    }
    while let Some((k, v)) = words.first().and_then(|w| assignment(w)) {
        let (k, v) = (k.to_string(), v.to_string());
        set(script, &k, &v);
        words.remove(0);
    }
    if words.is_empty() {
        return;
    }
    if words[0] == "trap"
        && let Some(body) = words.get(1)
    {
        // The handler's commands run in this script too (a requeue, a drain, a save).
        for inner in simple_commands(self::words(body)) {
            command(inner, logical, script, dockers);
        }
    }
    let c = Command { words, loc, text: logical.text.clone() };
    if c.program() == "ulimit" {
        ulimits(&c, script);
    }
    if let Some(unit) = docker_run(&c) {
        dockers.push(unit);
    }
    if let Some(sub) = launched(&c) {
        script.commands.push(c);
        script.commands.push(sub);
    } else {
        script.commands.push(c);
    }
}

/// `ulimit -l N` and `ulimit -n N` (with `-S`/`-H`), as `memlock` and `nofile` limits.
fn ulimits(c: &Command, unit: &mut Unit) {
    let mut name = None;
    for w in &c.words[1..] {
        if let Some(flags) = w.strip_prefix('-') {
            for f in flags.chars() {
                match f {
                    'l' => name = Some("memlock"),
                    'n' => name = Some("nofile"),
                    _ => {}
                }
            }
        } else if let Some(n) = name.take() {
            unit.ulimits.push(Located {
                value: (n.into(), w.clone()),
                loc: c.loc.clone(),
                text: c.text.clone(),
            });
        }
    }
}

/// The launcher options of `srun`/`mpirun` that take a value, so that the launched program
/// can be found after them.
fn takes_value(launcher: &str, word: &str) -> bool {
    if word.contains('=') || !word.starts_with('-') {
        return false;
    }
    match launcher {
        "srun" => {
            const FLAGS: &[&str] = &[
                "-K",
                "--kill-on-bad-exit",
                "-l",
                "--label",
                "--exclusive",
                "--overlap",
                "-u",
                "--unbuffered",
                "-Q",
                "--quiet",
                "-v",
                "--verbose",
                "--no-container-mount-home",
                "--container-remap-root",
                "--container-writable",
                "--no-kill",
                "--pty",
            ];
            // A short option with its value attached (`-N2`) takes none after it.
            let attached = word.len() > 2 && !word.starts_with("--");
            !FLAGS.contains(&word) && !attached
        }
        _ => !matches!(word, "--allow-run-as-root" | "--bind-to-core" | "--oversubscribe" | "-v"),
    }
}

/// The program a launcher (`srun`, `mpirun`, `bash -c`) starts, as a command of its own.
fn launched(c: &Command) -> Option<Command> {
    let p = c.program();
    let rest: Vec<String> = match p {
        "srun" | "mpirun" | "mpiexec" => {
            let mut i = 1;
            while i < c.words.len() && c.words[i].starts_with('-') {
                i += if takes_value(p, &c.words[i]) { 2 } else { 1 };
            }
            c.words.get(i..)?.to_vec()
        }
        "bash" | "sh" | "zsh" => {
            let i = c.words.iter().position(|w| w == "-c" || w == "-lc" || w == "-ec")?;
            words(c.words.get(i + 1)?)
        }
        _ => return None,
    };
    let rest: Vec<String> = rest.into_iter().skip_while(|w| assignment(w).is_some() || w == "env").collect();
    (!rest.is_empty()).then(|| Command { words: rest, loc: c.loc.clone(), text: c.text.clone() })
}

/// The options of `docker run` that take a value.
const DOCKER_VALUED: &[&str] = &[
    "-e",
    "--env",
    "-v",
    "--volume",
    "--name",
    "--shm-size",
    "--ipc",
    "--gpus",
    "--network",
    "--net",
    "--ulimit",
    "-w",
    "--workdir",
    "--entrypoint",
    "-u",
    "--user",
    "--env-file",
    "-p",
    "--publish",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--runtime",
    "--mount",
    "--label",
    "-l",
    "--cpus",
    "-m",
    "--memory",
    "--hostname",
    "-h",
    "--restart",
    "--platform",
    "--pull",
    "--security-opt",
    "--tmpfs",
    "--cpuset-cpus",
    "--memory-swap",
    "--log-driver",
    "--add-host",
    "--dns",
    "--group-add",
    "--pid",
];

/// A `docker run` (or podman, nerdctl) line as a unit: its environment, image, GPUs, `/dev/shm`.
fn docker_run(c: &Command) -> Option<Unit> {
    let engine = c.program();
    if !matches!(engine, "docker" | "podman" | "nerdctl") || c.words.get(1).map(String::as_str) != Some("run")
    {
        return None;
    }
    let mut unit =
        Unit { name: format!("{engine} run"), loc: c.loc.clone(), text: c.text.clone(), ..Unit::default() };
    let mut i = 2;
    let mut shm = None;
    while i < c.words.len() {
        let w = &c.words[i];
        if !w.starts_with('-') {
            break;
        }
        let (name, value) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ if DOCKER_VALUED.contains(&w.as_str()) => {
                i += 1;
                (w.clone(), c.words.get(i).cloned())
            }
            _ => (w.clone(), None),
        };
        i += 1;
        let value = value.unwrap_or_default();
        let at = || Loc::line(c.loc.line);
        match name.as_str() {
            "-e" | "--env" => {
                if let Some((k, v)) = assignment(&value) {
                    unit.env.push(Setting {
                        key: k.into(),
                        value: v.into(),
                        loc: at(),
                        text: format!("{name} {value}"),
                    });
                }
            }
            "--gpus" => {
                let n = if value.contains("all") {
                    8
                } else {
                    value.trim_start_matches("count=").parse().unwrap_or(1)
                };
                unit.gpus = Some(Located { value: n, loc: at(), text: format!("--gpus {value}") });
            }
            "--shm-size" => shm = Some(value),
            "--ipc" => unit.host_ipc |= value == "host",
            "--privileged" => unit.ptrace_allowed = true,
            "--cap-add" => unit.ptrace_allowed |= value.eq_ignore_ascii_case("SYS_PTRACE") || value == "ALL",
            "--ulimit" => {
                if let Some((n, v)) = value.split_once('=') {
                    unit.ulimits.push(Located {
                        value: (n.into(), v.into()),
                        loc: at(),
                        text: format!("--ulimit {value}"),
                    });
                }
            }
            "--device" => unit.rdma |= value.contains("infiniband"),
            "-m" | "--memory" => {
                unit.memory_limit =
                    Some(Located { value: value.clone(), loc: at(), text: format!("{name} {value}") });
            }
            "-v" | "--volume" => {
                let mut parts = value.split(':');
                if let (Some(src), Some(dst)) = (parts.next(), parts.next()) {
                    let backing = if src.starts_with('/') {
                        Backing::HostPath(src.into())
                    } else {
                        Backing::Other("volume".into())
                    };
                    unit.mounts.push(Mount {
                        path: dst.into(),
                        backing,
                        loc: at(),
                        text: format!("-v {value}"),
                    });
                }
            }
            _ => {}
        }
    }
    if let Some(size) = shm {
        unit.mounts.push(Mount {
            path: "/dev/shm".into(),
            backing: Backing::Memory(Some(size.clone())),
            loc: c.loc.clone(),
            text: format!("--shm-size={size}"),
        });
    }
    let image = c.words.get(i)?;
    unit.images.push(Located {
        value: image.clone(),
        loc: c.loc.clone(),
        text: format!("{engine} run ... {image}"),
    });
    unit.text = format!("{engine} run ... {image}");
    unit.rdma |= unit.var("NCCL_IB_HCA").is_some();
    let inner: Vec<String> = c.words[i + 1..].to_vec();
    if !inner.is_empty() {
        let inner = Command { words: inner, loc: c.loc.clone(), text: c.text.clone() };
        let sub = launched(&inner);
        unit.commands.push(inner);
        unit.commands.extend(sub);
    }
    Some(unit)
}

/// The GPUs a batch script asks Slurm for (`--gres=gpu:8`, `--gpus-per-node=8`, `-G 8`), on the
/// script's unit.
fn gpus_from_slurm(job: &Job, script: &mut Unit) {
    let from = |d: &Directive| -> Option<u32> {
        let v = d.value.as_deref()?;
        match d.name.as_str() {
            "--gres" => v.split(',').find_map(|g| {
                let g = g.strip_prefix("gpu")?;
                Some(g.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(1))
            }),
            "--gpus" | "-G" | "--gpus-per-node" | "--gpus-per-task" => {
                v.rsplit(':').next().and_then(|n| n.parse().ok())
            }
            _ => None,
        }
    };
    let srun_gpus = script.commands.iter().filter(|c| c.program() == "srun").find_map(|c| {
        ["--gres", "--gpus", "--gpus-per-node", "--gpus-per-task", "-G"].iter().find_map(|o| {
            let d = Directive {
                name: (*o).into(),
                value: c.option(o).map(str::to_string),
                loc: c.loc.clone(),
                text: c.text.clone(),
            };
            from(&d).map(|n| (n, d))
        })
    });
    let found = job.sbatch.iter().rev().find_map(|d| from(d).map(|n| (n, d.clone()))).or(srun_gpus);
    if let Some((n, d)) = found {
        script.gpus = Some(Located { value: n, loc: d.loc, text: d.text });
    }
}

/// Read an env file (`KEY=VALUE` lines, `export` allowed, `#` comments).
pub fn read_env_file(text: &str, name: &str) -> Job {
    let mut unit = Unit { name: name.to_string(), loc: Loc::line(1), ..Unit::default() };
    for logical in logical_lines(text) {
        let t = logical.text.trim_start_matches("export ").trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = assignment(t) {
            let v = v.trim();
            let unquoted = v
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
                .unwrap_or(v);
            unit.env.push(Setting {
                key: k.into(),
                value: unquoted.into(),
                loc: Loc::line(logical.line),
                text: logical.text.clone(),
            });
        }
    }
    if let Some(first) = unit.env.first() {
        unit.text = first.text.clone();
    }
    Job { units: vec![unit], ..Job::default() }
}

/// Whether every meaningful line is an assignment (an env file).
pub fn is_env_file(text: &str) -> bool {
    let mut any = false;
    for logical in logical_lines(text) {
        let t = logical.text.trim_start_matches("export ").trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if assignment(t).is_none_or(|(_, v)| v.contains(' ') && !v.starts_with(['"', '\''])) {
            return false;
        }
        any = true;
    }
    any
}

/// The programs whose line makes a text a launch command.
pub const LAUNCHERS: &[&str] = &[
    "docker",
    "podman",
    "nerdctl",
    "torchrun",
    "srun",
    "mpirun",
    "mpiexec",
    "deepspeed",
    "accelerate",
    "vllm",
    "apptainer",
    "singularity",
    "enroot",
    "python",
    "python3",
    "sbatch",
];

/// The first command of a text, when it is one of [`LAUNCHERS`].
pub fn first_launcher(text: &str) -> Option<String> {
    let first = logical_lines(text).into_iter().find(|l| !l.text.is_empty() && !l.text.starts_with('#'))?;
    let w = words(&first.text);
    let w: Vec<&String> = w.iter().skip_while(|w| assignment(w).is_some() || *w == "env").collect();
    let p = w.first()?.rsplit('/').next()?.to_string();
    LAUNCHERS.contains(&p.as_str()).then_some(p)
}

/// The value of option `name` in a `#SBATCH`-style word list (for tests and rules).
pub fn option(words: &[String], name: &str) -> Option<String> {
    option_in(words, name).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbatch_options_exports_and_launches_are_read_with_their_lines() {
        let text = "#!/bin/bash\r\n#SBATCH --nodes=2 --gres=gpu:8\r\n#SBATCH --signal B:USR1@120\r\nexport NCCL_DEBUG=INFO GLOO_SOCKET_IFNAME=^docker0\r\n\r\nsrun --container-image=nvcr.io/nvidia/pytorch:24.03-py3 \\\r\n  torchrun --nnodes 2 train.py  # go\r\n";
        let job = read_script(text, "batch script");
        assert_eq!(job.sbatch("--nodes", Some("-N")).unwrap().value.as_deref(), Some("2"));
        let signal = job.sbatch("--signal", None).unwrap();
        assert_eq!((signal.value.as_deref(), signal.loc.line), (Some("B:USR1@120"), 3));
        let u = &job.units[0];
        assert_eq!(u.var("GLOO_SOCKET_IFNAME").unwrap().loc.line, 4);
        assert_eq!(u.gpus.as_ref().unwrap().value, 8);
        let torchrun = u.running("torchrun").next().expect("torchrun, launched by srun");
        assert_eq!((torchrun.loc.line, torchrun.option("--nnodes")), (6, Some("2")));
        assert!(!torchrun.text.contains('\r'));
    }

    #[test]
    fn a_docker_run_line_is_a_unit_with_its_own_environment() {
        let job = read_script(
            "docker run --rm --gpus all -e NCCL_P2P_DISABLE=1 --shm-size=1g vllm/vllm-openai:v0.6.0 --model x\n",
            "command",
        );
        let d = &job.units[1];
        assert_eq!(d.images[0].value, "vllm/vllm-openai:v0.6.0");
        assert_eq!(d.var("NCCL_P2P_DISABLE").unwrap().value, "1");
        assert_eq!(d.mounts[0].backing, Backing::Memory(Some("1g".into())));
        assert_eq!(d.commands[0].words, ["--model", "x"]);
        assert!(job.units[0].env.is_empty());
    }

    #[test]
    fn env_files_are_told_from_scripts() {
        assert!(is_env_file("# comment\nNCCL_DEBUG=INFO\nexport HF_HOME=\"/mnt/cache\"\n"));
        assert!(!is_env_file("NCCL_DEBUG=INFO\npython train.py\n"));
        let job = read_env_file("HF_HOME=\"/mnt/nfs/hf\"\n", "env");
        assert_eq!(job.units[0].var("HF_HOME").unwrap().value, "/mnt/nfs/hf");
        assert_eq!(first_launcher("FOO=1 torchrun --nnodes 2 x.py").as_deref(), Some("torchrun"));
    }
}
