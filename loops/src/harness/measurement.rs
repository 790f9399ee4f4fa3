//! The result of evaluating one candidate, and its one-line summary.

/// The result of evaluating one candidate.
#[derive(Clone, Debug, PartialEq)]
pub enum Measurement {
    /// Built, ran and printed the reference's output: the minimum of the
    /// timed runs, and every run (seconds).
    Timed {
        /// The minimum of the runs.
        seconds: f64,
        /// Every timed run.
        runs: Vec<f64>,
    },
    /// The compiler refused it: the first lines of its standard error.
    CompileFailed {
        /// The first lines of the compiler's standard error.
        log: String,
    },
    /// The compiler ran longer than the compile timeout (seconds waited).
    CompileTimedOut {
        /// Seconds waited.
        seconds: f64,
    },
    /// Exited with a non-zero status or was killed by a signal.
    Crashed {
        /// The exit status or signal, and the last line of standard error.
        detail: String,
    },
    /// Its first run took more than the cut-off factor times the pace
    /// (the best time so far, or the fastest baseline's): it was neither
    /// run again nor checked.
    CutOff {
        /// The first run's time.
        seconds: f64,
        /// The time it had to beat (the factor times the pace).
        limit: f64,
    },
    /// Within the cut-off but no faster than the best so far: timed (twice
    /// only, when both runs stayed well above the best) and not checked,
    /// since it cannot be a result.
    Slower {
        /// The minimum of the runs.
        seconds: f64,
        /// Every timed run.
        runs: Vec<f64>,
    },
    /// Ran longer than the run timeout (seconds waited).
    RunTimedOut {
        /// Seconds waited.
        seconds: f64,
    },
    /// Its output differs from the reference's: where and how.
    WrongOutput {
        /// The first difference.
        detail: String,
    },
}

impl Measurement {
    /// The time, for a successful measurement.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Measurement::Timed { seconds, .. } => Some(*seconds),
            _ => None,
        }
    }

    /// Whether the candidate built, ran and printed the right output.
    pub fn is_timed(&self) -> bool {
        matches!(self, Measurement::Timed { .. })
    }

    /// One line describing the result.
    pub fn summary(&self) -> String {
        match self {
            Measurement::Timed { seconds, runs } => format!(
                "{} (minimum of {} run{})",
                format_seconds(*seconds),
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ),
            Measurement::CompileFailed { log } => {
                let first = log
                    .lines()
                    .find(|l| l.contains("error"))
                    .or_else(|| log.lines().find(|l| !l.trim().is_empty()))
                    .unwrap_or("no message");
                format!("compile failed: {}", first.trim())
            }
            Measurement::CompileTimedOut { seconds } => {
                format!("compile timed out after {seconds:.1} s")
            }
            Measurement::Crashed { detail } => format!("crashed: {}", first_line(detail)),
            Measurement::CutOff { seconds, limit } => format!(
                "cut off after one run: {} (more than {})",
                format_seconds(*seconds),
                format_seconds(*limit)
            ),
            Measurement::Slower { seconds, runs } => format!(
                "{} (minimum of {} run{}), no faster than the best: not checked",
                format_seconds(*seconds),
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ),
            Measurement::RunTimedOut { seconds } => format!("run timed out after {seconds:.1} s"),
            Measurement::WrongOutput { detail } => {
                format!("wrong output: {}", first_line(detail))
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn format_seconds(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.3} us", seconds * 1e6)
    }
}

/// `reference` over `seconds` as people read a speedup (`3.25x`): a time
/// of 0 is one the program printed below its resolution (TSVC prints
/// milliseconds), whose ratio no figure can give.
pub fn speedup(reference: f64, seconds: f64) -> String {
    if seconds > 0.0 {
        format!("{:.2}x", reference / seconds)
    } else {
        "too fast for the printed time (0 s)".to_string()
    }
}

#[cfg(test)]
mod speedup_tests {
    #[test]
    fn a_zero_time_reads_as_below_the_printed_resolution() {
        assert_eq!(super::speedup(3.0, 1.5), "2.00x");
        assert_eq!(
            super::speedup(0.8, 0.0),
            "too fast for the printed time (0 s)"
        );
    }
}
