//! Every UI string in one table: English defaults, built-in locales, and per-string
//! overrides from the host page. Views ask for a [`Text`] key, never hard-code words.

use std::collections::HashMap;

macro_rules! texts {
    ($($key:ident = $name:literal => $en:literal,)+) => {
        /// A UI string. `name()` is the key hosts use in overrides.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Text { $($key,)+ }

        impl Text {
            pub const ALL: &'static [Text] = &[$(Text::$key,)+];

            /// The key in override objects, e.g. `"send"`.
            pub fn name(self) -> &'static str {
                match self { $(Text::$key => $name,)+ }
            }

            /// The English default.
            pub fn english(self) -> &'static str {
                match self { $(Text::$key => $en,)+ }
            }

            /// The key named `name` in override objects. A search, not a `match`: hosts
            /// override a handful of keys once, and a match on every string is much more code.
            pub fn from_name(name: &str) -> Option<Text> {
                Text::ALL.iter().copied().find(|t| t.name() == name)
            }
        }
    };
}

texts! {
    Send = "send" => "Send",
    Stop = "stop" => "Stop",
    Retry = "retry" => "Retry",
    Copy = "copy" => "Copy",
    Copied = "copied" => "Copied",
    CopyCode = "copy_code" => "Copy code",
    GoodResponse = "good_response" => "Good response",
    BadResponse = "bad_response" => "Bad response",
    ScrollToBottom = "scroll_to_bottom" => "Scroll to bottom",
    FindInConversation = "find_in_conversation" => "Find in conversation",
    FindPrevious = "find_previous" => "Previous match",
    FindNext = "find_next" => "Next match",
    FindCount = "find_count" => "{current} of {total}",
    FindNone = "find_none" => "No matches",
    FindClose = "find_close" => "Close find",
    NewChat = "new_chat" => "New chat",
    History = "history" => "History",
    // Tool-pushed views (the thread channel).
    ViewTabs = "view_tabs" => "Views",
    ChatTab = "chat_tab" => "Chat",
    DiffTab = "diff_tab" => "Diff",
    ViewUpdated = "view_updated" => "Updated {time}",
    ViewStale = "view_stale" => "Out of date: reconnecting…",
    ComposerLabel = "composer_label" => "Message",
    ComposerPlaceholder = "composer_placeholder" => "Message the assistant",
    Greeting = "greeting" => "How can I help you today?",
    Conversation = "conversation" => "Conversation",
    YouSaid = "you_said" => "You said",
    AssistantSaid = "assistant_said" => "Assistant said",
    AssistantAnswering = "assistant_answering" => "Assistant is answering",
    AnswerStopped = "answer_stopped" => "Assistant's answer (stopped)",
    AnswerIncomplete = "answer_incomplete" => "Assistant's answer (incomplete)",
    Stopped = "stopped" => "Stopped",
    Sources = "sources" => "Sources",
    DismissNotice = "dismiss_notice" => "Dismiss notice",
    Unsupported = "unsupported" => "Unsupported content",
    ThreadClosed = "thread_closed" => "This conversation is closed.",
    GeneratingImage = "generating_image" => "Generating image",
    GeneratedImage = "generated_image" => "Generated image",
    WorkedFor = "worked_for" => "Worked for {seconds}s",
    Working = "working" => "Working…",
    Worked = "worked" => "Worked",
    Attachments = "attachments" => "Attachments",
    AddAttachment = "add_attachment" => "Add attachment",
    Remove = "remove" => "Remove {name}",
    Approve = "approve" => "Approve",
    Reject = "reject" => "Reject",
    Submit = "submit" => "Submit",
    Skip = "skip" => "Skip",
    // Start screen and shell.
    Suggestions = "suggestions" => "Suggestions",
    ChatUnavailable = "chat_unavailable" => "This chat is no longer available.",
    // Export (the header's "Export", `exportConversation`) and the narrow header's menu.
    Export = "export" => "Export",
    ExportMarkdown = "export_markdown" => "Markdown (.md)",
    ExportJson = "export_json" => "JSON (.json)",
    More = "more" => "More",
    ExportYou = "export_you" => "You",
    ExportAssistant = "export_assistant" => "Assistant",
    ExportToolCall = "export_tool_call" => "Tool call: {title} ({status})",
    ExportDone = "export_done" => "done",
    ExportFailed = "export_failed" => "failed",
    ExportUnfinished = "export_unfinished" => "not finished",
    ExportAttachments = "export_attachments" => "Attachments: {names}",
    // The frame src/chat-shell.js draws before the element starts (its table: these).
    Connecting = "connecting" => "Connecting…",
    StartFailed = "start_failed" => "The chat could not start. Reload the page to try again.",
    Resize = "resize" => "Resize",
    ResizeHint = "resize_hint" => "Resize (arrow keys)",
    // Loading and errors.
    LoadingConversation = "loading_conversation" => "Loading conversation…",
    LoadingEarlier = "loading_earlier" => "Loading earlier messages…",
    ThreadOpenError = "thread_open_error" => "This conversation could not be opened. {error}",
    AnswerEmpty = "answer_empty" => "The server ended the answer without sending anything.",
    AnswerFailed = "answer_failed" => "Something went wrong while answering. Please try again.",
    AnswerInterrupted = "answer_interrupted" => "The answer was interrupted: the server writing it stopped. What arrived is kept.",
    RequestCancelled = "request_cancelled" => "The request was cancelled.",
    ServerError = "server_error" => "The server answered with an error (HTTP {status}).",
    ServerErrorDetail = "server_error_detail" => "The server answered with an error (HTTP {status}): {message}",
    AnswerStalled = "answer_stalled" => "The answer stalled: nothing arrived for {seconds} seconds.",
    ConnectionLost = "connection_lost" => "The connection to the server was lost. Check your connection and retry.",
    ServerSilent = "server_silent" => "The server did not answer within {seconds} seconds.",
    AnswerTooLarge = "answer_too_large" => "The answer was cut off: one part of it was larger than {megabytes} MB.",
    UnreadableAnswer = "unreadable_answer" => "The server's answer could not be read: {detail}",
    StreamingUnsupported = "streaming_unsupported" => "This browser cannot run streamed requests.",
    // Workflows and tasks.
    Thinking = "thinking" => "Thinking…",
    Thought = "thought" => "Thought",
    ThoughtFor = "thought_for" => "Thought for {seconds}s",
    TaskUntitled = "task_untitled" => "Working",
    TaskInProgress = "task_in_progress" => "In progress",
    TaskComplete = "task_complete" => "Complete",
    Searches = "searches" => "Searches",
    SourcesFound = "sources_found" => "Sources found",
    // History.
    Conversations = "conversations" => "Conversations",
    HistoryToday = "history_today" => "Today",
    HistoryYesterday = "history_yesterday" => "Yesterday",
    HistoryPreviousWeek = "history_previous_week" => "Previous 7 days",
    HistoryFilter = "history_filter" => "Filter conversations",
    HistoryNoMatch = "history_no_match" => "No conversation matches.",
    NoConversations = "no_conversations" => "No conversations yet",
    LoadingConversations = "loading_conversations" => "Loading conversations…",
    HistoryError = "history_error" => "The conversations could not be loaded. {error}",
    TryAgain = "try_again" => "Try again",
    PartLoadFailed = "part_load_failed" => "This part of the conversation could not be loaded.",
    Rename = "rename" => "Rename",
    RenameNamed = "rename_named" => "Rename {title}",
    Delete = "delete" => "Delete",
    DeleteNamed = "delete_named" => "Delete {title}",
    DeleteConfirm = "delete_confirm" => "Delete {title}?",
    Cancel = "cancel" => "Cancel",
    ConversationTitle = "conversation_title" => "Conversation title",
    Untitled = "untitled" => "Untitled conversation",
    JustNow = "just_now" => "just now",
    MinuteAgo = "minute_ago" => "1 minute ago",
    MinutesAgo = "minutes_ago" => "{count} minutes ago",
    HourAgo = "hour_ago" => "1 hour ago",
    HoursAgo = "hours_ago" => "{count} hours ago",
    Yesterday = "yesterday" => "yesterday",
    DaysAgo = "days_ago" => "{count} days ago",
    WeekAgo = "week_ago" => "1 week ago",
    WeeksAgo = "weeks_ago" => "{count} weeks ago",
    MonthAgo = "month_ago" => "1 month ago",
    MonthsAgo = "months_ago" => "{count} months ago",
    YearAgo = "year_ago" => "1 year ago",
    YearsAgo = "years_ago" => "{count} years ago",
    // Attachments.
    Dismiss = "dismiss" => "Dismiss",
    RetryUpload = "retry_upload" => "Retry upload",
    RetryUploadNamed = "retry_upload_named" => "Retry upload {name}",
    UploadingNamed = "uploading_named" => "Uploading {name}",
    FileBadge = "file_badge" => "FILE",
    MoreAttachments = "more_attachments" => "+{count} more",
    ShowFewer = "show_fewer" => "Show fewer",
    UploadsFailed = "uploads_failed" => "An attachment failed to upload: retry or remove it.",
    UploadsPending = "uploads_pending" => "Waiting for attachments to finish uploading…",
    UploadFailed = "upload_failed" => "Upload failed. {error}",
    UploadFailedHttp = "upload_failed_http" => "Upload failed (HTTP {status}).",
    UploadConnectionLost = "upload_connection_lost" => "Upload failed: the connection was lost.",
    UploadBadAddress = "upload_bad_address" => "Upload failed: the upload address is not valid.",
    UploadNotSent = "upload_not_sent" => "Upload failed: the file could not be sent.",
    UploadFileGone = "upload_file_gone" => "The file is no longer available: remove it and add it again.",
    UploadUnsupported = "upload_unsupported" => "This browser cannot upload files.",
    FileTypeRefused = "file_type_refused" => "“{name}” is not a supported file type.",
    FileTooLarge = "file_too_large" => "“{name}” is larger than the {limit} limit.",
    TooManyFilesOne = "too_many_files_one" => "You can attach at most 1 file to a message; {count} not added.",
    TooManyFiles = "too_many_files" => "You can attach at most {max} files to a message; {count} not added.",
    SizeByte = "size_byte" => "1 byte",
    SizeBytes = "size_bytes" => "{count} bytes",
    SizeKb = "size_kb" => "{size} KB",
    SizeMb = "size_mb" => "{size} MB",
    SizeGb = "size_gb" => "{size} GB",
    // Widgets, tool calls, approvals and structured input.
    WidgetFailed = "widget_failed" => "This widget could not be shown.",
    UnsupportedComponent = "unsupported_component" => "Unsupported component",
    ShowDetails = "show_details" => "Show details",
    HideDetails = "hide_details" => "Hide details",
    ShowMore = "show_more" => "Show {count} more",
    ShowLess = "show_less" => "Show less",
    Confirm = "confirm" => "Confirm",
    Button = "button" => "Button",
    ChartSummary = "chart_summary" => "Chart: {series} over {count} categories",
    ApprovalRequest = "approval_request" => "Approval request",
    ApprovalRequired = "approval_required" => "Approval required",
    ApprovalTool = "approval_tool" => "The assistant wants to run {tool}",
    Approved = "approved" => "Approved",
    Rejected = "rejected" => "Rejected",
    AnswerSent = "answer_sent" => "Answer sent.",
    Answered = "answered" => "Answered",
    Skipped = "skipped" => "Skipped",
    NoAnswer = "no_answer" => "No answer",
    ClientTool = "client_tool" => "Client tool {name}",
    ToolRunning = "tool_running" => "Running…",
    ToolDone = "tool_done" => "Done",
    ToolFailed = "tool_failed" => "Failed",
    ToolNotRun = "tool_not_run" => "Not run",
    Details = "details" => "Details",
    Arguments = "arguments" => "Arguments",
    ToolResult = "tool_result" => "Result",
    // Agent runs: ACP tool calls, permission cards, run state.
    AcpPending = "acp_pending" => "Pending",
    AcpInProgress = "acp_in_progress" => "In progress",
    AcpCompleted = "acp_completed" => "Completed",
    AcpFailed = "acp_failed" => "Failed",
    AcpAwaitingPermission = "acp_awaiting_permission" => "Waiting for permission",
    AcpRejected = "acp_rejected" => "Rejected",
    AcpCancelled = "acp_cancelled" => "Cancelled",
    AcpInterrupted = "acp_interrupted" => "Interrupted",
    AcpUnknown = "acp_unknown" => "Status unknown",
    StopMaxTokens = "stop_max_tokens" => "The agent stopped: it reached its token limit (max_tokens). The answer may be cut short.",
    StopMaxTurnRequests = "stop_max_turn_requests" => "The agent stopped: it reached its limit of model requests for one turn (max_turn_requests).",
    StopRefusal = "stop_refusal" => "The agent refused to continue (refusal).",
    StopCancelled = "stop_cancelled" => "Stopped before the agent finished.",
    StopFailed = "stop_failed" => "This turn failed: {message}",
    StopOther = "stop_other" => "The turn ended: {reason}",
    EventsMissing = "events_missing" => "Some events of this answer never arrived: it may be incomplete.",
    Resyncing = "resyncing" => "Resyncing: asking for events that did not arrive…",
    TeamRoster = "team_roster" => "Team",
    WorkerReported = "worker_reported" => "{agent} reported",
    HandoffNote = "handoff_note" => "Handed off from {from} to {to}",
    ArtifactLabel = "artifact_label" => "Artifact",
    ArtifactOpen = "artifact_open" => "Open {title}",
    Open = "open" => "Open",
    QuestionAsks = "question_asks" => "{agent} asks",
    QuestionAsked = "question_asked" => "A question for you",
    AnswerQuestion = "answer_question" => "Answer",
    QuestionAnswered = "question_answered" => "Answered: {answer}",
    QuestionWaiting = "question_waiting" => "Waiting for your answer",
    QuestionSending = "question_sending" => "Answer sent; waiting for the agent to confirm it…",
    ChildOf = "child_of" => "Child of {parent}",
    TeammateTranscript = "teammate_transcript" => "Transcript ({count} messages)",
    TeammateTranscriptOne = "teammate_transcript_one" => "Transcript ({count} message)",
    TeammateAnswer = "teammate_answer" => "Answer {agent}",
    InterruptExpired = "interrupt_expired" => "This request expired: it can no longer be answered. Send a message to go on.",
    TeamNeedsInput = "team_needs_input" => "{count} need your input",
    TeamNeedsInputOne = "team_needs_input_one" => "{count} needs your input",
    LoadEarlier = "load_earlier" => "Load earlier messages",
    EarlierFailed = "earlier_failed" => "Earlier messages could not be loaded. {error}",
    Queue = "queue" => "Queue",
    QueueHint = "queue_hint" => "Send after this run",
    Steer = "steer" => "Steer",
    SteerHint = "steer_hint" => "Redirect this run now",
    QueuedTurns = "queued_turns" => "Queued",
    QueuedStatus = "queued_status" => "Sends after this run",
    SteeredNote = "steered_note" => "You steered this run",
    QueueRefused = "queue_refused" => "The run ended before your message could reach it; it is back in the composer.",
    NewFile = "new_file" => "New file",
    LinesUnchanged = "lines_unchanged" => "{count} unchanged lines",
    OutputTruncated = "output_truncated" => "Output truncated",
    TerminalOutput = "terminal_output" => "Terminal",
    ToolLocations = "tool_locations" => "Files",
    ToolCallsFolded = "tool_calls_folded" => "{count} tool calls",
    ToolCallsFoldedOne = "tool_calls_folded_one" => "{count} tool call",
    ExitCode = "exit_code" => "Exit code {code}",
    ExitSignal = "exit_signal" => "Ended by signal {signal}",
    OneLineUnchanged = "one_line_unchanged" => "1 unchanged line",
    ToolCallsFailed = "tool_calls_failed" => "{count} failed",
    ToolCallsUnknown = "tool_calls_unknown" => "{count} outcome unknown",
    RawInput = "raw_input" => "Raw input",
    RawOutput = "raw_output" => "Raw output",
    PermissionNeeded = "permission_needed" => "Permission needed",
    PlanDecision = "plan_decision" => "A plan for your decision",
    PermissionAgent = "permission_agent" => "Asked by {agent}",
    PermissionDecided = "permission_decided" => "Decision: {option}",
    PermissionCancelled = "permission_cancelled" => "Request cancelled",
    PermissionSent = "permission_sent" => "Sent: {option}",
    Command = "command" => "Command",
    WorkingDirectory = "working_directory" => "Directory",
    RunErrorCode = "run_error_code" => "Error {code}",
    RunErrorPlain = "run_error_plain" => "Error",
    Liveness = "liveness" => "connected · last event {seconds}s ago",
    AgentPlan = "agent_plan" => "Plan",
    AgentThought = "agent_thought" => "Thoughts",
    // The diff view (patches pushed by tools).
    DiffEmpty = "diff_empty" => "No changes",
    DiffFilesChanged = "diff_files_changed" => "{count} files changed",
    DiffOneFileChanged = "diff_one_file_changed" => "1 file changed",
    DiffLineCounts = "diff_line_counts" => "Lines added: {added}, removed: {removed}",
    ChangedFiles = "changed_files" => "Changed files",
    FileAdded = "file_added" => "Added",
    FileModified = "file_modified" => "Modified",
    FileDeleted = "file_deleted" => "Deleted",
    FileRenamed = "file_renamed" => "Renamed",
    FileCopied = "file_copied" => "Copied",
    CopyPath = "copy_path" => "Copy path",
    DiffLayout = "diff_layout" => "Layout",
    DiffUnified = "diff_unified" => "Unified",
    DiffSideBySide = "diff_side_by_side" => "Side by side",
    DiffBinary = "diff_binary" => "Binary file, not shown",
    DiffModeChanged = "diff_mode_changed" => "File mode changed from {old} to {new}",
    DiffRenameOnly = "diff_rename_only" => "Renamed, content unchanged",
    DiffCopyOnly = "diff_copy_only" => "Copied, content unchanged",
    DiffEmptyFile = "diff_empty_file" => "Empty file",
    DiffNoLines = "diff_no_lines" => "No lines changed",
    DiffLarge = "diff_large" => "Large change ({count} lines): collapsed",
    DiffUnreadable = "diff_unreadable" => "Part of this diff could not be read: {detail}",
    DiffRecounted = "diff_recounted" => "Line counts fixed in {count} hunks (as git apply --recount)",
    DiffSkipped = "diff_skipped" => "{count} unreadable lines or hunks left out",
    // The agent session's controls (modes, models, options, commands, usage, sessions).
    ControlMode = "control_mode" => "Mode",
    ControlModel = "control_model" => "Model",
    AgentControls = "agent_controls" => "Agent settings",
    ControlUnsupported = "control_unsupported" => "{name}: not supported here",
    ControlRefused = "control_refused" => "{name} not changed: {reason}",
    ControlAdjusted = "control_adjusted" => "{name} set to {value} by the agent",
    ControlFailed = "control_failed" => "{name} not changed: {reason}",
    Commands = "commands" => "Commands",
    Mentions = "mentions" => "Mentions",
    MessageTooLong = "message_too_long" => "This message is {count} characters long; the limit is {limit}. Shorten it to send it.",
    UsageLabel = "usage_label" => "Context window",
    UsageText = "usage_text" => "{used} of {size} tokens used ({percent}%)",
    UsageCost = "usage_cost" => "{amount} {currency}",
    AgentSessions = "agent_sessions" => "The agent's sessions",
    UntitledSession = "untitled_session" => "Untitled session",
    MoreSessions = "more_sessions" => "More sessions",
    SessionsFailed = "sessions_failed" => "The agent's sessions could not be listed: {reason}",
    // ChatKit's model picker and tool menu (`composer.models`, `composer.tools`).
    PickModel = "pick_model" => "Model",
    PickTools = "pick_tools" => "Tools",
    RemoveTool = "remove_tool" => "Remove tool {label}",
    // An agent's elicitation (a form or a link it asks the user to answer).
    ElicitationAccept = "elicitation_accept" => "Accept",
    ElicitationDecline = "elicitation_decline" => "Decline",
    ElicitationAccepted = "elicitation_accepted" => "Accepted",
    ElicitationDeclined = "elicitation_declined" => "Declined",
    ElicitationCancelled = "elicitation_cancelled" => "Cancelled",
    ElicitationCompleted = "elicitation_completed" => "Completed",
    ElicitationSending = "elicitation_sending" => "Sending your answer…",
    ElicitationRequired = "elicitation_required" => "required",
    ElicitationUnsupportedField = "elicitation_unsupported_field" => "Unsupported field ({type})",
    ElicitationBlocked = "elicitation_blocked" => "This form asks for a field this app cannot show: it can only be declined or cancelled.",
    ElicitationUnsupportedMode = "elicitation_unsupported_mode" => "The agent asks for something this app cannot show ({mode}).",
    ElicitationUntrustedUrl = "elicitation_untrusted_url" => "Not a web link, not opened:",
    ElicitationFixErrors = "elicitation_fix_errors" => "Some answers need fixing.",
    FormRequired = "form_required" => "This field is required.",
    FormTooShort = "form_too_short" => "Enter at least {count} characters.",
    FormTooLong = "form_too_long" => "Enter at most {count} characters.",
    FormNotANumber = "form_not_a_number" => "Enter a number.",
    FormNotAnInteger = "form_not_an_integer" => "Enter a whole number.",
    FormBelow = "form_below" => "Enter {limit} or more.",
    FormAbove = "form_above" => "Enter {limit} or less.",
    FormNotAChoice = "form_not_a_choice" => "Choose one of the options.",
    FormTooFew = "form_too_few" => "Choose at least {count}.",
    FormTooMany = "form_too_many" => "Choose at most {count}.",
    // Dictation (`composer.dictation.enabled`): the microphone and its alerts.
    Dictate = "dictate" => "Dictate",
    StopDictation = "stop_dictation" => "Stop dictation",
    CancelDictation = "cancel_dictation" => "Cancel dictation",
    DictationRecording = "dictation_recording" => "Recording…",
    DictationTranscribing = "dictation_transcribing" => "Transcribing…",
    DictationDenied = "dictation_denied" => "Dictation needs the microphone, and permission to use it was denied.",
    DictationNoDevice = "dictation_no_device" => "No microphone was found.",
    DictationUnsupported = "dictation_unsupported" => "This browser cannot record audio.",
    DictationMicrophoneFailed = "dictation_microphone_failed" => "The microphone could not be used.",
    DictationFailed = "dictation_failed" => "The recording could not be transcribed: {error}",
    // Branches: an edited message, an answer regenerated.
    Edit = "edit" => "Edit",
    EditMessage = "edit_message" => "Edit message",
    Branches = "branches" => "Branches",
    PreviousBranch = "previous_branch" => "Previous branch",
    NextBranch = "next_branch" => "Next branch",
    BranchPosition = "branch_position" => "{n} / {count}",
    BranchNotShown = "branch_not_shown" => "That branch could not be shown: {error}",
}

/// Built-in translations (beyond English), by language tag: one `key = text` line per
/// string, with the keys hosts use in overrides (`#` starts a comment line). Complete: every
/// key, the same `{placeholders}` as English (checked by `built_in_locales_are_complete`).
/// Text rather than a table of `(Text, &str)`, whose pointers the first wasm module would
/// carry (docs/size-history.md).
const LOCALES: &[(&str, &str)] = &[
    (
        "fr",
        "
send = Envoyer
stop = Arrêter
retry = Réessayer
copy = Copier
copied = Copié
copy_code = Copier le code
good_response = Bonne réponse
bad_response = Mauvaise réponse
scroll_to_bottom = Aller en bas
find_in_conversation = Rechercher dans la conversation
find_previous = Résultat précédent
find_next = Résultat suivant
find_count = {current} sur {total}
find_none = Aucun résultat
find_close = Fermer la recherche
new_chat = Nouvelle conversation
history = Historique
view_tabs = Vues
chat_tab = Discussion
diff_tab = Diff
view_updated = Mis à jour {time}
view_stale = Pas à jour : reconnexion…
composer_label = Message
composer_placeholder = Écrire à l'assistant
greeting = Comment puis-je vous aider ?
conversation = Conversation
you_said = Vous avez dit
assistant_said = L'assistant a dit
assistant_answering = L'assistant répond
answer_stopped = Réponse de l'assistant (arrêtée)
answer_incomplete = Réponse de l'assistant (incomplète)
stopped = Arrêté
sources = Sources
dismiss_notice = Fermer l'avis
unsupported = Contenu non pris en charge
thread_closed = Cette conversation est fermée.
generating_image = Génération de l'image
generated_image = Image générée
worked_for = A travaillé {seconds} s
working = Travail en cours…
worked = Travail terminé
attachments = Pièces jointes
add_attachment = Ajouter une pièce jointe
remove = Retirer {name}
approve = Approuver
reject = Refuser
submit = Valider
skip = Passer
# Start screen and shell.
suggestions = Suggestions
chat_unavailable = Cette conversation n'est plus disponible.
connecting = Connexion…
export = Exporter
export_markdown = Markdown (.md)
export_json = JSON (.json)
more = Plus
export_you = Vous
export_assistant = Assistant
export_tool_call = Appel d'outil : {title} ({status})
export_done = terminé
export_failed = échec
export_unfinished = inachevé
export_attachments = Pièces jointes : {names}
start_failed = La conversation n'a pas pu démarrer. Rechargez la page pour réessayer.
resize = Redimensionner
resize_hint = Redimensionner (touches fléchées)
# Loading and errors.
loading_conversation = Chargement de la conversation…
loading_earlier = Chargement des messages précédents…
thread_open_error = Impossible d'ouvrir cette conversation. {error}
answer_empty = Le serveur a terminé la réponse sans rien envoyer.
answer_failed = Une erreur s'est produite pendant la réponse. Veuillez réessayer.
answer_interrupted = La réponse a été interrompue : le serveur qui l'écrivait s'est arrêté. Ce qui est arrivé est conservé.
request_cancelled = La requête a été annulée.
server_error = Le serveur a répondu par une erreur (HTTP {status}).
server_error_detail = Le serveur a répondu par une erreur (HTTP {status}) : {message}
answer_stalled = La réponse est bloquée : rien n'est arrivé depuis {seconds} secondes.
connection_lost = La connexion au serveur a été perdue. Vérifiez votre connexion et réessayez.
server_silent = Le serveur n'a pas répondu en {seconds} secondes.
answer_too_large = La réponse a été coupée : une de ses parties dépassait {megabytes} Mo.
unreadable_answer = Impossible de lire la réponse du serveur : {detail}
streaming_unsupported = Ce navigateur ne peut pas recevoir de réponses en flux.
# Workflows and tasks.
thinking = Réflexion…
thought = Réflexion terminée
thought_for = A réfléchi {seconds} s
task_untitled = Traitement
task_in_progress = En cours
task_complete = Terminé
searches = Recherches
sources_found = Sources trouvées
# History.
conversations = Conversations
history_today = Aujourd'hui
history_yesterday = Hier
history_previous_week = 7 derniers jours
history_filter = Filtrer les conversations
history_no_match = Aucune conversation ne correspond.
no_conversations = Aucune conversation pour l'instant
loading_conversations = Chargement des conversations…
history_error = Impossible de charger les conversations. {error}
try_again = Réessayer
part_load_failed = Cette partie de la conversation n’a pas pu être chargée.
rename = Renommer
rename_named = Renommer {title}
delete = Supprimer
delete_named = Supprimer {title}
delete_confirm = Supprimer « {title} » ?
cancel = Annuler
conversation_title = Titre de la conversation
untitled = Conversation sans titre
just_now = à l'instant
minute_ago = il y a 1 minute
minutes_ago = il y a {count} minutes
hour_ago = il y a 1 heure
hours_ago = il y a {count} heures
yesterday = hier
days_ago = il y a {count} jours
week_ago = il y a 1 semaine
weeks_ago = il y a {count} semaines
month_ago = il y a 1 mois
months_ago = il y a {count} mois
year_ago = il y a 1 an
years_ago = il y a {count} ans
# Attachments.
dismiss = Fermer
retry_upload = Relancer l'envoi
retry_upload_named = Relancer l'envoi de {name}
uploading_named = Envoi de {name}
file_badge = FICHIER
more_attachments = +{count} de plus
show_fewer = Afficher moins
uploads_failed = L'envoi d'une pièce jointe a échoué : relancez-le ou retirez la pièce jointe.
uploads_pending = En attente de la fin de l'envoi des pièces jointes…
upload_failed = Échec de l'envoi. {error}
upload_failed_http = Échec de l'envoi (HTTP {status}).
upload_connection_lost = Échec de l'envoi : la connexion a été perdue.
upload_bad_address = Échec de l'envoi : l'adresse d'envoi n'est pas valide.
upload_not_sent = Échec de l'envoi : le fichier n'a pas pu être envoyé.
upload_file_gone = Le fichier n'est plus disponible : retirez-le et ajoutez-le de nouveau.
upload_unsupported = Ce navigateur ne peut pas envoyer de fichiers.
file_type_refused = « {name} » n'est pas un type de fichier pris en charge.
file_too_large = « {name} » dépasse la limite de {limit}.
too_many_files_one = Vous pouvez joindre au plus 1 fichier à un message ; {count} non ajouté(s).
too_many_files = Vous pouvez joindre au plus {max} fichiers à un message ; {count} non ajouté(s).
size_byte = 1 octet
size_bytes = {count} octets
size_kb = {size} Ko
size_mb = {size} Mo
size_gb = {size} Go
# Widgets, tool calls, approvals and structured input.
widget_failed = Ce widget n'a pas pu être affiché.
unsupported_component = Composant non pris en charge
show_details = Afficher les détails
hide_details = Masquer les détails
show_more = Afficher {count} de plus
show_less = Afficher moins
confirm = Confirmer
button = Bouton
chart_summary = Graphique : {series} sur {count} catégories
approval_request = Demande d'approbation
approval_required = Approbation requise
approval_tool = L'assistant veut exécuter {tool}
approved = Approuvé
rejected = Refusé
answer_sent = Réponse envoyée.
answered = Répondu
skipped = Ignoré
no_answer = Pas de réponse
client_tool = Outil client {name}
tool_running = En cours…
tool_done = Terminé
tool_failed = Échec
tool_not_run = Non exécuté
details = Détails
arguments = Arguments
tool_result = Résultat
acp_pending = En attente
acp_in_progress = En cours
acp_completed = Terminé
acp_failed = Échec
acp_awaiting_permission = En attente d'autorisation
acp_rejected = Refusé
acp_cancelled = Annulé
acp_interrupted = Interrompu
acp_unknown = Statut inconnu
stop_max_tokens = L'agent s'est arrêté : il a atteint sa limite de jetons (max_tokens). La réponse peut être tronquée.
stop_max_turn_requests = L'agent s'est arrêté : il a atteint sa limite de requêtes au modèle pour un tour (max_turn_requests).
stop_refusal = L'agent a refusé de continuer (refusal).
stop_cancelled = Arrêté avant que l'agent ait fini.
stop_failed = Ce tour a échoué : {message}
stop_other = Le tour s'est terminé : {reason}
events_missing = Des événements de cette réponse ne sont jamais arrivés : elle est peut-être incomplète.
resyncing = Resynchronisation : demande des événements manquants…
team_roster = Équipe
worker_reported = Rapport de {agent}
handoff_note = Passage de relais de {from} à {to}
artifact_label = Artefact
artifact_open = Ouvrir {title}
open = Ouvrir
question_asks = {agent} demande
question_asked = Une question pour vous
answer_question = Répondre
question_answered = Réponse : {answer}
question_waiting = En attente de votre réponse
question_sending = Réponse envoyée ; en attente de la confirmation de l'agent…
child_of = Enfant de {parent}
teammate_transcript = Transcription ({count} messages)
teammate_transcript_one = Transcription ({count} message)
teammate_answer = Répondre à {agent}
interrupt_expired = Cette demande a expiré : on ne peut plus y répondre. Envoyez un message pour continuer.
team_needs_input = {count} attendent votre réponse
team_needs_input_one = {count} attend votre réponse
load_earlier = Charger les messages précédents
earlier_failed = Les messages précédents n’ont pas pu être chargés. {error}
queue = Mettre en file
queue_hint = Envoyer après cette exécution
steer = Réorienter
steer_hint = Réorienter cette exécution maintenant
queued_turns = En file
queued_status = Part après cette exécution
steered_note = Vous avez réorienté cette exécution
queue_refused = L'exécution s'est terminée avant que votre message l'atteigne ; il est de retour dans le champ de saisie.
new_file = Nouveau fichier
lines_unchanged = {count} lignes inchangées
output_truncated = Sortie tronquée
terminal_output = Terminal
tool_locations = Fichiers
exit_code = Code de sortie {code}
exit_signal = Arrêté par le signal {signal}
one_line_unchanged = 1 ligne inchangée
tool_calls_folded = {count} appels d'outils
tool_calls_folded_one = {count} appel d'outil
tool_calls_failed = {count} en échec
tool_calls_unknown = {count} à l'issue inconnue
raw_input = Entrée brute
raw_output = Sortie brute
permission_needed = Autorisation requise
plan_decision = Un plan à décider
permission_agent = Demandé par {agent}
permission_decided = Décision : {option}
permission_cancelled = Demande annulée
permission_sent = Envoyé : {option}
command = Commande
working_directory = Répertoire
run_error_code = Erreur {code}
run_error_plain = Erreur
liveness = connecté · dernier événement il y a {seconds} s
agent_plan = Plan
agent_thought = Réflexions
diff_empty = Aucune modification
diff_files_changed = {count} fichiers modifiés
diff_one_file_changed = 1 fichier modifié
diff_line_counts = Lignes ajoutées : {added}, supprimées : {removed}
changed_files = Fichiers modifiés
file_added = Ajouté
file_modified = Modifié
file_deleted = Supprimé
file_renamed = Renommé
file_copied = Copié
copy_path = Copier le chemin
diff_layout = Disposition
diff_unified = Unifiée
diff_side_by_side = Côte à côte
diff_binary = Fichier binaire, non affiché
diff_mode_changed = Mode du fichier changé de {old} à {new}
diff_rename_only = Renommé, contenu inchangé
diff_copy_only = Copié, contenu inchangé
diff_empty_file = Fichier vide
diff_no_lines = Aucune ligne modifiée
diff_large = Modification volumineuse ({count} lignes) : repliée
diff_unreadable = Une partie de ce diff n'a pas pu être lue : {detail}
diff_recounted = Nombres de lignes corrigés dans {count} blocs (comme git apply --recount)
diff_skipped = {count} lignes ou blocs illisibles omis
control_mode = Mode
control_model = Modèle
agent_controls = Réglages de l'agent
control_unsupported = {name} : non pris en charge ici
control_refused = {name} inchangé : {reason}
control_adjusted = {name} réglé sur {value} par l'agent
control_failed = {name} inchangé : {reason}
commands = Commandes
mentions = Mentions
message_too_long = Ce message fait {count} caractères ; la limite est de {limit}. Raccourcissez-le pour l’envoyer.
usage_label = Fenêtre de contexte
usage_text = {used} sur {size} jetons utilisés ({percent} %)
usage_cost = {amount} {currency}
agent_sessions = Les sessions de l'agent
untitled_session = Session sans titre
more_sessions = Plus de sessions
sessions_failed = Les sessions de l'agent n'ont pas pu être listées : {reason}
pick_model = Modèle
pick_tools = Outils
remove_tool = Retirer l'outil {label}
elicitation_accept = Accepter
elicitation_decline = Refuser
elicitation_accepted = Accepté
elicitation_declined = Refusé
elicitation_cancelled = Annulé
elicitation_completed = Terminé
elicitation_sending = Envoi de votre réponse…
elicitation_required = obligatoire
elicitation_unsupported_field = Champ non pris en charge ({type})
elicitation_blocked = Ce formulaire demande un champ que cette application ne peut pas afficher : il ne peut qu'être refusé ou annulé.
elicitation_unsupported_mode = L'agent demande quelque chose que cette application ne peut pas afficher ({mode}).
elicitation_untrusted_url = Pas un lien web, non ouvert :
elicitation_fix_errors = Certaines réponses sont à corriger.
form_required = Ce champ est obligatoire.
form_too_short = Saisissez au moins {count} caractères.
form_too_long = Saisissez au plus {count} caractères.
form_not_a_number = Saisissez un nombre.
form_not_an_integer = Saisissez un nombre entier.
form_below = Saisissez {limit} ou plus.
form_above = Saisissez {limit} ou moins.
form_not_a_choice = Choisissez l'une des options.
form_too_few = Choisissez-en au moins {count}.
form_too_many = Choisissez-en au plus {count}.
dictate = Dicter
stop_dictation = Arrêter la dictée
cancel_dictation = Annuler la dictée
dictation_recording = Enregistrement…
dictation_transcribing = Transcription…
dictation_denied = La dictée a besoin du micro, et son accès a été refusé.
dictation_no_device = Aucun micro n'a été trouvé.
dictation_unsupported = Ce navigateur ne peut pas enregistrer de son.
dictation_microphone_failed = Le micro n'a pas pu être utilisé.
dictation_failed = L'enregistrement n'a pas pu être transcrit : {error}
edit = Modifier
edit_message = Modifier le message
branches = Versions
previous_branch = Version précédente
next_branch = Version suivante
branch_position = {n} / {count}
branch_not_shown = Cette version n'a pas pu être affichée : {error}
",
    ),
    (
        "de",
        "
send = Senden
stop = Stopp
retry = Erneut versuchen
copy = Kopieren
copied = Kopiert
copy_code = Code kopieren
good_response = Gute Antwort
bad_response = Schlechte Antwort
scroll_to_bottom = Nach unten scrollen
find_in_conversation = In der Unterhaltung suchen
find_previous = Vorheriger Treffer
find_next = Nächster Treffer
find_count = {current} von {total}
find_none = Keine Treffer
find_close = Suche schließen
new_chat = Neuer Chat
history = Verlauf
view_tabs = Ansichten
chat_tab = Chat
diff_tab = Diff
view_updated = Aktualisiert {time}
view_stale = Veraltet: Verbindung wird wiederhergestellt…
composer_label = Nachricht
composer_placeholder = Nachricht an den Assistenten
greeting = Wie kann ich helfen?
conversation = Unterhaltung
you_said = Sie haben geschrieben
assistant_said = Der Assistent schrieb
assistant_answering = Der Assistent antwortet
answer_stopped = Antwort des Assistenten (gestoppt)
answer_incomplete = Antwort des Assistenten (unvollständig)
stopped = Gestoppt
sources = Quellen
dismiss_notice = Hinweis schließen
unsupported = Nicht unterstützter Inhalt
thread_closed = Diese Unterhaltung ist geschlossen.
generating_image = Bild wird erstellt
generated_image = Erstelltes Bild
worked_for = {seconds} s gearbeitet
working = Arbeitet…
worked = Gearbeitet
attachments = Anhänge
add_attachment = Anhang hinzufügen
remove = {name} entfernen
approve = Genehmigen
reject = Ablehnen
submit = Absenden
skip = Überspringen
# Start screen and shell.
suggestions = Vorschläge
chat_unavailable = Dieser Chat ist nicht mehr verfügbar.
connecting = Verbindung wird hergestellt…
export = Exportieren
export_markdown = Markdown (.md)
export_json = JSON (.json)
more = Mehr
export_you = Sie
export_assistant = Assistent
export_tool_call = Werkzeugaufruf: {title} ({status})
export_done = fertig
export_failed = fehlgeschlagen
export_unfinished = nicht abgeschlossen
export_attachments = Anhänge: {names}
start_failed = Der Chat konnte nicht starten. Laden Sie die Seite neu, um es erneut zu versuchen.
resize = Größe ändern
resize_hint = Größe ändern (Pfeiltasten)
# Loading and errors.
loading_conversation = Unterhaltung wird geladen…
loading_earlier = Frühere Nachrichten werden geladen…
thread_open_error = Diese Unterhaltung konnte nicht geöffnet werden. {error}
answer_empty = Der Server hat die Antwort beendet, ohne etwas zu senden.
answer_failed = Beim Antworten ist ein Fehler aufgetreten. Bitte versuchen Sie es erneut.
answer_interrupted = Die Antwort wurde unterbrochen: Der Server, der sie schrieb, wurde beendet. Was angekommen ist, bleibt erhalten.
request_cancelled = Die Anfrage wurde abgebrochen.
server_error = Der Server hat mit einem Fehler geantwortet (HTTP {status}).
server_error_detail = Der Server hat mit einem Fehler geantwortet (HTTP {status}): {message}
answer_stalled = Die Antwort stockt: Seit {seconds} Sekunden ist nichts angekommen.
connection_lost = Die Verbindung zum Server wurde unterbrochen. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.
server_silent = Der Server hat nicht innerhalb von {seconds} Sekunden geantwortet.
answer_too_large = Die Antwort wurde abgeschnitten: Ein Teil davon war größer als {megabytes} MB.
unreadable_answer = Die Antwort des Servers konnte nicht gelesen werden: {detail}
streaming_unsupported = Dieser Browser kann keine gestreamten Anfragen ausführen.
# Workflows and tasks.
thinking = Denkt nach…
thought = Nachgedacht
thought_for = {seconds} s nachgedacht
task_untitled = Arbeitet
task_in_progress = In Bearbeitung
task_complete = Abgeschlossen
searches = Suchanfragen
sources_found = Gefundene Quellen
# History.
conversations = Unterhaltungen
history_today = Heute
history_yesterday = Gestern
history_previous_week = Letzte 7 Tage
history_filter = Unterhaltungen filtern
history_no_match = Keine Unterhaltung passt.
no_conversations = Noch keine Unterhaltungen
loading_conversations = Unterhaltungen werden geladen…
history_error = Die Unterhaltungen konnten nicht geladen werden. {error}
try_again = Erneut versuchen
part_load_failed = Dieser Teil der Unterhaltung konnte nicht geladen werden.
rename = Umbenennen
rename_named = {title} umbenennen
delete = Löschen
delete_named = {title} löschen
delete_confirm = „{title}“ löschen?
cancel = Abbrechen
conversation_title = Titel der Unterhaltung
untitled = Unterhaltung ohne Titel
just_now = gerade eben
minute_ago = vor 1 Minute
minutes_ago = vor {count} Minuten
hour_ago = vor 1 Stunde
hours_ago = vor {count} Stunden
yesterday = gestern
days_ago = vor {count} Tagen
week_ago = vor 1 Woche
weeks_ago = vor {count} Wochen
month_ago = vor 1 Monat
months_ago = vor {count} Monaten
year_ago = vor 1 Jahr
years_ago = vor {count} Jahren
# Attachments.
dismiss = Schließen
retry_upload = Upload wiederholen
retry_upload_named = Upload von {name} wiederholen
uploading_named = {name} wird hochgeladen
file_badge = DATEI
more_attachments = +{count} weitere
show_fewer = Weniger anzeigen
uploads_failed = Ein Anhang konnte nicht hochgeladen werden: Versuchen Sie es erneut oder entfernen Sie ihn.
uploads_pending = Warten, bis die Anhänge hochgeladen sind…
upload_failed = Upload fehlgeschlagen. {error}
upload_failed_http = Upload fehlgeschlagen (HTTP {status}).
upload_connection_lost = Upload fehlgeschlagen: Die Verbindung wurde unterbrochen.
upload_bad_address = Upload fehlgeschlagen: Die Upload-Adresse ist ungültig.
upload_not_sent = Upload fehlgeschlagen: Die Datei konnte nicht gesendet werden.
upload_file_gone = Die Datei ist nicht mehr verfügbar: Entfernen Sie sie und fügen Sie sie erneut hinzu.
upload_unsupported = Dieser Browser kann keine Dateien hochladen.
file_type_refused = „{name}“ ist kein unterstützter Dateityp.
file_too_large = „{name}“ ist größer als das Limit von {limit}.
too_many_files_one = Sie können höchstens 1 Datei an eine Nachricht anhängen; {count} nicht hinzugefügt.
too_many_files = Sie können höchstens {max} Dateien an eine Nachricht anhängen; {count} nicht hinzugefügt.
size_byte = 1 Byte
size_bytes = {count} Bytes
size_kb = {size} KB
size_mb = {size} MB
size_gb = {size} GB
# Widgets, tool calls, approvals and structured input.
widget_failed = Dieses Widget konnte nicht angezeigt werden.
unsupported_component = Nicht unterstützte Komponente
show_details = Details anzeigen
hide_details = Details ausblenden
show_more = {count} weitere anzeigen
show_less = Weniger anzeigen
confirm = Bestätigen
button = Schaltfläche
chart_summary = Diagramm: {series} über {count} Kategorien
approval_request = Genehmigungsanfrage
approval_required = Genehmigung erforderlich
approval_tool = Der Assistent möchte {tool} ausführen
approved = Genehmigt
rejected = Abgelehnt
answer_sent = Antwort gesendet.
answered = Beantwortet
skipped = Übersprungen
no_answer = Keine Antwort
client_tool = Client-Werkzeug {name}
tool_running = Läuft…
tool_done = Fertig
tool_failed = Fehlgeschlagen
tool_not_run = Nicht ausgeführt
details = Details
arguments = Argumente
tool_result = Ergebnis
acp_pending = Ausstehend
acp_in_progress = Läuft
acp_completed = Abgeschlossen
acp_failed = Fehlgeschlagen
acp_awaiting_permission = Wartet auf Erlaubnis
acp_rejected = Abgelehnt
acp_cancelled = Abgebrochen
acp_interrupted = Unterbrochen
acp_unknown = Status unbekannt
stop_max_tokens = Der Agent hat angehalten: Er hat sein Token-Limit erreicht (max_tokens). Die Antwort ist vielleicht abgeschnitten.
stop_max_turn_requests = Der Agent hat angehalten: Er hat sein Limit an Modellanfragen für einen Durchgang erreicht (max_turn_requests).
stop_refusal = Der Agent hat es abgelehnt, weiterzumachen (refusal).
stop_cancelled = Angehalten, bevor der Agent fertig war.
stop_failed = Dieser Durchgang ist fehlgeschlagen: {message}
stop_other = Der Durchgang endete: {reason}
events_missing = Einige Ereignisse dieser Antwort sind nie angekommen: Sie ist vielleicht unvollständig.
resyncing = Neu synchronisieren: fehlende Ereignisse werden angefragt…
team_roster = Team
worker_reported = Bericht von {agent}
handoff_note = Übergabe von {from} an {to}
artifact_label = Artefakt
artifact_open = {title} öffnen
open = Öffnen
question_asks = {agent} fragt
question_asked = Eine Frage an Sie
answer_question = Antworten
question_answered = Beantwortet: {answer}
question_waiting = Wartet auf Ihre Antwort
question_sending = Antwort gesendet; wartet auf die Bestätigung des Agenten…
child_of = Kind von {parent}
teammate_transcript = Verlauf ({count} Nachrichten)
teammate_transcript_one = Verlauf ({count} Nachricht)
teammate_answer = {agent} antworten
interrupt_expired = Diese Anfrage ist abgelaufen und kann nicht mehr beantwortet werden. Senden Sie eine Nachricht, um fortzufahren.
team_needs_input = {count} brauchen Ihre Eingabe
team_needs_input_one = {count} braucht Ihre Eingabe
load_earlier = Frühere Nachrichten laden
earlier_failed = Frühere Nachrichten konnten nicht geladen werden. {error}
queue = Einreihen
queue_hint = Nach diesem Lauf senden
steer = Umlenken
steer_hint = Diesen Lauf jetzt umlenken
queued_turns = In der Warteschlange
queued_status = Wird nach diesem Lauf gesendet
steered_note = Sie haben diesen Lauf umgelenkt
queue_refused = Der Lauf war zu Ende, bevor Ihre Nachricht ihn erreichte; sie steht wieder im Eingabefeld.
new_file = Neue Datei
lines_unchanged = {count} unveränderte Zeilen
output_truncated = Ausgabe gekürzt
terminal_output = Terminal
tool_locations = Dateien
exit_code = Exit-Code {code}
exit_signal = Durch Signal {signal} beendet
one_line_unchanged = 1 unveränderte Zeile
tool_calls_folded = {count} Werkzeugaufrufe
tool_calls_folded_one = {count} Werkzeugaufruf
tool_calls_failed = {count} fehlgeschlagen
tool_calls_unknown = {count} mit unbekanntem Ausgang
raw_input = Rohe Eingabe
raw_output = Rohe Ausgabe
permission_needed = Erlaubnis erforderlich
plan_decision = Ein Plan zur Entscheidung
permission_agent = Angefragt von {agent}
permission_decided = Entscheidung: {option}
permission_cancelled = Anfrage abgebrochen
permission_sent = Gesendet: {option}
command = Befehl
working_directory = Verzeichnis
run_error_code = Fehler {code}
run_error_plain = Fehler
liveness = verbunden · letztes Ereignis vor {seconds} s
agent_plan = Plan
agent_thought = Gedanken
diff_empty = Keine Änderungen
diff_files_changed = {count} Dateien geändert
diff_one_file_changed = 1 Datei geändert
diff_line_counts = Zeilen hinzugefügt: {added}, entfernt: {removed}
changed_files = Geänderte Dateien
file_added = Hinzugefügt
file_modified = Geändert
file_deleted = Gelöscht
file_renamed = Umbenannt
file_copied = Kopiert
copy_path = Pfad kopieren
diff_layout = Ansicht
diff_unified = Einheitlich
diff_side_by_side = Nebeneinander
diff_binary = Binärdatei, nicht angezeigt
diff_mode_changed = Dateimodus von {old} zu {new} geändert
diff_rename_only = Umbenannt, Inhalt unverändert
diff_copy_only = Kopiert, Inhalt unverändert
diff_empty_file = Leere Datei
diff_no_lines = Keine Zeilen geändert
diff_large = Große Änderung ({count} Zeilen): eingeklappt
diff_unreadable = Ein Teil dieses Diffs konnte nicht gelesen werden: {detail}
diff_recounted = Zeilenzahlen in {count} Abschnitten korrigiert (wie git apply --recount)
diff_skipped = {count} unlesbare Zeilen oder Abschnitte ausgelassen
control_mode = Modus
control_model = Modell
agent_controls = Agent-Einstellungen
control_unsupported = {name}: hier nicht unterstützt
control_refused = {name} nicht geändert: {reason}
control_adjusted = {name} vom Agenten auf {value} gesetzt
control_failed = {name} nicht geändert: {reason}
commands = Befehle
mentions = Erwähnungen
message_too_long = Diese Nachricht hat {count} Zeichen; erlaubt sind {limit}. Kürzen Sie sie, um sie zu senden.
usage_label = Kontextfenster
usage_text = {used} von {size} Tokens belegt ({percent} %)
usage_cost = {amount} {currency}
agent_sessions = Die Sitzungen des Agenten
untitled_session = Sitzung ohne Titel
more_sessions = Weitere Sitzungen
sessions_failed = Die Sitzungen des Agenten konnten nicht aufgelistet werden: {reason}
pick_model = Modell
pick_tools = Werkzeuge
remove_tool = Werkzeug {label} entfernen
elicitation_accept = Annehmen
elicitation_decline = Ablehnen
elicitation_accepted = Angenommen
elicitation_declined = Abgelehnt
elicitation_cancelled = Abgebrochen
elicitation_completed = Erledigt
elicitation_sending = Ihre Antwort wird gesendet…
elicitation_required = erforderlich
elicitation_unsupported_field = Nicht unterstütztes Feld ({type})
elicitation_blocked = Dieses Formular verlangt ein Feld, das diese App nicht anzeigen kann: Es kann nur abgelehnt oder abgebrochen werden.
elicitation_unsupported_mode = Der Agent fragt etwas, das diese App nicht anzeigen kann ({mode}).
elicitation_untrusted_url = Kein Weblink, nicht geöffnet:
elicitation_fix_errors = Einige Antworten müssen korrigiert werden.
form_required = Dieses Feld ist erforderlich.
form_too_short = Geben Sie mindestens {count} Zeichen ein.
form_too_long = Geben Sie höchstens {count} Zeichen ein.
form_not_a_number = Geben Sie eine Zahl ein.
form_not_an_integer = Geben Sie eine ganze Zahl ein.
form_below = Geben Sie {limit} oder mehr ein.
form_above = Geben Sie {limit} oder weniger ein.
form_not_a_choice = Wählen Sie eine der Optionen.
form_too_few = Wählen Sie mindestens {count}.
form_too_many = Wählen Sie höchstens {count}.
dictate = Diktieren
stop_dictation = Diktat beenden
cancel_dictation = Diktat abbrechen
dictation_recording = Aufnahme läuft…
dictation_transcribing = Wird transkribiert…
dictation_denied = Das Diktat braucht das Mikrofon, und der Zugriff darauf wurde verweigert.
dictation_no_device = Kein Mikrofon gefunden.
dictation_unsupported = Dieser Browser kann kein Audio aufnehmen.
dictation_microphone_failed = Das Mikrofon konnte nicht verwendet werden.
dictation_failed = Die Aufnahme konnte nicht transkribiert werden: {error}
edit = Bearbeiten
edit_message = Nachricht bearbeiten
branches = Versionen
previous_branch = Vorherige Version
next_branch = Nächste Version
branch_position = {n} / {count}
branch_not_shown = Diese Version konnte nicht angezeigt werden: {error}
",
    ),
    (
        "ar",
        "
send = إرسال
stop = إيقاف
retry = إعادة المحاولة
copy = نسخ
copied = تم النسخ
copy_code = نسخ الشيفرة
good_response = إجابة جيدة
bad_response = إجابة سيئة
scroll_to_bottom = الانتقال إلى الأسفل
find_in_conversation = البحث في المحادثة
find_previous = النتيجة السابقة
find_next = النتيجة التالية
find_count = {current} من {total}
find_none = لا توجد نتائج
find_close = إغلاق البحث
new_chat = محادثة جديدة
history = السجل
view_tabs = العروض
chat_tab = المحادثة
diff_tab = الفروق
view_updated = حُدّث {time}
view_stale = غير محدّث: جارٍ إعادة الاتصال…
composer_label = رسالة
composer_placeholder = اكتب رسالة إلى المساعد
greeting = كيف يمكنني مساعدتك اليوم؟
conversation = المحادثة
you_said = أنت قلت
assistant_said = قال المساعد
assistant_answering = المساعد يجيب
answer_stopped = إجابة المساعد (متوقفة)
answer_incomplete = إجابة المساعد (غير مكتملة)
stopped = متوقف
sources = المصادر
dismiss_notice = إغلاق التنبيه
unsupported = محتوى غير مدعوم
thread_closed = هذه المحادثة مغلقة.
generating_image = جارٍ إنشاء الصورة
generated_image = صورة مُنشأة
worked_for = عمل لمدة {seconds} ث
working = جارٍ العمل…
worked = تم العمل
attachments = المرفقات
add_attachment = إضافة مرفق
remove = إزالة {name}
approve = موافقة
reject = رفض
submit = إرسال
skip = تخطي
# Start screen and shell.
suggestions = اقتراحات
chat_unavailable = لم تعد هذه المحادثة متاحة.
connecting = جارٍ الاتصال…
export = تصدير
export_markdown = Markdown (.md)
export_json = JSON (.json)
more = المزيد
export_you = أنت
export_assistant = المساعد
export_tool_call = استدعاء أداة: {title} ({status})
export_done = اكتمل
export_failed = فشل
export_unfinished = لم يكتمل
export_attachments = المرفقات: {names}
start_failed = تعذّر بدء المحادثة. أعد تحميل الصفحة للمحاولة مرة أخرى.
resize = تغيير الحجم
resize_hint = تغيير الحجم (مفاتيح الأسهم)
# Loading and errors.
loading_conversation = جارٍ تحميل المحادثة…
loading_earlier = جارٍ تحميل الرسائل السابقة…
thread_open_error = تعذّر فتح هذه المحادثة. {error}
answer_empty = أنهى الخادم الإجابة دون إرسال أي شيء.
answer_failed = حدث خطأ أثناء الإجابة. يُرجى المحاولة مرة أخرى.
answer_interrupted = انقطعت الإجابة: توقف الخادم الذي كان يكتبها. ما وصل محفوظ.
request_cancelled = تم إلغاء الطلب.
server_error = ردّ الخادم بخطأ (HTTP {status}).
server_error_detail = ردّ الخادم بخطأ (HTTP {status}): {message}
answer_stalled = توقفت الإجابة: لم يصل شيء منذ {seconds} ثانية.
connection_lost = انقطع الاتصال بالخادم. تحقّق من اتصالك وأعد المحاولة.
server_silent = لم يُجب الخادم خلال {seconds} ثانية.
answer_too_large = قُطعت الإجابة: كان أحد أجزائها أكبر من {megabytes} ميغابايت.
unreadable_answer = تعذّرت قراءة إجابة الخادم: {detail}
streaming_unsupported = لا يستطيع هذا المتصفح تنفيذ الطلبات المتدفقة.
# Workflows and tasks.
thinking = جارٍ التفكير…
thought = تم التفكير
thought_for = فكّر لمدة {seconds} ث
task_untitled = جارٍ العمل
task_in_progress = قيد التنفيذ
task_complete = مكتمل
searches = عمليات البحث
sources_found = المصادر التي عُثر عليها
# History.
conversations = المحادثات
history_today = اليوم
history_yesterday = أمس
history_previous_week = الأيام السبعة الماضية
history_filter = تصفية المحادثات
history_no_match = لا توجد محادثة مطابقة.
no_conversations = لا توجد محادثات بعد
loading_conversations = جارٍ تحميل المحادثات…
history_error = تعذّر تحميل المحادثات. {error}
try_again = حاول مرة أخرى
part_load_failed = تعذّر تحميل هذا الجزء من المحادثة.
rename = إعادة التسمية
rename_named = إعادة تسمية {title}
delete = حذف
delete_named = حذف {title}
delete_confirm = حذف «{title}»؟
cancel = إلغاء
conversation_title = عنوان المحادثة
untitled = محادثة بلا عنوان
just_now = الآن
minute_ago = منذ دقيقة واحدة
minutes_ago = منذ {count} دقيقة
hour_ago = منذ ساعة واحدة
hours_ago = منذ {count} ساعة
yesterday = أمس
days_ago = منذ {count} أيام
week_ago = منذ أسبوع واحد
weeks_ago = منذ {count} أسابيع
month_ago = منذ شهر واحد
months_ago = منذ {count} أشهر
year_ago = منذ سنة واحدة
years_ago = منذ {count} سنوات
# Attachments.
dismiss = إغلاق
retry_upload = إعادة الرفع
retry_upload_named = إعادة رفع {name}
uploading_named = جارٍ رفع {name}
file_badge = ملف
more_attachments = +{count} أخرى
show_fewer = عرض أقل
uploads_failed = تعذّر رفع أحد المرفقات: أعد المحاولة أو أزله.
uploads_pending = في انتظار اكتمال رفع المرفقات…
upload_failed = فشل الرفع. {error}
upload_failed_http = فشل الرفع (HTTP {status}).
upload_connection_lost = فشل الرفع: انقطع الاتصال.
upload_bad_address = فشل الرفع: عنوان الرفع غير صالح.
upload_not_sent = فشل الرفع: تعذّر إرسال الملف.
upload_file_gone = لم يعد الملف متاحًا: أزله ثم أضفه مرة أخرى.
upload_unsupported = لا يستطيع هذا المتصفح رفع الملفات.
file_type_refused = «{name}» ليس نوع ملف مدعومًا.
file_too_large = «{name}» أكبر من الحد المسموح ({limit}).
too_many_files_one = يمكنك إرفاق ملف واحد كحد أقصى بالرسالة؛ لم تتم إضافة {count}.
too_many_files = يمكنك إرفاق {max} ملفات كحد أقصى بالرسالة؛ لم تتم إضافة {count}.
size_byte = بايت واحد
size_bytes = {count} بايت
size_kb = {size} كيلوبايت
size_mb = {size} ميغابايت
size_gb = {size} غيغابايت
# Widgets, tool calls, approvals and structured input.
widget_failed = تعذّر عرض هذه الأداة.
unsupported_component = مكوّن غير مدعوم
show_details = عرض التفاصيل
hide_details = إخفاء التفاصيل
show_more = عرض {count} أخرى
show_less = عرض أقل
confirm = تأكيد
button = زر
chart_summary = مخطط: {series} عبر {count} فئات
approval_request = طلب موافقة
approval_required = الموافقة مطلوبة
approval_tool = يريد المساعد تشغيل {tool}
approved = تمت الموافقة
rejected = مرفوض
answer_sent = تم إرسال الإجابة.
answered = تمت الإجابة
skipped = تم التخطي
no_answer = لا توجد إجابة
client_tool = أداة العميل {name}
tool_running = قيد التشغيل…
tool_done = تم
tool_failed = فشل
tool_not_run = لم يُنفَّذ
details = التفاصيل
arguments = الوسائط
tool_result = النتيجة
acp_pending = قيد الانتظار
acp_in_progress = قيد التنفيذ
acp_completed = مكتمل
acp_failed = فشل
acp_awaiting_permission = بانتظار الإذن
acp_rejected = مرفوض
acp_cancelled = أُلغي
acp_interrupted = انقطع
acp_unknown = الحالة غير معروفة
stop_max_tokens = توقف الوكيل: بلغ حدّه من الرموز (max_tokens). قد تكون الإجابة مبتورة.
stop_max_turn_requests = توقف الوكيل: بلغ حدّه من طلبات النموذج في دور واحد (max_turn_requests).
stop_refusal = رفض الوكيل المتابعة (refusal).
stop_cancelled = أُوقف قبل أن ينتهي الوكيل.
stop_failed = فشل هذا الدور: {message}
stop_other = انتهى الدور: {reason}
events_missing = لم تصل بعض أحداث هذه الإجابة: قد تكون ناقصة.
resyncing = إعادة المزامنة: طلب الأحداث التي لم تصل…
team_roster = الفريق
worker_reported = تقرير {agent}
handoff_note = تسليم من {from} إلى {to}
artifact_label = مُنتَج
artifact_open = فتح {title}
open = فتح
question_asks = {agent} يسأل
question_asked = سؤال لك
answer_question = أجب
question_answered = الإجابة: {answer}
question_waiting = في انتظار إجابتك
question_sending = أُرسلت الإجابة؛ في انتظار تأكيد الوكيل…
child_of = تابع لـ {parent}
teammate_transcript = السجل ({count} رسائل)
teammate_transcript_one = السجل ({count} رسالة)
teammate_answer = الرد على {agent}
interrupt_expired = انتهت صلاحية هذا الطلب ولم يعد من الممكن الرد عليه. أرسل رسالة للمتابعة.
team_needs_input = {count} بانتظار ردك
team_needs_input_one = {count} بانتظار ردك
load_earlier = تحميل الرسائل السابقة
earlier_failed = تعذّر تحميل الرسائل السابقة. {error}
queue = إضافة إلى الانتظار
queue_hint = إرسال بعد هذا التشغيل
steer = توجيه
steer_hint = إعادة توجيه هذا التشغيل الآن
queued_turns = في الانتظار
queued_status = يُرسل بعد هذا التشغيل
steered_note = لقد أعدت توجيه هذا التشغيل
queue_refused = انتهى التشغيل قبل أن تصله رسالتك؛ أعيدت إلى مربع الكتابة.
new_file = ملف جديد
lines_unchanged = {count} سطرًا دون تغيير
output_truncated = تم اقتطاع المخرجات
terminal_output = الطرفية
tool_locations = الملفات
exit_code = رمز الخروج {code}
exit_signal = أُنهي بالإشارة {signal}
one_line_unchanged = سطر واحد دون تغيير
tool_calls_folded = {count} من استدعاءات الأدوات
tool_calls_folded_one = {count} استدعاء أداة
tool_calls_failed = {count} فشل
tool_calls_unknown = {count} نتيجته غير معروفة
raw_input = المدخلات الخام
raw_output = المخرجات الخام
permission_needed = مطلوب إذن
plan_decision = خطة بانتظار قرارك
permission_agent = طلبه {agent}
permission_decided = القرار: {option}
permission_cancelled = أُلغي الطلب
permission_sent = أُرسل: {option}
command = الأمر
working_directory = المجلد
run_error_code = خطأ {code}
run_error_plain = خطأ
liveness = متصل · آخر حدث قبل {seconds} ث
agent_plan = الخطة
agent_thought = الأفكار
diff_empty = لا تغييرات
diff_files_changed = الملفات المتغيّرة: {count}
diff_one_file_changed = تغيّر ملف واحد
diff_line_counts = أسطر مضافة: {added}، محذوفة: {removed}
changed_files = الملفات المتغيّرة
file_added = مُضاف
file_modified = مُعدَّل
file_deleted = محذوف
file_renamed = أُعيدت تسميته
file_copied = منسوخ
copy_path = نسخ المسار
diff_layout = التخطيط
diff_unified = موحّد
diff_side_by_side = جنبًا إلى جنب
diff_binary = ملف ثنائي، لا يُعرض
diff_mode_changed = تغيّر وضع الملف من {old} إلى {new}
diff_rename_only = أُعيدت تسميته، المحتوى دون تغيير
diff_copy_only = منسوخ، المحتوى دون تغيير
diff_empty_file = ملف فارغ
diff_no_lines = لا أسطر متغيّرة
diff_large = تغيير كبير ({count} سطرًا): مطويّ
diff_unreadable = تعذّرت قراءة جزء من هذا الفرق: {detail}
diff_recounted = صُحّحت أعداد الأسطر في {count} من المقاطع (مثل git apply --recount)
diff_skipped = أُغفلت أسطر أو مقاطع غير مقروءة: {count}
control_mode = الوضع
control_model = النموذج
agent_controls = إعدادات الوكيل
control_unsupported = {name}: غير مدعوم هنا
control_refused = لم يتغير {name}: {reason}
control_adjusted = ضبط الوكيل {name} على {value}
control_failed = لم يتغير {name}: {reason}
commands = الأوامر
mentions = الإشارات
message_too_long = طول هذه الرسالة {count} حرفًا، والحد الأقصى {limit}. اختصرها لإرسالها.
usage_label = نافذة السياق
usage_text = استُخدم {used} من {size} رمزًا ({percent}٪)
usage_cost = {amount} {currency}
agent_sessions = جلسات الوكيل
untitled_session = جلسة بلا عنوان
more_sessions = مزيد من الجلسات
sessions_failed = تعذّر سرد جلسات الوكيل: {reason}
pick_model = النموذج
pick_tools = الأدوات
remove_tool = إزالة الأداة {label}
elicitation_accept = قبول
elicitation_decline = رفض
elicitation_accepted = تم القبول
elicitation_declined = تم الرفض
elicitation_cancelled = أُلغي
elicitation_completed = اكتمل
elicitation_sending = جارٍ إرسال إجابتك…
elicitation_required = مطلوب
elicitation_unsupported_field = حقل غير مدعوم ({type})
elicitation_blocked = يطلب هذا النموذج حقلًا لا يمكن لهذا التطبيق عرضه: لا يمكن إلا رفضه أو إلغاؤه.
elicitation_unsupported_mode = يطلب الوكيل شيئًا لا يمكن لهذا التطبيق عرضه ({mode}).
elicitation_untrusted_url = ليس رابط ويب، لم يُفتح:
elicitation_fix_errors = بعض الإجابات تحتاج إلى تصحيح.
form_required = هذا الحقل مطلوب.
form_too_short = أدخل {count} أحرف على الأقل.
form_too_long = أدخل {count} أحرف على الأكثر.
form_not_a_number = أدخل رقمًا.
form_not_an_integer = أدخل عددًا صحيحًا.
form_below = أدخل {limit} أو أكثر.
form_above = أدخل {limit} أو أقل.
form_not_a_choice = اختر أحد الخيارات.
form_too_few = اختر {count} على الأقل.
form_too_many = اختر {count} على الأكثر.
dictate = إملاء
stop_dictation = إيقاف الإملاء
cancel_dictation = إلغاء الإملاء
dictation_recording = جارٍ التسجيل…
dictation_transcribing = جارٍ التفريغ…
dictation_denied = يحتاج الإملاء إلى الميكروفون، وقد رُفض الإذن باستخدامه.
dictation_no_device = لم يُعثر على أي ميكروفون.
dictation_unsupported = لا يستطيع هذا المتصفح تسجيل الصوت.
dictation_microphone_failed = تعذّر استخدام الميكروفون.
dictation_failed = تعذّر تفريغ التسجيل: {error}
edit = تعديل
edit_message = تعديل الرسالة
branches = النسخ
previous_branch = النسخة السابقة
next_branch = النسخة التالية
branch_position = {n} / {count}
branch_not_shown = تعذّر عرض هذه النسخة: {error}
",
    ),
];

/// Languages written right to left (by primary subtag).
const RTL: &[&str] = &["ar", "fa", "he", "ur", "ps", "sd", "yi", "dv", "ckb"];

/// The strings of one element: English, then its locale, then the host's overrides.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    locale: String,
    overrides: HashMap<Text, String>,
}

impl Strings {
    /// Strings for `locale` (e.g. `fr`, `fr-CA`: the primary subtag picks the table).
    pub fn new(locale: &str) -> Self {
        Strings::with_table(locale, built_in_table(locale))
    }

    /// Strings for `locale` from its built-in `table` (`None`: English), as
    /// [`built_in_table`] gives it. The element fetches the tables with the code it loads
    /// after the first screen, so the first module carries none of them.
    pub fn with_table(locale: &str, table: Option<&str>) -> Self {
        Strings {
            locale: locale.to_owned(),
            overrides: table
                .map(|table| entries(table).map(|(k, v)| (k, v.to_owned())).collect())
                .unwrap_or_default(),
        }
    }

    /// This element's locale, as the host gave it.
    pub fn locale(&self) -> &str {
        &self.locale
    }

    /// Apply host overrides: `{"send": "Go"}`, or per locale `{"fr": {"send": "Vas-y"}}`
    /// (the entry for this element's locale wins). Unknown keys are ignored.
    pub fn with_overrides(mut self, overrides: &serde_json::Value) -> Self {
        let Some(map) = overrides.as_object() else {
            return self;
        };
        let primary = primary_subtag(&self.locale).to_owned();
        for (key, value) in map {
            if let (Some(text), Some(s)) = (Text::from_name(key), value.as_str()) {
                self.overrides.insert(text, s.to_owned());
            }
        }
        for tag in [primary.as_str(), self.locale.as_str()] {
            if let Some(per_locale) = map.get(tag).and_then(|v| v.as_object()) {
                for (key, value) in per_locale {
                    if let (Some(text), Some(s)) = (Text::from_name(key), value.as_str()) {
                        self.overrides.insert(text, s.to_owned());
                    }
                }
            }
        }
        self
    }

    pub fn get(&self, text: Text) -> &str {
        self.overrides
            .get(&text)
            .map_or(text.english(), String::as_str)
    }

    /// `get` with `{name}` placeholders filled in.
    /// `count` things in the locale's grammatical number: `one` for what it counts as one
    /// (1, and 0 too in French), `other` otherwise; `{count}` filled in either way.
    pub fn count(&self, one: Text, other: Text, count: usize) -> String {
        let singular = match primary_subtag(&self.locale) {
            "fr" => count <= 1,
            _ => count == 1,
        };
        let text = if singular { one } else { other };
        self.format(text, &[("count", &count.to_string())])
    }

    pub fn format(&self, text: Text, args: &[(&str, &str)]) -> String {
        let mut out = self.get(text).to_owned();
        for (name, value) in args {
            out = out.replace(&format!("{{{name}}}"), value);
        }
        out
    }

    /// Text direction for the locale: `rtl` or `ltr`.
    pub fn direction(&self) -> &'static str {
        if RTL.contains(&primary_subtag(&self.locale)) {
            "rtl"
        } else {
            "ltr"
        }
    }
}

/// The built-in table of `locale`'s language (its primary subtag), if there is one.
pub fn built_in_table(locale: &str) -> Option<&'static str> {
    let primary = primary_subtag(locale);
    LOCALES
        .iter()
        .find(|(tag, _)| *tag == primary)
        .map(|(_, table)| *table)
}

/// Whether `locale` is English (the defaults: no table to fetch).
pub fn is_english(locale: &str) -> bool {
    matches!(primary_subtag(locale), "" | "en")
}

/// The entries of a built-in locale's table (`LOCALES`).
fn entries(table: &str) -> impl Iterator<Item = (Text, &str)> {
    table.lines().filter_map(|line| {
        let (name, text) = line.split_once(" = ").filter(|_| !line.starts_with('#'))?;
        Some((Text::from_name(name.trim())?, text.trim()))
    })
}

fn primary_subtag(locale: &str) -> &str {
    locale.split(['-', '_']).next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_locales_grammatical_number() {
        let one = Text::ToolCallsFoldedOne;
        let other = Text::ToolCallsFolded;
        let en = Strings::default();
        assert_eq!(en.count(one, other, 1), "1 tool call");
        assert_eq!(en.count(one, other, 0), "0 tool calls");
        assert_eq!(en.count(one, other, 2), "2 tool calls");
        let fr = Strings::new("fr");
        assert_eq!(fr.count(one, other, 0), "0 appel d'outil");
        assert_eq!(fr.count(one, other, 1), "1 appel d'outil");
        assert_eq!(fr.count(one, other, 3), "3 appels d'outils");
    }
    use serde_json::json;

    #[test]
    fn english_by_default_and_every_key_round_trips() {
        let s = Strings::new("");
        assert_eq!(s.get(Text::Send), "Send");
        for t in Text::ALL {
            assert_eq!(Text::from_name(t.name()), Some(*t));
            assert!(!t.english().is_empty());
        }
    }

    #[test]
    fn locale_tables_then_overrides() {
        let fr = Strings::new("fr-CA");
        assert_eq!(fr.get(Text::Send), "Envoyer");
        assert_eq!(fr.get(Text::Unsupported), "Contenu non pris en charge");
        assert_eq!(
            Strings::new("xx").get(Text::Unsupported),
            "Unsupported content",
            "unknown locale → English"
        );
        let custom = Strings::new("fr").with_overrides(
            &json!({"send": "Go", "fr": {"stop": "Halte"}, "de": {"stop": "Nein"}, "bogus": "x"}),
        );
        assert_eq!(custom.get(Text::Send), "Go");
        assert_eq!(custom.get(Text::Stop), "Halte");
        assert_eq!(
            Strings::new("xx")
                .with_overrides(&json!(3))
                .get(Text::Retry),
            "Retry"
        );
    }

    /// The `{name}` placeholders of a string, sorted (a name used twice counts twice).
    fn placeholders(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else { break };
            out.push(&after[..close]);
            rest = &after[close + 1..];
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn built_in_locales_are_complete() {
        assert_eq!(placeholders("a {x} b {y}{x}"), ["x", "x", "y"]);
        for (tag, table) in LOCALES {
            // Every line is an entry, a comment or blank: a misspelt key is not dropped.
            for line in table.lines() {
                let known = line
                    .split_once(" = ")
                    .is_some_and(|(name, _)| Text::from_name(name).is_some());
                assert!(
                    known || line.starts_with('#') || line.trim().is_empty(),
                    "{tag}: {line:?} names no key"
                );
            }
            for text in Text::ALL {
                let entries: Vec<&str> = entries(table)
                    .filter(|(k, _)| k == text)
                    .map(|(_, v)| v)
                    .collect();
                assert_eq!(
                    entries.len(),
                    1,
                    "{tag}: `{}` must appear exactly once",
                    text.name()
                );
                let value = entries[0];
                assert!(
                    !value.trim().is_empty(),
                    "{tag}: `{}` is blank",
                    text.name()
                );
                assert_eq!(
                    placeholders(value),
                    placeholders(text.english()),
                    "{tag}: `{}` = {value:?} must keep the placeholders of {:?}",
                    text.name(),
                    text.english()
                );
                assert_eq!(
                    value.matches('{').count(),
                    value.matches('}').count(),
                    "{tag}: `{}` has unbalanced braces",
                    text.name()
                );
                assert_eq!(Strings::new(tag).get(*text), value);
            }
        }
    }

    #[test]
    fn placeholders_and_direction() {
        let s = Strings::new("en");
        assert_eq!(s.format(Text::Remove, &[("name", "a.png")]), "Remove a.png");
        assert_eq!(
            s.format(Text::WorkedFor, &[("seconds", "12")]),
            "Worked for 12s"
        );
        assert_eq!(Strings::new("ar").direction(), "rtl");
        assert_eq!(Strings::new("he-IL").direction(), "rtl");
        assert_eq!(Strings::new("en-US").direction(), "ltr");
    }
}
