// The app shell: header (views, live state, token), hash routing, and live events to views.
import './app.css';
import { ApiError, AuthRequired, forgetPrefetched, prefetch, setAuthHandler, token } from './api';
import { clear, h, toast } from './dom';
import { Live, type ChangeEvent, type LiveState } from './live';
import { MemoryView } from './memory';
import { parseRoute, routeHash, type Route } from './logic';
import * as ops from './ops';
import { clustersQuery } from './graph/clusterquery';
import type { View } from './view';

const app = document.getElementById('app')!;
const main = h('main', { id: 'main', tabindex: '-1' });
const liveBadge = h('span', { class: 'live connecting', role: 'status', 'aria-live': 'polite', title: 'Live updates' }, 'Connecting…');
const signOut = h('button', { type: 'button', class: 'link', hidden: true, onclick: () => { token.clear(); location.reload(); } }, 'Forget token');
const tabs: Record<Route['view'], HTMLAnchorElement> = {
  memory: h('a', { href: '#/memory' }, 'Memory'),
  graph: h('a', { href: '#/graph' }, 'Graph'),
  problems: h('a', { href: '#/problems' }, 'Link integrity'),
  changes: h('a', { href: '#/changes' }, 'Changes'),
};
app.append(
  h('a', { class: 'skip', href: '#main', onclick: (e: Event) => { e.preventDefault(); main.focus(); } }, 'Skip to content'),
  h('header', { class: 'top' },
    h('span', { class: 'brand' }, 'brain'),
    h('nav', { 'aria-label': 'Views' }, Object.values(tabs)),
    h('span', { class: 'spacer' }),
    liveBadge, signOut),
  main,
  h('div', { id: 'toast', class: 'toast', role: 'status', 'aria-live': 'polite' }),
);

const views: Partial<Record<Route['view'], View>> = {};
// The memory list (the first screen) is part of this file, so it needs no second round trip;
// the graph (with its library), the problems and the editor are chunks loaded when first shown.
async function view(name: Route['view']): Promise<View> {
  let v = views[name];
  if (!v) {
    v = name === 'memory' ? new MemoryView()
      : name === 'graph' ? new (await import('./graph/view')).GraphView()
      : name === 'changes' ? new (await import('./changes')).ChangesView()
      : new (await import('./problems')).ProblemsView();
    views[name] = v;
  }
  return v;
}

let current: View | null = null;
async function route(): Promise<void> {
  const r = parseRoute(location.hash || '#/memory');
  for (const [name, tab] of Object.entries(tabs)) {
    if (name === r.view) tab.setAttribute('aria-current', 'page'); else tab.removeAttribute('aria-current');
  }
  const v = await view(r.view);
  if (current !== v) {
    clear(main, v.el);
    current = v;
  }
  document.title = `brain · ${tabs[r.view].textContent}`;
  try {
    await v.show(r);
  } catch (e) {
    if (e instanceof AuthRequired) return;  // the sign-in dialog is up; the route runs again after
    if (e instanceof ApiError) { toast(e.message, 'error'); return; }
    throw e;
  }
}

// Live: batch events per animation frame-ish tick, hand them to every view that exists.
let pending: ChangeEvent[] = [];
let flush: ReturnType<typeof setTimeout> | undefined;
const live = new Live((event) => {
  pending.push(event);
  clearTimeout(flush);
  flush = setTimeout(() => {
    const batch = pending;
    pending = [];
    for (const v of Object.values(views)) v?.changed(batch);
  }, 150);
}, showLive);

function showLive(state: LiveState, reconnected: boolean): void {
  const text = {
    connecting: 'Connecting…',
    live: 'Live',
    retrying: 'Reconnecting…',
    unauthorized: 'Not signed in',
  }[state.status];
  liveBadge.textContent = text;
  liveBadge.className = `live ${state.status}`;
  liveBadge.title = state.status === 'live' ? 'Following changes as they happen' :
    state.status === 'retrying' ? 'The server is not reachable; retrying with backoff' : text;
  // After an outage anything may have changed: every view reloads what it shows.
  if (reconnected) for (const v of Object.values(views)) v?.changed([{ seq: -1, kind: 'RESYNC', id: '*', scope: null, fields: [] }]);
}

// Tokens: when the server asks for one, ask the person; keep it for this tab only.
let asking = false;
setAuthHandler((e) => {
  if (asking) return;
  asking = true;
  const input = h('input', { type: 'password', id: 'token-input', autocomplete: 'off', required: true });
  const error = h('p', { class: 'error', role: 'alert' }, e.invalid ? e.message : '');
  const dialog = h('dialog', { class: 'modal', 'aria-labelledby': 'token-title' },
    h('form', { onsubmit: (ev: Event) => {
      ev.preventDefault();
      const value = input.value.trim();
      if (!value) { error.textContent = 'Paste a token first.'; return; }
      token.set(value);
      dialog.close();
      dialog.remove();
      asking = false;
      signOut.hidden = false;
      live.restart();
      void route();
    } },
      h('h2', { id: 'token-title' }, 'Sign in to brain'),
      h('p', {}, 'This brain asks for a token (BRAIN_TOKEN, or one from BRAIN_TOKENS_FILE). It is kept for this tab only.'),
      h('label', { for: 'token-input' }, 'Token'), input, error,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in'))));
  dialog.addEventListener('cancel', (ev) => ev.preventDefault());
  document.body.appendChild(dialog);
  dialog.showModal();
  input.focus();
});

/**
 * The first screen's data is asked for now, while its view's code is still downloading: the
 * view's own request for it takes this answer (api.prefetch).
 */
function prefetchFirstScreen(r: Route): void {
  if (r.view === 'memory' && !r.file) prefetch(...ops.firstPage(r.scope ?? 'shared'));
  // The graph's first picture starts with the workspace's summary (it says whether to draw every note).
  else if (r.view === 'graph' && !r.node && !r.cluster) prefetch(...clustersQuery(r.asOf ?? null));
}

signOut.hidden = !token.get();
window.addEventListener('hashchange', () => void route());
if (!location.hash) history.replaceState(null, '', routeHash({ view: 'memory' }));
performance.mark('app:start');  // bench/bench_ui.py reports where the first screen's time goes
prefetchFirstScreen(parseRoute(location.hash));
live.start();
void route().finally(forgetPrefetched);
