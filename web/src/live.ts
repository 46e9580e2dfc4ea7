// graphChanged over graphql-transport-ws, reconnecting with backoff (the server may restart).
import { backoffDelay } from './logic';
import { token } from './api';

export type ChangeEvent = { seq: number; kind: string; id: string; scope: string | null; fields: string[] };
export type LiveState = { status: 'connecting' | 'live' | 'retrying' | 'unauthorized'; retryAt?: number };

const SUBSCRIPTION = `subscription { graphChanged { seq kind id scope fields } }`;

export class Live {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  state: LiveState = { status: 'connecting' };

  constructor(
    private readonly onEvent: (e: ChangeEvent) => void,
    private readonly onState: (s: LiveState, reconnected: boolean) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close(1000);
  }

  /** Reconnect now (e.g. after a new token). */
  restart(): void {
    clearTimeout(this.timer);
    this.attempt = 0;
    const s = this.socket;
    this.socket = null;
    s?.close(1000);
    this.connect();
  }

  private set(state: LiveState, reconnected = false): void {
    this.state = state;
    this.onState(state, reconnected);
  }

  private connect(): void {
    if (this.stopped) return;
    const wasRetrying = this.attempt > 0;
    this.set({ status: 'connecting' });
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
    const socket = new WebSocket(url, 'graphql-transport-ws');
    this.socket = socket;
    let acked = false;
    socket.onopen = () => {
      const t = token.get();
      socket.send(JSON.stringify({ type: 'connection_init', payload: t ? { Authorization: `Bearer ${t}` } : {} }));
    };
    socket.onmessage = (message) => {
      let msg: { type: string; id?: string; payload?: { data?: { graphChanged?: ChangeEvent } } };
      try { msg = JSON.parse(String(message.data)); } catch { return; }
      if (msg.type === 'connection_ack') {
        acked = true;
        this.attempt = 0;
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } }));
        this.set({ status: 'live' }, wasRetrying);
      } else if (msg.type === 'next' && msg.payload?.data?.graphChanged) {
        this.onEvent(msg.payload.data.graphChanged);
      } else if (msg.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = null;
      if (event.code === 4403 || (!acked && event.code === 4400 && /token/.test(event.reason))) {
        this.set({ status: 'unauthorized' });
        return;
      }
      const delay = backoffDelay(this.attempt++);
      this.set({ status: 'retrying', retryAt: Date.now() + delay });
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }
}
