/**
 * How often a crashed server is restarted: at most `max` times within `windowMs`, then it
 * stays stopped (a server that dies at start would otherwise restart in a loop). Pure.
 */
export class RestartBudget {
  private restarts: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Records a crash at `now`; true when the server may be restarted. */
  allow(now: number): boolean {
    this.restarts = this.restarts.filter((t) => now - t < this.windowMs);
    if (this.restarts.length >= this.max) return false;
    this.restarts.push(now);
    return true;
  }
}
