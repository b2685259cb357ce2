import { EventEmitter } from "node:events";

/**
 * A typed event emitter: `Events` maps each event name to its listener's argument.
 * Listeners run synchronously in registration order.
 */
export class EventBus<Events extends { [K in keyof Events]: unknown }> {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Registers `listener` and returns a function that removes it. */
  on<K extends keyof Events & string>(event: K, listener: (payload: Events[K]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  /** Delivers `payload` to every listener of `event`. */
  emit<K extends keyof Events & string>(event: K, payload: Events[K]): void {
    this.emitter.emit(event, payload);
  }
}
