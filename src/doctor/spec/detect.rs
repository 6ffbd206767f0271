//! What kind of job spec a file is, told by its content (its name only breaks ties): a Slurm
//! batch script (`#SBATCH` lines), a Kubernetes manifest (top-level `apiVersion` and `kind`,
//! in YAML or JSON), an env file (only `KEY=VALUE` lines), a shell script (a shell's `#!`), or
//! a launch command line (`docker run`, `torchrun`, `srun`, ...).

use super::script;

/// The kinds of job spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A Slurm batch script.
    BatchScript,
    /// A shell script with no `#SBATCH` line.
    ShellScript,
    /// Kubernetes objects, one or many documents.
    Manifest,
    /// `KEY=VALUE` lines (`docker --env-file`, `.env`).
    EnvFile,
    /// A launch command line, as text.
    CommandLine,
}

impl Kind {
    /// How it is named in output.
    pub fn label(self) -> &'static str {
        match self {
            Kind::BatchScript => "Slurm batch script",
            Kind::ShellScript => "shell script",
            Kind::Manifest => "Kubernetes manifest",
            Kind::EnvFile => "env file",
            Kind::CommandLine => "launch command",
        }
    }

    /// The key used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Kind::BatchScript => "slurm-script",
            Kind::ShellScript => "shell-script",
            Kind::Manifest => "kubernetes-manifest",
            Kind::EnvFile => "env-file",
            Kind::CommandLine => "command-line",
        }
    }
}

/// Why a file is not a job spec, when it is not one.
pub fn detect(name: &str, text: &str) -> Result<Kind, String> {
    if text.contains('\0') {
        return Err("a binary file, not a job spec".into());
    }
    let lines = script::physical_lines(text);
    if lines.iter().any(|(_, l)| l.starts_with("#SBATCH")) {
        return Ok(Kind::BatchScript);
    }
    let top = |key: &str| lines.iter().any(|(_, l)| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')));
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if (top("apiVersion") && top("kind")) || (trimmed.starts_with('{') && text.contains("\"apiVersion\"")) {
        return Ok(Kind::Manifest);
    }
    let shebang = lines.first().is_some_and(|(_, l)| {
        l.starts_with("#!")
            && ["sh", "bash", "zsh", "ksh", "dash"]
                .iter()
                .any(|s| l.ends_with(s) || l.contains(&format!("/{s} ")) || l.contains(&format!(" {s}")))
    });
    if shebang {
        return Ok(Kind::ShellScript);
    }
    if script::is_env_file(text) {
        return Ok(Kind::EnvFile);
    }
    if script::first_launcher(text).is_some() {
        return Ok(Kind::CommandLine);
    }
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json") {
        return Err("no Kubernetes object in it (no top-level apiVersion and kind)".into());
    }
    if [".sh", ".sbatch", ".slurm", ".bash"].iter().any(|e| lower.ends_with(e)) {
        return Ok(Kind::ShellScript);
    }
    Err("neither a batch or shell script, a Kubernetes manifest, an env file nor a launch command".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_by_content_not_name() {
        assert_eq!(detect("job.txt", "#!/bin/bash\n#SBATCH -N 2\nsrun x\n"), Ok(Kind::BatchScript));
        assert_eq!(detect("a", "apiVersion: v1\nkind: Pod\n"), Ok(Kind::Manifest));
        assert_eq!(detect("a.json", "{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}"), Ok(Kind::Manifest));
        assert_eq!(detect("x.yaml", "#!/bin/sh\nexport A=1\n"), Ok(Kind::ShellScript));
        assert_eq!(detect("vars", "NCCL_DEBUG=INFO\n"), Ok(Kind::EnvFile));
        assert_eq!(detect("cmd", "docker run --gpus all img\n"), Ok(Kind::CommandLine));
        assert!(detect("notes.yaml", "title: notes\n").is_err());
        assert!(detect("README", "Some prose about a job.\n").is_err());
        assert!(detect("x", "a\0b").is_err());
    }
}
