// What every view of the UI is to the shell (main.ts): its own module, so the views and the
// shell that loads them import it and not each other.
import type { ChangeEvent } from './live';
import type { Route } from './logic';

export interface View {
  readonly el: HTMLElement;
  show(route: Route): Promise<void>;
  /** Changes applied to the graph since the last call (batched). */
  changed(events: ChangeEvent[]): void;
}
