//! Running a plan: every trial in parallel, rows streamed to
//! `results.csv` in order, then `run.json`, the charts and the report.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::experiment::{Invariants, Plan};
use crate::provenance::{self, Machine};
use crate::results::{self, Check, CsvSink, Row, Summary};
use crate::{Error, Result, report, trial};

/// How to run a plan.
#[derive(Debug, Clone)]
pub struct Options {
    /// Output folder (created if missing).
    pub out: PathBuf,
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    /// Hide the progress bar.
    pub quiet: bool,
    /// The command line, for the provenance.
    pub command: String,
}

/// `run.json`: what ran, where, when and how long.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    /// Experiment name.
    pub experiment: String,
    /// Its description.
    pub description: String,
    /// Its analysis notes.
    pub analysis: Option<String>,
    /// The experiment file.
    pub path: String,
    /// The experiment file's text.
    pub source: String,
    /// Seed.
    pub seed: u64,
    /// Interval confidence.
    pub confidence: f64,
    /// Whether `--quick` shrank it.
    pub quick: bool,
    /// Declared invariants.
    pub invariants: Invariants,
    /// Charts declared (`None`: every applicable chart).
    pub charts: Option<Vec<String>>,
    /// Runner version.
    pub bloomlab_version: String,
    /// Git revision, if known.
    pub git_revision: Option<String>,
    /// The machine.
    pub machine: Machine,
    /// Worker threads.
    pub threads: usize,
    /// The command line.
    pub command: String,
    /// Start (UTC).
    pub started: String,
    /// End (UTC).
    pub finished: String,
    /// Timings in seconds.
    pub timings: Timings,
    /// Grid points.
    pub points: usize,
    /// Trials (rows).
    pub trials: usize,
    /// Trials that failed.
    pub errors: usize,
    /// The invariants' outcome.
    pub checks: Vec<Check>,
}

/// Wall-clock timings of a run, in seconds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Running the trials.
    pub trials: f64,
    /// Drawing the charts (report.html, made after them, shows this).
    pub report: f64,
    /// Everything.
    pub total: f64,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// One row per trial, in plan order.
    pub rows: Vec<Row>,
    /// One summary per grid point.
    pub summaries: Vec<Summary>,
    /// The declared invariants, checked.
    pub checks: Vec<Check>,
    /// `run.json`'s content.
    pub info: RunInfo,
}

/// Runs the plan and writes everything into `opts.out`. Nothing there is
/// replaced unless every output was written (then all are renamed into
/// place); a failed run leaves at most `results.csv.partial`.
pub fn run(plan: &Plan, opts: &Options) -> Result<Outcome> {
    let t0 = Instant::now();
    let started = provenance::timestamp_now();
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::io(&opts.out, e))?;
    let _lock = lock_folder(&opts.out)?;
    let mut sink = CsvSink::create(&opts.out)?;
    let rev = provenance::git_revision();
    let version = provenance::version_string(rev.as_deref());

    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = opts.threads {
        builder = builder.num_threads(t.max(1));
    }
    let pool = builder.build().map_err(|e| Error::Format {
        path: opts.out.clone(),
        message: format!("cannot start worker threads: {e}"),
    })?;
    let threads = pool.current_num_threads();

    // Tasks in plan order: (point, trial).
    let tasks: Vec<(usize, u32)> = plan
        .points
        .iter()
        .flat_map(|p| (0..p.trials).map(move |t| (p.index, t)))
        .collect();
    let work = |i: usize| {
        let p = &plan.points[i];
        // Inserts (churn: deletes and inserts too), member checks, queries.
        p.n.saturating_add(p.queries.cap())
            .saturating_add(p.n)
            .saturating_add(p.churned().saturating_mul(2))
    };
    let total: u64 = tasks.iter().map(|&(p, _)| work(p)).sum();
    let pb = crate::progress::bar(total, opts.quiet);
    pb.set_message(plan.name.clone());

    let (tx, rx) = mpsc::channel::<(usize, Row)>();
    let mut write_err = None;
    std::thread::scope(|s| {
        s.spawn(|| {
            pool.install(|| {
                tasks.par_iter().enumerate().for_each_with(
                    tx,
                    |tx, (i, &(p, t))| {
                        let point = &plan.points[p];
                        let outcome =
                            trial::run(point, plan.seed, t, plan.confidence);
                        let row = Row::new(plan, point, t, outcome, &version);
                        // The receiver only goes away after an error.
                        let _ = tx.send((i, row));
                    },
                );
            });
        });
        for (i, row) in rx {
            pb.inc(work(row.point));
            if write_err.is_none()
                && let Err(e) = sink.push(i, row)
            {
                write_err = Some(e);
            }
        }
    });
    if let Some(e) = write_err {
        return Err(e);
    }
    pb.finish_and_clear();
    // Nothing is renamed into place before every output is ready.
    let mut staged = Staged::default();
    let rows = sink.finish(&mut staged)?;
    let trials_s = t0.elapsed().as_secs_f64();

    let summaries = results::summarise(&rows, plan.confidence);
    let checks = results::check(&plan.invariants, &summaries);
    let mut info = RunInfo {
        experiment: plan.name.clone(),
        description: plan.description.clone(),
        analysis: plan.analysis.clone(),
        path: plan.path.display().to_string(),
        source: plan.source.clone(),
        seed: plan.seed,
        confidence: plan.confidence,
        quick: plan.quick,
        invariants: plan.invariants,
        charts: plan
            .charts
            .as_ref()
            .map(|c| c.iter().map(|k| k.name().to_string()).collect()),
        bloomlab_version: provenance::VERSION.to_string(),
        git_revision: rev,
        machine: Machine::current(),
        threads,
        command: opts.command.clone(),
        started,
        finished: String::new(),
        timings: Timings { trials: trials_s, ..Timings::default() },
        points: plan.points.len(),
        trials: rows.len(),
        errors: rows.iter().filter(|r| !r.err.is_empty()).count(),
        checks: checks.clone(),
    };
    info.finished = provenance::timestamp_now();
    info.timings.total = t0.elapsed().as_secs_f64();
    report::write_all(&opts.out, &mut info, &rows, &summaries, &mut staged)?;
    info.timings.total = t0.elapsed().as_secs_f64();
    info.finished = provenance::timestamp_now();
    stage_json(&mut staged, &opts.out.join("run.json"), &info)?;
    staged.commit()?;
    Ok(Outcome { rows, summaries, checks, info })
}

/// Holds `dir` for one run or report until the returned handle is
/// dropped: an advisory lock on the folder itself (nothing is left in
/// it), released by the system when the process ends, however it ends.
/// Two runs into one folder would interleave their rows in the shared
/// `results.csv.partial`. Where a folder cannot be opened as a file (not
/// on Linux or macOS), there is no lock.
pub(crate) fn lock_folder(dir: &Path) -> Result<Option<std::fs::File>> {
    let Ok(handle) = std::fs::File::open(dir) else {
        return Ok(None);
    };
    match handle.try_lock() {
        Ok(()) => Ok(Some(handle)),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Format {
            path: dir.to_path_buf(),
            message: "another bloomlab run or report is writing this \
                      folder; wait for it to finish or give another --out"
                .into(),
        }),
        // A file system without locks: run as before.
        Err(std::fs::TryLockError::Error(_)) => Ok(None),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder
/// and a rename: a reader sees the old file or the new one, never half.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut staged = Staged::default();
    staged.write(path, bytes)?;
    staged.commit()
}

/// A temporary file in `path`'s folder, `rw-r--r--` (results are for
/// sharing, not the 0600 of a temporary file), its name ending in
/// `suffix`.
pub(crate) fn temp_beside(
    path: &Path,
    suffix: &str,
) -> Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".bloomlab-").suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    builder.tempfile_in(dir).map_err(|e| {
        // tempfile's error names the temporary path, which the message
        // replaces with the folder.
        let error =
            e.raw_os_error().map_or(e, std::io::Error::from_raw_os_error);
        Error::TempFile { dir: dir.to_path_buf(), error }
    })
}

/// Where an output named `path` really goes.
#[derive(Debug)]
enum Destination {
    /// A regular file, existing (its permissions, to keep) or not: the
    /// path a symbolic link points to, so the rename replaces the file,
    /// not the link.
    File(PathBuf, Option<std::fs::Permissions>),
    /// A device, pipe or socket (`/dev/null`, `/dev/stdout`): written
    /// in place, as there is no file to replace.
    Special(PathBuf),
}

fn destination(path: &Path) -> Result<Destination> {
    // `metadata` follows links: this is what the path names.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(Error::Format {
            path: path.to_path_buf(),
            message: "is a folder; name a file to write".into(),
        }),
        Ok(meta) if !meta.is_file() => {
            Ok(Destination::Special(path.to_path_buf()))
        }
        Ok(meta) => {
            let real =
                std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
            Ok(Destination::File(real, Some(meta.permissions())))
        }
        Err(_) => Ok(Destination::File(link_target(path), None)),
    }
}

/// `path`, or where a dangling symbolic link at `path` points (a new
/// file is created there, as a shell's `>` would).
fn link_target(path: &Path) -> PathBuf {
    let Ok(target) = std::fs::read_link(path) else {
        return path.to_path_buf();
    };
    match path.parent() {
        Some(dir) if target.is_relative() => dir.join(target),
        _ => target,
    }
}

/// Output files written under temporary names and renamed into place
/// together by [`Staged::commit`], so that a run or report that fails
/// half-way (a chart, a full disk) leaves the previous outputs as they
/// were, not a folder mixing two runs. Dropped without a commit, the
/// temporary files are removed.
#[derive(Debug, Default)]
pub struct Staged {
    files: Vec<(Pending, PathBuf)>,
    /// Removed after the renames (an earlier run's charts).
    stale: Vec<PathBuf>,
}

#[derive(Debug)]
enum Pending {
    /// Ours: removed if never committed.
    Temp(tempfile::TempPath),
    /// Bytes for a device or pipe, written at the commit.
    Special(Vec<u8>),
    /// Kept either way (the streamed `results.csv.partial`).
    Keep(PathBuf),
}

impl Staged {
    /// Writes `bytes` to a temporary file beside `path`, to become `path`.
    ///
    /// A symbolic link at `path` is followed: the file it points to is
    /// replaced, and an existing file keeps its permissions. A device or
    /// pipe (`/dev/stdout`) is written to in place at the commit.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        use std::io::Write;
        let (real, permissions) = match destination(path)? {
            Destination::Special(path) => {
                self.files.push((Pending::Special(bytes.to_vec()), path));
                return Ok(());
            }
            Destination::File(real, permissions) => (real, permissions),
        };
        let mut tmp = temp_beside(&real, ".tmp")?;
        tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
        if let Some(permissions) = permissions {
            tmp.as_file()
                .set_permissions(permissions)
                .map_err(|e| Error::io(tmp.path(), e))?;
        }
        self.add_temp(tmp.into_temp_path(), &real);
        Ok(())
    }

    /// Adds a finished temporary file, to become `path`.
    pub fn add_temp(&mut self, tmp: tempfile::TempPath, path: &Path) {
        self.files.push((Pending::Temp(tmp), path.to_path_buf()));
    }

    /// Adds a finished file that is kept even if the commit never comes.
    pub fn add_kept(&mut self, from: &Path, path: &Path) {
        self.files
            .push((Pending::Keep(from.to_path_buf()), path.to_path_buf()));
    }

    /// Removes `path` once every file is in place (a file of an earlier
    /// run that this one does not replace); kept if the commit never
    /// comes.
    pub fn remove_at_commit(&mut self, path: &Path) {
        self.stale.push(path.to_path_buf());
    }

    /// Renames every file into place, in the order they were added, then
    /// removes the stale ones.
    pub fn commit(self) -> Result<()> {
        // A folder where a file goes would stop the renames half-way;
        // found first, it changes nothing.
        if let Some((_, path)) = self.files.iter().find(|(_, p)| p.is_dir()) {
            return Err(Error::Format {
                path: path.clone(),
                message: "is a folder; move it away and run again".into(),
            });
        }
        for (pending, path) in self.files {
            match pending {
                Pending::Temp(tmp) => {
                    tmp.persist(&path)
                        .map_err(|e| Error::io(&path, e.error))?;
                }
                Pending::Keep(from) => {
                    std::fs::rename(&from, &path)
                        .map_err(|e| Error::io(&path, e))?;
                }
                Pending::Special(bytes) => {
                    use std::io::Write;
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .and_then(|mut f| f.write_all(&bytes))
                        .map_err(|e| Error::io(&path, e))?;
                }
            }
        }
        for path in self.stale {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&path, e));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut staged = Staged::default();
    stage_json(&mut staged, path, value)?;
    staged.commit()
}

/// Stages `value` as pretty JSON, to become `path`.
pub fn stage_json<T: Serialize>(
    staged: &mut Staged,
    path: &Path,
    value: &T,
) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| {
        Error::Format { path: path.to_path_buf(), message: e.to_string() }
    })?;
    text.push('\n');
    staged.write(path, text.as_bytes())
}

/// Reads `run.json`.
pub fn read_info(path: &Path) -> Result<RunInfo> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let info: RunInfo = serde_json::from_str(&text).map_err(|e| {
        Error::Format { path: path.to_path_buf(), message: e.to_string() }
    })?;
    // The intervals are drawn at this level; a value no run writes must
    // not quietly become 95%.
    if bloomlab_core::stats::z_for_confidence(info.confidence).is_err() {
        return Err(Error::Format {
            path: path.to_path_buf(),
            message: format!(
                "confidence {} is not in (0, 1): not a run.json of \
                 `bloomlab run`; run the experiment again",
                info.confidence
            ),
        });
    }
    Ok(info)
}
