// receipt's web app: a template designer with a live preview, and the print queue.
// Plain JavaScript; the one library is the editor, CodeMirror 5 (Vendor/codemirror, served by the
// daemon as /codemirror.js); nothing is fetched from anywhere but this daemon.
'use strict';

const $ = (id) => document.getElementById(id);

// ---- Token and API ---------------------------------------------------------------------

const tokenKey = 'receipt-token';
let tokenPrompt = null;

// A token in the address (`#token=…`, as `receipt design` prints it) is kept for this tab and
// removed from the address bar.
function takeTokenFromAddress() {
  const match = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(tokenKey, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
}
takeTokenFromAddress();
window.addEventListener('hashchange', takeTokenFromAddress);

function authHeaders(extra = {}) {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { ...extra, Authorization: 'Bearer ' + token } : extra;
}

// Asks for a token (once, however many requests were refused) and resolves when one is given.
function askForToken() {
  if (!tokenPrompt) {
    tokenPrompt = new Promise((resolve) => {
      const dialog = $('token-dialog');
      const input = $('token-input');
      const done = () => {
        if (!input.value) return;
        sessionStorage.setItem(tokenKey, input.value);
        input.value = '';
        dialog.close();
        tokenPrompt = null;
        resolve();
      };
      $('token-ok').onclick = done;
      input.onkeydown = (event) => { if (event.key === 'Enter') done(); };
      dialog.showModal();
      input.focus();
    });
  }
  return tokenPrompt;
}

// A request to the daemon with the token; asks for one on 401 and tries again.
async function api(path, options = {}) {
  for (;;) {
    const response = await fetch(path, { ...options, headers: authHeaders(options.headers || {}) });
    if (response.status !== 401) return response;
    await askForToken();
  }
}

async function problemOf(response) {
  try {
    const problem = await response.json();
    return problem;
  } catch {
    return { detail: response.status + ' ' + response.statusText };
  }
}

// ---- Tabs --------------------------------------------------------------------------------

function selectTab(name) {
  for (const tab of document.querySelectorAll('[role=tab]')) {
    const selected = tab.getAttribute('aria-controls') === name;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(tab.getAttribute('aria-controls')).hidden = !selected;
  }
  if (name === 'queue') loadQueue();
}

function setUpTabs() {
  const tabs = [...document.querySelectorAll('[role=tab]')];
  tabs.forEach((tab, index) => {
    tab.onclick = () => selectTab(tab.getAttribute('aria-controls'));
    tab.onkeydown = (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      next.focus();
      selectTab(next.getAttribute('aria-controls'));
    };
  });
}

// ---- Designer ----------------------------------------------------------------------------

const designer = { sequence: 0, controller: null, timer: null, lastPNG: null, editor: null, marked: [] };

// The template editor: XML highlighting, matching tags, closing tags, and completion of the
// template vocabulary (/vocabulary.json, the renderer's own tables) after `<`, a space in a tag
// and `=`; Ctrl-Space completes anywhere, Ctrl-S (⌘S) saves.
function createEditor(schema) {
  const hintSoon = (cm, when) => {
    setTimeout(() => {
      if (!cm.state.completionActive && (!when || when())) cm.showHint({ completeSingle: false });
    }, 50);
    return CodeMirror.Pass;
  };
  const inTag = (cm) => () => {
    const token = cm.getTokenAt(cm.getCursor());
    if (token.type === 'string' && token.string.length > 1 && /['"]$/.test(token.string)) return false;
    return Boolean(CodeMirror.innerMode(cm.getMode(), token.state).state.tagName);
  };
  const afterLessThan = (cm) => () => {
    const cursor = cm.getCursor();
    return cm.getRange(CodeMirror.Pos(cursor.line, cursor.ch - 1), cursor) === '<';
  };
  const save = () => { saveTemplate(); };
  const editor = CodeMirror.fromTextArea($('source'), {
    mode: 'xml', lineNumbers: true, indentUnit: 2, tabSize: 2, indentWithTabs: false,
    autoCloseTags: true, matchTags: { bothTags: true }, screenReaderLabel: 'Template (XML)',
    hintOptions: { schemaInfo: schema },
    extraKeys: {
      "'<'": (cm) => hintSoon(cm), "'/'": (cm) => hintSoon(cm, afterLessThan(cm)),
      "' '": (cm) => hintSoon(cm, inTag(cm)), "'='": (cm) => hintSoon(cm, inTag(cm)),
      'Ctrl-Space': 'autocomplete', 'Ctrl-S': save, 'Cmd-S': save,
      // Tab indents; Escape leaves the editor (no keyboard trap) for the order field.
      Tab: 'insertSoftTab', Esc: () => $('data').focus(),
    },
  });
  editor.getInputField().setAttribute('aria-describedby', 'errors');
  document.querySelector('label[for=source]').addEventListener('click', () => editor.focus());
  editor.on('changes', schedulePreview);
  return editor;
}

function templateText() {
  return designer.editor.getValue();
}

function showErrors(problems) {
  const errors = $('errors');
  errors.textContent = '';
  const lines = new Set();
  for (const problem of problems) {
    const line = document.createElement('div');
    if (problem.location && problem.field === 'source') {
      lines.add(problem.location.line);
      const go = document.createElement('button');
      go.className = 'goto';
      go.type = 'button';
      go.textContent = `line ${problem.location.line}, column ${problem.location.column}`;
      go.onclick = () => moveTo(problem.location.line, problem.location.column);
      line.append(go, ': ');
    } else if (problem.location && problem.field === 'data') {
      line.append(`Order, line ${problem.location.line}, column ${problem.location.column}: `);
    }
    line.append(problem.detail);
    errors.append(line);
  }
  markErrorLines(lines);
}

// Marks the template's lines that have errors (in the line-number gutter and as a tint), for
// eyes and for assistive technology.
function markErrorLines(lines) {
  const editor = designer.editor;
  editor.operation(() => {
    for (const handle of designer.marked) editor.removeLineClass(handle, 'wrap', 'error-line');
    designer.marked = [];
    for (const line of lines) {
      if (line < 1 || line > editor.lineCount()) continue;
      designer.marked.push(editor.addLineClass(line - 1, 'wrap', 'error-line'));
    }
  });
  editor.getInputField().setAttribute('aria-invalid', String(lines.size > 0));
  editor.getWrapperElement().dataset.errorLines = [...lines].sort((a, b) => a - b).join(' ');
}

// Puts the caret at a line and column of the template.
function moveTo(line, column) {
  const editor = designer.editor;
  editor.focus();
  editor.setCursor({ line: line - 1, ch: Math.max(0, column - 1) });
  editor.scrollIntoView(null, 100);
}

function previewRequest() {
  let data;
  try {
    data = JSON.parse($('data').value);
  } catch (error) {
    return { error: { detail: 'The order is not valid JSON: ' + error.message, field: 'data' } };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { error: { detail: 'The order must be a JSON object.', field: 'data' } };
  }
  const body = { template: $('save-name').value || $('template-select').value || 'template',
                 source: templateText(), data };
  const locale = $('locale').value.trim();
  if (locale) body.locale = locale;
  const paper = $('paper-select').value;
  if (paper.startsWith('paper:')) body.paper = paper.slice(6);
  if (paper.startsWith('model:')) body.model = paper.slice(6);
  if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(body.template)) body.template = 'template';
  return { body };
}

function schedulePreview() {
  clearTimeout(designer.timer);
  $('preview-box').classList.add('stale');
  designer.timer = setTimeout(renderPreview, 300);
}

async function renderPreview() {
  const { body, error } = previewRequest();
  if (error) {
    showErrors([error]);
    return;
  }
  if (designer.controller) designer.controller.abort();
  const controller = new AbortController();
  designer.controller = controller;
  const sequence = ++designer.sequence;
  $('preview-state').textContent = 'rendering…';
  let response;
  try {
    response = await api('/v1/render?format=png&bytes=escpos', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body), signal: controller.signal,
    });
  } catch (failure) {
    if (failure.name !== 'AbortError') $('preview-state').textContent = 'the daemon did not answer';
    return;
  }
  if (sequence !== designer.sequence) return;
  if (!response.ok) {
    showErrors([await problemOf(response)]);
    $('preview-state').textContent = 'not rendered: see the error';
    return;
  }
  const png = await response.blob();
  if (sequence !== designer.sequence) return;
  showErrors([]);
  const cut = response.headers.get('Receipt-Cut-Length');
  const mm = response.headers.get('Receipt-Cut-Length-Mm');
  const dots = response.headers.get('Receipt-Cut-Length-Dots');
  const bytes = response.headers.get('Receipt-ESCPOS-Bytes');
  $('cut-length').textContent = `${mm} mm (${cut} pt, ${dots} dots)`;
  $('cut-length').dataset.dots = dots;
  $('byte-count').textContent = bytes ? `${Number(bytes).toLocaleString()} bytes` : '–';
  const image = $('preview');
  if (designer.lastPNG) URL.revokeObjectURL(designer.lastPNG);
  designer.lastPNG = URL.createObjectURL(png);
  image.onload = () => {
    applyZoom();
    image.dataset.sequence = String(sequence);
    $('preview-box').classList.remove('stale');
    $('preview-state').textContent = '';
  };
  image.src = designer.lastPNG;
}

// The preview at a chosen size: the paper's real width (CSS inches), one printer dot per
// screen pixel, twice that, or the width of the pane.
function applyZoom() {
  const image = $('preview');
  const zoom = $('zoom').value;
  const box = $('preview-box');
  box.classList.toggle('fit', zoom === 'fit');
  if (!image.naturalWidth) return;
  const dpi = 203;
  const widths = { paper: image.naturalWidth / dpi * 96, dots: image.naturalWidth, double: image.naturalWidth * 2 };
  image.style.width = zoom === 'fit' ? '' : `${widths[zoom]}px`;
}

async function downloadPDF() {
  const { body, error } = previewRequest();
  if (error) return showErrors([error]);
  const response = await api('/v1/render?format=pdf', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) return showErrors([await problemOf(response)]);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = `${body.template}.pdf`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

async function saveTemplate() {
  const name = $('save-name').value.trim();
  const status = $('save-status');
  if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(name)) {
    status.textContent = 'Give the template a name: letters, digits, - and _.';
    $('save-name').focus();
    return;
  }
  status.textContent = 'saving…';
  const response = await api(`/v1/templates/${encodeURIComponent(name)}`, {
    method: 'PUT', headers: { 'Content-Type': 'application/xml; charset=utf-8' }, body: templateText(),
  });
  if (!response.ok) {
    const problem = await problemOf(response);
    status.textContent = 'Not saved: ' + problem.detail;
    if (problem.location) showErrors([problem]);
    return;
  }
  const saved = await response.json();
  status.textContent = saved.previous ? `Saved; the previous version is ${saved.previous}.` : 'Saved.';
  await loadTemplateList(name);
}

async function loadTemplateList(selected) {
  const response = await api('/v1/templates');
  if (!response.ok) return;
  const { templates } = await response.json();
  const select = $('template-select');
  select.textContent = '';
  for (const name of templates) select.append(new Option(name, name, false, name === selected));
}

async function loadTemplate(name) {
  const response = await api(`/v1/templates/${encodeURIComponent(name)}`);
  if (!response.ok) return;
  designer.editor.setValue(await response.text());
  designer.editor.clearHistory();
  $('save-name').value = name;
  $('save-status').textContent = '';
  schedulePreview();
}

async function loadExample(name) {
  const response = await api(`/v1/examples/${encodeURIComponent(name)}`);
  if (!response.ok) return;
  $('data').value = await response.text();
  schedulePreview();
}

async function setUpDesigner() {
  const vocabulary = await fetch('/vocabulary.json');
  designer.editor = createEditor(vocabulary.ok ? await vocabulary.json() : {});
  $('data').addEventListener('input', schedulePreview);
  for (const id of ['paper-select', 'locale']) $(id).addEventListener('change', schedulePreview);
  $('zoom').addEventListener('change', applyZoom);
  $('template-select').addEventListener('change', (event) => loadTemplate(event.target.value));
  $('example-select').addEventListener('change', (event) => loadExample(event.target.value));
  $('download-pdf').onclick = downloadPDF;
  $('save').onclick = saveTemplate;

  const [models, examples] = await Promise.all([api('/v1/models'), api('/v1/examples')]);
  if (models.ok) {
    const group = document.createElement('optgroup');
    group.label = 'Printer models';
    for (const model of (await models.json()).models) {
      group.append(new Option(`${model.title} (${model.dpi} dpi)`, 'model:' + model.name));
    }
    $('paper-select').append(group);
  }
  let firstExample = null;
  if (examples.ok) {
    const names = (await examples.json()).examples;
    firstExample = names.includes('small') ? 'small' : names[0];
    for (const name of names) $('example-select').append(new Option(name, name, false, name === firstExample));
  }
  await loadTemplateList('receipt');
  if (firstExample) {
    const response = await api(`/v1/examples/${encodeURIComponent(firstExample)}`);
    if (response.ok) $('data').value = await response.text();
  } else {
    $('data').value = '{}';
  }
  const first = $('template-select').value;
  if (first) await loadTemplate(first);
}

// ---- Queue -------------------------------------------------------------------------------

// `touched`: jobs an event has reported since the event stream began. The stream starts before
// any listing is read and delivers every change in commit order, so for these jobs the latest
// event is at least as new as a listing; a listing fills in only the others.
const queue = { jobs: new Map(), touched: new Set(), selected: null, printers: new Map() };

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  return td;
}

function stateBadge(state) {
  const span = document.createElement('span');
  span.className = `state state-${state}`;
  span.textContent = state;
  return span;
}

function matchesFilters(job) {
  const state = $('state-filter').value;
  const printer = $('printer-filter').value;
  return (!state || job.state === state) && (!printer || job.printer === printer);
}

function jobButtons(job) {
  const buttons = [];
  const add = (label, action) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.textContent = label;
    button.setAttribute('aria-label', `${label} job ${job.id.slice(0, 8)}`);
    button.onclick = (event) => { event.stopPropagation(); action(); };
    buttons.push(button);
  };
  if (job.state === 'failed' || job.state === 'dead') add('Retry', () => jobAction(job, 'POST', 'retry'));
  if (job.state === 'queued') add('Cancel', () => jobAction(job, 'DELETE', ''));
  return buttons;
}

async function jobAction(job, method, verb) {
  // The event stream reports every change in commit order; the answer can arrive after it has
  // already told of what followed (a retry answers "queued" after "completed" came): the answer
  // is shown only when no event told of the job meanwhile (the same rule as the listing's).
  queue.touched.delete(job.id);
  const response = await api(`/v1/jobs/${job.id}${verb ? '/' + verb : ''}`, { method });
  if (response.ok) {
    const answer = await response.json();
    if (!queue.touched.has(job.id)) upsertJob(answer);
  } else {
    const problem = await problemOf(response);
    alert(problem.detail);
  }
}

function renderJobRow(job) {
  const row = document.createElement('tr');
  row.dataset.jobId = job.id;
  row.dataset.state = job.state;
  row.tabIndex = 0;
  row.append(cell(job.id.slice(0, 8)), cell(job.printer), cell(job.template));
  const state = document.createElement('td');
  state.append(stateBadge(job.state));
  row.append(state, cell(String(job.attempts)), cell(new Date(job.updatedAt).toLocaleTimeString()));
  const actions = document.createElement('td');
  actions.append(...jobButtons(job));
  row.append(actions);
  row.onclick = () => showJob(job.id);
  row.onkeydown = (event) => { if (event.key === 'Enter') showJob(job.id); };
  if (queue.selected === job.id) row.classList.add('selected');
  return row;
}

function upsertJob(job) {
  queue.jobs.set(job.id, job);
  const body = document.querySelector('#jobs tbody');
  const existing = body.querySelector(`tr[data-job-id="${job.id}"]`);
  if (!matchesFilters(job)) {
    if (existing) existing.remove();
  } else if (existing) {
    existing.replaceWith(renderJobRow(job));
  } else {
    // Newest first, as GET /v1/jobs lists them.
    const after = [...body.children].find((row) => queue.jobs.get(row.dataset.jobId)?.sequence < job.sequence);
    body.insertBefore(renderJobRow(job), after || null);
  }
  if (queue.selected === job.id) showJob(job.id);
}

function showJob(id) {
  const job = queue.jobs.get(id);
  if (!job) return;
  queue.selected = id;
  for (const row of document.querySelectorAll('#jobs tbody tr')) {
    row.classList.toggle('selected', row.dataset.jobId === id);
  }
  $('job-detail').hidden = false;
  $('job-detail-title').textContent = `Job ${job.id}`;
  const fields = $('job-fields');
  fields.textContent = '';
  const facts = [
    ['State', job.state], ['Printer', job.printer], ['Template', job.template], ['Attempts', job.attempts],
    ['Error', job.error], ['Printer says', job.printerState], ['CUPS job', job.cupsJobId],
    ['Order', job.orderId], ['Route', job.route], ['Meant for', job.fallbackFor], ['Why moved', job.failoverReason],
    ['Reprint of', job.reprintOf], ['Created', job.createdAt], ['Updated', job.updatedAt],
  ];
  for (const [name, value] of facts) {
    if (value === undefined || value === null || value === '') continue;
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.textContent = String(value);
    fields.append(dt, dd);
  }
  const printer = queue.printers.get(job.printer);
  if (printer && printer.reasons.length) {
    const dt = document.createElement('dt');
    dt.textContent = 'Printer reasons';
    const dd = document.createElement('dd');
    dd.textContent = printer.reasons.join(', ');
    fields.append(dt, dd);
  }
  const actions = $('job-actions');
  actions.textContent = '';
  actions.append(...jobButtons(job));
}

function upsertPrinter(printer) {
  queue.printers.set(printer.name, printer);
  const body = document.querySelector('#printers tbody');
  const row = document.createElement('tr');
  row.dataset.printer = printer.name;
  row.dataset.state = printer.state;
  const state = document.createElement('td');
  state.append(stateBadge(printer.state));
  // With a PostgreSQL queue shared by several daemons, which one drives the printer.
  const notes = printer.owner ? [...printer.reasons, `driven by ${printer.owner}`] : printer.reasons;
  row.append(cell(printer.name), state, cell(notes.join(', ')), cell(String(printer.queued)),
             cell(String(printer.printing)));
  const existing = body.querySelector(`tr[data-printer="${CSS.escape(printer.name)}"]`);
  if (existing) existing.replaceWith(row); else body.append(row);
  const filter = $('printer-filter');
  if (![...filter.options].some((option) => option.value === printer.name)) {
    filter.append(new Option(printer.name, printer.name));
  }
}

async function loadQueue() {
  const [printers, jobs] = await Promise.all([api('/v1/printers'), loadJobs()]);
  if (printers.ok) for (const printer of (await printers.json()).printers) upsertPrinter(printer);
  return jobs;
}

async function loadJobs() {
  const query = new URLSearchParams({ limit: '100' });
  if ($('state-filter').value) query.set('state', $('state-filter').value);
  if ($('printer-filter').value) query.set('printer', $('printer-filter').value);
  const response = await api('/v1/jobs?' + query);
  if (!response.ok) return;
  document.querySelector('#jobs tbody').textContent = '';
  for (const listed of (await response.json()).jobs.reverse()) {
    upsertJob(queue.touched.has(listed.id) ? queue.jobs.get(listed.id) : listed);
  }
}

// ---- Events (Server-Sent Events over fetch, so the token can go in a header) --------------

const events = { lastId: null, opened: null };
events.ready = new Promise((resolve) => { events.opened = resolve; });

async function listen() {
  const status = $('connection');
  for (;;) {
    try {
      const headers = events.lastId ? { 'Last-Event-ID': events.lastId } : {};
      const response = await api('/v1/events', { headers });
      if (!response.ok) throw new Error('events: ' + response.status);
      status.textContent = 'live';
      status.className = 'live';
      events.opened();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          handleEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (error) {
      // Reconnect below.
    }
    status.textContent = 'reconnecting…';
    status.className = 'down';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function handleEvent(block) {
  let type = 'message';
  let data = '';
  let id = null;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data += value;
    else if (field === 'id') id = value;
  }
  if (id) events.lastId = id;
  if (!data) return;
  const payload = JSON.parse(data);
  if (type === 'job') {
    queue.touched.add(payload.id);
    upsertJob(payload);
  } else if (type === 'printer') {
    upsertPrinter(payload);
  } else if (type === 'reset') {
    // Changes were missed (a long disconnection, a restarted daemon): start over from a listing.
    queue.touched.clear();
    loadQueue();
  }
}

// ---- Start -------------------------------------------------------------------------------

document.addEventListener('DOMContentLoaded', async () => {
  setUpTabs();
  $('state-filter').addEventListener('change', loadJobs);
  $('printer-filter').addEventListener('change', loadJobs);
  listen();
  await setUpDesigner();
  // The listing is read after the event stream is open (or after 3 s without one).
  await Promise.race([events.ready, new Promise((resolve) => setTimeout(resolve, 3000))]);
  await loadQueue();
});
