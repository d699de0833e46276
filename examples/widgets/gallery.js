// The widget gallery: a ChatKit endpoint faked inside the page (window.fetch answers the
// element's POSTs to ENDPOINT), so the page needs no server beyond static files. It
// streams one answer holding every widget family, then answers actions the way a server
// would: custom actions with a message (approvals replace the card with the decision),
// sync actions with an updated item, structured input with the answered item.

const ENDPOINT = '/gallery/chatkit';
const THREAD = 'thr_gallery';
const encoder = new TextEncoder();
let counter = 0;
const nextId = (prefix) => `${prefix}_${String(++counter).padStart(4, '0')}`;
const now = () => new Date().toISOString().replace('Z', '');
const item = (type, fields, id = nextId('itm')) => ({ id, thread_id: THREAD, created_at: now(), type, ...fields });
const act = (type, payload = {}, extra = {}) => ({ type, payload, handler: 'server', loadingBehavior: 'auto', ...extra });
const text = (value, extra = {}) => ({ type: 'Text', value, ...extra });
const caption = (value, extra = {}) => ({ type: 'Caption', value, ...extra });
const title = (value, extra = {}) => ({ type: 'Title', value, size: 'sm', ...extra });
const row = (children, extra = {}) => ({ type: 'Row', gap: 2, children, ...extra });
const col = (children, extra = {}) => ({ type: 'Col', gap: 2, children, ...extra });

/** A small gradient drawn here: Image sources must be http(s) or raster data URLs. */
function sampleImage() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 96;
  const g = canvas.getContext('2d');
  const gradient = g.createLinearGradient(0, 0, 96, 96);
  gradient.addColorStop(0, '#6366f1');
  gradient.addColorStop(1, '#22c55e');
  g.fillStyle = gradient;
  g.fillRect(0, 0, 96, 96);
  g.fillStyle = 'rgba(255,255,255,0.85)';
  g.beginPath();
  g.arc(48, 48, 20, 0, Math.PI * 2);
  g.fill();
  return canvas.toDataURL('image/png');
}

const ICONS = [
  'agent', 'analytics', 'atom', 'batch', 'bolt', 'book-open', 'book-closed', 'book-clock', 'bug',
  'calendar', 'chart', 'check', 'check-circle', 'check-circle-filled', 'chevron-left',
  'chevron-right', 'circle-question', 'compass', 'confetti', 'cube', 'desktop', 'document', 'dot',
  'dots-horizontal', 'dots-vertical', 'empty-circle', 'external-link', 'globe', 'keys', 'lab',
  'images', 'info', 'lifesaver', 'lightbulb', 'mail', 'map-pin', 'maps', 'mobile', 'name',
  'notebook', 'notebook-pencil', 'page-blank', 'phone', 'play', 'plus', 'profile', 'profile-card',
  'reload', 'star', 'star-filled', 'search', 'sparkle', 'sparkle-double', 'square-code',
  'square-image', 'square-text', 'suitcase', 'settings-slider', 'user', 'wreath', 'write',
  'write-alt', 'write-alt2', 'vendor:acme',
];

let counterLabel = 0;
function showcase() {
  return {
    type: 'Card', key: 'showcase', size: 'md', status: { text: 'Widget gallery', icon: 'sparkle' },
    children: [
      row([
        { type: 'Icon', name: 'sparkle', color: 'primary', size: 'lg' },
        { type: 'Title', value: 'Card with layout', size: 'md' },
        { type: 'Spacer' },
        { type: 'Badge', key: 'status', label: 'new', color: 'info', pill: true },
      ], { align: 'center' }),
      caption('Status line, Row, Icon, Title, Spacer and Badge above'),
      text('Text is text: <b>not bold</b> <img src=x onerror=alert(1)>', { color: 'secondary' }),
      { type: 'Markdown', value: '**Markdown** with a [link](https://openai.github.io/chatkit-js/), `code` and a list:\n\n- sanitized\n- streamed in place' },
      { type: 'Divider', spacing: 2 },
      row([
        { type: 'Image', src: sampleImage(), alt: 'A drawn gradient', radius: 'lg', size: 64, frame: true },
        col([text('Row > Col', { weight: 'semibold' }), caption('An Image with radius and frame, then a Col with flex 1')], { flex: 1, gap: 1 }),
      ], { gap: 3 }),
      {
        type: 'Box', direction: 'row', align: 'center', gap: 2, padding: 3, radius: 'lg', border: 1,
        background: 'surface-secondary', children: [{ type: 'Icon', name: 'info' }, text('A Box with padding, radius, border and background', { size: 'sm' })],
      },
      row([
        { type: 'Button', label: 'Server action', style: 'primary', onClickAction: act('gallery.ping', { from: 'showcase' }) },
        { type: 'Button', label: 'Client action', variant: 'outline', onClickAction: act('gallery.toast', { text: 'Handled in the page' }, { handler: 'client' }) },
        { type: 'Button', key: 'counter', label: `Sync +1 (count=${counterLabel})`, iconStart: 'plus', variant: 'soft', onClickAction: act('gallery.counter', { count: counterLabel }, { loadingBehavior: 'self', streaming: false }) },
      ], { wrap: 'wrap' }),
    ],
  };
}

function typography() {
  return {
    type: 'Card', key: 'typography', size: 'md', children: [
      title('Typography', { size: 'lg' }),
      row(['sm', 'md', 'lg', 'xl'].map((size) => ({ type: 'Title', value: `Title ${size}`, size })), { align: 'baseline', wrap: 'wrap', gap: 3 }),
      row(['normal', 'medium', 'semibold', 'bold'].map((weight) => text(weight, { weight })), { gap: 3 }),
      row([text('italic', { italic: true }), text('line-through', { lineThrough: true }), text('xs', { size: 'xs' }), text('xl', { size: 'xl' })], { gap: 3, align: 'baseline' }),
      row(['secondary', 'tertiary', 'success', 'warning', 'danger', 'blue-600', '#d946ef'].map((color) => text(color, { color, size: 'sm' })), { gap: 3, wrap: 'wrap' }),
      text('A long text truncated with an ellipsis when it does not fit on a single line of this card at all.', { truncate: true }),
      text('maxLines: 2 clamps this paragraph. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua, ut enim ad minim veniam.', { maxLines: 2, size: 'sm' }),
      row([caption('Caption sm', { size: 'sm' }), caption('Caption md'), caption('Caption lg', { size: 'lg' })], { gap: 3, align: 'baseline' }),
      { type: 'Markdown', value: '| Markdown | table |\n|---|---|\n| sanitized | yes |' },
    ],
  };
}

function badgesAndButtons() {
  const colors = ['secondary', 'success', 'danger', 'warning', 'info', 'discovery'];
  const buttonColors = ['primary', 'secondary', 'success', 'danger', 'warning', 'info', 'discovery'];
  return {
    type: 'Card', key: 'controls', children: [
      title('Badges and buttons'),
      ...['soft', 'solid', 'outline'].map((variant) =>
        row(colors.map((color) => ({ type: 'Badge', label: color, color, variant, pill: variant === 'outline' })), { wrap: 'wrap' })),
      ...['solid', 'soft', 'outline', 'ghost'].map((variant) =>
        row(buttonColors.map((color) => ({ type: 'Button', label: color, color, variant, size: 'sm', onClickAction: act('gallery.button', { color, variant }, { loadingBehavior: 'self' }) })), { wrap: 'wrap' })),
      row([
        { type: 'Button', label: 'Pill', pill: true, color: 'primary', onClickAction: act('gallery.button', { pill: true }) },
        { type: 'Button', iconStart: 'star', uniform: true, variant: 'outline', onClickAction: act('gallery.button', { icon: 'star' }) },
        { type: 'Button', label: 'Icons', iconStart: 'search', iconEnd: 'chevron-right', variant: 'soft' },
        { type: 'Button', label: 'Disabled', disabled: true },
        { type: 'Button', label: 'Large', size: 'lg', color: 'success' },
      ], { wrap: 'wrap' }),
      { type: 'Button', label: 'Block button: whole widget busy while it runs', block: true, variant: 'outline', onClickAction: act('gallery.button', { block: true }, { loadingBehavior: 'container' }) },
    ],
  };
}

function formCard() {
  return {
    type: 'Card', key: 'form', size: 'md', children: [
      title('Form'),
      {
        type: 'Form', direction: 'col', gap: 3, onSubmitAction: act('gallery.form', { form: 'profile' }), children: [
          { type: 'Label', value: 'Name', fieldName: 'name' },
          { type: 'Input', name: 'name', required: true, placeholder: 'Ada Lovelace' },
          row([
            col([{ type: 'Label', value: 'Email', fieldName: 'email' }, { type: 'Input', name: 'email', inputType: 'email', placeholder: 'ada@example.com' }], { flex: 1, gap: 1 }),
            col([{ type: 'Label', value: 'Plan', fieldName: 'plan' }, { type: 'Select', name: 'plan', defaultValue: 'pro', options: [{ value: 'free', label: 'Free' }, { value: 'pro', label: 'Pro', description: 'Paid plan' }, { value: 'old', label: 'Legacy', disabled: true }] }], { flex: 1, gap: 1 }),
          ], { align: 'start', gap: 3 }),
          { type: 'Label', value: 'Notes', fieldName: 'notes' },
          { type: 'Textarea', name: 'notes', placeholder: 'Anything else?', rows: 2 },
          row([
            { type: 'Checkbox', name: 'agree', label: 'I agree to the terms', defaultChecked: true },
            { type: 'Spacer' },
            { type: 'RadioGroup', name: 'size', direction: 'row', defaultValue: 'm', options: [{ label: 'S', value: 's' }, { label: 'M', value: 'm' }, { label: 'L', value: 'l' }] },
          ]),
          row([{ type: 'Label', value: 'Start', fieldName: 'when' }, { type: 'DatePicker', name: 'when', defaultValue: '2026-06-01T00:00:00' }], { gap: 3 }),
          row([{ type: 'Button', submit: true, label: 'Submit', style: 'primary' }]),
        ],
      },
    ],
  };
}

function listView() {
  const rows = ['Quarterly report', 'Design review notes', 'Invoice 1042', 'Roadmap draft', 'Onboarding checklist', 'Meeting minutes'];
  return {
    type: 'ListView', limit: 4, status: { text: 'ListView: 4 of 6 rows, then "Show more"', icon: 'document' },
    children: rows.map((title, i) => ({
      type: 'ListViewItem', key: `row${i}`, gap: 3, onClickAction: act('gallery.open', { title }),
      children: [{ type: 'Icon', name: i % 2 ? 'notebook' : 'document', color: 'secondary' }, col([text(title, { weight: 'medium' }), caption(`${i + 1} day${i ? 's' : ''} ago`)], { gap: 0 }), { type: 'Spacer' }, { type: 'Badge', label: i < 2 ? 'new' : 'seen', color: i < 2 ? 'success' : 'secondary' }],
    })),
  };
}

function charts() {
  return {
    type: 'Card', key: 'charts', children: [
      title('Charts: bar, line and area'),
      {
        type: 'Chart', height: 180, xAxis: 'month', showLegend: true,
        data: [
          { month: 'Jan', visits: 120, signups: 30, churn: 12 }, { month: 'Feb', visits: 150, signups: 42, churn: 18 },
          { month: 'Mar', visits: 90, signups: 25, churn: 9 }, { month: 'Apr', visits: 180, signups: 51, churn: 14 },
          { month: 'May', visits: 160, signups: 64, churn: 11 },
        ],
        series: [
          { type: 'bar', label: 'Visits', dataKey: 'visits' },
          { type: 'line', label: 'Sign-ups', dataKey: 'signups' },
          { type: 'area', label: 'Churn', dataKey: 'churn', color: 'orange' },
        ],
      },
      { type: 'Divider' },
      caption('Stacked bars (same `stack` id) and a custom x-axis label map'),
      {
        type: 'Chart', height: 150, xAxis: { dataKey: 'q', labels: { q1: 'Q1', q2: 'Q2', q3: 'Q3', q4: 'Q4' } },
        data: [{ q: 'q1', web: 3, app: 2, api: 1 }, { q: 'q2', web: 4, app: 3, api: 2 }, { q: 'q3', web: 5, app: 3, api: 4 }, { q: 'q4', web: 6, app: 5, api: 3 }],
        series: [
          { type: 'bar', label: 'Web', dataKey: 'web', stack: 's', color: 'blue' },
          { type: 'bar', label: 'App', dataKey: 'app', stack: 's', color: 'green' },
          { type: 'bar', label: 'API', dataKey: 'api', stack: 's', color: 'pink' },
        ],
      },
    ],
  };
}

function iconsCard() {
  return {
    type: 'Card', key: 'icons', children: [
      title('Icons (the catalog, and a vendor: name with the generic glyph)'),
      row(ICONS.map((name) => col([{ type: 'Icon', name, size: 'lg' }, caption(name, { size: 'sm', truncate: true, textAlign: 'center' })], { align: 'center', gap: 1, width: 84 })), { wrap: 'wrap', gap: 2 }),
    ],
  };
}

function layoutCard() {
  const swatch = (background, label, extra = {}) => ({ type: 'Box', padding: 3, radius: 'md', background, flex: 1, minWidth: 120, children: [caption(label)], ...extra });
  return {
    type: 'Card', key: 'layout', children: [
      title('Layout: Box, Row, Col, Spacer, Divider, Transition'),
      row([
        swatch('surface', 'surface', { border: 1 }),
        swatch('surface-secondary', 'surface-secondary'),
        swatch('surface-tertiary', 'surface-tertiary'),
        swatch('blue-100', 'blue-100'),
        swatch('green-200', 'green-200'),
        swatch({ light: '#fde68a', dark: '#78350f' }, '{light, dark}'),
      ], { wrap: 'wrap' }),
      row([
        { type: 'Box', padding: 2, radius: 'full', background: 'yellow-400', children: [{ type: 'Icon', name: 'bolt', color: 'white', size: 'xl' }] },
        { type: 'Box', padding: 2, border: { size: 2, style: 'dashed', color: 'strong' }, radius: 'sm', children: [caption('dashed border')] },
        { type: 'Box', padding: 2, border: { bottom: { size: 3, color: 'purple-500' } }, children: [caption('bottom border')] },
        { type: 'Spacer' },
        { type: 'Box', width: 96, aspectRatio: '16/9', radius: 'md', background: 'purple-200', align: 'center', justify: 'center', children: [caption('16 / 9')] },
      ], { wrap: 'wrap', gap: 3 }),
      { type: 'Divider', spacing: 1, color: 'subtle' },
      { type: 'Transition', children: { type: 'Text', value: 'A Transition wraps a single child.', size: 'sm' } },
      title('Unknown components', { size: 'sm' }),
      { type: 'FancyFrame', children: [text('An unknown type renders its children…', { size: 'sm' })] },
      { type: 'Gizmo' },
    ],
  };
}

const darkCard = () => ({
  type: 'Card', theme: 'dark', key: 'dark', size: 'sm', children: [
    row([{ type: 'Icon', name: 'star-filled', color: 'warning' }, title('theme: "dark"')]),
    text('A Card can force its own theme.', { color: 'secondary', size: 'sm' }),
    row([{ type: 'Badge', label: 'dark', color: 'discovery' }, { type: 'Button', label: 'OK', size: 'sm', color: 'primary', onClickAction: act('gallery.button', { dark: true }) }]),
  ],
});

const basic = () => ({ type: 'Basic', gap: 1, children: [caption('Basic root: no card chrome'), text('Six roots above: Card, ListView and Basic.')] });

/** Everything of one answer, in order: [item, how] where how is 'done' or 'streamed'. */
function gallery() {
  const toolArgs = JSON.stringify({ amount: 42.5, currency: 'EUR', recipient: 'ACME Corp', memo: 'Invoice 1042' });
  return [
    item('widget', { widget: showcase() }, 'wdg_showcase'),
    item('widget', { widget: typography() }),
    item('widget', { widget: badgesAndButtons() }),
    item('widget', { widget: formCard() }),
    item('widget', { widget: listView() }),
    item('widget', { widget: charts() }),
    item('widget', { widget: iconsCard() }),
    item('widget', { widget: layoutCard() }),
    item('widget', { widget: darkCard() }),
    item('widget', { widget: basic() }),
    item('client_widget', { name: 'tool_approval_request', args: { tool_name: 'send_payment', tool_args: toolArgs, call_id: 'call_gallery', request_id: 'req_gallery' } }, 'wdg_approval'),
    item('client_tool_call', { status: 'completed', call_id: 'call_t1', name: 'get_client_info', arguments: { fields: ['language'] }, output: { language: 'en-US' } }),
    item('client_tool_call', { status: 'completed', call_id: 'call_t2', name: 'read_clipboard', arguments: {}, output: { error: 'The user denied clipboard access.' } }),
    item('structured_input', {
      status: 'pending', inputs: [
        { id: 'color', question: 'Pick a color', type: 'multiple_choice', options: [{ value: 'red' }, { value: 'green' }, { value: 'blue' }], multiple: false },
        { id: 'toppings', question: 'Pick toppings', type: 'multiple_choice', options: [{ value: 'cheese', label: 'Cheese' }, { value: 'basil', label: 'Fresh basil' }], multiple: true },
        { id: 'why', question: 'Why?', type: 'freeform', description: 'Free text' },
      ],
    }, 'si_gallery'),
  ];
}

const state = { items: new Map() };

function sse(events, gapMs = 0) {
  return new ReadableStream({
    async start(controller) {
      for (const event of events) {
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
      }
      controller.close();
    },
  });
}

const message = (textValue) => {
  const msg = item('assistant_message', { content: [{ type: 'output_text', text: textValue, annotations: [] }] }, nextId('msg'));
  return { type: 'thread.item.done', item: msg };
};

/** A streamed widget: value deltas into a Text and a Markdown, then a badge update. */
function streamedWidget() {
  const id = 'wdg_stream';
  const widget = (badge) => ({
    type: 'Card', key: 'stream', size: 'md', children: [
      row([title('Streamed widget'), { type: 'Spacer' }, { id: 'badge', type: 'Badge', label: badge, color: badge === 'done' ? 'success' : 'warning' }]),
      { id: 'live', type: 'Text', value: '', streaming: true },
      { id: 'md', type: 'Markdown', value: '' },
    ],
  });
  const events = [{ type: 'thread.item.added', item: item('widget', { widget: widget('streaming') }, id) }];
  for (const word of 'Widget text streamed word by word with widget.streaming_text.value_delta.'.split(' ')) {
    events.push({ type: 'thread.item.updated', item_id: id, update: { type: 'widget.streaming_text.value_delta', component_id: 'live', delta: `${word} `, done: false } });
  }
  for (const chunk of ['**Markdown** ', 'streams ', 'too:\n\n', '- one\n', '- two\n']) {
    events.push({ type: 'thread.item.updated', item_id: id, update: { type: 'widget.streaming_text.value_delta', component_id: 'md', delta: chunk, done: true } });
  }
  events.push({ type: 'thread.item.updated', item_id: id, update: { type: 'widget.component.updated', component_id: 'badge', component: { id: 'badge', type: 'Badge', label: 'done', color: 'success' } } });
  events.push({ type: 'thread.item.updated', item_id: id, update: { type: 'widget.component.updated', component_id: 'live', component: { id: 'live', type: 'Text', value: 'Widget text streamed word by word with widget.streaming_text.value_delta.' } } });
  return events;
}

function answer(body) {
  const p = body.params ?? {};
  switch (body.type) {
    case 'threads.create': {
      const thread = { id: THREAD, title: 'Widget gallery', created_at: now(), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } };
      const user = item('user_message', { content: p.input?.content ?? [], attachments: [], inference_options: {} }, nextId('msg'));
      const items = gallery();
      for (const i of items) state.items.set(i.id, i);
      return { stream: sse([
        { type: 'thread.created', thread },
        { type: 'thread.item.done', item: user },
        ...items.map((i) => ({ type: 'thread.item.done', item: i })),
        ...streamedWidget(),
        message('Every widget family above. Buttons, the form, the list rows, the approval card and the structured input all send their requests to this page\'s fake endpoint.'),
      ], 4) };
    }
    case 'threads.add_user_message':
      return { stream: sse([message(`You said: ${p.input?.content?.map((c) => c.text).join('') ?? ''}`)], 10) };
    case 'threads.custom_action': {
      const action = p.action ?? {};
      if (action.type === 'approval') {
        const card = state.items.get(p.item_id);
        const decided = { ...card, args: { ...card.args, decision: action.payload?.approved ? 'approved' : 'rejected' } };
        state.items.set(decided.id, decided);
        return { stream: sse([{ type: 'thread.item.replaced', item: decided }, message(action.payload?.approved ? 'Approved: the payment was sent.' : 'Rejected: nothing was sent.')], 300) };
      }
      const pretty = JSON.stringify(action.payload ?? null, null, 2);
      return { stream: sse([message(`Action \`${action.type}\` from \`${p.item_id}\`:\n\n\`\`\`json\n${pretty}\n\`\`\``)], 400) };
    }
    case 'threads.sync_custom_action': {
      counterLabel = (p.action?.payload?.count ?? 0) + 1;
      const updated = { ...state.items.get(p.item_id), widget: showcase() };
      state.items.set(updated.id, updated);
      return { json: { updated_item: updated }, delayMs: 300 };
    }
    case 'threads.add_structured_input': {
      const si = state.items.get(p.item_id);
      const inputs = si.inputs.map((q) => ({ ...q, answer: p.answers?.[q.id] ?? { values: [], skipped: true } }));
      const all = inputs.every((q) => q.answer.skipped);
      const answered = { ...si, status: all ? 'skipped' : 'answered', inputs };
      state.items.set(si.id, answered);
      return { stream: sse([{ type: 'thread.item.replaced', item: answered }, message('Thanks for answering.')], 300) };
    }
    case 'threads.list':
      return { json: { data: [], has_more: false } };
    default:
      return { json: {} };
  }
}

const realFetch = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input.url;
  if (!new URL(url, location.href).pathname.endsWith(ENDPOINT)) return realFetch(input, init);
  const raw = typeof input === 'string' ? init?.body : await input.clone().text();
  const reply = answer(JSON.parse(raw));
  if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  if (reply.stream) return new Response(reply.stream, { headers: { 'content-type': 'text/event-stream' } });
  return new Response(JSON.stringify(reply.json), { headers: { 'content-type': 'application/json' } });
};

// The component: loads its wasm next to it and registers <chat-shell>.
await import('../chat-shell.js');
const chat = document.getElementById('chat');

chat.registerClientAction('gallery.toast', (action) => {
  const note = document.createElement('p');
  note.textContent = `Client action handled in the page: ${action.payload?.text}`;
  note.setAttribute('role', 'status');
  chat.before(note);
  setTimeout(() => note.remove(), 3000);
});
document.getElementById('theme').addEventListener('change', (e) => chat.setAttribute('theme', e.target.value));

// Ask for the gallery: the element is in the page, so it connected when it was defined.
await customElements.whenDefined('chat-shell');
chat.sendUserMessage({ text: 'Show me every widget' });
