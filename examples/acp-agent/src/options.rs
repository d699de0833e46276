//! The command line: [`Options`], its flags, defaults and `--help` text.

use std::path::PathBuf;
use std::time::Duration;

/// A scripted ACP agent on stdin/stdout (no model): a keyword in the prompt picks the script.
// A flag given twice takes its last value.
#[derive(Clone, Debug, PartialEq, clap::Parser)]
#[command(
    name = "chat-shell-acp-agent",
    args_override_self = true,
    after_help = "Keywords: tools, terminal, files, permission, plan, think, long, slow terminal, \
recall,\n  compact, max tokens, max turn, refuse, crash, broken; `fs read PATH` and `fs write \
PATH`\n  (the whole prompt) make one file call; huge reply (a 25 MB message),\n  huge \
choices (an option of 100,000 choices) and odd values (usage out of range, labels with \
bidi\n  controls) test the client's limits; anything else is echoed. A prompt starting \
`shell:`\n  runs the rest with `sh -c` in a client terminal; one starting `peek:` asks the \
client for\n  the output of the terminal id that follows (tests).\n\nSession controls: \
options+ / options- (a Verbosity option),\n  commands- / commands+ \
(/web withdrawn, /review added, and back), `/name args` (says\n  which command ran), elicit \
(a form), elicit-url (a link). Model scripted-locked is refused;\n  Thinking high on \
scripted-fast becomes medium."
)]
pub struct Options {
    /// Delay between streamed chunks
    #[arg(long = "pace-ms", value_name = "MS", default_value = "30", value_parser = pace)]
    pub pace: Duration,
    /// Keep each session's history in DIR, so session/list and session/load work in a new
    /// process
    #[arg(long, visible_alias = "sessions", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Sessions per page of session/list
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub page_size: usize,
    /// No script: replay ACP traffic the runtime recorded (CHAT_SHELL_ACP_RECORD=FILE)
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
}

fn pace(v: &str) -> Result<Duration, String> {
    v.parse()
        .map(Duration::from_millis)
        .map_err(|_| "not a number of milliseconds".into())
}
