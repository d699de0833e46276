//! The `permission` scenario: a command asks before it runs, offering one option of each
//! kind, and the stream waits; what the decision leads to streams once it is taken.

use super::blocks::{location, status, terminal, terminal_output, text, tool_call, Call, REPO};
use crate::scripts::Script;
use chat_shell_core::protocol::acp::{
    PermissionOption, PermissionOptionId, PermissionOptionKind, PermissionOutcome,
    PermissionResponse, RequestPermission, ToolCallId, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use chat_shell_core::protocol::chatkit::{
    AcpPermissionRequested, ItemKind, ItemUpdate, ThreadItem,
};
use serde_json::json;
use std::time::Duration;

/// How long a stream waits, with keepalives, for the answer to a permission request
/// before it ends with the request still open.
pub const PERMISSION_WAIT: Duration = Duration::from_secs(600);

/// The answers the `permission` scenario offers: one of each kind.
pub fn permission_options() -> Vec<PermissionOption> {
    [
        ("allow-once", "Allow once", PermissionOptionKind::AllowOnce),
        (
            "allow-always",
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ),
        ("reject-once", "Reject", PermissionOptionKind::RejectOnce),
        (
            "reject-always",
            "Always reject",
            PermissionOptionKind::RejectAlways,
        ),
    ]
    .into_iter()
    .map(|(id, name, kind)| PermissionOption {
        option_id: PermissionOptionId::from(id),
        name: name.to_owned(),
        kind,
    })
    .collect()
}

/// `permission`: a command that deletes files asks first, offering one option of each
/// kind; the stream waits for the answer.
pub fn permission_ask(s: &mut Script<'_>) {
    s.text("Cleaning the build cache deletes files, so I'm asking before I run it.");
    let command = "rm -rf target/debug/incremental";
    let title = "Remove the incremental build cache";
    let call = Call::start(
        s,
        tool_call(
            s,
            title,
            ToolKind::Execute,
            ToolCallStatus::Pending,
            json!({ "command": command, "cwd": REPO }),
        ),
    );
    let request = RequestPermission {
        session_id: None,
        // What the agent would run, as ACP's request carries it.
        tool_call: ToolCallUpdate {
            tool_call_id: call_id(&call.item),
            title: Some(title.to_owned()),
            kind: Some(ToolKind::Execute),
            status: Some(ToolCallStatus::Pending),
            locations: Some(vec![location("/repo/target/debug/incremental", None)]),
            raw_input: Some(json!({ "command": command, "cwd": REPO })),
            ..ToolCallUpdate::default()
        },
        options: permission_options(),
    };
    s.update(
        &call.item.id,
        ItemUpdate::AcpPermissionRequested(AcpPermissionRequested { request }),
    );
    s.await_permission(&call.item.id, PERMISSION_WAIT);
}

pub(super) fn call_id(item: &ThreadItem) -> ToolCallId {
    match &item.kind {
        ItemKind::AcpToolCall(c) => c.tool_call.tool_call_id.clone(),
        _ => ToolCallId::default(),
    }
}

/// What a decided permission request leads to; `item` is the tool call with its outcome.
/// The confirmation (`acp_tool_call.permission_resolved`) first; then an allowed call
/// runs (in progress, then completed with its terminal output); a rejected or cancelled
/// one ends `failed` without running (the client shows it as rejected or cancelled).
pub fn permission_decided(s: &mut Script<'_>, item: &ThreadItem) {
    let ItemKind::AcpToolCall(decided) = &item.kind else {
        return;
    };
    let Some(permission) = &decided.permission else {
        return;
    };
    let Some(outcome) = permission.outcome.clone() else {
        return;
    };
    s.update(
        &item.id,
        ItemUpdate::AcpPermissionResolved(PermissionResponse {
            outcome: outcome.clone(),
        }),
    );
    let chosen = match &outcome {
        PermissionOutcome::Selected { option_id } => permission.option(option_id).cloned(),
        _ => None,
    };
    let command = chat_shell_core::tool_output::command(decided.tool_call.raw_input.as_ref())
        .unwrap_or_else(|| decided.tool_call.title.clone());
    let mut call = Call { item: item.clone() };
    match chosen {
        Some(option) if option.kind.is_allow() => {
            let term = s.id("term").0;
            call.update(s, status(ToolCallStatus::InProgress));
            s.wait(s.beat());
            call.update(
                s,
                ToolCallUpdate {
                    status: Some(ToolCallStatus::Completed),
                    content: Some(vec![terminal(&term)]),
                    raw_output: Some(terminal_output("removed 1204 files (312.4 MiB)\n", Some(0))),
                    ..ToolCallUpdate::default()
                },
            );
            call.done(s);
            s.text(&format!(
                "Done: `{command}` ran in `{REPO}` (you chose **{}**). The next build starts \
                 from a clean cache.",
                option.name
            ));
        }
        Some(option) => {
            call.update(
                s,
                ToolCallUpdate {
                    status: Some(ToolCallStatus::Failed),
                    content: Some(vec![text("Not run: the permission was rejected.")]),
                    ..ToolCallUpdate::default()
                },
            );
            call.done(s);
            s.text(&format!(
                "Understood (**{}**): `{command}` was not run and nothing was deleted.",
                option.name
            ));
        }
        // Cancelled (the user stopped the turn): nothing more to say.
        None => {
            call.update(s, status(ToolCallStatus::Failed));
            call.done(s);
        }
    }
}
