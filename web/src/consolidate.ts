// The Consolidate panel of a scope (seeds/000 "Consolidate", issue 13): runs the model pass
// through the memoryConsolidation subscription, which starts the run and streams its steps
// with the report last; where no WebSocket gets through, the consolidateMemory mutation runs
// it instead (the report without the live steps). Starting both would run the scope twice.
import { ApiError, gql, token } from './api';
import { clear, h } from './dom';
import {
  CONSOLIDATE_MUTATION, CONSOLIDATION_SUBSCRIPTION, describeEvent, readMessage, reportHeadline,
  type ConsolidationEvent, type ConsolidationReport,
} from './consolidation';
import { noteOfPath, routeHash } from './logic';

export class ConsolidatePanel {
  readonly el: HTMLElement;
  private readonly log = h('ol', { class: 'consolidation-log', role: 'log', 'aria-label': 'Consolidation progress' });
  private readonly result = h('div', { class: 'consolidation-result' });
  private readonly state = h('p', { class: 'muted', role: 'status' });
  running = false;

  constructor(readonly scope: string, title: string) {
    this.el = h('section', { class: 'consolidation', 'aria-label': `Consolidation of ${title}` },
      h('h2', {}, `Consolidation of ${title}`), this.state, this.log, this.result);
  }

  async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    clear(this.log);
    clear(this.result);
    this.state.textContent = 'Asking the model to tidy this scope…';
    try {
      const report = await this.subscribe().catch(async (e: unknown) => {
        if (!(e instanceof NoSocket)) throw e;
        this.state.textContent = 'Running (no live connection: the report comes at the end)…';
        return (await gql<{ consolidateMemory: ConsolidationReport }>(CONSOLIDATE_MUTATION, { scope: this.scope })).consolidateMemory;
      });
      this.showReport(report);
    } catch (e) {
      this.state.textContent = '';
      clear(this.result, h('p', { class: 'error', role: 'alert' }, `Not consolidated: ${(e as Error).message}`));
    } finally {
      this.running = false;
    }
  }

  private step(e: ConsolidationEvent): void {
    this.log.append(h('li', { class: `ev-${e.kind}${e.ok === false ? ' failed' : ''}` }, describeEvent(e)));
    this.state.textContent = `Running… ${describeEvent(e)}`;
  }

  private showReport(r: ConsolidationReport): void {
    this.state.textContent = `Finished: ${reportHeadline(r)}`;
    const pathLink = (path: string) => {
      const note = noteOfPath(path);
      return note ? h('a', { href: routeHash({ view: 'memory', ...note }) }, path) : h('code', {}, path);
    };
    clear(this.result, h('div', { class: `report st-${r.status}`, role: 'region', 'aria-label': 'Consolidation report' },
      h('h3', {}, 'Report'),
      h('p', { class: 'headline' }, reportHeadline(r)),
      r.message ? h('p', {}, r.message) : null,
      r.summary ? h('pre', { class: 'summary', tabindex: '0', 'aria-label': 'The model’s summary' }, r.summary) : null,
      h('h4', {}, 'Paths touched'),
      r.changes.length ? h('ul', { class: 'changes' }, r.changes.map((c) => h('li', {}, h('code', {}, c.command), ' ', c.paths.map((p, i) => [i ? ', ' : '', pathLink(p)]))))
        : h('p', { class: 'muted' }, 'Nothing changed.'),
      h('h4', {}, 'To look at'),
      r.review.length ? h('ul', { class: 'review' }, r.review.map((x) => h('li', {}, x)))
        : h('p', { class: 'muted' }, 'Nothing beyond the summary: read it, and the notes it touched.')));
  }

  /** The run over graphql-transport-ws: resolves with the report, or rejects (NoSocket: use the mutation). */
  private subscribe(): Promise<ConsolidationReport> {
    return new Promise((resolve, reject) => {
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
      const socket = new WebSocket(url, 'graphql-transport-ws');
      let started = false;
      let report: ConsolidationReport | null = null;
      const done = (fn: () => void) => { socket.onclose = null; socket.close(1000); fn(); };
      socket.onopen = () => {
        const t = token.get();
        socket.send(JSON.stringify({ type: 'connection_init', payload: t ? { Authorization: `Bearer ${t}` } : {} }));
      };
      socket.onmessage = (m) => {
        const step = readMessage(String(m.data), '1');
        if (step.kind === 'ack') {
          started = true;
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: CONSOLIDATION_SUBSCRIPTION, variables: { scope: this.scope } } }));
        } else if (step.kind === 'ping') {
          socket.send(JSON.stringify({ type: 'pong' }));
        } else if (step.kind === 'event') {
          this.step(step.event);
          if (step.event.report) report = step.event.report;
        } else if (step.kind === 'error') {
          done(() => reject(new ApiError(step.message)));
        } else if (step.kind === 'complete') {
          done(() => (report ? resolve(report) : reject(new ApiError('the run ended without a report'))));
        }
      };
      socket.onclose = (e) => {
        if (!started) reject(new NoSocket(e.reason || 'no live connection'));
        else reject(new ApiError(report ? 'the connection closed after the report' : `the connection closed during the run (${e.code})`));
      };
    });
  }
}

class NoSocket extends Error {}
