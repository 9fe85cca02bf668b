/**
 * A minimal typed event emitter (no `node:events`, so the same code serves a phone app's JS layer).
 * A throwing listener is reported to `onListenerError` and never breaks recording or delivery.
 */
export class Emitter<Events extends { type: string }> {
  private readonly listeners = new Map<string, Set<(event: Events) => void>>();

  constructor(private readonly onListenerError: (error: unknown, event: Events) => void) {}

  /** Subscribes to one event type; returns the function that unsubscribes. */
  on<K extends Events['type']>(type: K, listener: (event: Extract<Events, { type: K }>) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    const wrapped = listener as (event: Events) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  emit(event: Events): void {
    for (const listener of [...(this.listeners.get(event.type) ?? [])]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
