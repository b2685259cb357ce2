/**
 * Whether one upstream node may take requests: the newer of the last health check that passed and
 * the last request or check that failed decides. A check's answer can come back after a request to
 * the node failed (a node that is stopping answers the check it already had in hand, then nothing):
 * that answer is older news than the failure, so it leaves the node down, and a check sent after the
 * failure decides. Events are ordered by a counter, not a clock.
 */
export class UpstreamHealth {
  #healthy = false;
  #events = 0;
  #failedAt = 0;

  /** Whether the node passed its last check and failed nothing since. */
  get healthy(): boolean {
    return this.#healthy;
  }

  /** A health check is being sent: what to hand to {@link passed} when it passes. */
  checkSent(): number {
    this.#events += 1;
    return this.#events;
  }

  /**
   * The check `sent` ({@link checkSent}) passed: the node is healthy unless a request or check failed
   * after that check was sent. True when the check counted.
   */
  passed(sent: number): boolean {
    if (this.#failedAt > sent) return false;
    this.#healthy = true;
    return true;
  }

  /** A request or a check failed: the node is down until a check sent after this passes. */
  failed(): void {
    this.#events += 1;
    this.#failedAt = this.#events;
    this.#healthy = false;
  }
}
