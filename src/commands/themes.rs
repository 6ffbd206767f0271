//! `incidex themes`: the themes there are — bundled and the user's — with where each comes from,
//! which one would be used now, and every theme file that cannot be read.

use std::io::Write;

use serde::Serialize;

use crate::{
    cli::ThemesArgs,
    commands::{stdout_error, truncate, write_json},
    settings::theme::{self, Origin},
    support::error::{Error, Result},
};

/// One line of the listing.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    origin: String,
    description: String,
    active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// List the themes. `request` and `no_color` are the settings that choose the active theme.
/// A theme file that cannot be read is listed with its error, and makes the command fail
/// (exit 1) after the listing.
pub fn run(args: &ThemesArgs, request: Option<&str>, no_color: bool, out: &mut dyn Write) -> Result<()> {
    let user_dir = theme::user_dir();
    let active = theme::resolve(request, no_color, user_dir.as_deref()).ok();
    let rows: Vec<Row> = theme::available(user_dir.as_deref())
        .into_iter()
        .map(|a| {
            let is_active = active.as_ref().is_some_and(|t| t.name == a.name && t.origin == a.origin);
            let (description, error) = match a.theme {
                Ok(t) => (t.description, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let origin = match &a.origin {
                Origin::Bundled => "bundled".to_string(),
                other => other.to_string(),
            };
            Row { name: a.name, origin, description, active: is_active, error }
        })
        .collect();
    let broken: Vec<&str> = rows.iter().filter_map(|r| r.error.as_deref()).collect();
    if args.json {
        write_json(out, &serde_json::json!({ "themes": rows }))?;
    } else {
        let name_width = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(0);
        for r in &rows {
            let mark = if r.active { '*' } else { ' ' };
            let what = match &r.error {
                Some(_) => "cannot be read (see below)".to_string(),
                None => r.description.clone(),
            };
            let line = format!("{mark} {:<name_width$}  {what}", r.name);
            writeln!(out, "{}", truncate(&line, crate::commands::text_width())).map_err(stdout_error)?;
            if r.origin != "bundled" {
                writeln!(out, "  {:<name_width$}  {}", "", r.origin).map_err(stdout_error)?;
            }
        }
        if let Some(dir) = &user_dir {
            writeln!(
                out,
                "\n* in use now. Your own themes go in {}",
                crate::text::one_line(&dir.display().to_string())
            )
            .map_err(stdout_error)?;
        }
    }
    match broken.as_slice() {
        [] => Ok(()),
        [one] => Err(Error::Failed((*one).to_string())),
        [first, rest @ ..] => Err(Error::Failed(format!("{first} (and {} more broken themes)", rest.len()))),
    }
}
