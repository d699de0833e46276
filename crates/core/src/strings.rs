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

            pub fn from_name(name: &str) -> Option<Text> {
                match name { $($name => Some(Text::$key),)+ _ => None }
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
    Resize = "resize" => "Resize",
    ResizeHint = "resize_hint" => "Resize (arrow keys)",
    // Loading and errors.
    LoadingConversation = "loading_conversation" => "Loading conversation…",
    LoadingEarlier = "loading_earlier" => "Loading earlier messages…",
    ThreadOpenError = "thread_open_error" => "This conversation could not be opened. {error}",
    AnswerEmpty = "answer_empty" => "The server ended the answer without sending anything.",
    AnswerFailed = "answer_failed" => "Something went wrong while answering. Please try again.",
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
    NoConversations = "no_conversations" => "No conversations yet",
    LoadingConversations = "loading_conversations" => "Loading conversations…",
    HistoryError = "history_error" => "The conversations could not be loaded. {error}",
    TryAgain = "try_again" => "Try again",
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
    ChildOf = "child_of" => "Child of {parent}",
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
    TerminalOutput = "terminal_output" => "Terminal {id}",
    ToolLocations = "tool_locations" => "Files",
    ToolCallsFolded = "tool_calls_folded" => "{count} tool calls",
    ExitCode = "exit_code" => "Exit code {code}",
    ExitSignal = "exit_signal" => "Ended by signal {signal}",
    OneLineUnchanged = "one_line_unchanged" => "1 unchanged line",
    ToolCallsFailed = "tool_calls_failed" => "{count} failed",
    ToolCallsUnknown = "tool_calls_unknown" => "{count} outcome unknown",
    RawInput = "raw_input" => "Input",
    RawOutput = "raw_output" => "Output",
    PermissionNeeded = "permission_needed" => "Permission needed",
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
}

/// Built-in translations (beyond English), by language tag. Complete: every key, the same
/// `{placeholders}` as English (checked by `built_in_locales_are_complete`).
const LOCALES: &[(&str, &[(Text, &str)])] = &[
    (
        "fr",
        &[
            (Text::Send, "Envoyer"),
            (Text::Stop, "Arrêter"),
            (Text::Retry, "Réessayer"),
            (Text::Copy, "Copier"),
            (Text::Copied, "Copié"),
            (Text::CopyCode, "Copier le code"),
            (Text::GoodResponse, "Bonne réponse"),
            (Text::BadResponse, "Mauvaise réponse"),
            (Text::ScrollToBottom, "Aller en bas"),
            (Text::NewChat, "Nouvelle conversation"),
            (Text::History, "Historique"),
            (Text::ViewTabs, "Vues"),
            (Text::ChatTab, "Discussion"),
            (Text::DiffTab, "Diff"),
            (Text::ViewUpdated, "Mis à jour {time}"),
            (Text::ViewStale, "Pas à jour : reconnexion…"),
            (Text::ComposerLabel, "Message"),
            (Text::ComposerPlaceholder, "Écrire à l'assistant"),
            (Text::Greeting, "Comment puis-je vous aider ?"),
            (Text::Conversation, "Conversation"),
            (Text::YouSaid, "Vous avez dit"),
            (Text::AssistantSaid, "L'assistant a dit"),
            (Text::AssistantAnswering, "L'assistant répond"),
            (Text::AnswerStopped, "Réponse de l'assistant (arrêtée)"),
            (Text::AnswerIncomplete, "Réponse de l'assistant (incomplète)"),
            (Text::Stopped, "Arrêté"),
            (Text::Sources, "Sources"),
            (Text::DismissNotice, "Fermer l'avis"),
            (Text::Unsupported, "Contenu non pris en charge"),
            (Text::ThreadClosed, "Cette conversation est fermée."),
            (Text::GeneratingImage, "Génération de l'image"),
            (Text::GeneratedImage, "Image générée"),
            (Text::WorkedFor, "A travaillé {seconds} s"),
            (Text::Working, "Travail en cours…"),
            (Text::Worked, "Travail terminé"),
            (Text::Attachments, "Pièces jointes"),
            (Text::AddAttachment, "Ajouter une pièce jointe"),
            (Text::Remove, "Retirer {name}"),
            (Text::Approve, "Approuver"),
            (Text::Reject, "Refuser"),
            (Text::Submit, "Valider"),
            (Text::Skip, "Passer"),
            // Start screen and shell.
            (Text::Suggestions, "Suggestions"),
            (Text::ChatUnavailable, "Cette conversation n'est plus disponible."),
            (Text::Resize, "Redimensionner"),
            (Text::ResizeHint, "Redimensionner (touches fléchées)"),
            // Loading and errors.
            (Text::LoadingConversation, "Chargement de la conversation…"),
            (Text::LoadingEarlier, "Chargement des messages précédents…"),
            (Text::ThreadOpenError, "Impossible d'ouvrir cette conversation. {error}"),
            (Text::AnswerEmpty, "Le serveur a terminé la réponse sans rien envoyer."),
            (Text::AnswerFailed, "Une erreur s'est produite pendant la réponse. Veuillez réessayer."),
            (Text::RequestCancelled, "La requête a été annulée."),
            (Text::ServerError, "Le serveur a répondu par une erreur (HTTP {status})."),
            (Text::ServerErrorDetail, "Le serveur a répondu par une erreur (HTTP {status}) : {message}"),
            (Text::AnswerStalled, "La réponse est bloquée : rien n'est arrivé depuis {seconds} secondes."),
            (Text::ConnectionLost, "La connexion au serveur a été perdue. Vérifiez votre connexion et réessayez."),
            (Text::ServerSilent, "Le serveur n'a pas répondu en {seconds} secondes."),
            (Text::AnswerTooLarge, "La réponse a été coupée : une de ses parties dépassait {megabytes} Mo."),
            (Text::UnreadableAnswer, "Impossible de lire la réponse du serveur : {detail}"),
            (Text::StreamingUnsupported, "Ce navigateur ne peut pas recevoir de réponses en flux."),
            // Workflows and tasks.
            (Text::Thinking, "Réflexion…"),
            (Text::Thought, "Réflexion terminée"),
            (Text::ThoughtFor, "A réfléchi {seconds} s"),
            (Text::TaskUntitled, "Traitement"),
            (Text::TaskInProgress, "En cours"),
            (Text::TaskComplete, "Terminé"),
            (Text::Searches, "Recherches"),
            (Text::SourcesFound, "Sources trouvées"),
            // History.
            (Text::Conversations, "Conversations"),
            (Text::NoConversations, "Aucune conversation pour l'instant"),
            (Text::LoadingConversations, "Chargement des conversations…"),
            (Text::HistoryError, "Impossible de charger les conversations. {error}"),
            (Text::TryAgain, "Réessayer"),
            (Text::Rename, "Renommer"),
            (Text::RenameNamed, "Renommer {title}"),
            (Text::Delete, "Supprimer"),
            (Text::DeleteNamed, "Supprimer {title}"),
            (Text::DeleteConfirm, "Supprimer « {title} » ?"),
            (Text::Cancel, "Annuler"),
            (Text::ConversationTitle, "Titre de la conversation"),
            (Text::Untitled, "Conversation sans titre"),
            (Text::JustNow, "à l'instant"),
            (Text::MinuteAgo, "il y a 1 minute"),
            (Text::MinutesAgo, "il y a {count} minutes"),
            (Text::HourAgo, "il y a 1 heure"),
            (Text::HoursAgo, "il y a {count} heures"),
            (Text::Yesterday, "hier"),
            (Text::DaysAgo, "il y a {count} jours"),
            (Text::WeekAgo, "il y a 1 semaine"),
            (Text::WeeksAgo, "il y a {count} semaines"),
            (Text::MonthAgo, "il y a 1 mois"),
            (Text::MonthsAgo, "il y a {count} mois"),
            (Text::YearAgo, "il y a 1 an"),
            (Text::YearsAgo, "il y a {count} ans"),
            // Attachments.
            (Text::Dismiss, "Fermer"),
            (Text::RetryUpload, "Relancer l'envoi"),
            (Text::RetryUploadNamed, "Relancer l'envoi de {name}"),
            (Text::UploadingNamed, "Envoi de {name}"),
            (Text::FileBadge, "FICHIER"),
            (Text::MoreAttachments, "+{count} de plus"),
            (Text::ShowFewer, "Afficher moins"),
            (Text::UploadsFailed, "L'envoi d'une pièce jointe a échoué : relancez-le ou retirez la pièce jointe."),
            (Text::UploadsPending, "En attente de la fin de l'envoi des pièces jointes…"),
            (Text::UploadFailed, "Échec de l'envoi. {error}"),
            (Text::UploadFailedHttp, "Échec de l'envoi (HTTP {status})."),
            (Text::UploadConnectionLost, "Échec de l'envoi : la connexion a été perdue."),
            (Text::UploadBadAddress, "Échec de l'envoi : l'adresse d'envoi n'est pas valide."),
            (Text::UploadNotSent, "Échec de l'envoi : le fichier n'a pas pu être envoyé."),
            (Text::UploadFileGone, "Le fichier n'est plus disponible : retirez-le et ajoutez-le de nouveau."),
            (Text::UploadUnsupported, "Ce navigateur ne peut pas envoyer de fichiers."),
            (Text::FileTypeRefused, "« {name} » n'est pas un type de fichier pris en charge."),
            (Text::FileTooLarge, "« {name} » dépasse la limite de {limit}."),
            (Text::TooManyFilesOne, "Vous pouvez joindre au plus 1 fichier à un message ; {count} non ajouté(s)."),
            (Text::TooManyFiles, "Vous pouvez joindre au plus {max} fichiers à un message ; {count} non ajouté(s)."),
            (Text::SizeByte, "1 octet"),
            (Text::SizeBytes, "{count} octets"),
            (Text::SizeKb, "{size} Ko"),
            (Text::SizeMb, "{size} Mo"),
            (Text::SizeGb, "{size} Go"),
            // Widgets, tool calls, approvals and structured input.
            (Text::WidgetFailed, "Ce widget n'a pas pu être affiché."),
            (Text::UnsupportedComponent, "Composant non pris en charge"),
            (Text::ShowDetails, "Afficher les détails"),
            (Text::HideDetails, "Masquer les détails"),
            (Text::ShowMore, "Afficher {count} de plus"),
            (Text::ShowLess, "Afficher moins"),
            (Text::Confirm, "Confirmer"),
            (Text::Button, "Bouton"),
            (Text::ChartSummary, "Graphique : {series} sur {count} catégories"),
            (Text::ApprovalRequest, "Demande d'approbation"),
            (Text::ApprovalRequired, "Approbation requise"),
            (Text::ApprovalTool, "L'assistant veut exécuter {tool}"),
            (Text::Approved, "Approuvé"),
            (Text::Rejected, "Refusé"),
            (Text::AnswerSent, "Réponse envoyée."),
            (Text::Answered, "Répondu"),
            (Text::Skipped, "Ignoré"),
            (Text::NoAnswer, "Pas de réponse"),
            (Text::ClientTool, "Outil client {name}"),
            (Text::ToolRunning, "En cours…"),
            (Text::ToolDone, "Terminé"),
            (Text::ToolFailed, "Échec"),
            (Text::ToolNotRun, "Non exécuté"),
            (Text::Details, "Détails"),
            (Text::Arguments, "Arguments"),
            (Text::ToolResult, "Résultat"),
            (Text::AcpPending, "En attente"),
            (Text::AcpInProgress, "En cours"),
            (Text::AcpCompleted, "Terminé"),
            (Text::AcpFailed, "Échec"),
            (Text::AcpAwaitingPermission, "En attente d'autorisation"),
            (Text::AcpRejected, "Refusé"),
            (Text::AcpCancelled, "Annulé"),
            (Text::AcpInterrupted, "Interrompu"),
            (Text::AcpUnknown, "Statut inconnu"),
            (Text::StopMaxTokens, "L'agent s'est arrêté : il a atteint sa limite de jetons (max_tokens). La réponse peut être tronquée."),
            (Text::StopMaxTurnRequests, "L'agent s'est arrêté : il a atteint sa limite de requêtes au modèle pour un tour (max_turn_requests)."),
            (Text::StopRefusal, "L'agent a refusé de continuer (refusal)."),
            (Text::StopCancelled, "Arrêté avant que l'agent ait fini."),
            (Text::StopFailed, "Ce tour a échoué : {message}"),
            (Text::StopOther, "Le tour s'est terminé : {reason}"),
            (Text::EventsMissing, "Des événements de cette réponse ne sont jamais arrivés : elle est peut-être incomplète."),
            (Text::Resyncing, "Resynchronisation : demande des événements manquants…"),
            (Text::TeamRoster, "Équipe"),
            (Text::WorkerReported, "Rapport de {agent}"),
            (Text::HandoffNote, "Passage de relais de {from} à {to}"),
            (Text::ArtifactLabel, "Artefact"),
            (Text::ArtifactOpen, "Ouvrir {title}"),
            (Text::Open, "Ouvrir"),
            (Text::ChildOf, "Enfant de {parent}"),
            (Text::Queue, "Mettre en file"),
            (Text::QueueHint, "Envoyer après cette exécution"),
            (Text::Steer, "Réorienter"),
            (Text::SteerHint, "Réorienter cette exécution maintenant"),
            (Text::QueuedTurns, "En file"),
            (Text::QueuedStatus, "Part après cette exécution"),
            (Text::SteeredNote, "Vous avez réorienté cette exécution"),
            (Text::QueueRefused, "L'exécution s'est terminée avant que votre message l'atteigne ; il est de retour dans le champ de saisie."),
            (Text::NewFile, "Nouveau fichier"),
            (Text::LinesUnchanged, "{count} lignes inchangées"),
            (Text::OutputTruncated, "Sortie tronquée"),
            (Text::TerminalOutput, "Terminal {id}"),
            (Text::ToolLocations, "Fichiers"),
            (Text::ExitCode, "Code de sortie {code}"),
            (Text::ExitSignal, "Arrêté par le signal {signal}"),
            (Text::OneLineUnchanged, "1 ligne inchangée"),
            (Text::ToolCallsFolded, "{count} appels d'outils"),
            (Text::ToolCallsFailed, "{count} en échec"),
            (Text::ToolCallsUnknown, "{count} à l'issue inconnue"),
            (Text::RawInput, "Entrée"),
            (Text::RawOutput, "Sortie"),
            (Text::PermissionNeeded, "Autorisation requise"),
            (Text::PermissionAgent, "Demandé par {agent}"),
            (Text::PermissionDecided, "Décision : {option}"),
            (Text::PermissionCancelled, "Demande annulée"),
            (Text::PermissionSent, "Envoyé : {option}"),
            (Text::Command, "Commande"),
            (Text::WorkingDirectory, "Répertoire"),
            (Text::RunErrorCode, "Erreur {code}"),
            (Text::RunErrorPlain, "Erreur"),
            (Text::Liveness, "connecté · dernier événement il y a {seconds} s"),
            (Text::AgentPlan, "Plan"),
            (Text::AgentThought, "Réflexions"),
            (Text::DiffEmpty, "Aucune modification"),
            (Text::DiffFilesChanged, "{count} fichiers modifiés"),
            (Text::DiffOneFileChanged, "1 fichier modifié"),
            (Text::DiffLineCounts, "Lignes ajoutées : {added}, supprimées : {removed}"),
            (Text::ChangedFiles, "Fichiers modifiés"),
            (Text::FileAdded, "Ajouté"),
            (Text::FileModified, "Modifié"),
            (Text::FileDeleted, "Supprimé"),
            (Text::FileRenamed, "Renommé"),
            (Text::FileCopied, "Copié"),
            (Text::CopyPath, "Copier le chemin"),
            (Text::DiffLayout, "Disposition"),
            (Text::DiffUnified, "Unifiée"),
            (Text::DiffSideBySide, "Côte à côte"),
            (Text::DiffBinary, "Fichier binaire, non affiché"),
            (Text::DiffModeChanged, "Mode du fichier changé de {old} à {new}"),
            (Text::DiffRenameOnly, "Renommé, contenu inchangé"),
            (Text::DiffCopyOnly, "Copié, contenu inchangé"),
            (Text::DiffEmptyFile, "Fichier vide"),
            (Text::DiffNoLines, "Aucune ligne modifiée"),
            (Text::DiffLarge, "Modification volumineuse ({count} lignes) : repliée"),
            (Text::DiffUnreadable, "Une partie de ce diff n'a pas pu être lue : {detail}"),
        ],
    ),
    (
        "de",
        &[
            (Text::Send, "Senden"),
            (Text::Stop, "Stopp"),
            (Text::Retry, "Erneut versuchen"),
            (Text::Copy, "Kopieren"),
            (Text::Copied, "Kopiert"),
            (Text::CopyCode, "Code kopieren"),
            (Text::GoodResponse, "Gute Antwort"),
            (Text::BadResponse, "Schlechte Antwort"),
            (Text::ScrollToBottom, "Nach unten scrollen"),
            (Text::NewChat, "Neuer Chat"),
            (Text::History, "Verlauf"),
            (Text::ViewTabs, "Ansichten"),
            (Text::ChatTab, "Chat"),
            (Text::DiffTab, "Diff"),
            (Text::ViewUpdated, "Aktualisiert {time}"),
            (Text::ViewStale, "Veraltet: Verbindung wird wiederhergestellt…"),
            (Text::ComposerLabel, "Nachricht"),
            (Text::ComposerPlaceholder, "Nachricht an den Assistenten"),
            (Text::Greeting, "Wie kann ich helfen?"),
            (Text::Conversation, "Unterhaltung"),
            (Text::YouSaid, "Sie haben geschrieben"),
            (Text::AssistantSaid, "Der Assistent schrieb"),
            (Text::AssistantAnswering, "Der Assistent antwortet"),
            (Text::AnswerStopped, "Antwort des Assistenten (gestoppt)"),
            (Text::AnswerIncomplete, "Antwort des Assistenten (unvollständig)"),
            (Text::Stopped, "Gestoppt"),
            (Text::Sources, "Quellen"),
            (Text::DismissNotice, "Hinweis schließen"),
            (Text::Unsupported, "Nicht unterstützter Inhalt"),
            (Text::ThreadClosed, "Diese Unterhaltung ist geschlossen."),
            (Text::GeneratingImage, "Bild wird erstellt"),
            (Text::GeneratedImage, "Erstelltes Bild"),
            (Text::WorkedFor, "{seconds} s gearbeitet"),
            (Text::Working, "Arbeitet…"),
            (Text::Worked, "Gearbeitet"),
            (Text::Attachments, "Anhänge"),
            (Text::AddAttachment, "Anhang hinzufügen"),
            (Text::Remove, "{name} entfernen"),
            (Text::Approve, "Genehmigen"),
            (Text::Reject, "Ablehnen"),
            (Text::Submit, "Absenden"),
            (Text::Skip, "Überspringen"),
            // Start screen and shell.
            (Text::Suggestions, "Vorschläge"),
            (Text::ChatUnavailable, "Dieser Chat ist nicht mehr verfügbar."),
            (Text::Resize, "Größe ändern"),
            (Text::ResizeHint, "Größe ändern (Pfeiltasten)"),
            // Loading and errors.
            (Text::LoadingConversation, "Unterhaltung wird geladen…"),
            (Text::LoadingEarlier, "Frühere Nachrichten werden geladen…"),
            (Text::ThreadOpenError, "Diese Unterhaltung konnte nicht geöffnet werden. {error}"),
            (Text::AnswerEmpty, "Der Server hat die Antwort beendet, ohne etwas zu senden."),
            (Text::AnswerFailed, "Beim Antworten ist ein Fehler aufgetreten. Bitte versuchen Sie es erneut."),
            (Text::RequestCancelled, "Die Anfrage wurde abgebrochen."),
            (Text::ServerError, "Der Server hat mit einem Fehler geantwortet (HTTP {status})."),
            (Text::ServerErrorDetail, "Der Server hat mit einem Fehler geantwortet (HTTP {status}): {message}"),
            (Text::AnswerStalled, "Die Antwort stockt: Seit {seconds} Sekunden ist nichts angekommen."),
            (Text::ConnectionLost, "Die Verbindung zum Server wurde unterbrochen. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut."),
            (Text::ServerSilent, "Der Server hat nicht innerhalb von {seconds} Sekunden geantwortet."),
            (Text::AnswerTooLarge, "Die Antwort wurde abgeschnitten: Ein Teil davon war größer als {megabytes} MB."),
            (Text::UnreadableAnswer, "Die Antwort des Servers konnte nicht gelesen werden: {detail}"),
            (Text::StreamingUnsupported, "Dieser Browser kann keine gestreamten Anfragen ausführen."),
            // Workflows and tasks.
            (Text::Thinking, "Denkt nach…"),
            (Text::Thought, "Nachgedacht"),
            (Text::ThoughtFor, "{seconds} s nachgedacht"),
            (Text::TaskUntitled, "Arbeitet"),
            (Text::TaskInProgress, "In Bearbeitung"),
            (Text::TaskComplete, "Abgeschlossen"),
            (Text::Searches, "Suchanfragen"),
            (Text::SourcesFound, "Gefundene Quellen"),
            // History.
            (Text::Conversations, "Unterhaltungen"),
            (Text::NoConversations, "Noch keine Unterhaltungen"),
            (Text::LoadingConversations, "Unterhaltungen werden geladen…"),
            (Text::HistoryError, "Die Unterhaltungen konnten nicht geladen werden. {error}"),
            (Text::TryAgain, "Erneut versuchen"),
            (Text::Rename, "Umbenennen"),
            (Text::RenameNamed, "{title} umbenennen"),
            (Text::Delete, "Löschen"),
            (Text::DeleteNamed, "{title} löschen"),
            (Text::DeleteConfirm, "„{title}“ löschen?"),
            (Text::Cancel, "Abbrechen"),
            (Text::ConversationTitle, "Titel der Unterhaltung"),
            (Text::Untitled, "Unterhaltung ohne Titel"),
            (Text::JustNow, "gerade eben"),
            (Text::MinuteAgo, "vor 1 Minute"),
            (Text::MinutesAgo, "vor {count} Minuten"),
            (Text::HourAgo, "vor 1 Stunde"),
            (Text::HoursAgo, "vor {count} Stunden"),
            (Text::Yesterday, "gestern"),
            (Text::DaysAgo, "vor {count} Tagen"),
            (Text::WeekAgo, "vor 1 Woche"),
            (Text::WeeksAgo, "vor {count} Wochen"),
            (Text::MonthAgo, "vor 1 Monat"),
            (Text::MonthsAgo, "vor {count} Monaten"),
            (Text::YearAgo, "vor 1 Jahr"),
            (Text::YearsAgo, "vor {count} Jahren"),
            // Attachments.
            (Text::Dismiss, "Schließen"),
            (Text::RetryUpload, "Upload wiederholen"),
            (Text::RetryUploadNamed, "Upload von {name} wiederholen"),
            (Text::UploadingNamed, "{name} wird hochgeladen"),
            (Text::FileBadge, "DATEI"),
            (Text::MoreAttachments, "+{count} weitere"),
            (Text::ShowFewer, "Weniger anzeigen"),
            (Text::UploadsFailed, "Ein Anhang konnte nicht hochgeladen werden: Versuchen Sie es erneut oder entfernen Sie ihn."),
            (Text::UploadsPending, "Warten, bis die Anhänge hochgeladen sind…"),
            (Text::UploadFailed, "Upload fehlgeschlagen. {error}"),
            (Text::UploadFailedHttp, "Upload fehlgeschlagen (HTTP {status})."),
            (Text::UploadConnectionLost, "Upload fehlgeschlagen: Die Verbindung wurde unterbrochen."),
            (Text::UploadBadAddress, "Upload fehlgeschlagen: Die Upload-Adresse ist ungültig."),
            (Text::UploadNotSent, "Upload fehlgeschlagen: Die Datei konnte nicht gesendet werden."),
            (Text::UploadFileGone, "Die Datei ist nicht mehr verfügbar: Entfernen Sie sie und fügen Sie sie erneut hinzu."),
            (Text::UploadUnsupported, "Dieser Browser kann keine Dateien hochladen."),
            (Text::FileTypeRefused, "„{name}“ ist kein unterstützter Dateityp."),
            (Text::FileTooLarge, "„{name}“ ist größer als das Limit von {limit}."),
            (Text::TooManyFilesOne, "Sie können höchstens 1 Datei an eine Nachricht anhängen; {count} nicht hinzugefügt."),
            (Text::TooManyFiles, "Sie können höchstens {max} Dateien an eine Nachricht anhängen; {count} nicht hinzugefügt."),
            (Text::SizeByte, "1 Byte"),
            (Text::SizeBytes, "{count} Bytes"),
            (Text::SizeKb, "{size} KB"),
            (Text::SizeMb, "{size} MB"),
            (Text::SizeGb, "{size} GB"),
            // Widgets, tool calls, approvals and structured input.
            (Text::WidgetFailed, "Dieses Widget konnte nicht angezeigt werden."),
            (Text::UnsupportedComponent, "Nicht unterstützte Komponente"),
            (Text::ShowDetails, "Details anzeigen"),
            (Text::HideDetails, "Details ausblenden"),
            (Text::ShowMore, "{count} weitere anzeigen"),
            (Text::ShowLess, "Weniger anzeigen"),
            (Text::Confirm, "Bestätigen"),
            (Text::Button, "Schaltfläche"),
            (Text::ChartSummary, "Diagramm: {series} über {count} Kategorien"),
            (Text::ApprovalRequest, "Genehmigungsanfrage"),
            (Text::ApprovalRequired, "Genehmigung erforderlich"),
            (Text::ApprovalTool, "Der Assistent möchte {tool} ausführen"),
            (Text::Approved, "Genehmigt"),
            (Text::Rejected, "Abgelehnt"),
            (Text::AnswerSent, "Antwort gesendet."),
            (Text::Answered, "Beantwortet"),
            (Text::Skipped, "Übersprungen"),
            (Text::NoAnswer, "Keine Antwort"),
            (Text::ClientTool, "Client-Werkzeug {name}"),
            (Text::ToolRunning, "Läuft…"),
            (Text::ToolDone, "Fertig"),
            (Text::ToolFailed, "Fehlgeschlagen"),
            (Text::ToolNotRun, "Nicht ausgeführt"),
            (Text::Details, "Details"),
            (Text::Arguments, "Argumente"),
            (Text::ToolResult, "Ergebnis"),
            (Text::AcpPending, "Ausstehend"),
            (Text::AcpInProgress, "Läuft"),
            (Text::AcpCompleted, "Abgeschlossen"),
            (Text::AcpFailed, "Fehlgeschlagen"),
            (Text::AcpAwaitingPermission, "Wartet auf Erlaubnis"),
            (Text::AcpRejected, "Abgelehnt"),
            (Text::AcpCancelled, "Abgebrochen"),
            (Text::AcpInterrupted, "Unterbrochen"),
            (Text::AcpUnknown, "Status unbekannt"),
            (Text::StopMaxTokens, "Der Agent hat angehalten: Er hat sein Token-Limit erreicht (max_tokens). Die Antwort ist vielleicht abgeschnitten."),
            (Text::StopMaxTurnRequests, "Der Agent hat angehalten: Er hat sein Limit an Modellanfragen für einen Durchgang erreicht (max_turn_requests)."),
            (Text::StopRefusal, "Der Agent hat es abgelehnt, weiterzumachen (refusal)."),
            (Text::StopCancelled, "Angehalten, bevor der Agent fertig war."),
            (Text::StopFailed, "Dieser Durchgang ist fehlgeschlagen: {message}"),
            (Text::StopOther, "Der Durchgang endete: {reason}"),
            (Text::EventsMissing, "Einige Ereignisse dieser Antwort sind nie angekommen: Sie ist vielleicht unvollständig."),
            (Text::Resyncing, "Neu synchronisieren: fehlende Ereignisse werden angefragt…"),
            (Text::TeamRoster, "Team"),
            (Text::WorkerReported, "Bericht von {agent}"),
            (Text::HandoffNote, "Übergabe von {from} an {to}"),
            (Text::ArtifactLabel, "Artefakt"),
            (Text::ArtifactOpen, "{title} öffnen"),
            (Text::Open, "Öffnen"),
            (Text::ChildOf, "Kind von {parent}"),
            (Text::Queue, "Einreihen"),
            (Text::QueueHint, "Nach diesem Lauf senden"),
            (Text::Steer, "Umlenken"),
            (Text::SteerHint, "Diesen Lauf jetzt umlenken"),
            (Text::QueuedTurns, "In der Warteschlange"),
            (Text::QueuedStatus, "Wird nach diesem Lauf gesendet"),
            (Text::SteeredNote, "Sie haben diesen Lauf umgelenkt"),
            (Text::QueueRefused, "Der Lauf war zu Ende, bevor Ihre Nachricht ihn erreichte; sie steht wieder im Eingabefeld."),
            (Text::NewFile, "Neue Datei"),
            (Text::LinesUnchanged, "{count} unveränderte Zeilen"),
            (Text::OutputTruncated, "Ausgabe gekürzt"),
            (Text::TerminalOutput, "Terminal {id}"),
            (Text::ToolLocations, "Dateien"),
            (Text::ExitCode, "Exit-Code {code}"),
            (Text::ExitSignal, "Durch Signal {signal} beendet"),
            (Text::OneLineUnchanged, "1 unveränderte Zeile"),
            (Text::ToolCallsFolded, "{count} Werkzeugaufrufe"),
            (Text::ToolCallsFailed, "{count} fehlgeschlagen"),
            (Text::ToolCallsUnknown, "{count} mit unbekanntem Ausgang"),
            (Text::RawInput, "Eingabe"),
            (Text::RawOutput, "Ausgabe"),
            (Text::PermissionNeeded, "Erlaubnis erforderlich"),
            (Text::PermissionAgent, "Angefragt von {agent}"),
            (Text::PermissionDecided, "Entscheidung: {option}"),
            (Text::PermissionCancelled, "Anfrage abgebrochen"),
            (Text::PermissionSent, "Gesendet: {option}"),
            (Text::Command, "Befehl"),
            (Text::WorkingDirectory, "Verzeichnis"),
            (Text::RunErrorCode, "Fehler {code}"),
            (Text::RunErrorPlain, "Fehler"),
            (Text::Liveness, "verbunden · letztes Ereignis vor {seconds} s"),
            (Text::AgentPlan, "Plan"),
            (Text::AgentThought, "Gedanken"),
            (Text::DiffEmpty, "Keine Änderungen"),
            (Text::DiffFilesChanged, "{count} Dateien geändert"),
            (Text::DiffOneFileChanged, "1 Datei geändert"),
            (Text::DiffLineCounts, "Zeilen hinzugefügt: {added}, entfernt: {removed}"),
            (Text::ChangedFiles, "Geänderte Dateien"),
            (Text::FileAdded, "Hinzugefügt"),
            (Text::FileModified, "Geändert"),
            (Text::FileDeleted, "Gelöscht"),
            (Text::FileRenamed, "Umbenannt"),
            (Text::FileCopied, "Kopiert"),
            (Text::CopyPath, "Pfad kopieren"),
            (Text::DiffLayout, "Ansicht"),
            (Text::DiffUnified, "Einheitlich"),
            (Text::DiffSideBySide, "Nebeneinander"),
            (Text::DiffBinary, "Binärdatei, nicht angezeigt"),
            (Text::DiffModeChanged, "Dateimodus von {old} zu {new} geändert"),
            (Text::DiffRenameOnly, "Umbenannt, Inhalt unverändert"),
            (Text::DiffCopyOnly, "Kopiert, Inhalt unverändert"),
            (Text::DiffEmptyFile, "Leere Datei"),
            (Text::DiffNoLines, "Keine Zeilen geändert"),
            (Text::DiffLarge, "Große Änderung ({count} Zeilen): eingeklappt"),
            (Text::DiffUnreadable, "Ein Teil dieses Diffs konnte nicht gelesen werden: {detail}"),
        ],
    ),
    (
        "ar",
        &[
            (Text::Send, "إرسال"),
            (Text::Stop, "إيقاف"),
            (Text::Retry, "إعادة المحاولة"),
            (Text::Copy, "نسخ"),
            (Text::Copied, "تم النسخ"),
            (Text::CopyCode, "نسخ الشيفرة"),
            (Text::GoodResponse, "إجابة جيدة"),
            (Text::BadResponse, "إجابة سيئة"),
            (Text::ScrollToBottom, "الانتقال إلى الأسفل"),
            (Text::NewChat, "محادثة جديدة"),
            (Text::History, "السجل"),
            (Text::ViewTabs, "العروض"),
            (Text::ChatTab, "المحادثة"),
            (Text::DiffTab, "الفروق"),
            (Text::ViewUpdated, "حُدّث {time}"),
            (Text::ViewStale, "غير محدّث: جارٍ إعادة الاتصال…"),
            (Text::ComposerLabel, "رسالة"),
            (Text::ComposerPlaceholder, "اكتب رسالة إلى المساعد"),
            (Text::Greeting, "كيف يمكنني مساعدتك اليوم؟"),
            (Text::Conversation, "المحادثة"),
            (Text::YouSaid, "أنت قلت"),
            (Text::AssistantSaid, "قال المساعد"),
            (Text::AssistantAnswering, "المساعد يجيب"),
            (Text::AnswerStopped, "إجابة المساعد (متوقفة)"),
            (Text::AnswerIncomplete, "إجابة المساعد (غير مكتملة)"),
            (Text::Stopped, "متوقف"),
            (Text::Sources, "المصادر"),
            (Text::DismissNotice, "إغلاق التنبيه"),
            (Text::Unsupported, "محتوى غير مدعوم"),
            (Text::ThreadClosed, "هذه المحادثة مغلقة."),
            (Text::GeneratingImage, "جارٍ إنشاء الصورة"),
            (Text::GeneratedImage, "صورة مُنشأة"),
            (Text::WorkedFor, "عمل لمدة {seconds} ث"),
            (Text::Working, "جارٍ العمل…"),
            (Text::Worked, "تم العمل"),
            (Text::Attachments, "المرفقات"),
            (Text::AddAttachment, "إضافة مرفق"),
            (Text::Remove, "إزالة {name}"),
            (Text::Approve, "موافقة"),
            (Text::Reject, "رفض"),
            (Text::Submit, "إرسال"),
            (Text::Skip, "تخطي"),
            // Start screen and shell.
            (Text::Suggestions, "اقتراحات"),
            (Text::ChatUnavailable, "لم تعد هذه المحادثة متاحة."),
            (Text::Resize, "تغيير الحجم"),
            (Text::ResizeHint, "تغيير الحجم (مفاتيح الأسهم)"),
            // Loading and errors.
            (Text::LoadingConversation, "جارٍ تحميل المحادثة…"),
            (Text::LoadingEarlier, "جارٍ تحميل الرسائل السابقة…"),
            (Text::ThreadOpenError, "تعذّر فتح هذه المحادثة. {error}"),
            (Text::AnswerEmpty, "أنهى الخادم الإجابة دون إرسال أي شيء."),
            (Text::AnswerFailed, "حدث خطأ أثناء الإجابة. يُرجى المحاولة مرة أخرى."),
            (Text::RequestCancelled, "تم إلغاء الطلب."),
            (Text::ServerError, "ردّ الخادم بخطأ (HTTP {status})."),
            (Text::ServerErrorDetail, "ردّ الخادم بخطأ (HTTP {status}): {message}"),
            (Text::AnswerStalled, "توقفت الإجابة: لم يصل شيء منذ {seconds} ثانية."),
            (Text::ConnectionLost, "انقطع الاتصال بالخادم. تحقّق من اتصالك وأعد المحاولة."),
            (Text::ServerSilent, "لم يُجب الخادم خلال {seconds} ثانية."),
            (Text::AnswerTooLarge, "قُطعت الإجابة: كان أحد أجزائها أكبر من {megabytes} ميغابايت."),
            (Text::UnreadableAnswer, "تعذّرت قراءة إجابة الخادم: {detail}"),
            (Text::StreamingUnsupported, "لا يستطيع هذا المتصفح تنفيذ الطلبات المتدفقة."),
            // Workflows and tasks.
            (Text::Thinking, "جارٍ التفكير…"),
            (Text::Thought, "تم التفكير"),
            (Text::ThoughtFor, "فكّر لمدة {seconds} ث"),
            (Text::TaskUntitled, "جارٍ العمل"),
            (Text::TaskInProgress, "قيد التنفيذ"),
            (Text::TaskComplete, "مكتمل"),
            (Text::Searches, "عمليات البحث"),
            (Text::SourcesFound, "المصادر التي عُثر عليها"),
            // History.
            (Text::Conversations, "المحادثات"),
            (Text::NoConversations, "لا توجد محادثات بعد"),
            (Text::LoadingConversations, "جارٍ تحميل المحادثات…"),
            (Text::HistoryError, "تعذّر تحميل المحادثات. {error}"),
            (Text::TryAgain, "حاول مرة أخرى"),
            (Text::Rename, "إعادة التسمية"),
            (Text::RenameNamed, "إعادة تسمية {title}"),
            (Text::Delete, "حذف"),
            (Text::DeleteNamed, "حذف {title}"),
            (Text::DeleteConfirm, "حذف «{title}»؟"),
            (Text::Cancel, "إلغاء"),
            (Text::ConversationTitle, "عنوان المحادثة"),
            (Text::Untitled, "محادثة بلا عنوان"),
            (Text::JustNow, "الآن"),
            (Text::MinuteAgo, "منذ دقيقة واحدة"),
            (Text::MinutesAgo, "منذ {count} دقيقة"),
            (Text::HourAgo, "منذ ساعة واحدة"),
            (Text::HoursAgo, "منذ {count} ساعة"),
            (Text::Yesterday, "أمس"),
            (Text::DaysAgo, "منذ {count} أيام"),
            (Text::WeekAgo, "منذ أسبوع واحد"),
            (Text::WeeksAgo, "منذ {count} أسابيع"),
            (Text::MonthAgo, "منذ شهر واحد"),
            (Text::MonthsAgo, "منذ {count} أشهر"),
            (Text::YearAgo, "منذ سنة واحدة"),
            (Text::YearsAgo, "منذ {count} سنوات"),
            // Attachments.
            (Text::Dismiss, "إغلاق"),
            (Text::RetryUpload, "إعادة الرفع"),
            (Text::RetryUploadNamed, "إعادة رفع {name}"),
            (Text::UploadingNamed, "جارٍ رفع {name}"),
            (Text::FileBadge, "ملف"),
            (Text::MoreAttachments, "+{count} أخرى"),
            (Text::ShowFewer, "عرض أقل"),
            (Text::UploadsFailed, "تعذّر رفع أحد المرفقات: أعد المحاولة أو أزله."),
            (Text::UploadsPending, "في انتظار اكتمال رفع المرفقات…"),
            (Text::UploadFailed, "فشل الرفع. {error}"),
            (Text::UploadFailedHttp, "فشل الرفع (HTTP {status})."),
            (Text::UploadConnectionLost, "فشل الرفع: انقطع الاتصال."),
            (Text::UploadBadAddress, "فشل الرفع: عنوان الرفع غير صالح."),
            (Text::UploadNotSent, "فشل الرفع: تعذّر إرسال الملف."),
            (Text::UploadFileGone, "لم يعد الملف متاحًا: أزله ثم أضفه مرة أخرى."),
            (Text::UploadUnsupported, "لا يستطيع هذا المتصفح رفع الملفات."),
            (Text::FileTypeRefused, "«{name}» ليس نوع ملف مدعومًا."),
            (Text::FileTooLarge, "«{name}» أكبر من الحد المسموح ({limit})."),
            (Text::TooManyFilesOne, "يمكنك إرفاق ملف واحد كحد أقصى بالرسالة؛ لم تتم إضافة {count}."),
            (Text::TooManyFiles, "يمكنك إرفاق {max} ملفات كحد أقصى بالرسالة؛ لم تتم إضافة {count}."),
            (Text::SizeByte, "بايت واحد"),
            (Text::SizeBytes, "{count} بايت"),
            (Text::SizeKb, "{size} كيلوبايت"),
            (Text::SizeMb, "{size} ميغابايت"),
            (Text::SizeGb, "{size} غيغابايت"),
            // Widgets, tool calls, approvals and structured input.
            (Text::WidgetFailed, "تعذّر عرض هذه الأداة."),
            (Text::UnsupportedComponent, "مكوّن غير مدعوم"),
            (Text::ShowDetails, "عرض التفاصيل"),
            (Text::HideDetails, "إخفاء التفاصيل"),
            (Text::ShowMore, "عرض {count} أخرى"),
            (Text::ShowLess, "عرض أقل"),
            (Text::Confirm, "تأكيد"),
            (Text::Button, "زر"),
            (Text::ChartSummary, "مخطط: {series} عبر {count} فئات"),
            (Text::ApprovalRequest, "طلب موافقة"),
            (Text::ApprovalRequired, "الموافقة مطلوبة"),
            (Text::ApprovalTool, "يريد المساعد تشغيل {tool}"),
            (Text::Approved, "تمت الموافقة"),
            (Text::Rejected, "مرفوض"),
            (Text::AnswerSent, "تم إرسال الإجابة."),
            (Text::Answered, "تمت الإجابة"),
            (Text::Skipped, "تم التخطي"),
            (Text::NoAnswer, "لا توجد إجابة"),
            (Text::ClientTool, "أداة العميل {name}"),
            (Text::ToolRunning, "قيد التشغيل…"),
            (Text::ToolDone, "تم"),
            (Text::ToolFailed, "فشل"),
            (Text::ToolNotRun, "لم يُنفَّذ"),
            (Text::Details, "التفاصيل"),
            (Text::Arguments, "الوسائط"),
            (Text::ToolResult, "النتيجة"),
            (Text::AcpPending, "قيد الانتظار"),
            (Text::AcpInProgress, "قيد التنفيذ"),
            (Text::AcpCompleted, "مكتمل"),
            (Text::AcpFailed, "فشل"),
            (Text::AcpAwaitingPermission, "بانتظار الإذن"),
            (Text::AcpRejected, "مرفوض"),
            (Text::AcpCancelled, "أُلغي"),
            (Text::AcpInterrupted, "انقطع"),
            (Text::AcpUnknown, "الحالة غير معروفة"),
            (Text::StopMaxTokens, "توقف الوكيل: بلغ حدّه من الرموز (max_tokens). قد تكون الإجابة مبتورة."),
            (Text::StopMaxTurnRequests, "توقف الوكيل: بلغ حدّه من طلبات النموذج في دور واحد (max_turn_requests)."),
            (Text::StopRefusal, "رفض الوكيل المتابعة (refusal)."),
            (Text::StopCancelled, "أُوقف قبل أن ينتهي الوكيل."),
            (Text::StopFailed, "فشل هذا الدور: {message}"),
            (Text::StopOther, "انتهى الدور: {reason}"),
            (Text::EventsMissing, "لم تصل بعض أحداث هذه الإجابة: قد تكون ناقصة."),
            (Text::Resyncing, "إعادة المزامنة: طلب الأحداث التي لم تصل…"),
            (Text::TeamRoster, "الفريق"),
            (Text::WorkerReported, "تقرير {agent}"),
            (Text::HandoffNote, "تسليم من {from} إلى {to}"),
            (Text::ArtifactLabel, "مُنتَج"),
            (Text::ArtifactOpen, "فتح {title}"),
            (Text::Open, "فتح"),
            (Text::ChildOf, "تابع لـ {parent}"),
            (Text::Queue, "إضافة إلى الانتظار"),
            (Text::QueueHint, "إرسال بعد هذا التشغيل"),
            (Text::Steer, "توجيه"),
            (Text::SteerHint, "إعادة توجيه هذا التشغيل الآن"),
            (Text::QueuedTurns, "في الانتظار"),
            (Text::QueuedStatus, "يُرسل بعد هذا التشغيل"),
            (Text::SteeredNote, "لقد أعدت توجيه هذا التشغيل"),
            (Text::QueueRefused, "انتهى التشغيل قبل أن تصله رسالتك؛ أعيدت إلى مربع الكتابة."),
            (Text::NewFile, "ملف جديد"),
            (Text::LinesUnchanged, "{count} سطرًا دون تغيير"),
            (Text::OutputTruncated, "تم اقتطاع المخرجات"),
            (Text::TerminalOutput, "الطرفية {id}"),
            (Text::ToolLocations, "الملفات"),
            (Text::ExitCode, "رمز الخروج {code}"),
            (Text::ExitSignal, "أُنهي بالإشارة {signal}"),
            (Text::OneLineUnchanged, "سطر واحد دون تغيير"),
            (Text::ToolCallsFolded, "{count} من استدعاءات الأدوات"),
            (Text::ToolCallsFailed, "{count} فشل"),
            (Text::ToolCallsUnknown, "{count} نتيجته غير معروفة"),
            (Text::RawInput, "المدخلات"),
            (Text::RawOutput, "المخرجات"),
            (Text::PermissionNeeded, "مطلوب إذن"),
            (Text::PermissionAgent, "طلبه {agent}"),
            (Text::PermissionDecided, "القرار: {option}"),
            (Text::PermissionCancelled, "أُلغي الطلب"),
            (Text::PermissionSent, "أُرسل: {option}"),
            (Text::Command, "الأمر"),
            (Text::WorkingDirectory, "المجلد"),
            (Text::RunErrorCode, "خطأ {code}"),
            (Text::RunErrorPlain, "خطأ"),
            (Text::Liveness, "متصل · آخر حدث قبل {seconds} ث"),
            (Text::AgentPlan, "الخطة"),
            (Text::AgentThought, "الأفكار"),
            (Text::DiffEmpty, "لا تغييرات"),
            (Text::DiffFilesChanged, "الملفات المتغيّرة: {count}"),
            (Text::DiffOneFileChanged, "تغيّر ملف واحد"),
            (Text::DiffLineCounts, "أسطر مضافة: {added}، محذوفة: {removed}"),
            (Text::ChangedFiles, "الملفات المتغيّرة"),
            (Text::FileAdded, "مُضاف"),
            (Text::FileModified, "مُعدَّل"),
            (Text::FileDeleted, "محذوف"),
            (Text::FileRenamed, "أُعيدت تسميته"),
            (Text::FileCopied, "منسوخ"),
            (Text::CopyPath, "نسخ المسار"),
            (Text::DiffLayout, "التخطيط"),
            (Text::DiffUnified, "موحّد"),
            (Text::DiffSideBySide, "جنبًا إلى جنب"),
            (Text::DiffBinary, "ملف ثنائي، لا يُعرض"),
            (Text::DiffModeChanged, "تغيّر وضع الملف من {old} إلى {new}"),
            (Text::DiffRenameOnly, "أُعيدت تسميته، المحتوى دون تغيير"),
            (Text::DiffCopyOnly, "منسوخ، المحتوى دون تغيير"),
            (Text::DiffEmptyFile, "ملف فارغ"),
            (Text::DiffNoLines, "لا أسطر متغيّرة"),
            (Text::DiffLarge, "تغيير كبير ({count} سطرًا): مطويّ"),
            (Text::DiffUnreadable, "تعذّرت قراءة جزء من هذا الفرق: {detail}"),
        ],
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
        let primary = primary_subtag(locale);
        let overrides = LOCALES
            .iter()
            .find(|(tag, _)| *tag == primary)
            .map(|(_, table)| table.iter().map(|(k, v)| (*k, (*v).to_owned())).collect())
            .unwrap_or_default();
        Strings {
            locale: locale.to_owned(),
            overrides,
        }
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

fn primary_subtag(locale: &str) -> &str {
    locale.split(['-', '_']).next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
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
            for text in Text::ALL {
                let entries: Vec<&str> = table
                    .iter()
                    .filter(|(k, _)| k == text)
                    .map(|(_, v)| *v)
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
