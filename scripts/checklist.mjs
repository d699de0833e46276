#!/usr/bin/env node
// The Agent UI validation checklist (https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy) by wire format, made
// from the tests: a check passes for a format when that format's checklist tests have a
// `check_NN_…` test (the test command runs them; a failing one fails it).
//
//   node scripts/checklist.mjs           print the table (markdown)
//   node scripts/checklist.mjs --check   fail (exit 1) when docs/agent-ui.md's table differs
//
// docs/agent-ui.md holds the table between `<!-- checklist:start -->` and `<!-- checklist:end -->`.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const CHECKS = [
  'Listener bound before submit',
  'Runtime status before the first text',
  'Active parts in event order',
  'Running process visible, finished process folded',
  'Final text reconciled, never duplicated',
  'Tool state never in the answer',
  'Actions with stable ids, decided by their owner',
  'Queue and steer distinct',
  'Artifact body outside the transcript',
  'Citations link to evidence facts',
  'Team state from agent facts, not prose',
  'Team topology visible',
  'Worker notifications are not user messages',
  'Lineage survives hydration and replay',
  'Delegated approvals name the teammate',
  'Context and compaction as boundaries',
  'Missing facts shown as unknown',
  'Progressive, stale-safe hydration',
  'Diagnostics and metrics outside the conversation',
];

// Each format's checklist tests: the file, and the test-name pattern (`check_NN_…`).
const FORMATS = [
  ['agent-ui', 'crates/core/src/adapters/agent_ui/checks.rs', /fn check_(\d\d)_/g],
  ['ChatKit', 'crates/core/tests/checklist.rs', /fn check_(\d\d)_chatkit_/g],
  ['events', 'crates/core/tests/checklist.rs', /fn check_(\d\d)_events_/g],
  ['ACP (runtime)', 'examples/runtime/tests/acp.rs', /fn check_(\d\d)_acp_/g],
];

function covered(file, pattern) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return new Set([...text.matchAll(pattern)].map((m) => Number(m[1])));
}

export function table() {
  const sets = FORMATS.map(([, file, pattern]) => covered(file, pattern));
  const lines = [
    `| # | Check | ${FORMATS.map(([name]) => name).join(' | ')} |`,
    `|---|---|${FORMATS.map(() => '---').join('|')}|`,
  ];
  CHECKS.forEach((title, i) => {
    const n = i + 1;
    lines.push(`| ${n} | ${title} | ${sets.map((s) => (s.has(n) ? 'pass' : '—')).join(' | ')} |`);
  });
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const made = table();
  if (process.argv.includes('--check')) {
    const readme = readFileSync(path.join(ROOT, 'docs', 'agent-ui.md'), 'utf8');
    const m = /<!-- checklist:start -->\n([\s\S]*?)\n<!-- checklist:end -->/.exec(readme);
    if (!m) {
      console.error('checklist: docs/agent-ui.md has no <!-- checklist:start --> … <!-- checklist:end --> block');
      process.exit(1);
    }
    if (m[1].trim() !== made.trim()) {
      console.error('checklist: docs/agent-ui.md\'s table is out of date; run node scripts/checklist.mjs and paste it:\n' + made);
      process.exit(1);
    }
    console.log('checklist: docs/agent-ui.md matches the tests');
  } else {
    console.log(made);
  }
}
